# core module 'prio': factor model, configuration, accrual ledger, boosts
FW_CORE_SRC += src/core/fw_prio.c src/core/fw_prio.h \
	src/core/fw_prio_conf.c src/core/fw_prio_int.h \
	src/core/fw_accrue.c src/core/fw_accrue.h \
	src/core/fw_boost.c src/core/fw_boost.h
