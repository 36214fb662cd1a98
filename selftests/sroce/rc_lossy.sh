#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": rc_verify's data and burst cases over a bad wire: both
# NICs lose 2%, duplicate 1% and reorder a quarter of the packets. Every
# work request must still complete exactly once with intact data.
export SROCE_QDISC="netem loss 2% duplicate 1% delay 1ms reorder 25% 50%"
exec "$(dirname "$0")/rc_verify.sh"
