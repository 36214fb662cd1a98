#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology "pair": READ responses are paced by what the link drains. Guest
# a (sroce) serves rc_verify's data and burst cases to guest b running
# rdma_rxe, whose requester asks for a whole 1 MiB READ in one request
# (1024 response packets at MTU 1024; any peer may ask for up to 2 GiB).
# Both NICs are shaped to 8 Mbit/s by tbf, which would queue up to 4 MB.
# a's qdisc may never hold more than a QP's in-flight limit
# (SROCE_TX_HIGH, 128) plus ACKs and slack, a must have waited for room
# (tx_throttled), and the data is compared byte for byte as ever.
export SROCE_PEER_RXE=1
export SROCE_QDISC="tbf rate 8mbit burst 16kb limit 4mb"
export SROCE_BACKLOG_MAX=300
exec "$(dirname "$0")/rc_verify.sh"
