#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel.sh FLAVOUR
#
# Make one of Debian's kernels ready for the testbed and print, as shell
# assignments, what vm.sh and the module build need:
#
#   KVER=...           the kernel release (uname -r in the guest)
#   SROCE_KERNEL=...   its bzImage
#   SROCE_MODBASE=...  a directory holding lib/modules/KVER ("" = /)
#   KDIR=...           its build tree, for make KDIR=
#
# FLAVOUR names a Debian metapackage pair, resolved today (never a
# hard-coded ABI suffix):
#
#   6.1          linux-image-amd64            linux-headers-amd64
#   6.1-cloud    linux-image-cloud-amd64      linux-headers-cloud-amd64
#   6.12         linux-image-6.12-amd64       linux-headers-6.12-amd64
#   6.12-cloud   linux-image-6.12-cloud-amd64 linux-headers-6.12-cloud-amd64
#
# A kernel whose image and headers are installed on this machine is used
# where it is. Any other is downloaded with apt-get download (image,
# headers, their -common and kbuild packages) and unpacked, not
# installed, under build/kernels/KVER/, where the next run finds it. The
# headers' top Makefile names the -common tree by its absolute path: it
# is pointed at the unpacked one.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
FLAVOUR=${1:?usage: kernel.sh 6.1|6.1-cloud|6.12|6.12-cloud}

case "$FLAVOUR" in
6.1) META=amd64 ;;
6.1-cloud) META=cloud-amd64 ;;
6.12) META=6.12-amd64 ;;
6.12-cloud) META=6.12-cloud-amd64 ;;
*) echo "kernel.sh: unknown flavour $FLAVOUR" >&2; exit 2 ;;
esac

# The package a metapackage depends on whose name starts with PREFIX.
dep() { # package prefix
	apt-cache depends --no-recommends --no-suggests "$1" 2>/dev/null |
		sed -n "s/^ *|\{0,1\}Depends: \($2[^ ]*\)$/\1/p" | head -n 1
}

installed() {
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = \
		"install ok installed" ]
}

IMG=$(dep "linux-image-$META" linux-image-)
HDR=$(dep "linux-headers-$META" linux-headers-)
if [ -z "$IMG" ] || [ -z "$HDR" ]; then
	# Not known to apt yet (a fresh machine): one update, then again.
	apt-get update -q > /dev/null 2>&1 || true
	IMG=$(dep "linux-image-$META" linux-image-)
	HDR=$(dep "linux-headers-$META" linux-headers-)
fi
[ -n "$IMG" ] && [ -n "$HDR" ] || {
	echo "kernel.sh: apt knows no linux-image-$META/linux-headers-$META" >&2
	exit 1
}
KVER=${HDR#linux-headers-}

if installed "$IMG" && installed "$HDR" && [ -f "/boot/vmlinuz-$KVER" ] &&
   [ -d "/lib/modules/$KVER/build" ]; then
	echo "KVER=$KVER"
	echo "SROCE_KERNEL=/boot/vmlinuz-$KVER"
	echo "SROCE_MODBASE="
	echo "KDIR=/lib/modules/$KVER/build"
	exit 0
fi

DIR=$SRC/build/kernels/$KVER
ROOT=$DIR/root
mkdir -p "$DIR"
exec 9> "$DIR/.lock"
flock 9
if [ ! -f "$DIR/stamp" ]; then
	rm -rf "$ROOT" "$DIR/debs"
	mkdir -p "$DIR/debs" "$ROOT"
	# The headers' own dependencies that are kernel trees: -common and
	# linux-kbuild-*.
	pkgs=("$IMG" "$HDR")
	for p in $(apt-cache depends --no-recommends --no-suggests "$HDR" |
		   sed -n 's/^ *Depends: \(linux-\(headers\|kbuild\)-[^ ]*\)$/\1/p'); do
		pkgs+=("$p")
	done
	echo "kernel.sh: downloading ${pkgs[*]}" >&2
	# apt's sandbox user must be able to write where it downloads.
	chmod 777 "$DIR/debs"
	(cd "$DIR/debs" && apt-get download -q "${pkgs[@]}" > /dev/null)
	for d in "$DIR"/debs/*.deb; do
		dpkg-deb -x "$d" "$ROOT"
	done
	hdir=$ROOT/usr/src/linux-headers-$KVER
	[ -f "$ROOT/boot/vmlinuz-$KVER" ] && [ -f "$hdir/Makefile" ] || {
		echo "kernel.sh: $IMG/$HDR did not unpack as expected" >&2
		exit 1
	}
	sed -i "s|^include /usr/src/|include $ROOT/usr/src/|" "$hdir/Makefile"
	mkdir -p "$ROOT/lib/modules/$KVER"
	ln -sfn "$hdir" "$ROOT/lib/modules/$KVER/build"
	depmod -b "$ROOT" "$KVER"
	echo "$IMG $HDR" > "$DIR/stamp"
fi
echo "KVER=$KVER"
echo "SROCE_KERNEL=$ROOT/boot/vmlinuz-$KVER"
echo "SROCE_MODBASE=$ROOT"
echo "KDIR=$ROOT/usr/src/linux-headers-$KVER"
