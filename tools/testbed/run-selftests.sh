#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# run-selftests.sh [--ulp | TEST...]
#
# Run the selftests (default: all listed by "make -C selftests list";
# --ulp: the storage consumers' tests, "make -C selftests list-ulp"),
# each in its own fresh guest or pair of guests, and print one TAP stream:
# every test point of every test, plus one point per test saying its
# guests finished and their kernel logs are clean. Results and logs stay
# in build/testbed/results/TEST/. Ends with "N passed, N failed, N skipped".
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$SRC" || exit 2
RESULTS=${SROCE_RESULTS:-$SRC/build/testbed/results}
TIMEOUT=${SROCE_TEST_TIMEOUT:-600}

if [ "${1:-}" = --ulp ]; then
	mapfile -t all < <(make -s -C selftests list-ulp)
	shift
else
	mapfile -t all < <(make -s -C selftests list list-ulp list-deb)
	# by default, not the ULP tests (named ones are found in both)
	[ $# -gt 0 ] || mapfile -t all < <(make -s -C selftests list)
fi
if [ $# -gt 0 ]; then
	sel=()
	for want in "$@"; do
		for line in "${all[@]}"; do
			[ "${line#* }" = "$want" ] && sel+=("$line")
		done
	done
else
	sel=("${all[@]}")
fi

pass=0
fail=0
skip=0
n=0
point() { # ok|not-ok|skip name
	n=$((n + 1))
	case "$1" in
	ok) pass=$((pass + 1)); echo "ok $n - $2" ;;
	skip) skip=$((skip + 1)); echo "ok $n - $2" ;;
	*) fail=$((fail + 1)); echo "not ok $n - $2" ;;
	esac
}

echo "TAP version 13"
# Most tests run programs "make -C selftests" builds: without them
# each would fail in its guest for a reason far from this one. Say so
# first (the package's test, run on a tree that need not have them,
# runs none).
missing=()
while read -r p; do
	[ -e "selftests/$p" ] || missing+=("$p")
done < <(make -s -C selftests list-built)
if [ ${#missing[@]} -gt 0 ]; then
	echo "# warning: selftest programs not built (${missing[*]}):" \
		"tests that run them fail; run make -C selftests first"
fi

# launch LINE: start the test's guests in the background; its vm.sh
# output and exit status go beside its results (report reads them).
launch() {
	local topo=${1%% *} t=${1#* } out opt mem tmo
	out=$RESULTS/${t//\//_}
	opt=()
	[ "$topo" = pair ] && opt=(--pair)
	[ "$topo" = fan3 ] && opt=(--guests 3)
	# A test may ask for more guest memory with a "# memory: MiB" line.
	mem=$(sed -n 's/^# memory: \([0-9]*\)$/\1/p' "selftests/$t")
	# ... and SROCE_MIN_MEM raises every guest's (check-debug sets it).
	[ "${mem:-0}" -lt "${SROCE_MIN_MEM:-0}" ] && mem=$SROCE_MIN_MEM
	[ -n "$mem" ] && opt+=(-m "$mem")
	# ... and more time with "# timeout: SECONDS" (a safety net, which
	# a test's verdict never depends on).
	tmo=$(sed -n 's/^# timeout: \([0-9]*\)$/\1/p' "selftests/$t")
	[ -n "$tmo" ] && [ "$tmo" -gt "$TIMEOUT" ] || tmo=$TIMEOUT
	mkdir -p "$RESULTS"
	(
		tools/testbed/vm.sh "${opt[@]}" -t "$tmo" -o "$out" \
			"selftests/$t" > "$out.vmlog"
		echo $? > "$out.rc"
	) &
}

# report LINE START: the finished test's points, in order.
report() {
	local topo=${1%% *} t=${1#* } out g h l vmrc
	out=$RESULTS/${t//\//_}
	echo "# selftest $t ($topo)"
	vmrc=$(cat "$out.rc" 2>/dev/null || echo 2)
	for g in "$out"/*/; do
		g=${g%/}
		[ -f "$g/output.txt" ] || continue
		h=${g##*/}
		while IFS= read -r l; do
			case "$l" in
			"ok "*" # SKIP"*)
				point skip "$t[$h]: ${l#ok [0-9]* }" ;;
			"ok "*)
				point ok "$t[$h]: ${l#ok [0-9]* }" ;;
			"not ok "*)
				point not-ok "$t[$h]: ${l#not ok [0-9]* }" ;;
			*)
				echo "#   $l" ;;
			esac
		done < "$g/output.txt"
	done
	[ -s "$out.vmlog" ] && cat "$out.vmlog"
	rm -f "$out.vmlog" "$out.rc"
	if [ "$vmrc" -eq 0 ]; then
		point ok "$t: guests finished, exit 0, kernel log clean"
	else
		point not-ok "$t: guests finished, exit 0, kernel log clean (logs in $out)"
	fi
	echo "# $t took $((SECONDS - $2)) s"
}

# Tests run one after another, except that single-guest ("solo") tests
# run SROCE_SOLO_JOBS at a time (default 2: one guest per core of a
# two-core runner, as a pair of guests uses them). Their points are
# printed test by test all the same.
jobs_max=${SROCE_SOLO_JOBS:-2}
i=0
while [ $i -lt ${#sel[@]} ]; do
	batch=("${sel[$i]}")
	i=$((i + 1))
	if [ "${batch[0]%% *}" = solo ]; then
		while [ $i -lt ${#sel[@]} ] && [ ${#batch[@]} -lt "$jobs_max" ] &&
		      [ "${sel[$i]%% *}" = solo ]; do
			batch+=("${sel[$i]}")
			i=$((i + 1))
		done
	fi
	start=$SECONDS
	for line in "${batch[@]}"; do
		launch "$line"
	done
	wait
	for line in "${batch[@]}"; do
		report "$line" "$start"
	done
done
echo "1..$n"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
