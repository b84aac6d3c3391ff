# core module 'prio': FW_CORE_SRC += src/core/fw_prio.c src/core/fw_prio.h
