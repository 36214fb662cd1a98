// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counters: names, increments, and their export through the RDMA core's
 * hw_counters interface.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce.h"
#include "sroce/rc_engine.h"
#include "sroce_counters.h"
#include "sroce_trace.h"

static const struct rdma_stat_desc sroce_counter_descs[] = {
	[SROCE_CNT_RX_PACKETS].name = "rx_packets",
	[SROCE_CNT_TX_PACKETS].name = "tx_packets",
	[SROCE_CNT_RX_DROP_MALFORMED].name = "rx_drop_malformed",
	[SROCE_CNT_RX_DROP_ICRC].name = "rx_drop_icrc",
	[SROCE_CNT_RX_DROP_NO_QP].name = "rx_drop_no_qp",
	[SROCE_CNT_TX_DROP].name = "tx_drop",
	[SROCE_CNT_RETRANSMIT_TIMEOUTS].name = "retransmit_timeouts",
	[SROCE_CNT_RETRANSMITS].name = "retransmits",
	[SROCE_CNT_SEQ_NAKS_RCVD].name = "seq_naks_rcvd",
	[SROCE_CNT_RNR_NAKS_RCVD].name = "rnr_naks_rcvd",
	[SROCE_CNT_SEQ_NAKS_SENT].name = "seq_naks_sent",
	[SROCE_CNT_RNR_NAKS_SENT].name = "rnr_naks_sent",
	[SROCE_CNT_FATAL_NAKS_SENT].name = "fatal_naks_sent",
	[SROCE_CNT_DUP_REQUESTS].name = "duplicate_requests",
	[SROCE_CNT_OUT_OF_SEQ_REQUESTS].name = "out_of_sequence_requests",
	[SROCE_CNT_STALE_RESPONSES].name = "stale_responses",
	[SROCE_CNT_CQ_OVERFLOWS].name = "cq_overflows",
	[SROCE_CNT_GHOST_RESPONSES].name = "ghost_responses",
	[SROCE_CNT_BAD_RESPONSES].name = "bad_responses",
	[SROCE_CNT_READ_REREQUESTS].name = "read_rerequests",
	[SROCE_CNT_REWINDS].name = "requester_rewinds",
	[SROCE_CNT_RX_DROP_BAD_REQUEST].name = "rx_drop_bad_request",
	[SROCE_CNT_RX_DROP_BAD_DUP_READ].name = "rx_drop_bad_dup_read",
	[SROCE_CNT_RX_DROP_ADDRESS].name = "rx_drop_address",
	[SROCE_CNT_RX_DROP_PKEY].name = "rx_drop_pkey",
	[SROCE_CNT_TX_THROTTLED].name = "tx_throttled",
	[SROCE_CNT_UD_DROP_OPCODE].name = "rx_drop_ud_opcode",
	[SROCE_CNT_UD_DROP_QKEY].name = "rx_drop_qkey",
	[SROCE_CNT_UD_DROP_LENGTH].name = "rx_drop_ud_length",
	[SROCE_CNT_UD_DROP_NO_RECV].name = "rx_drop_no_recv_wqe",
	[SROCE_CNT_UD_DROP_NO_ROOM].name = "rx_drop_ud_no_room",
	[SROCE_CNT_UD_DROP_STATE].name = "rx_drop_qp_state",
	[SROCE_CNT_UD_RECV_ERRORS].name = "ud_recv_errors",
	[SROCE_CNT_UD_BAD_SENDS].name = "ud_bad_sends",
	[SROCE_CNT_MCAST_DROP_NO_GROUP].name = "rx_drop_mcast_no_group",
	[SROCE_CNT_ATOMICS_EXECUTED].name = "atomics_executed",
	[SROCE_CNT_ATOMIC_REPLAYS].name = "atomic_replays",
	[SROCE_CNT_UC_DROPS].name = "uc_messages_dropped",
	[SROCE_CNT_ATOMIC_MISALIGNED].name = "atomic_misaligned",
	[SROCE_CNT_ATOMIC_DENIED].name = "atomic_access_denied",
	[SROCE_CNT_UC_LEN_ERRORS].name = "uc_recv_length_errors",
	[SROCE_CNT_FAST_REGS].name = "fast_regs",
	[SROCE_CNT_LOCAL_INVS].name = "local_invalidates",
	[SROCE_CNT_REMOTE_INVS].name = "remote_invalidates",
	[SROCE_CNT_LOCAL_OP_ERRORS].name = "local_op_errors",
	[SROCE_CNT_REMOTE_INV_ERRORS].name = "remote_invalidate_errors",
	[SROCE_CNT_MW_BINDS].name = "mw_binds",
	[SROCE_CNT_TX_LOCAL].name = "tx_local_packets",
	[SROCE_CNT_TX_ZCOPY].name = "tx_zcopy_packets",
	[SROCE_CNT_TX_ZCOPY_OVER_LIMIT].name = "tx_zcopy_over_memlock",
	[SROCE_CNT_RX_DROP_LOOPBACK].name = "rx_drop_loopback",
	[SROCE_CNT_RX_DROP_DEST].name = "rx_drop_ud_dest",
	[SROCE_CNT_MCAST_JOINS].name = "mcast_joins",
	[SROCE_CNT_ECN_MARKED].name = "ecn_marked",
	[SROCE_CNT_CNP_SENT].name = "cnp_sent",
	[SROCE_CNT_CNP_RECEIVED].name = "cnp_received",
	[SROCE_CNT_RATE_CUTS].name = "rate_cuts",
	[SROCE_CNT_TX_PACED].name = "tx_paced",
	[SROCE_CNT_TX_BUDGET_HELD].name = "tx_budget_held",
	[SROCE_CNT_MCAST_LEAVES].name = "mcast_leaves",
};

/* The counter of each engine event (enum sroce_eng_event) */
static const u8 sroce_event_counter[SROCE_EV_NR] = {
	[SROCE_EV_STALE] = SROCE_CNT_STALE_RESPONSES,
	[SROCE_EV_GHOST] = SROCE_CNT_GHOST_RESPONSES,
	[SROCE_EV_BAD_RESP] = SROCE_CNT_BAD_RESPONSES,
	[SROCE_EV_SEQ_NAK_RCVD] = SROCE_CNT_SEQ_NAKS_RCVD,
	[SROCE_EV_RNR_NAK_RCVD] = SROCE_CNT_RNR_NAKS_RCVD,
	[SROCE_EV_REWIND] = SROCE_CNT_REWINDS,
	[SROCE_EV_REREAD] = SROCE_CNT_READ_REREQUESTS,
	[SROCE_EV_TIMEOUT] = SROCE_CNT_RETRANSMIT_TIMEOUTS,
	[SROCE_EV_DUP_REQ] = SROCE_CNT_DUP_REQUESTS,
	[SROCE_EV_OOS_REQ] = SROCE_CNT_OUT_OF_SEQ_REQUESTS,
	[SROCE_EV_SEQ_NAK_SENT] = SROCE_CNT_SEQ_NAKS_SENT,
	[SROCE_EV_RNR_NAK_SENT] = SROCE_CNT_RNR_NAKS_SENT,
	[SROCE_EV_FATAL_NAK_SENT] = SROCE_CNT_FATAL_NAKS_SENT,
	[SROCE_EV_BAD_REQ] = SROCE_CNT_RX_DROP_BAD_REQUEST,
	[SROCE_EV_DUP_READ_BAD] = SROCE_CNT_RX_DROP_BAD_DUP_READ,
	[SROCE_EV_ATOMIC_REPLAY] = SROCE_CNT_ATOMIC_REPLAYS,
	[SROCE_EV_UC_DROP] = SROCE_CNT_UC_DROPS,
	[SROCE_EV_ATOMIC_MISALIGNED] = SROCE_CNT_ATOMIC_MISALIGNED,
	[SROCE_EV_ATOMIC_DENIED] = SROCE_CNT_ATOMIC_DENIED,
	[SROCE_EV_UC_LEN_ERR] = SROCE_CNT_UC_LEN_ERRORS,
};

static_assert(ARRAY_SIZE(sroce_counter_descs) == SROCE_CNT_NR);

void sroce_count(struct sroce_dev *sdev, enum sroce_counter c)
{
	atomic64_inc(&sdev->counters[c]);
	trace_sroce_count(&sdev->ibdev, sroce_counter_descs[c].name);
}

/* No trace event: sroce_tx and sroce_rx carry every packet's length */
void sroce_count_port(struct sroce_dev *sdev, enum sroce_port_counter c,
		      u32 n)
{
	atomic64_add(n, &sdev->port_counters[c]);
}

/*
 * The protocol events (SROCE_EV_*) an engine step of QP @qpn reported,
 * counted, and traced with the QP and @psn (the requester's oldest PSN
 * not acknowledged, or the responder's expected PSN, after the step).
 */
void sroce_count_qp_events(struct sroce_dev *sdev, u32 qpn, u32 psn,
			   u32 events)
{
	while (events) {
		unsigned int ev = __ffs(events);
		enum sroce_counter c;

		events &= events - 1;
		if (ev >= SROCE_EV_NR)
			continue;
		c = sroce_event_counter[ev];
		sroce_count(sdev, c);
		trace_sroce_qp_event(&sdev->ibdev, qpn,
				     sroce_counter_descs[c].name, psn);
	}
}

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_descs, SROCE_CNT_NR,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int i;

	for (i = 0; i < SROCE_CNT_NR; i++)
		stats->value[i] = atomic64_read(&sdev->counters[i]);
	return SROCE_CNT_NR;
}
