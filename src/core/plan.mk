# core module 'plan': the planner (timeline, main and backfill passes),
# its node-set bitsets, cluster description and configuration.
FW_PLAN_SRC = src/core/fw_bitset.c src/core/fw_bitset.h \
	src/core/fw_plan.c src/core/fw_plan.h src/core/fw_plan_int.h \
	src/core/fw_plan_batch.c src/core/fw_plan_cache.c \
	src/core/fw_plan_choose.c src/core/fw_plan_eval.c \
	src/core/fw_plan_order.c src/core/fw_plan_preempt.c \
	src/core/fw_plan_setup.c \
	src/core/fw_cluster.h src/core/fw_plan_cluster.c src/core/fw_plan_conf.c \
	src/core/fw_plan_size.c \
	src/core/fw_plan_share.c src/core/fw_plan_share.h \
	src/core/fw_plan_tl.c src/core/fw_plan_tl.h \
	src/core/fw_plan_state.c
FW_CORE_SRC += $(FW_PLAN_SRC)
FW_CORE_SRC += src/core/fw_rtl.c src/core/fw_rtl.h src/core/fw_rtl_int.h src/core/fw_rtl_search.c \
	src/core/fw_rtl_hint.c
