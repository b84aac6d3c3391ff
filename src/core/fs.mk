# core module 'fs': fair-share tree, usage with decay, formulas, state.
FW_CORE_SRC += src/core/fw_fairshare.c src/core/fw_fairshare.h \
	src/core/fw_fs_conf.c src/core/fw_fs_state.c src/core/fw_fs_int.h
