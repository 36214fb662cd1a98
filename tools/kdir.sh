#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# kdir.sh: the kernel build tree to build the module for, by default: the
# running kernel's when its headers are installed, else the newest one
# installed (by version order), else nothing. The Makefiles' KDIR.
run=/lib/modules/$(uname -r)/build
if [ -d "$run" ]; then
	echo "$run"
	exit 0
fi
ls -d /lib/modules/*/build 2>/dev/null | sort -V | tail -n 1
