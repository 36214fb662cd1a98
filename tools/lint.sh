#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# lint.sh [all|build|sparse|checkpatch|layers]
#
# The quality gates of the kernel code, each exiting non-zero on any
# finding:
#   build       the module builds with W=1 and prints no warning
#   sparse      "make C=2" (every file) reports nothing
#   checkpatch  checkpatch.pl --strict (from Debian's linux-source-6.1)
#               on every C file and header of the kernel code
#   layers      tools/layers.py: every driver file in design.rst's file
#               map, no call or include to a higher layer, no circle
#               (reads the objects of the build: run after it)
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC" || exit 2
KS=$SRC/build/ks

quiet_build() { # extra make args...
	local log rc
	log=$(mktemp)
	make -s -j"$(nproc)" "$@" > "$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ] || grep -E 'warning:|error:' "$log"; then
		cat "$log"
		rm -f "$log"
		return 1
	fi
	rm -f "$log"
}

do_build() {
	echo "lint: W=1 build"
	make -s modclean >/dev/null 2>&1
	quiet_build W=1
}

do_sparse() {
	echo "lint: sparse"
	quiet_build C=2 W=1
}

checkpatch_tree() {
	if [ ! -x "$KS/scripts/checkpatch.pl" ]; then
		mkdir -p "$KS"
		tar -xf /usr/src/linux-source-6.1.tar.xz -C "$KS" \
			--strip-components=1 \
			linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch ||
			return 1
	fi
}

do_checkpatch() {
	echo "lint: checkpatch --strict"
	checkpatch_tree || { echo "no linux-source-6.1 (make deps)"; return 1; }
	# Kernel code only: drivers/, include/ and the test module.
	# MACRO_ARG_REUSE: the opcode table's layout macros only ever see
	# constants. The rest is the kernel's own rules, unchanged.
	# The tracepoints' header is laid out as the kernel's own
	# (include/trace/events/): TP_STRUCT__entry( and TP_fast_assign(
	# end their lines, and the macros' arguments are not aligned to the
	# opening parenthesis; those two checks only are left out there.
	local out trace='drivers/infiniband/sw/sroce/sroce_trace.h'
	out=$({
		git ls-files -co --exclude-standard -- 'drivers/*.[ch]' \
			'selftests/kmod/*.c' 'include/*.h' |
			grep -vxF "$trace" |
			xargs "$KS/scripts/checkpatch.pl" --strict --no-tree \
				--terse --ignore MACRO_ARG_REUSE -f
		"$KS/scripts/checkpatch.pl" --strict --no-tree --terse \
			--ignore MACRO_ARG_REUSE,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT \
			-f "$trace"
	} | grep -v '^total: 0 errors, 0 warnings, 0 checks')
	[ -z "$out" ] || { echo "$out"; return 1; }
}

do_layers() {
	echo "lint: layers"
	[ -f drivers/infiniband/sw/sroce/rdma_sroce.ko ] || quiet_build ||
		return 1
	python3 tools/layers.py
}

rc=0
case "${1:-all}" in
build) do_build || rc=1 ;;
sparse) do_sparse || rc=1 ;;
checkpatch) do_checkpatch || rc=1 ;;
layers) do_layers || rc=1 ;;
all)
	do_build || rc=1
	do_layers || rc=1
	do_sparse || rc=1
	do_checkpatch || rc=1
	;;
*) echo "usage: $0 [all|build|sparse|checkpatch|layers]"; exit 2 ;;
esac
exit $rc
