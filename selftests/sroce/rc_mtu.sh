#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": rc_verify's data and burst cases at the smallest and
# the largest path MTU, 256 and 4096 bytes (NICs at MTU 9000).
. "$(dirname "$0")/../lib.sh"
for m in 256 4096; do
	echo "# path MTU $m"
	SROCE_MTU=$m SROCE_SYNC_TAG=mtu$m. "$(dirname "$0")/rc_verify.sh" ||
		rc=1
done
exit ${rc:-0}
