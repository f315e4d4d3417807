#!/bin/sh
# SPDX-License-Identifier: MIT
# The HTML report in a real browser (ctest label "browser").
#
#   run.sh GPUSCOPE REPO_ROOT WORKDIR [GS_BENCH_GEN [SHARED_DATA]]
#
# For every sample (REPO_ROOT/samples: *.json, *.json.gz, *.gscope; not under
# a bad/ directory) and every real Kineto trace in SHARED_DATA/kineto:
# `gpuscope analyze --format html` writes the page; it must stay under 5 MB
# and load nothing from the network. Headless Chromium then renders it
# (--dump-dom): the page's script ran to the end (data-ready="1" on <html>)
# with no error (no data-error, no console message), the timeline has a
# width on the page, and the lanes, band and tables are there. A screenshot
# of each page (1400x2000) is kept in WORKDIR/shots/ to look at.
#
# With GS_BENCH_GEN, the pages of generated jobs too: 1,024 ranks with a
# straggler (rank 300) and 4 ranks. The large one loads without a script
# error; its chart has at most 32 lanes and is drawn; the rows and sections
# of the others are collapsed (<details>) and the straggler's section is
# not; a click on the index opens a collapsed rank's section; the filter
# keeps one link for a rank number. The small one has every row and
# section open, no index.
#
# Skipped (exit 77) when Chromium is absent: scripts/install-deps.sh
# --browser installs Debian's chromium.
set -u

gs=${1:?usage: run.sh GPUSCOPE REPO_ROOT WORKDIR [GS_BENCH_GEN [SHARED_DATA]]}
root=${2:?repository root}
work=${3:?work dir}
gen=${4:-}
shared=${5:-}

browser=
for b in chromium chromium-browser google-chrome-stable google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$(command -v "$b")
		break
	fi
done
if [ -z "$browser" ]; then
	echo "skipped: Chromium not found (scripts/install-deps.sh --browser installs it)"
	exit 77
fi

case $gs in /*) ;; *) gs=$(pwd)/$gs ;; esac
case $work in /*) ;; *) work=$(pwd)/$work ;; esac
rm -rf "$work" && mkdir -p "$work/shots" "$work/home" || exit 1
# Chromium writes its profile and caches under HOME: keep them here.
export HOME="$work/home"
unset NO_COLOR

failures=0
pages=0

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}

chrome() {
	timeout 120 "$browser" --headless --disable-gpu --no-sandbox --no-first-run \
		--disable-dev-shm-usage --disable-crash-reporter \
		--user-data-dir="$work/profile" --enable-logging=stderr --v=0 \
		--virtual-time-budget=5000 "$@"
}

# check_page NAME TRACE
check_page() {
	name=$1
	trace=$2
	html=$work/$name.html
	pages=$((pages + 1))
	if ! "$gs" analyze --quiet --format html -o "$html" "$trace" 2>"$work/$name.err"; then
		# A profile of the host only has no page: refused, saying what
		# to record.
		if grep -q 'no GPU ops: .*ProfilerActivity.CUDA' "$work/$name.err"; then
			pages=$((pages - 1))
			return
		fi
		fail "$name: gpuscope analyze --format html failed: $(cat "$work/$name.err")"
		return
	fi
	size=$(wc -c <"$html")
	[ "$size" -lt 5000000 ] || fail "$name: $size bytes, not under 5 MB"
	if grep -q -e 'https\?://' -e ' src=' -e '<link' "$html"; then
		fail "$name: the page refers to something outside itself"
	fi

	chrome --window-size=1400,2000 --dump-dom "file://$html" >"$work/$name.dom" \
		2>"$work/$name.log" || fail "$name: chromium --dump-dom failed"
	grep -q '<html[^>]* data-ready="1"' "$work/$name.dom" ||
		fail "$name: the page's script did not run to the end"
	if grep -q 'data-error=' "$work/$name.dom"; then
		fail "$name: script error: $(grep -o 'data-error="[^"]*"' "$work/$name.dom")"
	fi
	if grep -q -e ':CONSOLE' -e 'Uncaught' "$work/$name.log"; then
		fail "$name: console messages: $(grep -e ':CONSOLE' -e 'Uncaught' "$work/$name.log")"
	fi
	if grep -q 'id="nodev"' "$work/$name.dom"; then
		: # a trace without GPU ops: the page says so
	else
		for want in 'class="timeline"' 'class="lane real"' 'class="lane ideal"' \
			'class="band"' 'id="bdbar-0"' 'id="breakdown-0"' 'id="findings-0"' \
			'id="schedule-0"' 'id="critical-0"' 'id="waits-0"' 'id="missed-0"' \
			'id="idle-0"' 'id="candidates-0"' 'id="streams-0"' 'id="kernels-0"'; do
			grep -q "$want" "$work/$name.dom" || fail "$name: no $want in the page"
		done
		# The script drew the axis and measured the timeline on the page.
		px=$(grep -o 'data-px="[0-9]*"' "$work/$name.dom" | head -n1 | tr -dc 0-9)
		[ "${px:-0}" -ge 600 ] || fail "$name: timeline ${px:-0} px wide on a 1400 px page"
		grep -q '<svg class="axis"[^>]*><line' "$work/$name.dom" ||
			fail "$name: no axis ticks"
	fi

	# Zoom and pan as a user would: wheel, drag, then the reset button.
	if grep -q 'class="timeline"' "$html"; then
		sed 's|</body>|<script>\
(function(){var sv=document.querySelector("svg.lanes"),r=sv.getBoundingClientRect(),\
de=document.documentElement,y=r.top+10;\
sv.dispatchEvent(new WheelEvent("wheel",{deltaY:-600,clientX:r.left+r.width/2,clientY:y,\
bubbles:true,cancelable:true}));de.setAttribute("data-zoom",sv.getAttribute("viewBox"));\
sv.dispatchEvent(new MouseEvent("mousedown",{clientX:r.left+r.width/2,clientY:y,bubbles:true}));\
window.dispatchEvent(new MouseEvent("mousemove",{clientX:r.left+r.width/4,clientY:y}));\
window.dispatchEvent(new MouseEvent("mouseup",{}));de.setAttribute("data-pan",sv.getAttribute("viewBox"));\
document.querySelector(".timeline button[data-z=reset]").click();\
de.setAttribute("data-reset",sv.getAttribute("viewBox"));})();\
</script></body>|' "$html" >"$work/$name.zoom.html"
		chrome --window-size=1400,2000 --dump-dom "file://$work/$name.zoom.html" \
			>"$work/$name.zoom.dom" 2>/dev/null
		zoom=$(sed -n 's/.*data-zoom="\([^"]*\)".*/\1/p' "$work/$name.zoom.dom" | head -n1)
		pan=$(sed -n 's/.*data-pan="\([^"]*\)".*/\1/p' "$work/$name.zoom.dom" | head -n1)
		reset=$(sed -n 's/.*data-reset="\([^"]*\)".*/\1/p' "$work/$name.zoom.dom" | head -n1)
		# viewBox "x0 0 width height": the wheel narrows it, the drag
		# moves it right, reset shows the whole span again.
		set -- $zoom
		zx=${1:-0} zw=${3:-1000000}
		set -- $pan
		px=${1:-0}
		set -- $reset
		if ! awk -v zx="$zx" -v zw="$zw" -v px="$px" -v rx="${1:-}" -v rw="${3:-}" \
			'BEGIN { exit !(zw < 1000000 && px > zx && rx == 0 && rw == 1000000) }'; then
			fail "$name: zoom/pan/reset: viewBox '$zoom', '$pan', '$reset'"
		fi
		if grep -q 'data-error=' "$work/$name.zoom.dom"; then
			fail "$name: script error while zooming: $(grep -o 'data-error="[^"]*"' "$work/$name.zoom.dom")"
		fi
	fi

	chrome --window-size=1400,2000 --screenshot="$work/shots/$name.png" "file://$html" \
		>/dev/null 2>&1 || fail "$name: chromium --screenshot failed"
	[ -s "$work/shots/$name.png" ] || fail "$name: no screenshot"
	echo "ok: $name ($size bytes, shots/$name.png)"
}

list=$work/traces.txt
find "$root/samples" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.gscope' \) \
	! -path '*/bad/*' 2>/dev/null | sort >"$list"
if [ -n "$shared" ] && [ -d "$shared/kineto" ]; then
	find "$shared/kineto" -type f -name '*.json.gz' | sort >>"$list"
else
	echo "note: ../shared/data absent: samples only"
fi
while IFS= read -r trace; do
	case $trace in
	"$root"/*) rel=${trace#"$root"/} ;;
	*) rel=shared/${trace#"$shared"/} ;;
	esac
	name=$(printf '%s' "$rel" | tr '/ ' '__' | sed 's/\.json\.gz$//; s/\.json$//; s/\.gscope$//')
	check_page "$name" "$trace"
done <"$list"

# check_job NAME RANKS STRAGGLER: the page of a generated job.
check_job() {
	name=$1
	ranks=$2
	strag=$3
	dir=$work/$name.job
	html=$work/$name.html
	pages=$((pages + 1))
	"$gen" --job "$ranks" --out-dir "$dir" --ops-per-rank 30 --straggler "$strag" \
		--straggler-share 1 >/dev/null || { fail "$name: gs_bench_gen failed"; return; }
	rm -f "$dir/expected.json"
	if ! "$gs" analyze --quiet --format html -o "$html" "$dir"/rank*.json 2>"$work/$name.err"; then
		fail "$name: gpuscope analyze --format html failed: $(cat "$work/$name.err")"
		return
	fi
	size=$(wc -c <"$html")
	if grep -q -e 'https\?://' -e ' src=' -e '<link' "$html"; then
		fail "$name: the page refers to something outside itself"
	fi
	# What a user does, as a script run after the page's: a click on a
	# collapsed rank's link in the index, then the filter.
	sed 's|</body>|<script>\
(function(){var de=document.documentElement,q=function(s){return document.querySelector(s);};\
var lanes=q("#job-timeline-0 svg.labels").querySelectorAll("text").length;\
de.setAttribute("data-lanes",lanes);\
var nav=q("nav a"),out=nav\&\&document.getElementById(nav.getAttribute("href").slice(1));\
de.setAttribute("data-outlier-open",out\&\&!out.closest("details:not([open])")?"1":"0");\
var a=q("#job-index a[href=\\"#dev-1\\"]");\
if(a){var t=document.getElementById("dev-1"),c0=!!t.closest("details:not([open])");\
a.click();de.setAttribute("data-jump",(c0?"closed":"open")+","+(t.closest("details:not([open])")?"closed":"open"));}\
var f=q("#job-filter");if(f){f.value="17";f.dispatchEvent(new Event("input"));\
var n=0;document.querySelectorAll("#job-index a").forEach(function(x){if(!x.hidden\&\&!x.parentElement.hidden)n++;});\
de.setAttribute("data-filter",n);}})();\
</script></body>|' "$html" >"$work/$name.check.html"
	chrome --window-size=1400,2000 --dump-dom "file://$work/$name.check.html" \
		>"$work/$name.dom" 2>"$work/$name.log" || fail "$name: chromium --dump-dom failed"
	grep -q '<html[^>]* data-ready="1"' "$work/$name.dom" ||
		fail "$name: the page's script did not run to the end"
	if grep -q 'data-error=' "$work/$name.dom"; then
		fail "$name: script error: $(grep -o 'data-error="[^"]*"' "$work/$name.dom")"
	fi
	if grep -q -e ':CONSOLE' -e 'Uncaught' "$work/$name.log"; then
		fail "$name: console messages: $(grep -e ':CONSOLE' -e 'Uncaught' "$work/$name.log")"
	fi
	attr() { sed -n "s/.*<html[^>]* $1=\"\([^\"]*\)\".*/\1/p" "$work/$name.dom" | head -n1; }
	lanes=$(attr data-lanes)
	[ "${lanes:-0}" -ge 2 ] && [ "${lanes:-99}" -le 32 ] ||
		fail "$name: the job chart has '${lanes}' lanes, not 2 to 32"
	grep -q '<svg class="axis" id="job-axis-0"><line' "$work/$name.dom" ||
		fail "$name: the job chart has no axis ticks"
	[ "$(attr data-outlier-open)" = 1 ] ||
		fail "$name: the outlier's section (the first link) is collapsed or missing"
	if [ "$ranks" -gt 8 ]; then
		for want in 'id="job-index"' 'id="job-filter"' 'id="job-ranks-all"' \
			'id="job-totals-all"' '<details class="ranks">' '<details class="rank">' \
			'other GPUs</text>'; do
			grep -q "$want" "$work/$name.dom" || fail "$name: no $want in the page"
		done
		[ "$(attr data-jump)" = "closed,open" ] ||
			fail "$name: a click on the index: rank 1's section '$(attr data-jump)'"
		[ "$(attr data-filter)" = 1 ] ||
			fail "$name: the filter '17' keeps $(attr data-filter) links, not 1"
	else
		for nowant in 'id="job-index"' '<details'; do
			grep -q "$nowant" "$work/$name.dom" && fail "$name: $nowant in a small job's page"
		done
		[ "$(grep -c '<section class="device"' "$work/$name.dom")" = "$ranks" ] ||
			fail "$name: not every rank's section"
	fi
	chrome --window-size=1400,3000 --screenshot="$work/shots/$name.png" "file://$html" \
		>/dev/null 2>&1 || fail "$name: chromium --screenshot failed"
	[ -s "$work/shots/$name.png" ] || fail "$name: no screenshot"
	rm -rf "$dir"
	echo "ok: $name ($size bytes, shots/$name.png)"
}

if [ -n "$gen" ]; then
	check_job job1024 1024 300
	check_job job4 4 2
else
	echo "note: no GS_BENCH_GEN: no job pages"
fi

echo "browser: $pages pages, $failures failures ($("$browser" --version 2>/dev/null))"
[ "$pages" -gt 0 ] || exit 1
[ "$failures" -eq 0 ]
