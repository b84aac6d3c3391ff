/* fairway-sim input: sacct exports (sacct -P -o ...) (see fuzz_trace.c). */
#define FUZZ_FORMAT SIM_TRACE_SACCT
#define FUZZ_TARGET sacct
#include "fuzz_trace.c"
