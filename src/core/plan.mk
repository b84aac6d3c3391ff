# core module 'plan': FW_CORE_SRC += src/core/fw_plan.c src/core/fw_plan.h
