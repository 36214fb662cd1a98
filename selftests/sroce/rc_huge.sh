#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair", guests with 3 GiB: one 1 GiB message each way with
# ibv_rc_pingpong (a Send segmented into 262144 packets at path MTU 4096,
# NICs at MTU 9000, received into one 1 GiB buffer), the largest size
# class the data path promises to carry in tests. At MTU 1024 (a million
# packets each way) it took four minutes of make check's thirty; the
# many-packet paths are rc_fan.sh's and apps.sh's.
#
# On make check-debug's kernel (KASAN and lockdep, under TCG) a pair
# moves about a hundred packets a second, and two million of them would
# take five hours or more: there the same path runs with 64 MiB, enough
# for MRs of 16384 pages, several 256-page map chunks, and 65536 packets
# each way.
# memory: 3072
# timeout: 1500
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
check "netdev MTU 9000" ip link set eth0 mtu 9000
check "active MTU 4096" wait_for 10 bash -c \
	'[ "$(port_attr sroce0 active_mtu)" = 4096 ]'
size=1073741824 what="1 GiB"
if [ "${SROCE_DEBUG_KERNEL:-}" = 1 ]; then
	size=67108864 what="64 MiB (debug kernel)"
fi
if pair_app a 18950 ibv_rc_pingpong -d sroce0 -g 1 -m 4096 -s $size -n 1; then
	ktap_ok "ibv_rc_pingpong, one $what message each way"
	grep -E 'iters in|bytes in' /tmp/app.log | sed 's/^/# /'
else
	ktap_fail "ibv_rc_pingpong, one $what message each way (exit $?)"
	tail -n 10 /tmp/app.log | sed 's/^/#   /'
fi
diag "counters: $(rdma statistic show link sroce0/1 | tr -s ' ')"
sync_peer done
check "rdma link delete" rdma link delete sroce0
check "rmmod" rmmod rdma_sroce
ktap_end
