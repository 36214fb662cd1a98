#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": the rdma_rxe drop-in mode, used the way scripts use
# rdma_rxe. Both guests enable the package's modprobe.d file
# (tools/packaging/sroce-rxe.conf, its lines uncommented), then run what
# such a script runs, unchanged: modprobe rdma_rxe, rdma link add rxe0
# type rxe netdev eth0, traffic (rc_verify's data cases, compared byte
# for byte), rdma link delete, modprobe -r rdma_rxe; then rdma link add
# alone, which has the core load the module. On a kernel that has
# rdma_rxe, the real module is blacklisted by the same file, and then,
# with the file gone, loaded for real: rdma_sroce rxe_compat=1 must then
# refuse to load, saying why, and leave rdma_rxe working.
. "$(dirname "$0")/../lib.sh"

CONF=/etc/modprobe.d/sroce-rxe.conf

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sed -n 's/^#\(alias\|options\|blacklist\) /\1 /p' \
	"$SROCE_SRC/tools/packaging/sroce-rxe.conf" > "$CONF"
diag "$(tr '\n' ';' < "$CONF")"
check "modprobe.d file enables four lines" test "$(wc -l < "$CONF")" -eq 4

check "modprobe rdma_rxe" modprobe rdma_rxe
check "it loaded rdma_sroce, in drop-in mode" bash -c \
	'[ "$(cat /sys/module/rdma_sroce/parameters/rxe_compat)" = Y ]'
check "the real rdma_rxe is not loaded" test ! -e /sys/module/rdma_rxe
sroce_link_up eth0 rxe0
check "rxe0 port active" bash -c \
	'rdma link show rxe0/1 | grep -q "state ACTIVE"'
# fast_regs is sroce's counter; rdma_rxe has none of that name.
check "rxe0 is an sroce device (sroce's counters)" \
	test -e /sys/class/infiniband/rxe0/ports/1/hw_counters/fast_regs
sync_peer up
check "peer reachable" ping -c 2 -W 10 "$SROCE_PEER_IP"
sync_peer ready
prog=$SROCE_SRC/selftests/sroce/rc_verify
if [ "$SROCE_ROLE" = a ]; then
	"$prog" -d rxe0 -g 1 -s -t data,burst,atomic > /tmp/verify.log 2>&1
else
	"$prog" -d rxe0 -g 1 -c "$SROCE_PEER_IP" -t data,burst,atomic \
		> /tmp/verify.log 2>&1
fi
rc=$?
ktap_import rc_verify /tmp/verify.log
check "rc_verify over rxe0 exit status" test "$rc" -eq 0
sync_peer verified
check "rdma link delete rxe0" rdma link delete rxe0
check "modprobe -r rdma_rxe" modprobe -r rdma_rxe
check "rdma_sroce unloaded" test ! -e /sys/module/rdma_sroce
# A script may skip the modprobe: the core asks for rdma-link-rxe.
check "rdma link add rxe0 type rxe, nothing loaded first" \
	rdma link add rxe0 type rxe netdev eth0
check "the core loaded rdma_sroce for it" bash -c \
	'[ -e /sys/module/rdma_sroce ] && [ ! -e /sys/module/rdma_rxe ]'
check "rdma link delete rxe0 again" rdma link delete rxe0
check "modprobe -r rdma_rxe again" modprobe -r rdma_rxe

rm -f "$CONF"
if have_rxe; then
	check "without the file, modprobe rdma_rxe loads the real one" \
		modprobe rdma_rxe
	dmesg -C
	check_fails "rdma_sroce rxe_compat=1 refuses to load beside it" \
		modprobe rdma_sroce rxe_compat=1
	check "and says why" bash -c \
		'dmesg | grep -q "rdma_sroce: rdma_rxe is loaded: rdma_sroce and rdma_rxe cannot be loaded together"'
	check "rdma_rxe still answers link add" \
		rdma link add rxe1 type rxe netdev eth0
	check "rdma link delete rxe1" rdma link delete rxe1
	check "modprobe -r rdma_rxe" modprobe -r rdma_rxe
else
	ktap_skip "refusal beside the real rdma_rxe" "no rdma_rxe in $(uname -r)"
fi
ktap_end
