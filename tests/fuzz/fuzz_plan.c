/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the `gpuscope plan` input (JSON stages), parsed,
 * scheduled and written as text and JSON. Any crash, leak, hang or
 * sanitizer report is a bug. */
#include <gpuscope/analyzer.h>
#include <gpuscope/format.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink_file(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_plan_input *in = NULL;
	struct gs_plan_result r;
	FILE *out = sink_file();

	if (gs_plan_parse((const char *)data, size, "fuzz.json", &in) == GS_OK) {
		if (gs_plan_compute(in, &r) == GS_OK) {
			if (out) {
				gs_plan_write_text(out, in, &r, "fuzz.json");
				gs_plan_write_json(out, in, &r, "fuzz.json");
			}
			gs_plan_result_fini(&r);
		}
	}
	gs_plan_input_destroy(in);
	gs_error_clear();
	return 0;
}
