# core module 'topo': topology.conf (topology/tree) and the islands it
# gives, shared by sched/fairway and fairway-sim.
FW_CORE_SRC += src/core/fw_topo.c src/core/fw_topo.h
