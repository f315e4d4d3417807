#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The bad-input corpus (in the style of babeltrace's fail traces): each
# cases/NAME.expect names an input and the exact outcome gpuscope must give.
#
#   run.sh GPUSCOPE GEN_BAD CASES_DIR WORK_DIR MEM_MB
#
# GEN_BAD writes the binary and large inputs into WORK_DIR first; the
# others are in CASES_DIR. Each case runs in the directory of its input
# (so messages name it by its bare name) under `timeout` (GS_BAD_TIME_S
# seconds, 180 by default)
# and, when MEM_MB > 0, `ulimit -v` (MEM_MB MiB of address space). The run
# must finish within those limits, exit with the expected status and write
# exactly the expected stderr (nothing more). On stdout only the lines
# asked for with stdout-has are checked.
#
# .expect keys, one per line ('#' starts a comment):
#   file: NAME        the input (CASES_DIR/NAME, else WORK_DIR/NAME)
#   run: ARGS         the gpuscope command and options before the input
#                     (default: info)
#   env: VAR=VALUE    set for this case (may repeat)
#   status: N         expected exit status
#   stderr: LINE      an exact line of stderr, in order (may repeat)
#   stderr-re: ERE    a line matching this extended regex, whole line
#   stdout-has: TEXT  some line of stdout holds TEXT (a fixed string; may
#                     repeat, in any order)
#   absent: NAME      no file NAME in the input's directory after the run
#                     (nothing written beside the input; may repeat)
#   input: pipe       give the input through a pipe as standard input (the
#                     TRACE operand is '-', named "stdin" in messages)
#                     instead of naming it
set -u

gpuscope=$1
gen=$2
cases=$3
work=$4
mem_mb=$5
# A hang, not a slow run, is what the limit is for: generous, so that a
# loaded machine (sanitizers, the suite run in parallel) does not fail it.
time_s=${GS_BAD_TIME_S:-180}

fail=0
count=0
rm -rf "$work"
mkdir -p "$work" || exit 1
if ! "$gen" "$work"; then
	echo "FAIL: $gen could not write the inputs" >&2
	exit 1
fi
case $gpuscope in
/*) ;;
*) gpuscope=$(pwd)/$gpuscope ;;
esac

for expect in "$cases"/*.expect; do
	name=$(basename "$expect" .expect)
	file= run=info status= envs= via= absent=
	: >"$work/$name.want"
	: >"$work/$name.has"
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'#'* | '') ;;
		file:*) file=${line#file: } ;;
		run:*) run=${line#run: } ;;
		env:*) envs="$envs ${line#env: }" ;;
		input:*) via=${line#input: } ;;
		absent:*) absent="$absent ${line#absent: }" ;;
		status:*) status=${line#status: } ;;
		stderr:* | stderr-re:*) printf '%s\n' "$line" >>"$work/$name.want" ;;
		stdout-has:*) printf '%s\n' "${line#stdout-has: }" >>"$work/$name.has" ;;
		*)
			echo "FAIL: $name: unknown line in $expect: $line" >&2
			fail=1
			;;
		esac
	done <"$expect"
	case $via in
	'' | pipe) ;;
	*)
		echo "FAIL: $name: unknown input: $via (pipe)" >&2
		fail=1
		continue
		;;
	esac
	if [ -z "$file" ] || [ -z "$status" ]; then
		echo "FAIL: $name: $expect needs file: and status:" >&2
		fail=1
		continue
	fi
	if [ -e "$cases/$file" ]; then
		dir=$cases
	elif [ -e "$work/$file" ]; then
		dir=$work
	else
		echo "FAIL: $name: no input $file" >&2
		fail=1
		continue
	fi
	count=$((count + 1))
	start=$(date +%s)
	# shellcheck disable=SC2086 # $run and $envs are word lists on purpose
	(
		cd "$dir" || exit 99
		if [ "$mem_mb" -gt 0 ]; then
			ulimit -v $((mem_mb * 1024)) || exit 98
		fi
		if [ "$via" = pipe ]; then
			cat "$file" | env $envs timeout -s KILL "$time_s" "$gpuscope" $run -
			exit
		fi
		exec env $envs timeout -s KILL "$time_s" "$gpuscope" $run "$file"
	) >"$work/$name.out" 2>"$work/$name.err"
	got=$?
	took=$(($(date +%s) - start))
	if [ "$got" = 137 ]; then
		echo "FAIL: $name: killed after ${took}s (time limit ${time_s}s, or memory)" >&2
		fail=1
		continue
	fi
	if [ "$got" != "$status" ]; then
		echo "FAIL: $name: exit status $got, expected $status; stderr:" >&2
		sed 's/^/    /' "$work/$name.err" >&2
		fail=1
		continue
	fi
	# stderr, line by line, against the wanted lines.
	want_n=$(wc -l <"$work/$name.want")
	got_n=$(wc -l <"$work/$name.err")
	if [ "$want_n" != "$got_n" ]; then
		echo "FAIL: $name: $got_n stderr lines, expected $want_n; stderr:" >&2
		sed 's/^/    /' "$work/$name.err" >&2
		fail=1
		continue
	fi
	i=0
	before=$fail
	while IFS= read -r want; do
		i=$((i + 1))
		gotline=$(sed -n "${i}p" "$work/$name.err")
		case $want in
		stderr-re:*)
			re=${want#stderr-re: }
			if ! printf '%s\n' "$gotline" | grep -Eqx -- "$re"; then
				echo "FAIL: $name: stderr line $i does not match" >&2
				echo "    got:  $gotline" >&2
				echo "    want: /$re/" >&2
				fail=1
			fi
			;;
		*)
			want=${want#stderr: }
			if [ "$gotline" != "$want" ]; then
				echo "FAIL: $name: stderr line $i differs" >&2
				echo "    got:  $gotline" >&2
				echo "    want: $want" >&2
				fail=1
			fi
			;;
		esac
	done <"$work/$name.want"
	while IFS= read -r want; do
		if ! grep -Fq -- "$want" "$work/$name.out"; then
			echo "FAIL: $name: no line of stdout holds: $want" >&2
			fail=1
		fi
	done <"$work/$name.has"
	for a in $absent; do
		if [ -e "$dir/$a" ]; then
			echo "FAIL: $name: $a was written beside the input" >&2
			rm -f "$dir/$a"
			fail=1
		fi
	done
	[ "$fail" = "$before" ] && echo "ok: $name (exit $got, ${took}s)"
done

if [ "$count" = 0 ]; then
	echo "FAIL: no cases in $cases" >&2
	exit 1
fi
if [ "$fail" != 0 ]; then
	echo "bad inputs: FAILED" >&2
	exit 1
fi
echo "bad inputs: $count cases passed (memory limit ${mem_mb} MiB, time limit ${time_s} s)"
