# The pure-C policy core, linked into both plugins, the simulator and tests.
FW_CORE_SRC = \
	src/core/fw_common.c src/core/fw_common.h

noinst_LTLIBRARIES += src/core/libfwcore.la
src_core_libfwcore_la_SOURCES = $(FW_CORE_SRC)
src_core_libfwcore_la_CFLAGS = $(FW_CORE_CFLAGS)
