#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": RC over IPv6 paths. rc_verify's data and burst cases
# between global IPv6 addresses (fd00:11::1, fd00:11::2), and
# ibv_rc_pingpong over the link-local default GID (index 0), which is
# what tools use when no GID index is given.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
me=fd00:11::${SROCE_IP##*.}
check "IPv6 address $me" ip -6 addr add "$me/64" dev eth0 nodad
sroce_link_up eth0 sroce0
gid_index() { # address -> index of its RoCE v2 GID
	ibv_devinfo -v -d sroce0 |
		sed -n "s/^[[:space:]]*GID\[ *\([0-9]*\)\]:[[:space:]]*$1, RoCE v2$/\1/p"
}
check "IPv6 GID ready" wait_for 30 bash -c "ibv_devinfo -v -d sroce0 | grep -q '$me, RoCE v2'"
idx=$(gid_index "$me")
diag "GID index of $me: $idx"
sync_peer ready
# Neighbour discovery first: the RDMA core resolves the peer's MAC when
# the QP goes to RTR, and gives up sooner than a TCG guest answers.
peer_ll=$(printf 'fe80::5054:ff:fe5e:%x%%eth0' "${SROCE_PEER_IP##*.}")
check "peer reachable over IPv6" \
	ping -6 -c 2 -W 10 "fd00:11::${SROCE_PEER_IP##*.}"
check "peer reachable over IPv6 link-local" ping -6 -c 2 -W 10 "$peer_ll"
sync_peer neighbours

prog=$SROCE_SRC/selftests/sroce/rc_verify
if [ "$SROCE_ROLE" = a ]; then
	"$prog" -d sroce0 -g "$idx" -s -t data,burst > /tmp/verify.log 2>&1
else
	"$prog" -d sroce0 -g "$idx" -c "$SROCE_PEER_IP" -t data,burst \
		> /tmp/verify.log 2>&1
fi
rc=$?
ktap_import "rc_verify over IPv6" /tmp/verify.log
check "rc_verify over IPv6 exit status" test "$rc" -eq 0

if pair_app a 18900 ibv_rc_pingpong -d sroce0 -g 0 -s 4096 -n 50; then
	ktap_ok "ibv_rc_pingpong over the link-local GID (index 0)"
else
	ktap_fail "ibv_rc_pingpong over the link-local GID (index 0)"
	tail -n 10 /tmp/app.log | sed 's/^/#   /'
fi
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
