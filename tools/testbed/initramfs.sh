#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# initramfs.sh KVER OUTPUT [ROOTFS [BASE]]
#
# Build the testbed's initramfs: static busybox, our init, and the few
# modules (virtio PCI, 9p or virtiofs as ROOTFS says, overlayfs) needed
# to reach the host's root. The modules are copied from
# BASE/lib/modules/KVER (default: the host's own) in load order; a kernel
# that has them built in needs none.
set -euo pipefail

KVER=$1
OUTPUT=$2
ROOTFS=${3:-9p}
BASE=${4:-/}
[ -n "$BASE" ] || BASE=/
HERE=$(cd "$(dirname "$0")" && pwd)
case "$ROOTFS" in
9p) WANT="virtio_pci 9pnet_virtio 9p overlay" ;;
virtiofs) WANT="virtio_pci virtiofs overlay" ;;
*) echo "initramfs.sh: unknown root $ROOTFS" >&2; exit 2 ;;
esac

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,proc,sys,dev,modules}
touch "$stage/modules.list"
cp /bin/busybox "$stage/bin/busybox"
cp "$HERE/init" "$stage/init"
chmod +x "$stage/init"

# Depth-first walk of "depends" so every module follows its dependencies.
declare -A seen=()
order=()
visit() {
	local m=$1 d
	[ -n "${seen[$m]:-}" ] && return
	seen[$m]=1
	for d in $(modinfo -b "$BASE" -k "$KVER" -F depends "$m" | tr ',' ' '); do
		visit "$d"
	done
	order+=("$m")
}
for m in $WANT; do visit "$m"; done

for m in "${order[@]}"; do
	f=$(modinfo -b "$BASE" -k "$KVER" -n "$m")
	case "$f" in
	(builtin|"(builtin)"|"") continue ;;
	esac
	cp "$BASE/${f#/}" "$stage/modules/" 2>/dev/null || cp "$f" "$stage/modules/"
	basename "$f" >> "$stage/modules.list"
done

(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) |
	gzip -1 > "$OUTPUT.tmp.$$"
mv "$OUTPUT.tmp.$$" "$OUTPUT"
