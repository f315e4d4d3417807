/* SPDX-License-Identifier: MIT */
/* The CPUs gs_format may use for work that splits in two (trace.h). */
#define _GNU_SOURCE /* sched_getaffinity */
#include <gpuscope/trace.h>

#include <sched.h>

unsigned gs_cpu_count(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	return (unsigned)CPU_COUNT(&set);
}
