#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The include graph against the layers of docs/design.md (its ```layers
# block): every #include of a C source or header under common/, formats/,
# collector/ and analyzer/ must point to its own layer or one below it.
#
#   scripts/check-includes.sh [SRCDIR]
#
# The block's lines (# starts a comment):
#   layer NAME RANK PATH...   a layer; a file belongs to the first layer one
#                             of whose paths matches it (a path ending in /
#                             is a directory; * and ? are shell patterns)
#   apart NAME NAME...        the first never includes the others, nor they it
#   known FILE -> FILE        an include that runs up today, listed so that
#                             the check passes; one that is gone fails too,
#                             so that the list only shrinks
#   public NAME...            front ends that include public headers only
#                             (<gpuscope/x.h> from an include/ directory) and
#                             their own folder's: no private header of a
#                             library (src/, opts/ and the like)
#   umbrella HEADER...        headers that include a whole library, for a
#                             user's program: no file of the project outside
#                             tests/ includes one (the umbrellas themselves
#                             excepted), so that each names the topic headers
#                             it uses and a dependency an umbrella would hide
#                             shows in its includes
# An include runs up when its target's rank is above the includer's, or
# equal in another layer (peers such as cli and mpi include neither).
# `#include "x.h"` is looked up beside the includer, then in each src/
# directory; <gpuscope/x.h> in each include/ directory (analyzer/opts/include
# too, gs_input_opts's); system headers are not checked. Prints each
# violation; exit 1 if any, 0 if none, 2 on a malformed block.
set -u

src=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$src" || exit 2
doc=docs/design.md

block=$(awk '/^```layers$/ { on = 1; next } on && /^```$/ { exit } on' "$doc")
if [ -z "$block" ]; then
	echo "check-includes: no \`\`\`layers block in $doc" >&2
	exit 2
fi

names=() ranks=() pats=() apart=() known=() public=() umbrellas=()
while read -r kind rest; do
	case $kind in
	'' | '#'*) ;;
	layer)
		read -r name rank paths <<<"$rest"
		names+=("$name")
		ranks+=("$rank")
		pats+=("$paths")
		;;
	apart) apart+=("$rest") ;;
	known) known+=("$rest") ;;
	public) read -r -a more <<<"$rest" && public+=("${more[@]}") ;;
	umbrella) read -r -a more <<<"$rest" && umbrellas+=("${more[@]}") ;;
	*)
		echo "check-includes: $doc: unknown line '$kind $rest'" >&2
		exit 2
		;;
	esac
done <<<"$block"

# layer_of FILE: the index of its layer in names[], or -1.
layer_of() {
	local i p
	for i in "${!names[@]}"; do
		for p in ${pats[$i]}; do
			# shellcheck disable=SC2254 # the patterns are meant as patterns
			case $1 in
			$p*) [ "${p%/}" != "$p" ] && { echo "$i"; return; } ;;
			esac
			# shellcheck disable=SC2254
			case $1 in
			$p) echo "$i"; return ;;
			esac
		done
	done
	echo -1
}

# apart_pair A B: A and B are kept apart by an `apart` line.
apart_pair() {
	local line first others o
	for line in "${apart[@]+"${apart[@]}"}"; do
		read -r first others <<<"$line"
		for o in $others; do
			if { [ "$1" = "$first" ] && [ "$2" = "$o" ]; } ||
				{ [ "$2" = "$first" ] && [ "$1" = "$o" ]; }; then
				return 0
			fi
		done
	done
	return 1
}

found=()
bad=0
files=$(find common formats collector analyzer python/src -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
for f in $files; do
	li=$(layer_of "$f")
	[ "$li" -ge 0 ] || continue
	dir=$(dirname "$f")
	while read -r inc; do
		t=
		case $inc in
		'"'*)
			inc=${inc#\"}
			inc=${inc%\"}
			if [ -f "$dir/$inc" ]; then
				t=$dir/$inc
			else # a private header of another folder, by its target's include path
				for d in analyzer/analyses analyzer/results analyzer/writers formats/src collector/src common/src; do
					[ -f "$d/$inc" ] && t=$d/$inc && break
				done
			fi
			;;
		'<gpuscope/'*)
			inc=${inc#<}
			inc=${inc%>}
			for d in common formats analyzer analyzer/opts collector; do
				[ -f "$d/include/$inc" ] && t=$d/include/$inc && break
			done
			;;
		esac
		[ -n "$t" ] || continue
		t=$(realpath --relative-to=. "$t")
		ti=$(layer_of "$t")
		[ "$ti" -ge 0 ] || continue
		sn=${names[$li]} tn=${names[$ti]}
		# A front end kept to public headers: its own folder's, or an
		# include/ directory's.
		for p in "${public[@]+"${public[@]}"}"; do
			if [ "$p" = "$sn" ] && [ "$(dirname "$t")" != "$dir" ] &&
				[ "${t#*/include/}" = "$t" ]; then
				echo "private: $f -> $t ($sn includes public headers only)"
				bad=1
			fi
		done
		if [ "${ranks[$ti]}" -gt "${ranks[$li]}" ] ||
			{ [ "${ranks[$ti]}" -eq "${ranks[$li]}" ] && [ "$tn" != "$sn" ]; } ||
			apart_pair "$sn" "$tn"; then
			edge="$f -> $t"
			is_known=0
			for k in "${known[@]+"${known[@]}"}"; do
				[ "$k" = "$edge" ] && is_known=1
			done
			found+=("$edge")
			if [ $is_known = 1 ]; then
				echo "known: $edge ($sn includes $tn)"
			else
				echo "up: $edge ($sn includes $tn)"
				bad=1
			fi
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p' "$f")
done

for k in "${known[@]+"${known[@]}"}"; do
	gone=1
	for e in "${found[@]+"${found[@]}"}"; do
		[ "$e" = "$k" ] && gone=0
	done
	if [ $gone = 1 ]; then
		echo "gone: $k (no longer runs up: take it off the known list in $doc)"
		bad=1
	fi
done

# The umbrellas: no file of the libraries and tools, bench/ and samples/
# includes one (tests/ may, to test it); an umbrella may include another.
for u in "${umbrellas[@]+"${umbrellas[@]}"}"; do
	while read -r f; do
		for v in "${umbrellas[@]}"; do
			[ "${f%/include/"$v"}" != "$f" ] && continue 2
		done
		echo "umbrella: $f includes <$u>: include the topic headers it uses instead"
		bad=1
	done < <(grep -rlE --include='*.[ch]' "^[[:space:]]*#[[:space:]]*include[[:space:]]*<${u//./[.]}>" \
		common formats collector analyzer python/src bench samples | LC_ALL=C sort)
done

if [ $bad = 1 ]; then
	echo "check-includes: includes that run up a layer or name an umbrella (docs/design.md, Layers)" >&2
	exit 1
fi
echo "check-includes: ${#found[@]} known, no new include runs up a layer"
exit 0
