#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": UCX, through which Open MPI and MPICH use RDMA, between
# the guests' sroce devices with Debian's ucx-utils and default settings
# (a serves, b connects): UCT over rc_verbs (active message latency, RDMA
# put and get of 64 KiB, zero copy) and ud_verbs, UCP (tag matching, put,
# get), and io_demo, which checks every byte it reads and writes.
# ucx_perftest does not compare data; each run must exit 0 on both
# sides. UCX passes a flow label of ~0 and traffic class 106 to
# modify_qp, which sroce once refused, and its UD transport reads the
# packet type from a datagram's SL, which sroce once left 0 (as rdma_rxe
# does), so that UD and UCP timed out.
. "$(dirname "$0")/../lib.sh"

ktap_begin
sroce_install_module || exit 1
sroce_setup_net || exit 1
sroce_link_up eth0 sroce0
ucx_run_all sroce0
ktap_end
