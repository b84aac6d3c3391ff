/* fairway-sim input: Standard Workload Format traces (see fuzz_trace.c). */
#define FUZZ_FORMAT SIM_TRACE_SWF
#define FUZZ_TARGET swf
#include "fuzz_trace.c"
