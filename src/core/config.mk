FW_CORE_SRC += src/core/fw_config.c src/core/fw_config.h
