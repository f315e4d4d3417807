#!/bin/sh
# SPDX-License-Identifier: MIT
# The outputs the README quotes are those of the current build: the first
# screen of `gpuscope analyze` on the ResNet-50 trace of the shared data
# (the input's directory left out, as the README shows it), and the lines
# of the CI gate's `gpuscope diff --fail-if` on the two ResNet-50 traces,
# with its exit status 3. When the report changes, paste the new lines
# into README.md (and docs/ci.md, which quotes the same gate).
#   readme_outputs.sh GPUSCOPE SOURCE_DIR SHARED_DATA WORKDIR
# Exit 77 (skipped) without the shared data.
set -u
GS=$1 SRC=$2 DATA=$3 W=$4
TB=$DATA/kineto/tb-plugin
BASE=$TB/v100_resnet50_workers4_2021-06.json.gz
NEW=$TB/v100_resnet50_workers0_2021-01.json.gz
if [ ! -f "$BASE" ] || [ ! -f "$NEW" ]; then
	echo "skipped: $TB is absent"
	exit 77
fi
rm -rf "$W" && mkdir -p "$W" || exit 1
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

# block FILE START: the lines of the first ``` block after the line START.
block() {
	awk -v start="$2" '
		$0 == start { seen = 1; next }
		seen && /^```/ { if (inside) exit; inside = 1; next }
		inside { print }' "$1"
}

# The first screen.
block "$SRC/README.md" "## Reading the first screen" >"$W/readme-screen.txt"
n=$(wc -l <"$W/readme-screen.txt")
[ "$n" -gt 20 ] || bad "README.md: no first screen found ($n lines)"
NO_COLOR=1 "$GS" analyze --color=never "$BASE" 2>/dev/null | sed "s|$TB/||" | head -n "$n" \
	>"$W/screen.txt"
cmp -s "$W/readme-screen.txt" "$W/screen.txt" || {
	bad "README.md's first screen is not what gpuscope analyze prints now:"
	diff "$W/readme-screen.txt" "$W/screen.txt" | head -n 20
}

# The gate's lines, in the README and docs/ci.md.
"$GS" diff "$BASE" "$NEW" --format json -o "$W/diff.json" \
	--fail-if 'step_time>+5%,exposed_comm>+2ms,idle_share>+3pp,efficiency<0.6' 2>"$W/gate.err"
rc=$?
[ $rc = 3 ] || bad "gpuscope diff --fail-if: exit $rc, not 3"
[ -s "$W/diff.json" ] || bad "gpuscope diff --fail-if: no diff.json written"
block "$SRC/README.md" "the base and the same training without data-loader workers as NEW, the job fails with:" \
	>"$W/readme-gate.txt"
cmp -s "$W/readme-gate.txt" "$W/gate.err" || {
	bad "README.md's gate lines are not what gpuscope diff prints now:"
	diff "$W/readme-gate.txt" "$W/gate.err"
}
"$GS" diff "$BASE" "$NEW" --fail-if 'step_time>+5%,idle_share>+3pp' >/dev/null 2>"$W/gate2.err"
sed -n 's/^#   gpuscope: /gpuscope: /p' "$SRC/docs/ci.md" >"$W/ci-gate.txt"
cmp -s "$W/ci-gate.txt" "$W/gate2.err" || {
	bad "docs/ci.md's gate lines are not what gpuscope diff prints now:"
	diff "$W/ci-gate.txt" "$W/gate2.err"
}

[ $fail = 0 ] && echo "ok: the outputs README.md and docs/ci.md quote are the current build's"
exit $fail
