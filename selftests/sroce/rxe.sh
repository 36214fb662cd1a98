#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# sroce and rdma_rxe share UDP port 4791 and driver_id RDMA_DRIVER_RXE:
# they must never be loaded together. Whichever comes second refuses to
# load, with a clear message, and the first keeps working untouched.
. "$(dirname "$0")/../lib.sh"

ktap_begin
need_rxe
sroce_install_module || exit 1
sroce_setup_net || exit 1
make_veth

# rdma_rxe first.
check "rdma_rxe loads" modprobe rdma_rxe
check "rxe device on va" rdma link add rxe_va type rxe netdev va
dmesg -C
check_fails "sroce refuses to load while rdma_rxe is loaded" \
	modprobe rdma_sroce
check "the refusal says why" \
	bash -c 'dmesg | grep -q "rdma_sroce: UDP port 4791 is taken: is rdma_rxe loaded"'
check_fails "rdma link add type sroce fails too" \
	rdma link add s_vb type sroce netdev vb
check "rxe device untouched" bash -c '[ "$(port_attr rxe_va state)" = PORT_ACTIVE ]'
check "rxe device still the only one" \
	bash -c '[ "$(ls /sys/class/infiniband)" = rxe_va ]'
check "rxe link delete" rdma link delete rxe_va
check "rmmod rdma_rxe" rmmod rdma_rxe

# sroce first.
check "sroce loads" modprobe rdma_sroce
check "sroce device on va" rdma link add s_va type sroce netdev va
check_fails "rdma_rxe refuses to load while sroce is loaded" \
	modprobe rdma_rxe
check_fails "rdma link add type rxe fails" \
	rdma link add rxe_vb type rxe netdev vb
check "rdma_rxe is not loaded" bash -c '! lsmod | grep -q "^rdma_rxe"'
check "sroce device untouched" bash -c '[ "$(port_attr s_va state)" = PORT_ACTIVE ]'
check "sroce device still the only one" \
	bash -c '[ "$(ls /sys/class/infiniband)" = s_va ]'
check "sroce link delete" rdma link delete s_va
check "rmmod rdma_sroce" rmmod rdma_sroce
ktap_end
