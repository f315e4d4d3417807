#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-mpi: a job of RANKS generated ranks x OPS ops analysed by
# gpuscope-mpi with -n 1, 2 and 4 (and by gpuscope analyze for reference):
# wall time, the peak memory of each MPI process and the bytes each sent to
# the root (gpuscope-mpi --stats). Writes the table to stdout and to
# bench/results/mpi-latest.txt.
#   mpi_bench.sh BUILD_DIR [RANKS] [OPS]
set -eu
B=$1 RANKS=${2:-256} OPS=${3:-20000}
T=${TMPDIR:-/tmp}/gs-mpi-bench.$$
# As MPI jobs run on a cluster, each process on cores of its own: up to one
# process per CPU, each bound to a core (gs_cpu_count then gives it one
# thread); past that, oversubscribed and unbound.
RUN="mpirun"
[ "$(id -u)" = 0 ] && RUN="$RUN --allow-run-as-root"
CPUS=$(nproc)
mkdir -p "$T" bench/results
trap 'rm -rf "$T"' EXIT
"$B/bench/gs_bench_gen" --job "$RANKS" --out-dir "$T/job" --ops-per-rank "$OPS" >/dev/null
rm -f "$T/job/expected.json"
ls "$T"/job/rank*.json >"$T/inputs.txt"
OUT=bench/results/mpi-latest.txt
{
	echo "gpuscope-mpi: $RANKS ranks x $OPS ops ($(du -sh "$T/job" | cut -f1) of Kineto JSON)," \
		"$(nproc) CPUs, load before: $(cut -d' ' -f1-3 /proc/loadavg)"
	s0=$(date +%s.%N)
	/usr/bin/time -f "%M" -o "$T/ref.mem" "$B/analyzer/gpuscope" analyze --format json \
		$(cat "$T/inputs.txt") >"$T/ref.json"
	s1=$(date +%s.%N)
	printf 'gpuscope analyze:  %6.2f s, peak %s KiB\n' "$(echo "$s1 - $s0" | bc)" "$(cat "$T/ref.mem")"
	for n in 1 2 4; do
		s0=$(date +%s.%N)
		if [ "$n" -le "$CPUS" ]; then bind="--bind-to core"; else bind="--oversubscribe --bind-to none"; fi
		# shellcheck disable=SC2086 # $bind is two words
		$RUN $bind -n $n "$B/analyzer/mpi/gpuscope-mpi" analyze --format json --stats \
			--inputs "$T/inputs.txt" >"$T/mpi.json" 2>"$T/stats.txt"
		s1=$(date +%s.%N)
		grep -v '"mpi": {"processes"' "$T/mpi.json" | sed 's/"window_ns": null,$/"window_ns": null/' |
			cmp -s - "$T/ref.json" && same=same || same=DIFFERS
		printf 'gpuscope-mpi -n %d: %6.2f s (JSON %s as gpuscope analyze)\n' $n \
			"$(echo "$s1 - $s0" | bc)" $same
		sed -n 's/^gpuscope-mpi: stats: /    /p' "$T/stats.txt" | sort -t' ' -k7n
	done
	echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$OUT"
