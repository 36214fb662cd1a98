# SPDX-License-Identifier: GPL-2.0-only
#
# Shared helpers for sroce selftests (sourced, bash). Tests run as root
# inside a testbed guest (tools/testbed/vm.sh), or on any scratch machine
# that has the module built; they print KTAP and exit non-zero on failure.

SROCE_SRC=${SROCE_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SROCE_KO=$SROCE_SRC/drivers/infiniband/sw/sroce/rdma_sroce.ko

KTAP_N=0
KTAP_FAIL=0
KTAP_SKIP=0

KTAP_PLAN=

ktap_begin() { # [plan]; without one the plan is printed at the end
	echo "KTAP version 1"
	KTAP_PLAN=${1:-}
	[ -z "$KTAP_PLAN" ] || echo "1..$KTAP_PLAN"
}

ktap_ok() { KTAP_N=$((KTAP_N + 1)); echo "ok $KTAP_N $*"; }
ktap_fail() { KTAP_N=$((KTAP_N + 1)); KTAP_FAIL=$((KTAP_FAIL + 1)); echo "not ok $KTAP_N $*"; }
ktap_skip() { KTAP_N=$((KTAP_N + 1)); KTAP_SKIP=$((KTAP_SKIP + 1)); echo "ok $KTAP_N $1 # SKIP ${2:-}"; }
diag() { echo "# $*"; }

# check NAME CMD...: one test point, passing when CMD succeeds. The
# command's output is shown as diagnostics when it fails.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ktap_ok "$name"
	else
		ktap_fail "$name"
		[ -n "$out" ] && printf '%s\n' "$out" | head -n 20 | sed 's/^/#   /'
	fi
}

# check_fails NAME CMD...: passes when CMD fails (bad input refused).
check_fails() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		ktap_fail "$name (unexpectedly succeeded)"
		[ -n "$out" ] && printf '%s\n' "$out" | head -n 20 | sed 's/^/#   /'
	else
		ktap_ok "$name"
		diag "refused as expected: $(printf '%s' "$out" | head -n 1)"
	fi
}

ktap_end() {
	[ -n "$KTAP_PLAN" ] || echo "1..$KTAP_N"
	echo "# totals: pass:$((KTAP_N - KTAP_FAIL - KTAP_SKIP)) fail:$KTAP_FAIL skip:$KTAP_SKIP"
	[ "$KTAP_FAIL" -eq 0 ]
	exit $?
}

# Install the freshly built module for the running kernel, as
# "make install" would, so that modprobe and "rdma link add" auto-load
# find it. In a testbed guest this writes only to the tmpfs overlay.
# The testbed host has already run depmod for us (tools/testbed/vm.sh):
# copy its index rather than spend half a minute in depmod under TCG.
sroce_install_module() {
	local kdir=/lib/modules/$(uname -r)
	local staged=$SROCE_SRC/build/testbed/modroot/lib/modules/$(uname -r)

	[ -f "$SROCE_KO" ] || { echo "no $SROCE_KO: build first"; return 1; }
	mkdir -p "$kdir/updates"
	cp "$SROCE_KO" "$kdir/updates/"
	if [ -f "$staged/updates/rdma_sroce.ko" ] &&
	   cmp -s "$staged/updates/rdma_sroce.ko" "$SROCE_KO"; then
		(cd "$staged" && cp modules.dep modules.dep.bin modules.alias \
			modules.alias.bin modules.symbols modules.symbols.bin \
			modules.softdep modules.devname modules.builtin.bin \
			modules.builtin.alias.bin "$kdir/")
	else
		depmod -a
	fi
	# What udev and rdma-core's rdma-load-modules do on a real system.
	modprobe ib_uverbs
}

# Bring up lo and the testbed NIC (the one with $SROCE_MAC) as eth0.
sroce_setup_net() {
	local nic

	ip link set lo up
	modprobe virtio_net 2>/dev/null
	[ -n "${SROCE_MAC:-}" ] || return 0
	nic=$(ip -o link | awk -v m="$SROCE_MAC" '$0 ~ m { sub(":", "", $2); print $2 }')
	[ -n "$nic" ] || { echo "no NIC with MAC $SROCE_MAC"; return 1; }
	[ "$nic" = eth0 ] || ip link set "$nic" name eth0
	ip link set eth0 up
	ip addr replace "$SROCE_IP/24" dev eth0
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds. For
# asynchronous kernel work (events, queued unregistration); never used to
# paper over a failure: the caller asserts on the result.
wait_for() {
	local end=$((SECONDS + $1))

	shift
	while [ $SECONDS -lt $end ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	"$@"
}

# Port attribute from ibv_devinfo: port_attr DEV FIELD (state, active_mtu...)
port_attr() {
	ibv_devinfo -d "$1" -i 1 2>/dev/null |
		awk -v f="$2:" '$1 == f { print $2; exit }'
}

ibdev_exists() { [ -e "/sys/class/infiniband/$1" ]; }

# EUI-64 node GUID, as sysfs prints it, of a MAC address.
mac_to_guid() {
	local IFS=: b
	read -ra b <<< "$1"
	printf '%02x%s:%sff:fe%s:%s%s\n' $((0x${b[0]} ^ 2)) "${b[1]}" "${b[2]}" \
		"${b[3]}" "${b[4]}" "${b[5]}"
}

# hw_counter NAME [DEV]: a port counter of DEV (default sroce0)
hw_counter() {
	cat "/sys/class/infiniband/${2:-sroce0}/ports/1/hw_counters/$1"
}

# qdisc_backlog: the packets eth0's root qdisc holds now
qdisc_backlog() {
	tc -s qdisc show dev eth0 |
		awk '$1 == "backlog" { sub("p", "", $3); print $3; exit }'
}

# qdisc_backlog_bytes: the bytes eth0's root qdisc holds now (tc prints
# "2Kb" for 2048 and "3Mb" for 3 MiB)
qdisc_backlog_bytes() {
	tc -s qdisc show dev eth0 |
		awk '$1 == "backlog" { v = $2; m = 1
			if (v ~ /Mb$/) m = 1048576; else if (v ~ /Kb$/) m = 1024
			sub("[KM]?b$", "", v); printf "%d\n", v * m; exit }'
}

# hw_counters NAME...: "NAME VALUE" of each of sroce0's port counters
hw_counters() {
	local c

	for c in "$@"; do
		echo "$c $(hw_counter "$c")"
	done
}

# counter_deltas BEFORE AFTER PREFIX: "PREFIX<NAME> DELTA" per counter of
# two files of hw_counters' lines
counter_deltas() {
	join <(sort "$1") <(sort "$2") | awk -v p="$3" '{ print p $1, $3 - $2 }'
}

# pair_deltas TAG PREFIX: counter_deltas of both guests of a pair, from
# TAG.before.ROLE and TAG.after.ROLE, as "PREFIX a:NAME DELTA" and
# "PREFIX b:NAME DELTA"
pair_deltas() {
	local side

	for side in a b; do
		counter_deltas "$1.before.$side" "$1.after.$side" "$2 $side:"
	done
}

# fan_summary LOG: fan_verify's line "# fan: N QPs, ... T s: X MB/s in
# all; per QP min A median B max C MB/s; Jain J" as "X A B C J"
fan_summary() {
	awk '$2 == "fan:" { for (i = 1; i < NF; i++) {
			if ($(i + 1) == "MB/s" && $(i + 2) == "in") t = $i
			if ($i == "min") mn = $(i + 1)
			if ($i == "median") md = $(i + 1)
			if ($i == "max") mx = $(i + 1)
			if ($i == "Jain") j = $(i + 1) }
		print t, mn, md, mx, j }' "$1"
}

# Make the helpers usable from "check NAME bash -c '...'".
export -f port_attr ibdev_exists wait_for mac_to_guid hw_counter qdisc_backlog
export -f qdisc_backlog_bytes

# sync_all NAME [SECONDS]: in a pair or more guests (vm.sh --pair, --guests),
# wait until every guest has reached the named point.
sync_all() {
	local r

	touch "$SROCE_SYNC/$SROCE_ROLE.${SROCE_SYNC_TAG:-}$1"
	for r in $SROCE_GUESTS; do
		wait_for "${2:-300}" test -e "$SROCE_SYNC/$r.${SROCE_SYNC_TAG:-}$1" ||
			{ echo "# guest $r never reached $1"; return 1; }
	done
}

# each_driver FUNC: in every guest of a pair or more (vm.sh --pair,
# --guests), FUNC sroce, then FUNC rxe, in every guest at once: each time a device of
# that driver on eth0 (its name in $dev), made before and removed after.
each_driver() {
	dev=sroce0
	rdma link add sroce0 type sroce netdev eth0
	wait_for 30 bash -c "ibv_devinfo -v -d sroce0 | grep -q '::ffff:$SROCE_IP'"
	"$1" sroce
	sync_all sroce-done
	rdma link delete sroce0
	rmmod rdma_sroce

	dev=rxe0
	modprobe rdma_rxe
	rdma link add rxe0 type rxe netdev eth0
	wait_for 30 bash -c "ibv_devinfo -v -d rxe0 | grep -q '::ffff:$SROCE_IP'"
	"$1" rxe
	sync_all rxe-done
	rdma link delete rxe0
	modprobe -r rdma_rxe
	sync_all done
}

# sync_peer NAME [SECONDS]: in a pair of guests, wait until the peer has
# reached the same named point (files in the run's shared directory).
sync_peer() {
	local peer=b

	[ "$SROCE_ROLE" = b ] && peer=a
	# SROCE_SYNC_TAG keeps the points of one run of a test apart from
	# those of another run in the same pair of guests.
	touch "$SROCE_SYNC/$SROCE_ROLE.${SROCE_SYNC_TAG:-}$1"
	wait_for "${2:-300}" test -e "$SROCE_SYNC/$peer.${SROCE_SYNC_TAG:-}$1" ||
		{ echo "# peer never reached $1"; return 1; }
}

# A veth pair va/vb, both up.
make_veth() {
	modprobe veth
	ip link add va type veth peer name vb
	ip link set va up
	ip link set vb up
}

# sroce_link_up DEV NAME: "rdma link add NAME ... netdev DEV" as a test
# point, then another once the device lists this guest's IPv4 address as
# a RoCE v2 GID (which QPs connect through).
sroce_link_up() {
	local type=sroce

	[ "${2#rxe}" != "$2" ] && type=rxe
	check "rdma link add $2 type $type netdev $1" \
		rdma link add "$2" type "$type" netdev "$1"
	check "IPv4 GID of $2 ready" wait_for 30 bash -c \
		"ibv_devinfo -v -d $2 | grep -q '::ffff:$SROCE_IP, RoCE v2'"
}

# sroce_zcopy MODE: the zcopy parameter (auto, on, off) of the loaded
# module. "on" sends user MRs' pages as fragments even on the testbed's
# virtio NIC, which has no scatter-gather (QEMU's socket backend offers
# no checksum offload) and so has the stack linearise each packet.
sroce_zcopy() {
	echo "$1" > /sys/module/rdma_sroce/parameters/zcopy
}

# netdev_sg DEV: "on" or "off", whether DEV does scatter-gather
netdev_sg() {
	ethtool -k "$1" | awk '$1 == "scatter-gather:" { print $2 }'
}

# gid_index_v4 DEV: the index of DEV's GID for this guest's IPv4 address
# (GIDs as ibv_devinfo -v lists them: "GID[  1]:  ::ffff:10.11.0.1, ...")
# need_rxe: end a test that runs rdma_rxe, as skipped, on a kernel
# without it (Debian's cloud kernels). Call after ktap_begin.
need_rxe() {
	modinfo rdma_rxe > /dev/null 2>&1 && return 0
	ktap_skip "the whole test" "no rdma_rxe in $(uname -r)"
	ktap_end	# exits
}

# stream_start: rc_verify's "forge" case between the pair, a serving
# on sroce0's GID 1: verified Writes and Sends stream until stream_stop.
# On b, /tmp/forge.info then holds "QPN PSN VA RKEY" of a's QP (where a
# forger aims). Returns once both sides stream (sync point "streaming").
stream_start() {
	local prog=$SROCE_SRC/selftests/sroce/rc_verify

	rm -f /tmp/forge.info /tmp/forge.info.done
	if [ "$SROCE_ROLE" = a ]; then
		"$prog" -d sroce0 -g 1 -s -t forge > /tmp/verify.log 2>&1 &
		STREAM_PID=$!
	else
		"$prog" -d sroce0 -g 1 -c "$SROCE_PEER_IP" -t forge \
			-f /tmp/forge.info > /tmp/verify.log 2>&1 &
		STREAM_PID=$!
		check "rc_verify streaming" wait_for 120 test -s /tmp/forge.info
	fi
	sync_peer streaming
}

# stream_stop: b ends the stream; each side imports rc_verify's points
# (every message compared) and checks its exit status.
stream_stop() {
	local rc

	[ "$SROCE_ROLE" = b ] && touch /tmp/forge.info.done
	wait "$STREAM_PID"
	rc=$?
	ktap_import rc_verify /tmp/verify.log
	check "rc_verify exit status" test "$rc" -eq 0
}

# dyndbg ON|OFF: rdma_sroce's dynamic debug messages (ibdev_dbg(): the
# reasons of refusals) on or off; fails on a kernel without dynamic
# debug (make check-debug's), whose callers skip what needs it.
dyndbg() {
	local ctl=/sys/kernel/debug/dynamic_debug/control

	mountpoint -q /sys/kernel/debug ||
		mount -t debugfs none /sys/kernel/debug 2> /dev/null
	[ -w "$ctl" ] || return 1
	if [ "$1" = on ]; then
		echo 'module rdma_sroce +p' > "$ctl"
	else
		echo 'module rdma_sroce -p' > "$ctl"
	fi
}

# have_rxe: the kernel has rdma_rxe
have_rxe() { modinfo rdma_rxe > /dev/null 2>&1; }

gid_index_v4() {
	ibv_devinfo -v -d "$1" | awk -v ip="::ffff:$SROCE_IP," \
		'$0 ~ ip { sub(/.*GID\[ */, ""); sub(/\].*/, ""); print; exit }'
}

# kmod_test NAME [PARAM...]: load the test module selftests/kmod/NAME.ko
# (an in-kernel ULP that runs its checks at load and fails to load if any
# failed), import its KTAP points from the kernel log, and unload it.
kmod_test() {
	local name=$1 short rc

	shift
	short=${name#sroce_}
	short=${short%_test}
	dmesg -C
	insmod "$SROCE_SRC/selftests/kmod/$name.ko" "$@"
	rc=$?
	dmesg | sed -n "s/.*$name: //p" > "/tmp/$short.log"
	ktap_import "$short" "/tmp/$short.log"
	check "test module loaded (all its checks passed)" test "$rc" -eq 0
	[ "$rc" -eq 0 ] && rmmod "$name"
	return "$rc"
}

# How long an application may run: a safety net against a hang, never
# the thing tested, so most of what the guest has (a busy host slows a
# TCG guest many times over).
app_timeout() {
	local t=${SROCE_GUEST_TIMEOUT:-600}

	echo $((t * 2 / 3))
}

# pair_app SERVER_ROLE PORT CMD...: in a pair of guests, SERVER_ROLE runs
# "CMD -p PORT" and serves; the other guest runs "CMD -p PORT PEER_IP"
# once the server listens. Output in /tmp/app.log; returns this side's
# exit status. With PAIR_APP_LISTENING set, the server runs that function
# once it listens, before the peer starts.
# app_report NAME RC: one point for a program pair_app or pair_cm ran;
# on failure the end of its log (/tmp/app.log) follows.
app_report() {
	if [ "$2" -eq 0 ]; then
		ktap_ok "$1"
	else
		ktap_fail "$1 (exit $2)"
		tail -n 15 /tmp/app.log | sed 's/^/#   /'
	fi
}

pair_app() {
	local srv=$1 port=$2 pid rc

	shift 2
	if [ "$SROCE_ROLE" = "$srv" ]; then
		timeout "$(app_timeout)" "$@" -p "$port" > /tmp/app.log 2>&1 &
		pid=$!
		wait_for 60 bash -c "ss -ltn | grep -q ':$port '"
		# the caller's look at the server before its peer comes
		[ -n "${PAIR_APP_LISTENING:-}" ] && "$PAIR_APP_LISTENING"
		sync_peer "start$port"
		wait "$pid"
		rc=$?
	else
		sync_peer "start$port"
		timeout "$(app_timeout)" "$@" -p "$port" "$SROCE_PEER_IP" \
			> /tmp/app.log 2>&1
		rc=$?
	fi
	sync_peer "end$port"
	return $rc
}

# cm_listening PORT: an rdma_cm id of this host listens on PORT.
cm_listening() {
	rdma resource show cm_id | grep -q "state LISTEN .*:$1 *\$"
}
export -f cm_listening

# pair_cm SERVER_ROLE PORT SERVER_CMD CLIENT_CMD: pair_app for programs
# that connect through rdma_cm (the commands are bash -c strings): the
# server is ready once one of its cm_ids listens on PORT. Output in
# /tmp/app.log; returns this side's exit status.
pair_cm() {
	local srv=$1 port=$2 pid rc

	PAIR_CM_STEP=$((${PAIR_CM_STEP:-0} + 1))
	if [ "$SROCE_ROLE" = "$srv" ]; then
		timeout "$(app_timeout)" bash -c "$3" > /tmp/app.log 2>&1 &
		pid=$!
		wait_for 60 cm_listening "$port"
		sync_peer "cm$PAIR_CM_STEP"
		wait "$pid"
		rc=$?
	else
		sync_peer "cm$PAIR_CM_STEP"
		timeout "$(app_timeout)" bash -c "$4" > /tmp/app.log 2>&1
		rc=$?
	fi
	sync_peer "cmend$PAIR_CM_STEP"
	return $rc
}

# ktap_import PREFIX FILE: another program's KTAP results as our own
# test points, its diagnostics passed through.
ktap_import() {
	local l

	while IFS= read -r l; do
		case "$l" in
		"ok "*) ktap_ok "$1: ${l#ok [0-9]* }" ;;
		"not ok "*) ktap_fail "$1: ${l#not ok [0-9]* }" ;;
		"# "*) echo "$l" ;;
		esac
	done < "$2"
}

# ucx_run_all DEV [SERVER_ROLES [CASES]]: UCX between the guests over
# DEV's port 1 (see sroce/ucx.sh), each case served by each of
# SERVER_ROLES in turn (default: a), one test point per run: ucx_perftest
# at UCT level over rc_verbs and ud_verbs and at UCP level (tag matching,
# put, get: UCP wires up over UD and moves data over RC), then io_demo,
# which checks the data it reads and writes. CASES, an extended regular
# expression, keeps the ucx_perftest cases whose names match.
ucx_run_all() {
	local dev=$1 srv step=0 c name cmd
	local ucp="env UCX_NET_DEVICES=$dev:1 ucx_perftest"

	# name|command, to which pair_app adds -p PORT and the server address
	local cases=(
		"UCT am_lat rc_verbs|ucx_perftest -t am_lat -x rc_verbs -d $dev:1 -n 1000"
		"UCT put_bw zcopy 64 KiB rc_verbs|ucx_perftest -t put_bw -x rc_verbs -d $dev:1 -D zcopy -s 65536 -n 100"
		"UCT get zcopy 64 KiB rc_verbs|ucx_perftest -t get -x rc_verbs -d $dev:1 -D zcopy -s 65536 -n 100"
		"UCT am_lat ud_verbs|ucx_perftest -t am_lat -x ud_verbs -d $dev:1 -n 1000"
		"UCP tag_lat|$ucp -t tag_lat -n 1000"
		"UCP tag_bw 64 KiB|$ucp -t tag_bw -s 65536 -n 100"
		"UCP put_bw 64 KiB|$ucp -t ucp_put_bw -s 65536 -n 100"
		"UCP get 64 KiB|$ucp -t ucp_get -s 65536 -n 100"
	)
	for srv in ${2:-a}; do
		for c in "${cases[@]}"; do
			IFS='|' read -r name cmd <<< "$c"
			step=$((step + 1))
			[[ $name =~ ${3:-.} ]] || continue
			# shellcheck disable=SC2086
			if pair_app "$srv" $((18900 + step)) $cmd; then
				ktap_ok "UCX $name, server $srv"
			else
				ktap_fail "UCX $name, server $srv (exit $?)"
				grep -a -E 'ERROR|Fatal' /tmp/app.log | head -n 5 |
					sed 's/^/#   /'
			fi
		done
		step=$((step + 1))
		ucx_io_demo "$dev" "$srv" $((18900 + step))
	done
}

# ucx_io_demo DEV SERVER_ROLE PORT: UCX's io_demo, reads and writes of 1
# to 64 KiB through UCP's tag API with every byte checked (-q: a
# mismatch aborts). The server runs until stopped: it must still be
# running when the client is done.
ucx_io_demo() {
	local dev=$1 srv=$2 port=$3 pid rc=0
	local io="env UCX_NET_DEVICES=$dev:1 io_demo -q -d 1024:65536 -p $port"

	if [ "$SROCE_ROLE" = "$srv" ]; then
		$io > /tmp/app.log 2>&1 &
		pid=$!
		wait_for 60 bash -c "ss -ltn | grep -q ':$port '"
		sync_peer "start$port"
		sync_peer "end$port"
		kill -0 "$pid" 2> /dev/null || rc=1
		kill "$pid" 2> /dev/null
		wait "$pid"
	else
		sync_peer "start$port"
		timeout "$(app_timeout)" $io -o read,write -i 400 \
			"$SROCE_PEER_IP" > /tmp/app.log 2>&1 || rc=$?
		sync_peer "end$port"
	fi
	if [ "$rc" = 0 ]; then
		ktap_ok "UCX io_demo, data checked, server $srv"
	else
		ktap_fail "UCX io_demo, data checked, server $srv (exit $rc)"
		grep -a -E 'ERROR|Fatal|error|Assert' /tmp/app.log | head -n 5 |
			sed 's/^/#   /'
	fi
}
