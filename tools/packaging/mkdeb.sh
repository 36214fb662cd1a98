#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# mkdeb.sh: "make deb". Assemble in build/deb/sroce-VERSION/ the source
# tree DKMS wants (dkms.conf at its root, the module's sources and
# headers, a Makefile for the module alone, the docs) with the Debian
# packaging of tools/packaging/debian/, and build sroce-dkms_VERSION_all.deb
# from it with Debian's own tooling (dpkg-buildpackage, debhelper,
# dh-dkms). Prints the package's path. VERSION is 0.N, N the number of
# commits of this tree (SROCE_VERSION overrides it).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
PKG=$SRC/tools/packaging
VER=${SROCE_VERSION:-0.$(git -C "$SRC" rev-list --count HEAD 2>/dev/null || echo 0)}
OUT=$SRC/build/deb
TREE=$OUT/sroce-$VER

rm -rf "$OUT"
mkdir -p "$TREE"
cd "$SRC"
# The module's sources and headers only: no objects, no generated header.
find Kbuild include drivers \( -name '*.[ch]' -o -name Kbuild -o \
	-name probe.sh \) -not -path '*/compat/generated/*' -not -name '*.mod.c' -print0 |
	cpio --null -pdm --quiet "$TREE"
cp README.md "$TREE/"
cp -r Documentation "$TREE/"
cp "$PKG/dkms.conf" "$PKG/sroce-rxe.conf" "$PKG/sroce@.service" "$TREE/"
cp "$PKG/Makefile.dkms" "$TREE/Makefile"
cp -r "$PKG/debian" "$TREE/"
cat > "$TREE/debian/changelog" <<CL
sroce ($VER) unstable; urgency=medium

  * Built from $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo "a source tree").

 -- sroce developers <sroce-devel@localhost>  $(date -R)
CL

(cd "$TREE" && dpkg-buildpackage -b -us -uc > "$OUT/build.log" 2>&1) || {
	tail -n 30 "$OUT/build.log" >&2
	exit 1
}
ls "$OUT"/sroce-dkms_"$VER"_all.deb
