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
#
# Then port 4791 held by a user's socket: sroce loads (it binds the port
# at its first link in a namespace), refuses "rdma link add", names the
# port and the socket's owner, and does not blame rdma_rxe; once the port
# is free, the link is made and holds it until it is deleted.
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

# The port taken by a user's (nobody's) socket, bound to the wildcard
# address: IPv4, IPv6 only, IPv6 and IPv4 (which takes IPv4's port);
# or bound to one address, which the kernel's lookup does not reach:
# then the message says where to look.
hold_port() { # family address v6only
	setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c '
import socket, sys, time
s = socket.socket(getattr(socket, sys.argv[1]), socket.SOCK_DGRAM)
if sys.argv[1] == "AF_INET6":
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, int(sys.argv[3]))
s.bind((sys.argv[2], 4791))
print("bound", flush=True)
time.sleep(600)' "$@" > /tmp/holder 2>&1 &
	holder=$!
	wait_for 30 grep -q bound /tmp/holder
}

# the holder's output, and whether it bound the port
holder_bound() { cat /tmp/holder; grep -q bound /tmp/holder; }

# family address v6only, the family sroce fails on (- if not found)
for h in "AF_INET 0.0.0.0 0 IPv4" "AF_INET6 :: 1 IPv6" \
	 "AF_INET6 :: 0 IPv4" "AF_INET 127.0.0.1 0 -"; do
	read -r fam addr v6only found <<< "$h"
	p="port 4791 held by $fam $addr (v6only=$v6only):"
	hold_port "$fam" "$addr" "$v6only"
	check "$p a user's socket binds it" holder_bound
	ino=$(ss -unle 'sport = :4791' 2> /dev/null |
		sed -n 's/.* ino:\([0-9]*\) .*/\1/p')
	diag "the socket's inode: $ino"
	dmesg -C
	check "$p sroce loads" modprobe rdma_sroce
	check "$p rdma link add is refused (EADDRINUSE)" \
		fails_with "Address already in use" \
		rdma link add s_va type sroce netdev va
	if [ "$found" = - ]; then
		check "$p the refusal says where to look" logged \
			"rdma_sroce: UDP port 4791 (IPv4) is taken by another socket: ss -ulpne 'sport = :4791' shows it"
	else
		check "$p the refusal names the socket's owner" logged \
			"rdma_sroce: UDP port 4791 ($found) is taken by a socket of uid 65534, inode $ino:"
	fi
	check "$p and does not blame rdma_rxe" bash -c '! dmesg | grep -q rdma_rxe'
	check "$p no device left behind" bash -c '! ibdev_exists s_va'
	check "$p rmmod rdma_sroce" rmmod rdma_sroce
	kill "$holder"
	wait "$holder" 2> /dev/null
done
check "sroce loads and binds nothing" \
	bash -c 'modprobe rdma_sroce && ! ss -uln | grep -q ":4791 "'
check "the port free: rdma link add" rdma link add s_va type sroce netdev va
check "the link holds port 4791, IPv4 and IPv6" \
	bash -c '[ "$(ss -uln | grep -c ":4791 ")" -eq 2 ]'
check "rdma link delete" rdma link delete s_va
check "the port is let go with the last link" \
	wait_for 30 bash -c '! ss -uln | grep -q ":4791 "'
check "rmmod rdma_sroce" rmmod rdma_sroce

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
