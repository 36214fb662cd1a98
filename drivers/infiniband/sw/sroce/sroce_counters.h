/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-device counters, one for every packet sroce drops and every
 * protocol event worth seeing. Shown by "rdma statistic show link DEV/1"
 * and /sys/class/infiniband/DEV/ports/1/hw_counters/.
 */
#ifndef SROCE_COUNTERS_H
#define SROCE_COUNTERS_H

#include <linux/atomic.h>

enum sroce_counter {
	SROCE_CNT_RX_PACKETS,
	SROCE_CNT_TX_PACKETS,
	SROCE_CNT_RX_DROP_MALFORMED,	/* parse failed */
	SROCE_CNT_RX_DROP_ICRC,		/* ICRC mismatch */
	SROCE_CNT_RX_DROP_NO_QP,	/* unknown destination QP */
	SROCE_CNT_TX_DROP,		/* no memory or no route */
	SROCE_CNT_RETRANSMIT_TIMEOUTS,
	SROCE_CNT_RETRANSMITS,		/* request packets sent again */
	SROCE_CNT_SEQ_NAKS_RCVD,
	SROCE_CNT_RNR_NAKS_RCVD,
	SROCE_CNT_SEQ_NAKS_SENT,
	SROCE_CNT_RNR_NAKS_SENT,
	SROCE_CNT_FATAL_NAKS_SENT,	/* invalid request, access, op */
	SROCE_CNT_DUP_REQUESTS,
	SROCE_CNT_OUT_OF_SEQ_REQUESTS,
	SROCE_CNT_STALE_RESPONSES,	/* acks/read responses ignored */
	SROCE_CNT_CQ_OVERFLOWS,
	SROCE_CNT_GHOST_RESPONSES,	/* answer nothing outstanding: dropped */
	SROCE_CNT_BAD_RESPONSES,	/* READ resp./ATOMIC ACK of wrong form */
	SROCE_CNT_READ_REREQUESTS,	/* READ holes asked for again */
	SROCE_CNT_REWINDS,		/* requester goes back: NAK, timeout */
	SROCE_CNT_RX_DROP_BAD_REQUEST,	/* not an RC request, over the MTU */
	SROCE_CNT_RX_DROP_BAD_DUP_READ,	/* duplicate READ/atomic, no resource */
	SROCE_CNT_RX_DROP_ADDRESS,	/* not from the RC QP's peer */
	SROCE_CNT_RX_DROP_PKEY,		/* P_Key not ours */
	SROCE_CNT_TX_THROTTLED,		/* a QP waits for its packets to drain */
	SROCE_CNT_UD_DROP_OPCODE,	/* not a UD send, to a UD/GSI QP */
	SROCE_CNT_UD_DROP_QKEY,		/* Q_Key not the QP's */
	SROCE_CNT_UD_DROP_LENGTH,	/* datagram over the MTU */
	SROCE_CNT_UD_DROP_NO_RECV,	/* no receive WQE posted */
	SROCE_CNT_UD_DROP_NO_ROOM,	/* next receive WQE too small */
	SROCE_CNT_UD_DROP_STATE,	/* UD/GSI QP not ready to receive */
	SROCE_CNT_UD_RECV_ERRORS,	/* delivered into a WQE in error */
	SROCE_CNT_UD_BAD_SENDS,		/* UD send WQE refused (AH, length) */
	SROCE_CNT_MCAST_DROP_NO_GROUP,	/* multicast with no QP attached */
	SROCE_CNT_ATOMICS_EXECUTED,	/* responder: atomics carried out */
	SROCE_CNT_ATOMIC_REPLAYS,	/* duplicate atomic answered from cache */
	SROCE_CNT_UC_DROPS,		/* UC messages dropped whole */
	SROCE_CNT_ATOMIC_MISALIGNED,	/* atomics NAKed: misaligned */
	SROCE_CNT_ATOMIC_DENIED,	/* atomics NAKed: no REMOTE_ATOMIC */
	SROCE_CNT_UC_LEN_ERRORS,	/* UC message too long for its WQE */
	SROCE_CNT_FAST_REGS,		/* IB_WR_REG_MR carried out */
	SROCE_CNT_LOCAL_INVS,		/* IB_WR_LOCAL_INV carried out */
	SROCE_CNT_REMOTE_INVS,		/* Send with Invalidate: key freed */
	SROCE_CNT_LOCAL_OP_ERRORS,	/* REG_MR / LOCAL_INV refused */
	SROCE_CNT_REMOTE_INV_ERRORS,	/* Send with Invalidate refused */
	SROCE_CNT_MW_BINDS,		/* memory windows bound */
	SROCE_CNT_TX_LOCAL,		/* to a local address: delivered inside */
	SROCE_CNT_RX_DROP_LOOPBACK,	/* came through the stack's loopback */
	SROCE_CNT_RX_DROP_DEST,		/* UD: not to a unicast address of ours */
	SROCE_CNT_TX_ZCOPY,		/* payload sent from the MR's pages */
	SROCE_CNT_TX_ZCOPY_OVER_LIMIT,	/* copied: owner's memlock reached */
	SROCE_CNT_MCAST_JOINS,		/* the netdev joined a group for QPs */
	SROCE_CNT_MCAST_LEAVES,		/* and left one */
	SROCE_CNT_ECN_MARKED,		/* received with CE: congestion on the way */
	SROCE_CNT_CNP_SENT,		/* CNPs sent for them (notification point) */
	SROCE_CNT_CNP_RECEIVED,		/* CNPs taken by a QP (reaction point) */
	SROCE_CNT_RATE_CUTS,		/* a QP's rate cut by a CNP (DCQCN) */
	SROCE_CNT_TX_PACED,		/* requester held until its rate allows */
	SROCE_CNT_TX_BUDGET_HELD,	/* held by the device's budget in flight */
	SROCE_CNT_NR
};

/*
 * What the port moved, beyond the packet counts above: the Performance
 * Management class's PortCounters(Extended) read them (sroce_res.c).
 * Octets are those of the RoCEv2 UDP payload, BTH through ICRC.
 */
enum sroce_port_counter {
	SROCE_PORT_XMIT_OCTETS,
	SROCE_PORT_RCV_OCTETS,
	SROCE_PORT_XMIT_MCAST,		/* packets to a multicast group */
	SROCE_PORT_RCV_MCAST,
	SROCE_PORT_NR
};

struct sroce_dev;
struct sroce_qp;
struct ib_device;
struct rdma_hw_stats;

/*
 * A QP's own counts while it is bound to an RDMA core counter ("rdma
 * statistic qp"): allocated at its first binding, freed with the QP.
 */
struct sroce_qstats {
	atomic64_t		v[SROCE_CNT_NR];
};

void sroce_count(struct sroce_dev *sdev, enum sroce_counter c);
void sroce_qp_stat(struct sroce_qp *qp, enum sroce_counter c);
void sroce_qp_count(struct sroce_qp *qp, enum sroce_counter c);
void sroce_qp_stats_drop(struct sroce_qp *qp);
void sroce_count_port(struct sroce_dev *sdev, enum sroce_port_counter c,
		      u32 n);
void sroce_count_qp_events(struct sroce_qp *qp, u32 psn, u32 events);
struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port);
struct rdma_counter;
struct ib_qp;
struct rdma_hw_stats *sroce_counter_alloc_stats(struct rdma_counter *counter);
int sroce_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp);
int sroce_counter_unbind_qp(struct ib_qp *ibqp);
int sroce_counter_dealloc(struct rdma_counter *counter);
int sroce_counter_update_stats(struct rdma_counter *counter);
void sroce_counters_dev_exit(struct sroce_dev *sdev);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

#endif /* SROCE_COUNTERS_H */
