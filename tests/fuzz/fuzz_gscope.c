/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the .gscope reader over arbitrary bytes, into a trace,
 * with and without salvage. Any crash, leak or sanitizer report is a bug. */
#include <gpuscope/format.h>

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (unsigned flags = 0; flags <= GS_READER_SALVAGE; flags += GS_READER_SALVAGE) {
		struct gs_trace *t = NULL;
		struct gs_reader *r = NULL;

		if (gs_trace_create(&t) != GS_OK)
			return 0;
		if (gs_reader_open_mem(data, size, "fuzz.gscope", flags, &r) == GS_OK) {
			if (gs_reader_read_all(r, gs_trace_borrow_sink(t)) == GS_OK)
				gs_trace_finish(t);
			gs_reader_close(r);
		}
		gs_trace_destroy(t);
		gs_error_clear();
	}
	return 0;
}
