#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": sroce against the kernel's rdma_rxe, the reference for
# the wire. Guest a runs rdma_rxe (rxe0), guest b sroce (sroce0). Stock
# applications and rc_verify's data cases run in both directions (each
# side once as server, once as client), so both implementations act as
# requester and responder for every operation.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
if [ "$SROCE_ROLE" = a ]; then
	dev=rxe0
	check "rdma_rxe on eth0" rdma link add rxe0 type rxe netdev eth0
else
	dev=sroce0
	check "sroce on eth0" rdma link add sroce0 type sroce netdev eth0
fi
check "IPv4 GID ready" wait_for 30 bash -c \
	"ibv_devinfo -v -d $dev | grep -q '::ffff:$SROCE_IP, RoCE v2'"

step=0
# run SERVER_ROLE NAME CMD...: SERVER_ROLE serves, the other connects.
run() {
	local srv=$1 name=$2 port rc
	shift 2
	step=$((step + 1))
	port=$((18700 + step))
	if [ "$SROCE_ROLE" = "$srv" ]; then
		timeout 300 "$@" -p "$port" > /tmp/app.log 2>&1 &
		local pid=$!
		wait_for 60 bash -c "ss -ltn | grep -q ':$port '"
		sync_peer "start$step"
		wait "$pid"
		rc=$?
	else
		sync_peer "start$step"
		timeout 300 "$@" -p "$port" "$SROCE_PEER_IP" > /tmp/app.log 2>&1
		rc=$?
	fi
	if [ $rc -eq 0 ]; then
		ktap_ok "$name"
	else
		ktap_fail "$name (exit $rc)"
		tail -n 15 /tmp/app.log | sed 's/^/#   /'
	fi
	sync_peer "end$step"
}

for srv in a b; do
	who="server $([ $srv = a ] && echo rxe || echo sroce)"
	run $srv "ibv_rc_pingpong 4 KiB, $who" \
		ibv_rc_pingpong -d $dev -g 1 -s 4096 -n 100
	run $srv "ibv_rc_pingpong 1 MiB -e, $who" \
		ibv_rc_pingpong -d $dev -g 1 -s 1048576 -n 5 -e
	for t in send write read; do
		run $srv "ib_${t}_bw 64 KiB, $who" \
			ib_${t}_bw -d $dev -x 1 -F -s 65536 -n 100
	done
	run $srv "ib_write_lat 64 B, $who" \
		ib_write_lat -d $dev -x 1 -F -s 64 -n 100
done

# rc_verify's data cases, each side as server once.
prog=$SROCE_SRC/selftests/sroce/rc_verify
for srv in a b; do
	who="server $([ $srv = a ] && echo rxe || echo sroce)"
	sync_peer "verify$srv"
	if [ "$SROCE_ROLE" = $srv ]; then
		"$prog" -d $dev -g 1 -s -t data,burst > /tmp/verify.log 2>&1
	else
		sleep 1
		"$prog" -d $dev -g 1 -c "$SROCE_PEER_IP" -t data,burst \
			> /tmp/verify.log 2>&1
	fi
	rc=$?
	while IFS= read -r l; do
		case "$l" in
		"ok "*) ktap_ok "rc_verify ($who): ${l#ok [0-9]* }" ;;
		*) ktap_fail "rc_verify ($who): ${l#not ok [0-9]* }" ;;
		esac
	done < <(grep -E '^(not )?ok ' /tmp/verify.log)
	grep '^#' /tmp/verify.log | head -n 20
	check "rc_verify ($who) exit status" test "$rc" -eq 0
done
sync_peer done
check "rdma link delete" rdma link delete $dev
ktap_end
