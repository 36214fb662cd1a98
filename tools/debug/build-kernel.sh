#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# build-kernel.sh OUTDIR
#
# Build the debug guest kernel of "make check-debug" from Debian's
# linux-source-6.1 with tools/debug/kernel.config merged over
# x86_64_defconfig: OUTDIR/bzImage, OUTDIR/modroot/lib/modules/KVER and
# OUTDIR/src (the configured tree, KDIR for out-of-tree modules).
# Cached: nothing is rebuilt while the config and the source tarball are
# unchanged (OUTDIR/stamp records both); a changed config is applied to
# the tree already built from the same tarball, so kbuild rebuilds only
# what the change touches.
set -euo pipefail

OUT=$(mkdir -p "$1" && cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
TAR=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
[ -n "$TAR" ] || { echo "no /usr/src/linux-source-6.1.tar.*: make deps"; exit 2; }
tarid=$(stat -c %s.%Y "$TAR")
want="$(sha256sum "$HERE/kernel.config" | cut -d' ' -f1) $tarid"
if [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$want" ] &&
   [ -f "$OUT/bzImage" ]; then
	exit 0
fi

rm -rf "$OUT/modroot" "$OUT/bzImage" "$OUT/stamp"
# An interrupted build of the same config goes on where it stopped.
if [ "$(cat "$OUT/src/.sroce-config" 2>/dev/null)" = "$want" ]; then
	cd "$OUT/src"
	make -s -j"$(nproc)" bzImage modules
	make -s modules_install INSTALL_MOD_PATH="$OUT/modroot" > /dev/null
	cp arch/x86/boot/bzImage "$OUT/bzImage"
	make -s kernelrelease > "$OUT/kernelrelease"
	# where vm.sh looks for 9p (else it boots by virtiofs)
	install -D -m 644 .config \
		"$OUT/modroot/boot/config-$(cat "$OUT/kernelrelease")"
	echo "$want" > "$OUT/stamp"
	exit 0
fi
# The tree was extracted from this tarball: keep it, configure it anew.
if [ "$(cut -d' ' -f2 "$OUT/src/.sroce-config" 2>/dev/null)" != "$tarid" ]; then
	rm -rf "$OUT/src"
	mkdir -p "$OUT/src"
	tar -xf "$TAR" -C "$OUT/src" --strip-components=1
fi
cd "$OUT/src"
rm -f .sroce-config
make -s x86_64_defconfig
scripts/kconfig/merge_config.sh -m .config "$HERE/kernel.config" > /dev/null
make -s olddefconfig
# Every line of the fragment must have survived (a typo or a missing
# dependency would silently drop a checker).
missing=0
while IFS= read -r l; do
	case "$l" in
	CONFIG_*=n) k=${l%=n}; grep -q "^$k=" .config && { echo "not off: $l"; missing=1; } ;;
	CONFIG_*) grep -qxF "$l" .config || { echo "not set: $l"; missing=1; } ;;
	esac
done < "$HERE/kernel.config"
[ $missing = 0 ] || exit 1
echo "$want" > .sroce-config
make -s -j"$(nproc)" bzImage modules
make -s modules_install INSTALL_MOD_PATH="$OUT/modroot" > /dev/null
cp arch/x86/boot/bzImage "$OUT/bzImage"
make -s kernelrelease > "$OUT/kernelrelease"
# where vm.sh looks for 9p (else it boots by virtiofs)
install -D -m 644 .config "$OUT/modroot/boot/config-$(cat "$OUT/kernelrelease")"
echo "$want" > "$OUT/stamp"
