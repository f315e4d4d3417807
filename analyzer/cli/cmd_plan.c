/* SPDX-License-Identifier: MIT */
/* gpuscope plan: the stage calculator on a declared list of stages. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <gpuscope/plan.h>

#include "cli.h"

static const struct gs_cli_usage plan_usage = {
	.name = "plan",
	.synopsis = "gpuscope plan [--format text|json] STAGES.json",
};

static const char plan_help[] =
	"usage: gpuscope plan [--format text|json] STAGES.json\n"
	"\n"
	"Schedule a hand-written list of stages and say how much overlap could save:\n"
	"each stage's start and end, serial time (all stages one after another),\n"
	"ideal time (the schedule's makespan), saving, overlap ratio (saving /\n"
	"serial), speedup, net saving after an exposed overhead, the critical path,\n"
	"a kernel / copy / sync / idle breakdown, and for each copy the overlap\n"
	"conditions it misses (pinned_memory, independent, concurrent_resources).\n"
	"\n"
	"options:\n"
	"  --format text|json  output format (default: text); json is one object,\n"
	"                      schema \"gpuscope.plan/1\"\n"
	"  -h, --help          show this help\n"
	"\n"
	"STAGES.json (\"-\": stdin; at most 16 MiB and 100000 stages):\n"
	"  {\"stages\": [{\"name\": \"in0\", \"duration_us\": 12, \"stream\": \"copy_in\",\n"
	"               \"depends_on\": [], \"kind\": \"h2d\", \"memory\": \"pinned\"}, ...],\n"
	"   \"exposed_overhead_us\": 3, \"copy_engines\": {\"h2d\": 1, \"d2h\": 1}}\n"
	"  name, duration_us, stream  required; names unique; durations in us, at\n"
	"                             most 3 decimals, 0 to 7 days\n"
	"  depends_on   stages that must end first (default: none)\n"
	"  stream       a lane: its stages run one at a time, in the order written;\n"
	"               different streams run side by side\n"
	"  kind         h2d (or copy_in), d2h (or copy_out), compute (or kernel),\n"
	"               sync (host waits for the device), host (host work), other\n"
	"               (default: other: scheduled, but no copy or compute)\n"
	"  memory       h2d/d2h only: pinned (default) or pageable; a pageable copy\n"
	"               is host-synchronous: it waits for every stage written before\n"
	"               it, and every stage written after it waits for it\n"
	"  exposed_overhead_us  launch/sync cost that overlap does not hide\n"
	"               (default: none; gives net saving = saving - overhead)\n"
	"  copy_engines N: N engines shared by all copies; {\"h2d\": A, \"d2h\": B}:\n"
	"               per direction; 0: such copies cannot overlap h2d/d2h/compute\n"
	"               stages (default: no limit)\n"
	"\n"
	"A copy hides under compute only with all three conditions:\n"
	"  pinned_memory         it is not pageable\n"
	"  independent           compute that neither waits for it nor is waited for\n"
	"                        by it can run beside it (with pinned memory and\n"
	"                        free engines)\n"
	"  concurrent_resources  its direction has a copy engine (copy_engines > 0)\n"
	"\n"
	"Times are printed in us without rounding noise (12.5, 102).\n"
	"\n"
	"example:\n"
	"  gpuscope plan --format json pipeline.json\n";

struct plan_opts {
	bool json;
	const char *path;
};

static int plan_parse_args(int argc, char **argv, struct plan_opts *o, bool *help)
{
	static const struct option longopts[] = {
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (gs_cli_text_or_json(&plan_usage, optarg, &o->json) != GS_EXIT_OK)
				return GS_EXIT_USAGE;
			break;
		case 'h':
			*help = true;
			return GS_EXIT_OK;
		default:
			return gs_cli_bad_option(&plan_usage, argv, c);
		}
	}
	return gs_cli_one_operand(&plan_usage, argc, argv, "STAGES.json", &o->path);
}

int gs_cmd_plan(int argc, char **argv)
{
	struct plan_opts o = {0};
	struct gs_plan_input *in = NULL;
	struct gs_plan_result r;
	const char *label;
	bool help = false;
	gs_status st;
	int rc;

	rc = plan_parse_args(argc, argv, &o, &help);
	if (rc != GS_EXIT_OK || help)
		return help ? gs_cli_help(plan_help) : rc;
	if (!o.path) /* plan_parse_args requires one */
		return GS_EXIT_USAGE;
	label = strcmp(o.path, "-") != 0 ? o.path : "<stdin>";

	gs_error_clear();
	st = gs_plan_load(o.path, &in);
	if (st != GS_OK)
		return gs_cli_fail(st, label);
	st = gs_plan_compute(in, &r);
	if (st != GS_OK) {
		/* The causes name the stage; put the file in front. */
		gs_error_append("%s", label);
		rc = gs_cli_fail(st, label);
		goto out;
	}
	st = o.json ? gs_plan_write_json(stdout, in, &r, label) :
		      gs_plan_write_text(stdout, in, &r, label);
	if (st != GS_OK)
		rc = gs_cli_fail(st, st == GS_ERR_IO ? "stdout" : label);
	gs_plan_result_fini(&r);
out:
	gs_plan_input_destroy(in);
	return rc;
}
