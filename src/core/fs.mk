# core module 'fs': FW_CORE_SRC += src/core/fw_fs.c src/core/fw_fs.h
