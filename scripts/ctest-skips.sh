#!/bin/sh
# SPDX-License-Identifier: MIT
#
# After ctest: how many tests were skipped and why, one line each.
#
#   scripts/ctest-skips.sh BUILD_DIR CTEST_OUTPUT
#
# CTEST_OUTPUT is what ctest printed (its "The following tests did not run"
# list names the skipped tests: those that exited with their
# SKIP_RETURN_CODE, 77). The reason is the line of the test's output in
# BUILD_DIR/Testing/Temporary/LastTest.log that says "skip" (tests print
# one before exiting 77), else its last line.
set -u

build=${1:?usage: ctest-skips.sh BUILD_DIR CTEST_OUTPUT}
out=${2:?usage: ctest-skips.sh BUILD_DIR CTEST_OUTPUT}
log=$build/Testing/Temporary/LastTest.log

names=$(sed -n 's/^[[:space:]]*[0-9][0-9]* - \(.*\) (Skipped)$/\1/p' "$out")
if [ -z "$names" ]; then
	echo "0 tests skipped"
	exit 0
fi
n=$(printf '%s\n' "$names" | wc -l)
echo "$n test$([ "$n" -eq 1 ] || echo s) skipped:"
for t in $names; do
	reason=$(awk -v t="$t" '
		$0 ~ "^[0-9]+/[0-9]+ Test: " && $NF == t { intest = 1; next }
		intest && /^Output:/ { inout = 1; getline; next }
		inout && /^<end of output>/ { exit }
		inout && NF { last = $0; if (!why && tolower($0) ~ /skip/) why = $0 }
		END { print (why != "" ? why : (last != "" ? last : "(no reason printed)")) }
	' "$log" 2>/dev/null)
	printf '  %s: %s\n' "$t" "${reason:-(no log)}"
done
