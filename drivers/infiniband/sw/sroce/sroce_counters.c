// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counters: names, increments, and their export through the RDMA core's
 * hw_counters interface.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce.h"
#include "sroce/rc_engine.h"
#include "sroce_counters.h"
#include "sroce_qp.h"
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

/*
 * An event of QP @qp the device counted already: the QP's counter's too,
 * if the QP is bound to one. Its counts are allocated before the QP is
 * bound (sroce_qp_stats_get()) and live as long as the QP; an event
 * racing with an unbinding may stay behind in them, and is given back
 * to the port by the next binding or by the QP's end
 * (sroce_qp_stats_drop()).
 */
void sroce_qp_stat(struct sroce_qp *qp, enum sroce_counter c)
{
	struct sroce_qstats *s;

	if (likely(!READ_ONCE(qp->ibqp.counter)))
		return;
	/* pairs with the release in sroce_qp_stats_get(): zeroed */
	s = smp_load_acquire(&qp->qstats);
	if (!s)
		return;
	atomic64_inc(&s->v[c]);
	atomic64_inc(&qp->sdev->counted_by_qps[c]);
}

/* An event of QP @qp: the device's, and its counter's if bound */
void sroce_qp_count(struct sroce_qp *qp, enum sroce_counter c)
{
	sroce_count(qp->sdev, c);
	sroce_qp_stat(qp, c);
}

/*
 * Counts left in an unbound QP's own (events that raced with the
 * unbinding) go back to the port.
 */
static void sroce_qp_stats_return(struct sroce_qp *qp)
{
	struct sroce_qstats *s = qp->qstats;
	int i;

	if (!s)
		return;
	for (i = 0; i < SROCE_CNT_NR; i++)
		atomic64_sub(atomic64_xchg(&s->v[i], 0),
			     &qp->sdev->counted_by_qps[i]);
}

/* The QP ends (unbound by the core before its destroy_qp) */
void sroce_qp_stats_drop(struct sroce_qp *qp)
{
	sroce_qp_stats_return(qp);
	kfree(qp->qstats);
	qp->qstats = NULL;
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
void sroce_count_qp_events(struct sroce_qp *qp, u32 psn, u32 events)
{
	struct sroce_dev *sdev = qp->sdev;
	u32 qpn = qp->ibqp.qp_num;

	while (events) {
		unsigned int ev = __ffs(events);
		enum sroce_counter c;

		events &= events - 1;
		if (ev >= SROCE_EV_NR)
			continue;
		c = sroce_event_counter[ev];
		sroce_qp_count(qp, c);
		trace_sroce_qp_event(&sdev->ibdev, qpn,
				     sroce_counter_descs[c].name, psn);
	}
}

/* A port's and a per-QP counter's stats: the same names */
static struct rdma_hw_stats *sroce_alloc_stats(void)
{
	return rdma_alloc_hw_stats_struct(sroce_counter_descs, SROCE_CNT_NR,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port)
{
	return sroce_alloc_stats();
}

int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	int i;

	/* what QPs bound to counters took, the core adds from those */
	for (i = 0; i < SROCE_CNT_NR; i++)
		stats->value[i] = atomic64_read(&sdev->counters[i]) -
				  atomic64_read(&sdev->counted_by_qps[i]);
	return SROCE_CNT_NR;
}

/*
 * Per-QP counters ("rdma statistic qp"): the RDMA core binds QPs to
 * counters, by hand or automatically by type; a counter shows what its
 * QPs counted while bound: what its QPs now bound hold, and what QPs
 * that left it held (retired, kept under the counter's id until the
 * counter goes). The core calls these under the counter's lock.
 */
struct sroce_qcounter {
	u64			retired[SROCE_CNT_NR];
	struct list_head	qps;		/* bound to it now */
};

/* The core adds a counter's values to the port's, index by index */
struct rdma_hw_stats *sroce_counter_alloc_stats(struct rdma_counter *counter)
{
	return sroce_alloc_stats();
}

/* The QP's own counts, made once; a racing binding's copy is freed */
static int sroce_qp_stats_get(struct sroce_qp *qp)
{
	struct sroce_qstats *s;

	if (READ_ONCE(qp->qstats))
		return 0;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	/* zeroed before the data path, which reads it unlocked, sees it */
	if (cmpxchg_release(&qp->qstats, NULL, s))
		kfree(s);
	return 0;
}

/*
 * The core checks that a QP is unbound without a lock: two bindings of
 * one QP (two modify_qps to INIT in auto mode, two "qp bind" commands)
 * may both come here, under two counters' locks. The QP is claimed with
 * a compare-and-exchange of its counter: the loser fails, and a counter
 * it had just given an id loses the id again (the core frees a counter
 * whose first binding failed without counter_dealloc).
 */
int sroce_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct sroce_dev *sdev = to_sdev(counter->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_qcounter *qc;
	bool made = false;
	u32 id;
	int err;

	err = sroce_qp_stats_get(qp);
	if (err)
		return err;
	if (!counter->id) {
		qc = kzalloc(sizeof(*qc), GFP_KERNEL);
		if (!qc)
			return -ENOMEM;
		INIT_LIST_HEAD(&qc->qps);
		/* cyclic: a counter's number means one counter for a while */
		err = xa_alloc_cyclic(&sdev->qcounters, &id, qc, xa_limit_31b,
				      &sdev->qcounter_next, GFP_KERNEL);
		if (err < 0) {
			kfree(qc);
			return err;
		}
		counter->id = id;
		made = true;
	}
	qc = xa_load(&sdev->qcounters, counter->id);
	if (WARN_ON_ONCE(!qc))
		return -EINVAL;
	if (cmpxchg(&ibqp->counter, NULL, counter)) {
		if (made) {
			kfree(xa_erase(&sdev->qcounters, counter->id));
			counter->id = 0;
		}
		return -EINVAL;
	}
	/*
	 * Counts an earlier binding's unbinding raced with go back to the
	 * port (a few of this binding's first may go with them: the port
	 * still counts those).
	 */
	sroce_qp_stats_return(qp);
	list_add_tail(&qp->counter_node, &qc->qps);	/* counter's lock */
	return 0;
}

int sroce_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct rdma_counter *counter;
	struct sroce_qcounter *qc;
	int i;

	/*
	 * Two unbindings of one QP (two "qp unbind" commands) both come
	 * here, one after the other under its counter's lock: the second
	 * finds it unbound. Off the counter's list before the QP is free to
	 * be bound again, under another counter's lock.
	 */
	counter = READ_ONCE(ibqp->counter);
	if (!counter)
		return -EINVAL;
	list_del(&qp->counter_node);
	xchg(&ibqp->counter, NULL);		/* a barrier, as its claim */
	qc = xa_load(&sdev->qcounters, counter->id);
	if (WARN_ON_ONCE(!qc))
		return 0;
	for (i = 0; i < SROCE_CNT_NR; i++)
		qc->retired[i] += atomic64_xchg(&qp->qstats->v[i], 0);
	return 0;
}

int sroce_counter_dealloc(struct rdma_counter *counter)
{
	struct sroce_dev *sdev = to_sdev(counter->device);

	if (counter->id)
		kfree(xa_erase(&sdev->qcounters, counter->id));
	return 0;
}

/* The device ends: its counters went with its QPs; anything left */
void sroce_counters_dev_exit(struct sroce_dev *sdev)
{
	struct sroce_qcounter *qc;
	unsigned long id;

	xa_for_each(&sdev->qcounters, id, qc)
		kfree(qc);
	xa_destroy(&sdev->qcounters);
}

int sroce_counter_update_stats(struct rdma_counter *counter)
{
	struct sroce_dev *sdev = to_sdev(counter->device);
	struct rdma_hw_stats *stats = counter->stats;
	struct sroce_qcounter *qc;
	struct sroce_qp *qp;
	int i;

	qc = xa_load(&sdev->qcounters, counter->id);
	for (i = 0; i < SROCE_CNT_NR; i++)
		stats->value[i] = qc ? qc->retired[i] : 0;
	if (!qc)
		return 0;
	/* its QPs: the counter's lock keeps them bound, and so alive */
	list_for_each_entry(qp, &qc->qps, counter_node)
		for (i = 0; i < SROCE_CNT_NR; i++)
			stats->value[i] += atomic64_read(&qp->qstats->v[i]);
	return 0;
}
