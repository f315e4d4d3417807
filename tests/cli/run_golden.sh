#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of gpuscope (ctest label "cli").
#
#   run_golden.sh golden GPUSCOPE SRCDIR WORKDIR
#       run commands on the fixtures in SRCDIR/data and compare what they
#       print (stdout, stderr, exit status) with SRCDIR/expected/NAME.txt
#   run_golden.sh exit GPUSCOPE SRCDIR WORKDIR
#       exit statuses (0, 1, 2) and the shape of error output
#
# GS_UPDATE_GOLDEN=1 rewrites the expected files from the current outputs
# (review the diff before committing it).
set -u

mode=${1:?usage: run_golden.sh golden|exit GPUSCOPE SRCDIR WORKDIR}
gs=${2:?gpuscope binary}
src=${3:?source dir of tests/cli}
work=${4:?work dir}

case $gs in /*) ;; *) gs=$(pwd)/$gs ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac

rm -rf "$work" && mkdir -p "$work" || exit 1
cp "$src"/data/*.json "$work"/ || exit 1
cd "$work" || exit 1

failures=0
checks=0

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}

# run NAME ARGS...: gpuscope ARGS > NAME.out 2> NAME.err; exit status in $rc.
run() {
	name=$1
	shift
	checks=$((checks + 1))
	"$gs" "$@" >"$name.out" 2>"$name.err"
	rc=$?
}

# Paths of this run and anything else that changes between runs.
normalise() {
	sed -e "s|$work|WORKDIR|g" "$1"
}

# golden NAME ARGS...: stdout, stderr and status against expected/NAME.txt.
golden() {
	name=$1
	shift
	run "$name" "$@"
	{
		normalise "$name.out"
		echo "--- stderr"
		normalise "$name.err"
		echo "--- exit $rc"
	} >"$name.txt"
	exp=$src/expected/$name.txt
	if [ "${GS_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$name.txt" "$exp"
		return
	fi
	if [ ! -f "$exp" ]; then
		fail "$name: no expected file $exp (GS_UPDATE_GOLDEN=1 makes one)"
		return
	fi
	diff -u "$exp" "$name.txt" >&2 || fail "$name: output differs from $exp"
}

# same_stdout A B: two runs printed the same thing.
same_stdout() {
	checks=$((checks + 1))
	cmp -s "$1.out" "$2.out" || {
		diff -u "$1.out" "$2.out" >&2
		fail "$1 and $2 differ"
	}
}

# same_summary A B: two `info` runs (text or JSON) printed the same but for
# the file's name and format.
same_summary() {
	checks=$((checks + 1))
	grep -v -e '^file:' -e '^format:' -e '^  "file":' -e '^  "format":' "$1.out" >"$1.summary"
	grep -v -e '^file:' -e '^format:' -e '^  "file":' -e '^  "format":' "$2.out" >"$2.summary"
	cmp -s "$1.summary" "$2.summary" || {
		diff -u "$1.summary" "$2.summary" >&2
		fail "$1 and $2 differ"
	}
}

# expect NAME STATUS ARGS...: exit status, and for failures: nothing on stdout
# and a "gpuscope: error: " first line (exactly one line for status 1).
expect() {
	name=$1
	want=$2
	shift 2
	run "$name" "$@"
	if [ "$rc" != "$want" ]; then
		fail "$name: exit $rc, want $want (gpuscope $*)"
		sed 's/^/    /' "$name.err" >&2
		return
	fi
	[ "$want" = 0 ] && return
	[ -s "$name.out" ] && fail "$name: printed on stdout when failing"
	head -n 1 "$name.err" | grep -q '^gpuscope: error: ' ||
		fail "$name: stderr does not start with 'gpuscope: error: '"
	if [ "$want" = 1 ]; then
		lines=$(wc -l <"$name.err")
		[ "$lines" -eq 1 ] || fail "$name: $lines lines on stderr, want 1"
	fi
}

# has NAME out|err TEXT: the output holds TEXT (fixed string).
has() {
	checks=$((checks + 1))
	grep -qF -- "$3" "$1.$2" || fail "$1: std$2 lacks '$3'"
}

# hasnt NAME out|err TEXT
hasnt() {
	checks=$((checks + 1))
	grep -qF -- "$3" "$1.$2" && fail "$1: std$2 has '$3'"
	return 0
}

file_size() {
	wc -c <"$1" | tr -d ' '
}

# copy_bytes IN OUT COUNT: the first COUNT bytes of IN.
copy_bytes() {
	dd if="$1" of="$2" bs=1 count="$3" 2>/dev/null
}

# flip_byte FILE OFFSET: change the byte at OFFSET.
flip_byte() {
	b=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' ')
	b=$(((b + 1) % 256))
	# shellcheck disable=SC2059
	printf "\\$(printf '%03o' "$b")" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# Deterministic pseudo-random bytes (an LCG small enough for any awk).
random_bytes() {
	esc=$(awk 'BEGIN { x = 4242; for (i = 0; i < 2048; i++) {
		x = (x * 75 + 74) % 65537; printf "\\%03o", x % 256 } }')
	# shellcheck disable=SC2059
	printf "$esc" >"$1"
}

golden_tests() {
	golden help_main --help
	golden help_info help info
	golden help_dump dump --help
	golden help_convert convert --help
	golden version --version

	golden info_small info small.json
	golden info_small_json info --format json small.json
	golden info_cpu_only info cpu_only.json
	golden dump_small dump small.json
	golden dump_small_limit dump --limit 5 small.json
	golden dump_cpu_only dump cpu_only.json

	golden convert_small convert small.json -o small.gscope
	golden info_gscope info small.gscope
	golden info_gscope_json info --format json small.gscope

	# A .gscope made from the JSON holds the same records.
	run dump_gscope dump small.gscope
	[ "$rc" = 0 ] || fail "dump_gscope: exit $rc"
	same_stdout dump_small dump_gscope
	# A .gscope made from that .gscope too.
	run convert_again convert small.gscope -o again.gscope
	run dump_again dump again.gscope
	same_stdout dump_small dump_again

	# A rank's trace (Kineto distributedInfo, NCCL kernel args): the rank
	# and the collectives survive a conversion.
	golden info_nccl info nccl_rank.json
	golden info_nccl_json info --format json nccl_rank.json
	golden dump_nccl dump nccl_rank.json
	golden convert_nccl convert nccl_rank.json -o nccl_rank.gscope
	run dump_nccl_gscope dump nccl_rank.gscope
	[ "$rc" = 0 ] || fail "dump_nccl_gscope: exit $rc"
	same_stdout dump_nccl dump_nccl_gscope
	run info_nccl_gscope info nccl_rank.gscope
	same_summary info_nccl info_nccl_gscope
	run info_nccl_gscope_json info --format json nccl_rank.gscope
	same_summary info_nccl_json info_nccl_gscope_json
	run convert_nccl_again convert nccl_rank.gscope -o nccl_again.gscope
	run dump_nccl_again dump nccl_again.gscope
	same_stdout dump_nccl dump_nccl_again

	# A file of format 1.0 (no ranks, no collectives) reads as it always did
	# (it was written when gpu_user_annotation events were skipped), its
	# clock not known (1.2 added it).
	cp "$src/../data/gscope-1.0/small.gscope" small-1.0.gscope || fail "no 1.0 file"
	run dump_v1_0 dump small-1.0.gscope
	[ "$rc" = 0 ] || fail "dump_v1_0: exit $rc"
	has dump_v1_0 out 'world_size=- clock=none wall_offset=0'
	grep -v 'range kind=gpu_user_annotation' dump_small.out |
		sed 's/ clock=kineto_base wall_offset=1700000000000000000$/ clock=none wall_offset=0/' \
			>dump_small_no_gpu_ann.out
	same_stdout dump_small_no_gpu_ann dump_v1_0

	# A device the trace gives no properties of: "unknown", never "cc 0.0,
	# 0 SMs, 0 B"; and one with some.
	printf '%s\n' '{"deviceProperties": [{"id": 1, "numSms": 108}], "traceEvents": [' \
		'{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 1}},' \
		'{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 10, "dur": 5, "args": {"device": 1, "stream": 7, "correlation": 2}}]}' \
		>noprops.json
	run info_noprops info noprops.json
	[ "$rc" = 0 ] || fail "info_noprops: exit $rc"
	has info_noprops out "device 0:      (unnamed) (properties unknown)"
	has info_noprops out "device 1:      (unnamed) (cc unknown, 108 SMs, memory unknown, copy engines unknown)"
	hasnt info_noprops out "0 SMs"
	hasnt info_noprops out "cc 0.0"

	# A wait call without its sync record: the report's caution says it
	# once (the loading warning it restates stays on stderr and in JSON).
	printf '%s\n' '{"traceEvents": [' \
		'{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 9, "tid": 9, "ts": 1, "dur": 1, "args": {"correlation": 1}},' \
		'{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 3, "dur": 1, "args": {"correlation": 2}},' \
		'{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 2}}]}' \
		>nosync.json
	run analyze_nosync analyze nosync.json
	[ "$rc" = 0 ] || fail "analyze_nosync: exit $rc"
	has analyze_nosync out "caution  1 cudaStreamWaitEvent calls have no sync record"
	hasnt analyze_nosync out "warning  1 cudaStreamWaitEvent calls but no cuda_sync events"
	has analyze_nosync err "1 cudaStreamWaitEvent calls but no cuda_sync events"
	run analyze_nosync_json analyze --format json nosync.json
	has analyze_nosync_json out "1 cudaStreamWaitEvent calls but no cuda_sync events"
	# The caution names the profiler option that records the waits, in the
	# text and the HTML; so does the one about a wait recorded without its
	# event record (no wait_on_stream, no event record correlation).
	has analyze_nosync out "_ExperimentalConfig(enable_cuda_sync_events=True)"
	run analyze_nosync_html analyze --format html nosync.json
	has analyze_nosync_html out "_ExperimentalConfig(enable_cuda_sync_events=True) records each stream wait"
	printf '%s\n' '{"traceEvents": [' \
		'{"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 9, "tid": 9, "ts": 1, "dur": 1, "args": {"correlation": 1}},' \
		'{"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"cuda_sync_kind": "Stream Wait Event", "stream": 7, "correlation": 1, "device": 0}},' \
		'{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 3, "dur": 1, "args": {"correlation": 2}},' \
		'{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 2}}]}' \
		>unlinked.json
	run analyze_unlinked analyze unlinked.json
	[ "$rc" = 0 ] || fail "analyze_unlinked: exit $rc"
	has analyze_unlinked out "caution  1 stream waits could not be linked to their event record"
	tr -d '\n' <analyze_unlinked.out | tr -s ' ' >analyze_unlinked.flat
	mv analyze_unlinked.flat analyze_unlinked.out
	has analyze_unlinked out "(PyTorch profiler: experimental_config=torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True) records each stream wait with its event record)"

	# Recognised by content: gzip, and a name that says nothing.
	if command -v gzip >/dev/null 2>&1; then
		gzip -n -c small.json >small.json.gz
		run dump_gz dump small.json.gz
		same_stdout dump_small dump_gz
		cp small.gscope trace.bin
		run dump_noext dump trace.bin
		same_stdout dump_small dump_noext
	fi
}

exit_tests() {
	expect version 0 --version
	checks=$((checks + 1))
	[ "$(cat version.out)" = "gpuscope 0.1.0" ] || fail "version: '$(cat version.out)'"
	expect help 0 --help
	has help out "usage: gpuscope"
	expect help_h 0 -h
	expect help_cmd 0 help
	same_stdout help help_cmd

	# Each available command documents its options, defaults and an example.
	for c in info dump convert analyze plan record export diff; do
		expect "help_$c" 0 "$c" --help
		has "help_$c" out "usage: gpuscope $c"
		has "help_$c" out "(default"
		has "help_$c" out "example:"
		expect "help2_$c" 0 help "$c"
		same_stdout "help_$c" "help2_$c"
	done
	# Every command that reads traces names each format it reads.
	for c in info dump convert analyze export diff; do
		has "help_$c" out ".gscope"
		has "help_$c" out "Kineto / PyTorch-profiler JSON"
		has "help_$c" out ".json.gz"
		has "help_$c" out "Nsight Systems SQLite"
	done
	# help has a help of its own.
	expect help_help 0 help --help
	has help_help out "usage: gpuscope help [COMMAND]"
	expect help_help_h 0 help -h
	same_stdout help_help help_help_h
	# Every command of `gpuscope --help` is built: none is listed as missing.
	hasnt help out "not yet available in this build"

	# Usage errors: 2.
	expect noargs 2
	expect unknown_cmd 2 frobnicate small.json
	has unknown_cmd err "unknown command 'frobnicate'"
	expect unknown_global 2 --frobnicate
	expect help_unknown 2 help frobnicate
	expect bad_option 2 info --bogus small.json
	has bad_option err "'--bogus'"
	has bad_option err "usage: gpuscope info"
	expect bad_short 2 dump -x small.json
	expect bad_format 2 info --format xml small.json
	expect no_format_value 2 info small.json --format
	expect bad_limit 2 dump --limit -3 small.json
	expect bad_limit2 2 dump --limit 3x small.json
	expect salvage_value 2 dump --salvage=yes small.json
	expect no_trace 2 info
	expect two_traces 2 dump small.json small.json
	expect convert_no_out 2 convert small.json
	expect convert_no_in 2 convert -o x.gscope

	# Bad input: 1, one line naming the file.
	expect missing 1 info no-such-file.json
	has missing err "no-such-file.json"
	expect missing_dump 1 dump no-such-file.json
	# Still one line when the name holds a newline.
	expect missing_nl 1 info "$(printf 'two\nlines.json')"
	has missing_nl err "two?lines.json"
	: >empty.json
	expect empty 1 info empty.json
	has empty err "empty.json"
	random_bytes random.bin
	expect random 1 info random.bin
	has random err "random.bin"
	# A profile of the host only has nothing to analyze: exit 1, saying what
	# to record (analyze, and diff with it on either side).
	expect cpu_only_analyze 1 analyze cpu_only.json
	has cpu_only_analyze err "gpuscope: error: cpu_only.json: no GPU ops: the trace records the host only (a CPU-only profile): record the GPU too (PyTorch profiler: activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]; Nsight Systems: nsys profile --trace=cuda)"
	expect cpu_only_diff 1 diff -q small.json cpu_only.json
	has cpu_only_diff err "gpuscope: error: cpu_only.json: no GPU ops"
	expect cpu_only_diff_base 1 diff -q cpu_only.json small.json
	has cpu_only_diff_base err "ProfilerActivity.CUDA"
	# info and dump still show what such a trace holds.
	expect cpu_only_info 0 info cpu_only.json
	# An Nsight Systems report is read through its SQLite export: the error
	# gives the command (quoted for the shell where the name needs it), for
	# an input and for a directory that holds one.
	cp random.bin run.nsys-rep
	expect nsys_rep 1 analyze run.nsys-rep
	has nsys_rep err "gpuscope: error: run.nsys-rep: not a recognised trace: an Nsight Systems report is read through its SQLite export: nsys export --type sqlite --output run.sqlite run.nsys-rep"
	cp random.bin "my run.qdrep"
	expect nsys_rep_quoted 1 info "my run.qdrep"
	has nsys_rep_quoted err "nsys export --type sqlite --output 'my run.sqlite' 'my run.qdrep'"
	mkdir -p reports && cp random.bin reports/a.nsys-rep
	expect nsys_rep_dir 1 analyze reports
	has nsys_rep_dir err "reports: no trace in this directory (1 file that is not a trace: a.nsys-rep); an Nsight Systems report is read through its SQLite export: nsys export --type sqlite --output reports/a.sqlite reports/a.nsys-rep"
	# Any other file that is no trace keeps the plain reason.
	hasnt random err "nsys export"
	copy_bytes small.json cut.json 2000
	expect cut_json 1 dump cut.json
	has cut_json err "cut.json"
	mkdir -p adir
	expect directory 1 info adir
	has directory err "adir"
	printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "ts": 1, "dur": 1,' >bad.json
	printf ' "args": {"stream": 7, "grid": [1, 1]]}]}\n' >>bad.json
	expect bad_json 1 info bad.json
	has bad_json err "bad.json"

	# .gscope damage.
	expect convert 0 convert small.json -o small.gscope
	size=$(file_size small.gscope)
	cp small.gscope corrupt.gscope
	flip_byte corrupt.gscope $((size / 2))
	expect corrupt 1 info corrupt.gscope
	has corrupt err "corrupt.gscope"
	has corrupt err "chunk"
	run corrupt_salvage info --salvage corrupt.gscope
	checks=$((checks + 1))
	[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "corrupt_salvage: exit $rc"
	copy_bytes small.gscope header.gscope 10
	expect header_cut 1 info header.gscope
	has header_cut err "header.gscope"
	copy_bytes small.gscope half.gscope $((size / 2))
	run half info half.gscope
	checks=$((checks + 1))
	# Read up to the last whole chunk with a warning, or fail with one line.
	case $rc in
	0) grep -q '^gpuscope: warning: ' half.err || fail "half: no warning for a cut file" ;;
	1) expect half 1 info half.gscope ;;
	*) fail "half: exit $rc" ;;
	esac

	# convert never overwrites without --force and leaves no temporaries.
	cp small.gscope keep.gscope
	expect exists 1 convert cpu_only.json -o keep.gscope
	has exists err "keep.gscope"
	has exists err "--force"
	checks=$((checks + 1))
	cmp -s small.gscope keep.gscope || fail "exists: output changed"
	expect force 0 convert --force cpu_only.json -o keep.gscope
	checks=$((checks + 1))
	cmp -s small.gscope keep.gscope && fail "force: output not replaced"
	expect force_info 0 info keep.gscope
	has force_info out "host ranges:     2"
	expect no_dir 1 convert small.json -o no-such-dir/x.gscope
	has no_dir err "no-such-dir/x.gscope"
	expect bad_in_convert 1 convert random.bin -o never.gscope
	checks=$((checks + 1))
	[ -e never.gscope ] && fail "bad_in_convert: left an output"
	mkdir -p sub
	expect convert_sub 0 convert small.json -o sub/out.gscope
	checks=$((checks + 1))
	for f in .*.tmp-* sub/.*.tmp-*; do
		[ -e "$f" ] && fail "convert left a temporary file: $f"
	done
	expect stdout_quiet 0 convert small.json -o quiet.gscope
	checks=$((checks + 1))
	[ -s stdout_quiet.out ] && fail "convert printed on stdout"

	# Strings of the trace never reach a text output raw: control characters
	# (ESC, a newline, C1 CSI) are escaped, so a trace can neither drive the
	# terminal nor forge a "gpuscope: error:" line; a CSV name that would
	# start a spreadsheet formula gets a leading '.
	forge='\\u001b[31m\\ngpuscope: error: forged\\u009b'
	sed -e "s/\"NVIDIA Test GPU\"/\"GPU$forge\"/" \
		-e "s/\"reduce_kernel\"/\"=HYPERLINK(1)$forge\"/" \
		-e "s/\"mystery_category\"/\"cat$forge\"/" small.json >forged.json
	esc=$(printf '\033')
	csi=$(printf '\302\233')
	for c in info dump analyze diff; do
		if [ "$c" = diff ]; then
			run "forged_$c" diff forged.json forged.json
		else
			run "forged_$c" "$c" forged.json
		fi
		checks=$((checks + 1))
		[ "$rc" = 0 ] || fail "forged_$c: exit $rc"
		grep -q 'forged' "forged_$c.out" || fail "forged_$c: the forged name is not shown"
		grep -q '^gpuscope: error: forged' "forged_$c.out" "forged_$c.err" &&
			fail "forged_$c: a trace string started a line of its own"
		grep -q "$esc" "forged_$c.out" "forged_$c.err" && fail "forged_$c: a raw ESC"
		grep -q "$csi" "forged_$c.out" "forged_$c.err" && fail "forged_$c: a raw C1 CSI"
	done
	# On stderr (the warning naming the category) they are '?'.
	has forged_info err "category 'cat?[31m?gpuscope: error: forged?'"
	has forged_info out 'GPU\x1b[31m\x0agpuscope: error: forged\u009b'
	has forged_info out 'cat\x1b[31m\x0agpuscope: error: forged\u009b'
	has forged_dump out 'GPU\x1b[31m\ngpuscope: error: forged\u009b'
	has forged_analyze out '=HYPERLINK(1)\x1b[31m\x0agpuscope: error: forged'
	has forged_diff out '=HYPERLINK(1)\x1b[31m\x0agpuscope: error: forged'
	# The report still fits its 100 columns with escapes in the names.
	checks=$((checks + 1))
	over=$(LC_ALL=C sed 's/[\x80-\xbf]//g' forged_analyze.out | LC_ALL=C awk 'length > 100' |
		head -n 1)
	[ -z "$over" ] || fail "forged_analyze: a line over 100 columns: $over"
	run forged_csv export --format csv -o forged forged.json
	checks=$((checks + 1))
	[ "$rc" = 0 ] || fail "forged_csv: exit $rc"
	grep -qF ",\"'=HYPERLINK(1)" forged.ops.csv ||
		fail "forged_csv: the formula name has no leading quote: $(grep HYPER forged.ops.csv)"

	# Loading warnings reach stderr as one line each.
	expect warn 0 dump small.json
	checks=$((checks + 1))
	grep -v '^gpuscope: warning: ' warn.err >warn.other
	[ -s warn.other ] && fail "warn: stderr has lines that are not warnings"
	# For every command and output format, each named by its file; -q
	# leaves them out (and only them: errors still show).
	expect warn_json 0 info --format json small.json
	has warn_json err "gpuscope: warning: small.json: skipped 1 events of unknown category"
	expect warn_analyze_json 0 analyze --format json small.json
	has warn_analyze_json err "gpuscope: warning: small.json: skipped 1 events of unknown"
	expect warn_export 0 export -o warn.json small.json
	has warn_export err "gpuscope: warning: small.json: skipped 1 events of unknown category"
	expect warn_diff 0 diff --format json small.json small.json
	has warn_diff err "gpuscope: warning: small.json: skipped 1 events of unknown category"
	for c in "info --format json" dump "analyze --format json" "convert -o q.gscope --force" \
		"export -o q.json --force" "diff small.json"; do
		# shellcheck disable=SC2086 # $c is a word list
		expect quiet 0 $c -q small.json
		checks=$((checks + 1))
		[ -s quiet.err ] && fail "gpuscope $c -q wrote to stderr: $(cat quiet.err)"
	done
	expect quiet_error 1 info -q no-such-file.json

	# A full disk is an error, not a success.
	if [ -w /dev/full ]; then
		checks=$((checks + 1))
		"$gs" info small.json >/dev/full 2>full.err
		rc=$?
		[ "$rc" = 1 ] || fail "full: info exit $rc, want 1"
		grep -q '^gpuscope: error: .*No space left' full.err ||
			fail "full: no error line: $(cat full.err)"
		checks=$((checks + 1))
		"$gs" dump small.json >/dev/full 2>full2.err
		rc=$?
		[ "$rc" = 1 ] || fail "full: dump exit $rc, want 1"
		checks=$((checks + 1))
		"$gs" --help >/dev/full 2>full3.err
		rc=$?
		[ "$rc" = 1 ] || fail "full: --help exit $rc, want 1"
	fi
}

case $mode in
golden) golden_tests ;;
exit) exit_tests ;;
*)
	echo "run_golden.sh: unknown mode '$mode'" >&2
	exit 2
	;;
esac

if [ "$failures" -ne 0 ]; then
	echo "$failures of $checks checks failed (work dir: $work)" >&2
	exit 1
fi
echo "$checks checks passed"
exit 0
