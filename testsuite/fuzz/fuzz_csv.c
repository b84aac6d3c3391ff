/* fairway-sim input: CSV traces (see fuzz_trace.c). */
#define FUZZ_FORMAT SIM_TRACE_CSV
#define FUZZ_TARGET csv
#include "fuzz_trace.c"
