#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# test-deb.sh [FLAVOUR...]: the Debian package, installed as a user
# installs it, then used in guests. Default flavours: 6.1-cloud 6.12
# (the first is the kernel the package is installed beside, the others
# are installed after it, so DKMS must build for them on its own).
#
# 1. make deb (mkdeb.sh).
# 2. In a private mount namespace, an overlay over this machine's root
#    (writes go to build/deb-root/upper, the machine is left alone) is
#    chrooted into and dpkg installs there, at native speed: the first
#    kernel's image and headers (kernel.sh's downloads), then the package
#    with apt-get (its postinst has DKMS build for every kernel with
#    headers: in a chroot, all of them), then each further kernel's image
#    and headers (DKMS's kernel hooks build for them). Building in the
#    guests instead would take TCG about nine minutes per kernel.
# 3. For each flavour, two guests boot that kernel with the upper
#    directory laid over their root (vm.sh's SROCE_ROOT_LAYER) and run
#    selftests/sroce/deb.sh: the module DKMS built is found and loaded,
#    link add, traffic with data compared, teardown.
# 4. Back in the chroot: dpkg --remove (only the conffile is left) and
#    --purge (nothing is left: no sources, DKMS tree, module, index entry,
#    docs or modprobe.d file, for any kernel).
# One TAP stream; ends with "N passed, N failed, N skipped".
set -uo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
cd "$SRC" || exit 2
FLAVOURS=("$@")
[ ${#FLAVOURS[@]} -gt 0 ] || FLAVOURS=(6.1-cloud 6.12)
STAGE=$SRC/build/deb-root
LOG=$SRC/build/deb-install.log

n=0
pass=0
fail=0
skip=0
point() { # 0|1|skip name
	n=$((n + 1))
	if [ "$1" = skip ]; then
		skip=$((skip + 1))
		echo "ok $n - $2"
	elif [ "$1" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $n - $2"
	else
		fail=$((fail + 1))
		echo "not ok $n - $2"
	fi
}
finish() {
	echo "1..$n"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
	exit
}

echo "TAP version 13"
DEB=$(tools/packaging/mkdeb.sh 2> "$LOG.mkdeb")
point $? "make deb builds $(basename "${DEB:-sroce-dkms.deb}")"
[ -f "${DEB:-}" ] || { sed 's/^/# /' "$LOG.mkdeb"; finish; }
# The unit template as systemd reads it (instance eth0), on this host
if command -v systemd-analyze > /dev/null; then
	unit_dir=$(mktemp -d)
	cp tools/packaging/sroce@.service "$unit_dir/sroce@eth0.service"
	out=$(systemd-analyze verify --man=no \
		"$unit_dir/sroce@eth0.service" 2>&1)
	point $? "systemd-analyze verify sroce@eth0.service"
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/# /'
	rm -rf "$unit_dir"
else
	point skip "systemd-analyze verify sroce@eth0.service # SKIP no systemd here"
fi

declare -A KV KIMG
for f in "${FLAVOURS[@]}"; do
	if ! env=$(tools/testbed/kernel.sh "$f"); then
		point 1 "$f: kernel fetched"
		finish
	fi
	KV[$f]=$(eval "$env"; echo "$KVER")
	KIMG[$f]=$(eval "$env"; echo "$SROCE_KERNEL")
	if [ "$(eval "$env"; echo "$SROCE_MODBASE")" = "" ]; then
		# Installed here already: its debs are not at hand, and
		# nothing would be installed for it.
		point 1 "$f: a kernel this machine does not have installed"
		finish
	fi
done

# The chroot's script: arguments are the .deb, then one directory of
# kernel debs per flavour.
cat > "$SRC/build/deb-install.sh" <<'EOS'
set -eu
export DEBIAN_FRONTEND=noninteractive INITRD=No
deb=$1
shift
# A cloud machine has its own kernel's headers only: this machine's other
# kernels keep their modules, but DKMS is not to build for them.
rm -f /lib/modules/*/build
first=1
for kd in "$@"; do
	echo "## install kernel debs of $kd"
	pkgs=()
	for d in "$kd"/*.deb; do
		name=$(dpkg-deb -f "$d" Package)
		ver=$(dpkg-deb -f "$d" Version)
		# Reinstalling what is there (linux-kbuild-6.1, ...) changes
		# nothing and would only churn the layer.
		[ "$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null)" = \
		  "install ok installed $ver" ] || pkgs+=("$d")
	done
	dpkg -i "${pkgs[@]}"
	if [ $first = 1 ]; then
		echo "## install $deb"
		apt-get install -y -q --no-install-recommends "$deb"
		first=0
	fi
done
echo "## dkms status"
dkms status
EOS

rm -rf "$STAGE"
mkdir -p "$STAGE/upper" "$STAGE/work" "$STAGE/root"
dirs=()
for f in "${FLAVOURS[@]}"; do
	dirs+=("$SRC/build/kernels/${KV[$f]}/debs")
done
# in_root SCRIPT ARGS...: run SCRIPT with bash, chrooted into the overlay
# of this machine's root whose writes go to $STAGE/upper. The namespace's
# mounts vanish with it; only the upper directory stays.
in_root() {
	unshare -m --propagation private bash -c '
		set -e
		s=$1 src=$2
		shift 2
		mount -t overlay overlay \
			-o "lowerdir=/,upperdir=$s/upper,workdir=$s/work" "$s/root"
		for d in proc sys dev dev/pts tmp run; do
			mkdir -p "$s/root/$d"
		done
		mount -t proc proc "$s/root/proc"
		mount -t sysfs sysfs "$s/root/sys"
		mount --rbind /dev "$s/root/dev"
		mount -t tmpfs tmpfs "$s/root/tmp"
		mount -t tmpfs tmpfs "$s/root/run"
		# The tree (its scripts and debs) may be under /tmp.
		mkdir -p "$s/root$src"
		mount --bind "$src" "$s/root$src"
		exec chroot "$s/root" bash "$@"
	' sh "$STAGE" "$SRC" "$@"
}

start=$SECONDS
in_root "$SRC/build/deb-install.sh" "$DEB" "${dirs[@]}" > "$LOG" 2>&1
rc=$?
echo "# installed in $((SECONDS - start)) s (log: $LOG)"
point $rc "dpkg installs ${FLAVOURS[0]}'s kernel, the package, then ${FLAVOURS[*]:1}"
[ $rc = 0 ] || { tail -n 30 "$LOG" | sed 's/^/#   /'; finish; }
sed -n '/^## dkms status/,$p' "$LOG" | grep -v 'readelf: Warning' | sed 's/^/# /'
# Debian 12 has /lib -> usr/lib in the lower layer only; initramfs.sh
# and modinfo -b look for the layer's lib/modules.
[ -e "$STAGE/upper/lib" ] || ln -s usr/lib "$STAGE/upper/lib"
for f in "${FLAVOURS[@]}"; do
	point "$(grep -q "^sroce/.*, ${KV[$f]}, x86_64: installed" "$LOG"; echo $?)" \
		"DKMS built and installed rdma_sroce for ${KV[$f]}"
done

for f in "${FLAVOURS[@]}"; do
	out=$(SROCE_ROOT_LAYER=$STAGE/upper KVER=${KV[$f]} \
	      SROCE_KERNEL=${KIMG[$f]} SROCE_MODBASE= \
	      SROCE_RESULTS=$SRC/build/testbed/results-deb-$f \
	      tools/testbed/run-selftests.sh sroce/deb.sh)
	printf '%s\n' "$out" | while IFS= read -r l; do
		case "$l" in
		"ok "*|"not ok "*) ;;
		*) echo "$l" ;;
		esac
	done
	while IFS= read -r l; do
		case "$l" in
		"ok "*"# SKIP"*) point skip "[$f] ${l#ok [0-9]* - }" ;;
		"ok "*) point 0 "[$f] ${l#ok [0-9]* - }" ;;
		"not ok "*) point 1 "[$f] ${l#not ok [0-9]* - }" ;;
		esac
	done <<< "$out"
done

# The removal, back in the same root after the guests: Debian's rule is
# that remove leaves only conffiles and purge leaves nothing. (In a TCG
# guest DKMS's removal, a depmod per kernel, takes minutes.)
cat > "$SRC/build/deb-remove.sh" <<'EOS'
export conf=/etc/modprobe.d/sroce-rxe.conf
left() { # what of the package is still here, but the conffile for "conf"
	ls -d /usr/src/sroce-* /var/lib/dkms/sroce 2>/dev/null
	find /lib/modules/ -name 'rdma_sroce.ko*' 2>/dev/null
	grep -l 'rdma_sroce' /lib/modules/*/modules.dep 2>/dev/null
	ls -d /usr/share/doc/sroce-dkms 2>/dev/null
	[ "$1" = conf ] || ls "$conf" 2>/dev/null
}
t() { # name cmd...: one point; the command's words only if it fails
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "ok - $name"
	else
		echo "not ok - $name"
		printf '%s\n' "$out" | tail -n 20
	fi
}
t "dpkg --remove sroce-dkms" dpkg --remove sroce-dkms
t "after remove: only the conffile is left" \
	bash -c "$(declare -f left); [ -z \"\$(left conf)\" ] && [ -f $conf ]"
t "dpkg records its conffile (config-files)" bash -c \
	'dpkg-query -W -f="\${Status}" sroce-dkms | grep -q config-files'
left conf | sed 's/^/# left: /'
t "dpkg --purge sroce-dkms" dpkg --purge sroce-dkms
t "after purge: nothing is left" \
	bash -c "$(declare -f left); [ -z \"\$(left all)\" ]"
t "dpkg knows it no more" bash -c '! dpkg-query -W sroce-dkms 2>/dev/null'
t "modprobe finds no rdma_sroce for any kernel" bash -c \
	'for k in $(ls /lib/modules); do
		modinfo -k "$k" rdma_sroce > /dev/null 2>&1 && exit 1
	 done; exit 0'
left all | sed 's/^/# left: /'
EOS
while IFS= read -r l; do
	case "$l" in
	"ok - "*) point 0 "${l#ok - }" ;;
	"not ok - "*) point 1 "${l#not ok - }" ;;
	*) echo "# $l" ;;
	esac
done < <(in_root "$SRC/build/deb-remove.sh" 2>&1)
finish
