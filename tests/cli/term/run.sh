#!/bin/sh
# SPDX-License-Identifier: MIT
# The terminal side of the command line (ctest label "cli").
#
#   run.sh GPUSCOPE REPO_ROOT WORKDIR [SHARED_DATA]
#
# - the text report of every sample and every real Kineto trace in
#   SHARED_DATA/kineto fits a 100-column terminal (a UTF-8 character counts
#   as one column, colour codes as none), with and without colour;
# - every command's --help gives a usage line, its options each with a
#   default (or "required"), and an example; the man page (docs/gpuscope.1)
#   names every command and every option --help lists;
# - on a terminal (a pseudo-terminal made by script(1)) loading and
#   analysing show a progress line on stderr that is erased afterwards;
#   --quiet silences it, and without a terminal there is none;
#   --color=auto colours only a terminal, and not when NO_COLOR is set.
# GPUSCOPE_PROGRESS_DELAY_MS=0 shows the progress line at once, so these
# checks do not depend on how fast the machine is.
set -u

gs=${1:?usage: run.sh GPUSCOPE REPO_ROOT WORKDIR [SHARED_DATA]}
root=${2:?repository root}
work=${3:?work dir}
shared=${4:-}

case $gs in /*) ;; *) gs=$(pwd)/$gs ;; esac
case $work in /*) ;; *) work=$(pwd)/$work ;; esac
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
unset NO_COLOR GPUSCOPE_PROGRESS_DELAY_MS
export LC_ALL=C

failures=0
checks=0
esc=$(printf '\033')
cr=$(printf '\r')

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}

# Widest line of a file in columns: colour codes dropped, UTF-8
# continuation bytes not counted.
width() {
	sed -e "s/$esc\[[0-9;]*m//g" -e 's/[\x80-\xbf]//g' "$1" |
		awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }'
}

# ---- the text report fits 100 columns ------------------------------------------

list=$work/traces.txt
find "$root/samples" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.gscope' \) \
	! -path '*/bad/*' 2>/dev/null | sort >"$list"
if [ -n "$shared" ] && [ -d "$shared/kineto" ]; then
	find "$shared/kineto" -type f -name '*.json.gz' | sort >>"$list"
else
	echo "note: ../shared/data absent: samples only"
fi
widest=0
n=0
while IFS= read -r trace; do
	for color in never always; do
		checks=$((checks + 1))
		n=$((n + 1))
		if ! "$gs" analyze --color=$color "$trace" >report.txt 2>report.err; then
			# A profile of the host only has no report: refused, saying
			# what to record.
			grep -q 'no GPU ops: .*ProfilerActivity.CUDA' report.err ||
				fail "analyze $trace: $(cat report.err)"
			continue
		fi
		w=$(width report.txt)
		[ "$w" -gt "$widest" ] && widest=$w
		if [ "$w" -gt 100 ]; then
			fail "analyze --color=$color $trace: a line of $w columns:"
			sed -e "s/$esc\[[0-9;]*m//g" report.txt |
				awk '{ l = $0; gsub(/[\200-\277]/, "", l); if (length(l) > 100) print "  " $0 }' >&2
		fi
	done
done <"$list"
echo "text report: $n reports, widest line $widest columns"

# ---- --help and the man page ----------------------------------------------------

man=$root/docs/gpuscope.1
[ -f "$man" ] || fail "no man page $man"
commands=$("$gs" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit }
	on && $1 != "help" { print $1 }')
[ -n "$commands" ] || fail "gpuscope --help lists no command"
for cmd in $commands; do
	checks=$((checks + 1))
	if ! "$gs" "$cmd" --help >help.txt 2>help.err; then
		fail "$cmd --help: exit status $?"
		continue
	fi
	grep -q "^usage: gpuscope $cmd" help.txt || fail "$cmd --help: no usage line"
	grep -q '^options:' help.txt || fail "$cmd --help: no options"
	grep -q '^example' help.txt || fail "$cmd --help: no example"
	grep -q "^  gpuscope $cmd" help.txt || fail "$cmd --help: the example does not run $cmd"
	# Each option (a line "  -x, --name ..." or "  --name ...") says its
	# default or that it is required, in its own lines.
	awk -v cmd="$cmd" '
		function done() {
			if (opt != "" && opt !~ /--help/ && text !~ /default|required/)
				printf "FAIL: %s --help: %s gives no default\n", cmd, opt
		}
		/^options:/ { on = 1; next }
		on && /^[^ ]/ { done(); on = 0; opt = "" }
		on && /^  -/ { done(); opt = $1 " " $2; text = $0; next }
		on { text = text " " $0 }
		END { if (on) done() }
	' help.txt >defaults.txt
	if [ -s defaults.txt ]; then
		cat defaults.txt >&2
		failures=$((failures + $(wc -l <defaults.txt)))
	fi
	if [ -f "$man" ]; then
		grep -q "^\.SS.*$cmd" "$man" || fail "man page: no section for $cmd"
		for opt in $(grep -o -e '--[a-z][a-z-]*' help.txt | sort -u); do
			roff=$(printf '%s' "$opt" | sed 's/-/\\\\-/g')
			grep -q -e "$roff" "$man" || fail "man page: $cmd option $opt not documented"
		done
	fi
done
if [ -f "$man" ] && command -v groff >/dev/null 2>&1; then
	checks=$((checks + 1))
	groff -man -Tutf8 -ww -z "$man" 2>groff.err
	[ -s groff.err ] && fail "man page: groff warnings: $(cat groff.err)"
fi

# ---- progress line and colour on a terminal --------------------------------------

trace=$root/samples/tiny_pipeline.json
# Without a terminal: never a progress line, whatever the delay.
checks=$((checks + 1))
GPUSCOPE_PROGRESS_DELAY_MS=0 "$gs" analyze "$trace" >plain.out 2>plain.err
grep -q 'gpuscope: loading' plain.err && fail "progress line without a terminal"

if ! command -v script >/dev/null 2>&1 || ! script -qec true /dev/null >/dev/null 2>&1; then
	echo "note: script(1) absent or not working: the terminal checks are skipped"
else
	# on_tty NAME CMD...: run CMD on a pseudo-terminal (stdout and stderr
	# both go to it), its output in NAME.tty.
	on_tty() {
		name=$1
		shift
		checks=$((checks + 1))
		TERM=xterm script -qec "$*" /dev/null </dev/null >"$name.tty" 2>&1
	}
	GPUSCOPE_PROGRESS_DELAY_MS=0 on_tty progress "$gs" analyze --format json -o p.json "$trace"
	grep -q 'gpuscope: loading' progress.tty || fail "no loading progress on a terminal"
	grep -q 'gpuscope: analysing' progress.tty || fail "no analysing progress on a terminal"
	grep -q "${cr}${esc}\[K" progress.tty || fail "the progress line is not erased"
	GPUSCOPE_PROGRESS_DELAY_MS=0 on_tty quiet "$gs" analyze --quiet --format json -o q.json "$trace"
	grep -q 'gpuscope:' quiet.tty && fail "--quiet: $(cat quiet.tty)"
	for cmd in "info" "dump --limit 3"; do
		GPUSCOPE_PROGRESS_DELAY_MS=0 on_tty cmd "$gs" $cmd "$trace"
		grep -q 'gpuscope: loading' cmd.tty || fail "$cmd: no progress on a terminal"
		GPUSCOPE_PROGRESS_DELAY_MS=0 on_tty cmdq "$gs" $cmd --quiet "$trace"
		grep -q 'gpuscope: loading' cmdq.tty && fail "$cmd --quiet: progress line"
	done
	GPUSCOPE_PROGRESS_DELAY_MS=0 on_tty convert "$gs" convert --quiet "$trace" -o c.gscope
	grep -q 'gpuscope:' convert.tty && fail "convert --quiet: $(cat convert.tty)"
	[ -s c.gscope ] || fail "convert --quiet wrote nothing"
	# The default delay: a small trace loads in well under a second.
	on_tty fast "$gs" analyze --format json -o f.json "$trace"
	grep -q 'gpuscope:' fast.tty && fail "a progress line for a step under a second"

	on_tty color_auto "$gs" analyze "$trace"
	grep -q "$esc\[1m" color_auto.tty || fail "--color=auto: no colour on a terminal"
	NO_COLOR=1 on_tty no_color "$gs" analyze "$trace"
	grep -q "$esc\[" no_color.tty && fail "NO_COLOR: colour on a terminal"
	NO_COLOR=1 on_tty no_color_always "$gs" analyze --color=always "$trace"
	grep -q "$esc\[1m" no_color_always.tty || fail "--color=always with NO_COLOR: no colour"
	TERM=dumb script -qec "$gs analyze $trace" /dev/null </dev/null >dumb.tty 2>&1
	grep -q "$esc\[" dumb.tty && fail "TERM=dumb: colour"
fi

echo "term: $checks checks, $failures failures"
[ "$failures" -eq 0 ]
