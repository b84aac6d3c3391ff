# The pure-C policy core, linked into both plugins, the simulator and tests.
# Each module appends its sources to FW_CORE_SRC in its own fragment.
FW_CORE_SRC = src/core/fw_common.c src/core/fw_common.h
include src/core/prio.mk
include src/core/fs.mk
include src/core/plan.mk
include src/core/config.mk
include src/core/topo.mk

noinst_LTLIBRARIES += src/core/libfwcore.la
src_core_libfwcore_la_SOURCES = $(FW_CORE_SRC)
src_core_libfwcore_la_CFLAGS = $(FW_CORE_CFLAGS)
