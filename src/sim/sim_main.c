/* fairway-sim command line (placeholder while the engine is written). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

int main(void)
{
	return 0;
}
