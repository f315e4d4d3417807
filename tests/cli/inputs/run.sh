#!/bin/sh
# SPDX-License-Identifier: MIT
# The inputs of a job (docs/jobs.md "A whole job"): a directory stands for the
# traces in it, in byte order of their names, the other entries skipped
# with one warning (hidden ones silently, not recursive); --inputs FILE
# lists paths; analyze, export and diff read either as the files listed.
# The same trace given twice (by name, hard link, symbolic link, copy,
# directly and through a directory) is refused with one error line naming
# both, exit status 1 and no output; stdin is never compared.
#
#   run.sh GPUSCOPE GS_BENCH_GEN WORKDIR
set -u
gs=${1:?gpuscope binary}
gen=${2:?gs_bench_gen}
work=${3:?work dir}

case $gs in /*) ;; *) gs=$(pwd)/$gs ;; esac
case $gen in /*) ;; *) gen=$(pwd)/$gen ;; esac

# fail, run, expect, finish
. "$(cd "$(dirname "$0")/.." && pwd)/harness.sh" || exit 1

rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
export LC_ALL=C TERM=dumb
unset NO_COLOR

# same NAME REF: NAME printed on stdout what REF printed, byte for byte.
same() {
	checks=$((checks + 1))
	cmp -s "$1.out" "$2.out" || {
		diff -u "$2.out" "$1.out" | head -n 20 >&2
		fail "$1: stdout differs from $2's"
	}
}

# stderr NAME LINE: NAME's stderr is exactly LINE (empty: nothing).
stderr_is() {
	checks=$((checks + 1))
	[ "$(cat "$1.err")" = "$2" ] || fail "$1: stderr is '$(cat "$1.err")', want '$2'"
}

# refused NAME LINE ARGS...: gpuscope ARGS -o out.json: exit 1, stderr
# exactly the error LINE, nothing on stdout, no out.json, no temporary file.
refused() {
	name=$1
	line=$2
	shift 2
	rm -f out.json
	expect "$name" 1 "$@" -o out.json
	stderr_is "$name" "gpuscope: error: $line"
	checks=$((checks + 1))
	[ -s "$name.out" ] && fail "$name: printed on stdout"
	[ -e out.json ] && fail "$name: out.json written"
	ls -a | grep -q '^\.out\.json\.tmp-' && fail "$name: a temporary file left"
}

# A job of four ranks; the directory also holds a README, notes, a
# subdirectory with a trace (not read: not recursive) and a hidden copy of
# rank 0 (not read: else it would be refused as the same trace).
"$gen" --job 4 --out-dir gen --ops-per-rank 60 >/dev/null || exit 1
mkdir runs runs/sub || exit 1
cp gen/rank0.json gen/rank1.json gen/rank2.json gen/rank3.json runs/ || exit 1
echo "four ranks of a test job" >runs/README
echo "job 42" >runs/notes.txt
cp gen/rank1.json runs/sub/rank1.json
cp gen/rank0.json runs/.rank0.json.tmp-Ab12Cd
set -- runs/rank0.json runs/rank1.json runs/rank2.json runs/rank3.json
warning="gpuscope: warning: runs: skipped 3 entries that are not traces (README, notes.txt, sub/)"

# analyze DIR is analyze of its traces, as text and JSON.
expect files_json 0 analyze --format json "$@"
stderr_is files_json ""
expect dir_json 0 analyze --format json runs
same dir_json files_json
stderr_is dir_json "$warning"
expect files_text 0 analyze "$@"
expect dir_text 0 analyze runs
same dir_text files_text
stderr_is dir_text "$warning"
expect dir_quiet 0 analyze --format json --quiet runs
same dir_quiet files_json
stderr_is dir_quiet ""
# ranks NAME: how many ranks NAME's JSON report has.
ranks() {
	grep -c '^        "rank_declared": ' "$1.out"
}
checks=$((checks + 1))
[ "$(ranks files_json)" = 4 ] && grep -q '^    "ops": 240,$' files_json.out ||
	fail "files_json: not a job of 4 ranks and 240 ops"
# -o into the directory (its temporary file is hidden), then the directory
# again: the report left there is not a trace.
expect into_dir 0 analyze --format json -o runs/report.json runs
checks=$((checks + 1))
cmp -s runs/report.json files_json.out || fail "into_dir: runs/report.json is not the report"
expect into_dir_again 0 analyze --format json runs
same into_dir_again files_json
stderr_is into_dir_again "gpuscope: warning: runs: skipped 4 entries that are not traces (README, notes.txt, report.json, ...)"
rm -f runs/report.json
# "DIR/" as given: the same paths (no "runs//rank0.json").
expect dir_slash 0 analyze --format json runs/
same dir_slash files_json
# In the order of the names, bytes compared: rank10 before rank2.
mkdir order && cp gen/rank2.json order/rank2.json && cp gen/rank3.json order/rank10.json
expect order_dir 0 analyze --format json order
expect order_files 0 analyze --format json order/rank10.json order/rank2.json
same order_dir order_files

# --inputs FILE: comments, blank lines, blanks around a path, CRLF; a line
# may name the directory; TRACE arguments come first.
printf '# the ranks of job 42\n\n  runs/rank0.json\t\nruns/rank1.json\r\n   # two more\nruns/rank2.json\nruns/rank3.json\n' >ranks.txt
expect list 0 analyze --format json --inputs ranks.txt
same list files_json
stderr_is list ""
printf 'runs/rank2.json\nruns/rank3.json\n' >last2.txt
expect list_args 0 analyze --format json runs/rank0.json runs/rank1.json --inputs last2.txt
same list_args files_json
printf 'runs\n' >dir.txt
expect list_dir 0 analyze --format json --inputs dir.txt
same list_dir files_json
stderr_is list_dir "$warning"
expect list_stdin 0 analyze --format json --inputs - <ranks.txt
same list_stdin files_json
expect list_none 1 analyze --inputs ranks-none.txt
stderr_is list_none "gpuscope: error: ranks-none.txt: cannot open: No such file or directory"
expect list_trace 1 analyze --inputs runs/rank0.json
stderr_is list_trace "gpuscope: error: runs/rank0.json: is a trace (kineto), not a list of paths (--inputs FILE lists one path a line)"
expect list_stdin_twice 2 analyze --inputs - - <ranks.txt

# export: a directory as its traces (Chrome and CSV).
expect export_files 0 export -o files.trace.json "$@"
expect export_dir 0 export -o dir.trace.json runs
stderr_is export_dir "$warning"
checks=$((checks + 1))
cmp -s files.trace.json dir.trace.json || fail "export DIR: not the files' Chrome trace"
expect export_list 0 export -o list.trace.json --inputs ranks.txt
checks=$((checks + 1))
cmp -s files.trace.json list.trace.json || fail "export --inputs: not the files' Chrome trace"
expect csv_files 0 export --format csv -o files "$@"
expect csv_dir 0 export --format csv -o dir runs
checks=$((checks + 1))
cmp -s files.ops.csv dir.ops.csv && cmp -s files.segments.csv dir.segments.csv ||
	fail "export --format csv DIR: not the files' CSV"

# diff: each side a trace or a directory (a job).
mkdir one && cp gen/rank0.json one/
expect diff_file 0 diff --format json one/rank0.json runs/rank0.json
expect diff_onedir 0 diff --format json one runs/rank0.json
sed 's|"file": "one",|"file": "one/rank0.json",|' diff_onedir.out >diff_onedir.sed.out
same diff_onedir.sed diff_file
mkdir again && cp gen/rank*.json again/
expect diff_dirs 0 diff --format json runs again
checks=$((checks + 1))
grep -q '"base": {"file": "runs", "format": "kineto", "ops": 240, "devices": 4}' diff_dirs.out &&
	grep -q '"new": {"file": "again", "format": "kineto", "ops": 240, "devices": 4}' diff_dirs.out ||
	fail "diff DIR DIR: not both jobs of 240 ops: $(head -c 300 diff_dirs.out)"
expect diff_dirs_text 0 diff runs again
checks=$((checks + 1))
grep -q 'rank 3 · GPU 3' diff_dirs_text.out || fail "diff DIR DIR: no rank 3 in the text"
expect diff_inputs 2 diff --inputs ranks.txt runs again
expect diff_self 0 diff --format json runs runs

# GPUs whose ids differ (rank 0's GPU 0, rank 1's GPU 1) compare nothing:
# one error naming each side's GPUs and --pair, exit 1, nothing written;
# --pair compares them, with a warning when they are two GPU models.
refused diff_none "no GPU is in both runs, so nothing is compared (GPUs pair by rank and device id): only in base: GPU 0; only in new: GPU 1; pair them with --pair BASE_GPU:NEW_GPU (--pair 0:1)" \
	diff one/rank0.json runs/rank1.json
expect diff_pair 0 diff --format json --pair 0:1 one/rank0.json runs/rank1.json
stderr_is diff_pair ""
checks=$((checks + 1))
grep -q '"warnings": \[\]' diff_pair.out || fail "diff --pair: warnings in the JSON"
mkdir a100 && sed 's/NVIDIA H100 80GB HBM3/NVIDIA A100-SXM4-80GB/' runs/rank1.json >a100/rank1.json
models="--pair 0:1 compares two GPU models: NVIDIA H100 80GB HBM3 (base) and NVIDIA A100-SXM4-80GB (new)"
expect diff_models 0 diff --format json --pair 0:1 one/rank0.json a100/rank1.json
stderr_is diff_models "gpuscope: warning: $models"
checks=$((checks + 1))
grep -qF "\"warnings\": [\"$models\"]" diff_models.out || fail "diff --pair: no warning in the JSON"
expect diff_models_text 0 diff --pair 0:1 one/rank0.json a100/rank1.json
checks=$((checks + 1))
grep -qF '  two GPU models: NVIDIA H100 80GB HBM3 in base, NVIDIA A100-SXM4-80GB in new' \
	diff_models_text.out || fail "diff --pair: no line on the two models in the text"
expect diff_models_q 0 diff -q --pair 0:1 one/rank0.json a100/rank1.json
stderr_is diff_models_q ""
# Jobs: the GPUs named with their ranks, and --pair in its RANK/GPU form.
"$gen" --job 6 --out-dir gen6 --ops-per-rank 60 >/dev/null || exit 1
mkdir late && cp gen6/rank4.json gen6/rank5.json late/
refused diff_none_job "no GPU is in both runs, so nothing is compared (GPUs pair by rank and device id): only in base: rank 0 GPU 0, rank 1 GPU 1, rank 2 GPU 2, rank 3 GPU 3; only in new: rank 4 GPU 4, rank 5 GPU 5; pair them with --pair BASE_GPU:NEW_GPU (--pair 0/0:4/4)" \
	diff -q runs late
expect diff_pair_job 0 diff -q --format json --pair 0/0:4/4 runs late

# Errors: a directory without a trace, with nothing else or other files.
mkdir empty notes && echo "no trace here" >notes/a.txt && cp gen/rank0.json notes/.hidden.json
refused empty "empty: no trace in this directory" analyze empty
refused notes "notes: no trace in this directory (1 file that is not a trace: a.txt)" analyze notes
refused notes_export "notes: no trace in this directory (1 file that is not a trace: a.txt)" export notes
refused empty_diff "empty: no trace in this directory" diff runs empty

# The same trace twice: one error line naming both, exit 1, nothing written.
ln runs/rank2.json hard.json
ln -s runs/rank2.json sym.json
mkdir copy && cp runs/rank2.json copy/rank2.json
refused twice_name "runs/rank2.json and runs/rank2.json are the same trace (same file); give each input once" \
	analyze runs/rank2.json runs/rank2.json
refused twice_spelling "runs/rank2.json and ./runs/../runs/rank2.json are the same trace (same file); give each input once" \
	analyze runs/rank2.json ./runs/../runs/rank2.json
refused twice_hard "runs/rank2.json and hard.json are the same trace (same file); give each input once" \
	analyze runs/rank2.json runs/rank3.json hard.json
refused twice_sym "sym.json and runs/rank2.json are the same trace (same file); give each input once" \
	analyze sym.json runs/rank2.json
refused twice_copy "runs/rank2.json and copy/rank2.json are the same trace (same content); give each input once" \
	analyze runs/rank2.json copy/rank2.json
refused twice_dir "runs/rank2.json (in runs) and runs/rank2.json are the same trace (same file); give each input once" \
	analyze runs runs/rank2.json
refused twice_dir_copy "copy/rank2.json and runs/rank2.json (in runs) are the same trace (same content); give each input once" \
	analyze copy/rank2.json runs
refused twice_list "runs/rank0.json and runs/rank0.json are the same trace (same file); give each input once" \
	analyze --format json runs/rank0.json --inputs ranks.txt
refused twice_export "runs/rank2.json (in runs) and copy/rank2.json (in copy) are the same trace (same content); give each input once" \
	export runs copy
# Within one side of diff (BASE and NEW may be the same: diff_self).
mkdir side && cp gen/rank0.json side/ && ln side/rank0.json side/link.json
refused twice_diff "side/link.json (in side) and side/rank0.json (in side) are the same trace (same file); give each input once" \
	diff side one

# stdin is never compared: '-' once works, even beside its own file (two
# inputs of one process: merged, each record once).
expect stdin_one 0 analyze --format json - <runs/rank0.json
expect stdin_file 0 analyze --format json runs/rank0.json
sed 's|"stdin"|"runs/rank0.json"|' stdin_one.out >stdin_one.sed.out
same stdin_one.sed stdin_file
expect stdin_dir 0 analyze --format json - runs <runs/rank0.json
checks=$((checks + 1))
[ "$(ranks stdin_dir)" = 4 ] && grep -q '^    "ops": 240,$' stdin_dir.out ||
	fail "stdin beside its file: not 4 ranks and 240 ops"
grep -q "^gpuscope: warning: stdin and runs/rank0.json hold .* identical records (one process recorded in both): each kept once$" stdin_dir.err ||
	fail "stdin beside its file: no warning that both were kept once: $(cat stdin_dir.err)"
expect stdin_twice 2 analyze - - <runs/rank0.json

finish
