// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counters: names, increments, and their export through the RDMA core's
 * hw_counters interface.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce.h"
#include "sroce_counters.h"

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
};

static_assert(ARRAY_SIZE(sroce_counter_descs) == SROCE_CNT_NR);

void sroce_count(struct sroce_dev *sdev, enum sroce_counter c)
{
	atomic64_inc(&sdev->counters[c]);
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
