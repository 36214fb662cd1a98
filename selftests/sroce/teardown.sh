#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Teardown with live users (disassociate_ucontext). A device goes away
# while two processes hold it: one blocked in ibv_get_cq_event(), one
# posting and polling RDMA Writes on a QP looped to itself, touching its
# rings all the time (teardown_verify). Each way a device goes must
# finish while they hold it, and each process must see its call fail,
# its loop end (a refused post, a failed poll, a completion in error or
# SIGBUS on a ring: never freed memory, which KASAN would report), and
# IBV_EVENT_DEVICE_FATAL, and then exit by itself:
# "rdma link delete", the netdev deleted, rmmod, and in the RDMA core's
# exclusive namespace mode "rdma dev set DEV netns NS" (the device moves,
# and it comes home when the namespace ends). rmmod is tried with the
# idle process only: packets in flight hold the module.
. "$(dirname "$0")/../lib.sh"

TV=$SROCE_SRC/selftests/sroce/teardown_verify
DEADLINE=$(app_timeout)

# start_users DEV: the processes of $USERS (event, busy) on DEV, ready
USERS="event busy"
start_users() {
	local m

	for m in $USERS; do
		timeout "$DEADLINE" "$TV" -d "$1" -g 1 -m $m \
			> "/tmp/td_$m.log" 2>&1 &
		eval "pid_$m=\$!"
	done
	for m in $USERS; do
		wait_for 120 grep -q '^# ready' "/tmp/td_$m.log" || return 1
	done
}

# users_done WHAT: both processes exited, every point of theirs passed
users_done() {
	local m rc

	for m in $USERS; do
		eval "wait \$pid_$m"
		rc=$?
		sed 's/^/#   /' "/tmp/td_$m.log"
		check "$1: the $m process saw it all and exited 0" test "$rc" -eq 0
	done
}

# gone_while_held WHAT CMD...: CMD takes the device away while held
gone_while_held() {
	local what=$1

	shift
	if ! start_users "$DEV"; then
		ktap_fail "$what: the processes got ready"
		tail -n 5 /tmp/td_event.log /tmp/td_busy.log | sed 's/^/#   /'
		return
	fi
	# a CMD that waited for the processes would wait out DEADLINE
	check "$what, the device held by: $USERS" \
		timeout "$DEADLINE" "$@"
	check "$what: the device is gone" wait_for 60 bash -c "! ibdev_exists $DEV"
	users_done "$what"
}

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
make_veth
ip addr add 10.8.0.1/24 dev va
modprobe rdma_sroce

DEV=s_va
link_va() {
	rdma link add s_va type sroce netdev va &&
		wait_for 30 bash -c "ibv_devinfo -v -d s_va | grep -q '::ffff:10.8.0.1'"
}
check "link on va" link_va
gone_while_held "rdma link delete" rdma link delete s_va

check "link on va again" link_va
gone_while_held "ip link delete va (the netdev)" ip link delete va

make_veth
ip addr add 10.8.0.1/24 dev va
check "link on the new va" link_va
# A sending process's packets in flight hold the module (their
# destructors are its code): rmmod is refused while they are. An idle
# holder does not keep it.
USERS=event gone_while_held "rmmod rdma_sroce" rmmod rdma_sroce
check "the module is gone" bash -c '! test -e /sys/module/rdma_sroce'

# Exclusive mode: only with no namespace but the initial one.
modprobe rdma_sroce
check "rdma system set netns exclusive" rdma system set netns exclusive
ip netns add td1
check "link on va" link_va
if start_users s_va; then
	check "rdma dev set s_va netns td1, held by two processes" \
		timeout "$DEADLINE" rdma dev set s_va netns td1
	check "s_va left the initial namespace" \
		bash -c '! rdma dev show s_va > /dev/null 2>&1'
	check "s_va is in td1" \
		bash -c 'ip netns exec td1 rdma dev show s_va | grep -q s_va'
	users_done "rdma dev set netns"
else
	ktap_fail "rdma dev set netns: the processes got ready"
fi
check "links are still made in the initial namespace" \
	bash -c 'rdma link add s_vb type sroce netdev vb &&
		 rdma link delete s_vb'
check "ip netns delete td1: s_va comes home" \
	bash -c 'ip netns delete td1 &&
		 wait_for 60 bash -c "rdma dev show s_va > /dev/null 2>&1"'
check "rdma system set netns shared" rdma system set netns shared
check "rmmod rdma_sroce" rmmod rdma_sroce
ktap_end
