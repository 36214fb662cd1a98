#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# sroce and rdma_rxe share driver_id RDMA_DRIVER_RXE (and rdma_sroce
# rxe_compat=1 answers rdma_rxe's link type): they must never be loaded
# together. sroce refuses rdma_rxe by its module name, not by the UDP
# port, since an rdma_rxe whose sockets are per network namespace binds
# none at load: whichever comes second is refused, with a clear message,
# and the first keeps working untouched. Checked with a stand-in module
# named rdma_rxe that binds no port (selftests/kmod/rdma_rxe.c), with
# and without rxe_compat, then with the kernel's own rdma_rxe where the
# kernel has one.
. "$(dirname "$0")/../lib.sh"

STANDIN=$SROCE_SRC/selftests/kmod/rdma_rxe.ko

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
make_veth

# fails_with TEXT CMD...: CMD fails, saying TEXT.
fails_with() {
	local text=$1 out

	shift
	out=$("$@" 2>&1) && { echo "succeeded: $out"; return 1; }
	echo "$out"
	grep -qF -- "$text" <<< "$out"
}

# refused CMD...: CMD fails with EBUSY, as insmod and modprobe print it.
refused() { fails_with "Device or resource busy" "$@"; }

# logged TEXT: the kernel log has TEXT (since the last dmesg -C).
logged() { dmesg | grep -qF -- "$1"; }

for compat in 0 1; do
	p="rxe_compat=$compat:"
	# sroce first, then the stand-in.
	check "$p sroce loads" modprobe rdma_sroce rxe_compat=$compat
	dmesg -C
	check "$p stand-in rdma_rxe refused while sroce is loaded (EBUSY)" \
		refused insmod "$STANDIN"
	check "$p the refusal says why" logged \
		"rdma_sroce: refusing to load rdma_rxe: rdma_sroce is loaded"
	check "$p stand-in not loaded" test ! -e /sys/module/rdma_rxe
	check "$p rmmod rdma_sroce" rmmod rdma_sroce
	# The stand-in first, then sroce.
	check "$p stand-in loads once sroce is gone" insmod "$STANDIN"
	dmesg -C
	check "$p sroce refuses to load beside it (EBUSY)" \
		refused modprobe rdma_sroce rxe_compat=$compat
	check "$p the refusal says why" logged \
		"rdma_sroce: rdma_rxe is loaded: rdma_sroce and rdma_rxe cannot be loaded together"
	check "$p sroce not loaded" test ! -e /sys/module/rdma_sroce
	check "$p rmmod stand-in" rmmod rdma_rxe
done

if ! have_rxe; then
	ktap_skip "the kernel's rdma_rxe" "no rdma_rxe in $(uname -r)"
	ktap_end
fi

# rdma_rxe first.
check "rdma_rxe loads" modprobe rdma_rxe
check "rxe device on va" rdma link add rxe_va type rxe netdev va
dmesg -C
check "sroce refuses to load while rdma_rxe is loaded (EBUSY)" \
	refused modprobe rdma_sroce
check "the refusal says why" logged \
	"rdma_sroce: rdma_rxe is loaded: rdma_sroce and rdma_rxe cannot be loaded together"
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
dmesg -C
check "rdma_rxe refuses to load while sroce is loaded (EBUSY)" \
	refused modprobe rdma_rxe
check "the refusal says why" logged \
	"rdma_sroce: refusing to load rdma_rxe: rdma_sroce is loaded"
check_fails "rdma link add type rxe fails" \
	rdma link add rxe_vb type rxe netdev vb
check "rdma_rxe is not loaded" bash -c '! lsmod | grep -q "^rdma_rxe"'
check "sroce device untouched" bash -c '[ "$(port_attr s_va state)" = PORT_ACTIVE ]'
check "sroce device still the only one" \
	bash -c '[ "$(ls /sys/class/infiniband)" = s_va ]'
check "sroce link delete" rdma link delete s_va
check "rmmod rdma_sroce" rmmod rdma_sroce
ktap_end
