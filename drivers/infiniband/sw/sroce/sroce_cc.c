// SPDX-License-Identifier: GPL-2.0-only
/*
 * Congestion control, as RoCE NICs do it (ECN and DCQCN): outgoing
 * requests carry ECT(0) (sroce_pkt.c, module parameter ecn), so that a
 * congested queue on the way marks them CE instead of dropping them.
 *
 * Notification point: a QP that receives a CE-marked request from its
 * peer sends that peer's QP a CNP, at most one per cnp_min_time
 * microseconds. Reaction point: a CNP for one of our QPs cuts that QP's
 * rate by DCQCN's rules (core/sroce_dcqcn.c, knobs dcqcn_*), and its
 * requester is paced to the rate (sroce_glue_req_run(), the pace timer).
 * A peer that ignores CNPs (rdma_rxe) still interoperates; one that
 * sends none (rdma_rxe) never slows us down.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/moduleparam.h>

#include "sroce/dcqcn.h"
#include "sroce.h"
#include "sroce_cc.h"
#include "sroce_counters.h"
#include "sroce_net.h"
#include "sroce_qp.h"

static bool sroce_dcqcn_on = true;
module_param_named(dcqcn, sroce_dcqcn_on, bool, 0644);
MODULE_PARM_DESC(dcqcn, "React to CNPs: pace each QP to a DCQCN rate (QPs created after a change)");

static unsigned int sroce_line_mbps = 10000;
module_param_named(dcqcn_line_rate, sroce_line_mbps, uint, 0644);
MODULE_PARM_DESC(dcqcn_line_rate, "Mbit/s a QP starts at and returns to (10000)");

static unsigned int sroce_cnp_gap_us = 4;
module_param_named(cnp_min_time, sroce_cnp_gap_us, uint, 0644);
MODULE_PARM_DESC(cnp_min_time, "Least microseconds between two CNPs of a QP (np_min_time_between_cnps, 4)");

/* The reaction point's knobs: mlx5's names (rp_*, dce_*) and defaults */
static struct sroce_dcqcn_params sroce_dcqcn = SROCE_DCQCN_DEFAULTS;
module_param_named(dcqcn_min_rate, sroce_dcqcn.min_mbps, uint, 0644);
MODULE_PARM_DESC(dcqcn_min_rate, "Mbit/s a cut never goes below (rpg_min_rate, 1)");
module_param_named(dcqcn_ai_rate, sroce_dcqcn.ai_mbps, uint, 0644);
MODULE_PARM_DESC(dcqcn_ai_rate, "Mbit/s of additive increase (rpg_ai_rate, 5)");
module_param_named(dcqcn_hai_rate, sroce_dcqcn.hai_mbps, uint, 0644);
MODULE_PARM_DESC(dcqcn_hai_rate, "Mbit/s of hyper increase (rpg_hai_rate, 50)");
module_param_named(dcqcn_time_reset, sroce_dcqcn.time_reset_us, uint, 0644);
MODULE_PARM_DESC(dcqcn_time_reset, "Microseconds between timer increases (rpg_time_reset, 300)");
module_param_named(dcqcn_byte_reset, sroce_dcqcn.byte_reset, uint, 0644);
MODULE_PARM_DESC(dcqcn_byte_reset, "Bytes sent between byte-counter increases (rpg_byte_reset, 32767)");
module_param_named(dcqcn_threshold, sroce_dcqcn.threshold, uint, 0644);
MODULE_PARM_DESC(dcqcn_threshold, "Increase stages of fast recovery (rpg_threshold, 1)");
module_param_named(dcqcn_g, sroce_dcqcn.g, uint, 0644);
MODULE_PARM_DESC(dcqcn_g, "Alpha keeps g/1024 per period (dce_tcp_g, 1019)");
module_param_named(dcqcn_alpha_period, sroce_dcqcn.alpha_us, uint, 0644);
MODULE_PARM_DESC(dcqcn_alpha_period, "Microseconds per alpha update (dce_tcp_rtt, 1)");
module_param_named(dcqcn_initial_alpha, sroce_dcqcn.initial_alpha, uint, 0644);
MODULE_PARM_DESC(dcqcn_initial_alpha, "Alpha at a QP's first CNP, of 1024 (initial_alpha_value, 1023)");
module_param_named(dcqcn_min_dec_fac, sroce_dcqcn.min_dec_pct, uint, 0644);
MODULE_PARM_DESC(dcqcn_min_dec_fac, "A cut keeps at least this % of the rate (rpg_min_dec_fac, 50)");
module_param_named(dcqcn_reduce_period, sroce_dcqcn.reduce_us, uint, 0644);
MODULE_PARM_DESC(dcqcn_reduce_period, "Least microseconds between two cuts (rate_reduce_monitor_period, 4)");
module_param_named(dcqcn_first_cnp_rate, sroce_dcqcn.first_cnp_mbps, uint, 0644);
MODULE_PARM_DESC(dcqcn_first_cnp_rate, "Mbit/s set at a QP's first CNP, 0: cut (rate_to_set_on_first_cnp, 0)");

static unsigned int sroce_inflight_budget = 2048;
module_param_named(inflight_budget, sroce_inflight_budget, uint, 0644);
MODULE_PARM_DESC(inflight_budget, "Packets a device's RC QPs keep in flight together, 0: no bound (devices created after a change, 2048)");

/*
 * A new device's budget of packets in flight, shared by its RC QPs
 * (include/sroce/budget.h). The default bounds 256 QPs to an eighth of
 * their windows (64 packets each) and leaves each a share of 8 packets:
 * with 512, a share of 2 made every QP ask for an ACK every second
 * packet and recover each loss by a timeout, and 256 QPs moved half as
 * much (Documentation/performance.rst).
 */
void sroce_cc_dev_init(struct sroce_dev *sdev)
{
	spin_lock_init(&sdev->budget_lock);
	INIT_LIST_HEAD(&sdev->budget_wait);
	sdev->budget.limit = READ_ONCE(sroce_inflight_budget);
}

/* Only RC QPs keep packets in flight, and only on a device with a limit */
static bool sroce_budgeted(const struct sroce_qp *qp)
{
	return qp->sdev->budget.limit && qp->ibqp.qp_type == IB_QPT_RC;
}

/* Before @qp's requester runs: what it may add in flight now */
void sroce_cc_budget_grant(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;

	lockdep_assert_held(&qp->lock);
	if (!sroce_budgeted(qp))
		return;
	spin_lock(&sdev->budget_lock);
	sroce_sq_budget_grant(&qp->sq_eng, &sdev->budget, &qp->bq);
	spin_unlock(&sdev->budget_lock);
}

/*
 * The budget held @qp (SROCE_REQ_BUDGET): it waits in the device's ring
 * until another QP's packets are acknowledged. Its own ACK runs it too,
 * but need not come: the packets it has in flight may not ask for one (a
 * run that stopped mid-message on its rate).
 */
void sroce_cc_budget_hold(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;

	lockdep_assert_held(&qp->lock);
	spin_lock(&sdev->budget_lock);
	if (list_empty(&qp->budget_node))
		list_add_tail(&qp->budget_node, &sdev->budget_wait);
	spin_unlock(&sdev->budget_lock);
}

/*
 * After any step of @qp's send engine: charge it what it has in flight.
 * What it gives back goes to the QPs waiting, oldest first, one each per
 * packet freed (they run from the workqueue: this is under @qp's lock).
 * A QP with nothing in flight (acknowledged, failed, reset, destroyed)
 * leaves the ring: it waits for nothing.
 */
void sroce_cc_budget_settle(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_qp *w;
	u32 freed;

	lockdep_assert_held(&qp->lock);
	if (!sroce_budgeted(qp))
		return;
	spin_lock(&sdev->budget_lock);
	freed = sroce_sq_budget_settle(&qp->sq_eng, &sdev->budget, &qp->bq);
	if (!qp->bq.charge)
		list_del_init(&qp->budget_node);
	while (freed-- && !list_empty(&sdev->budget_wait)) {
		w = list_first_entry(&sdev->budget_wait, struct sroce_qp,
				     budget_node);
		list_del_init(&w->budget_node);
		queue_work(sroce_wq, &w->work);
	}
	spin_unlock(&sdev->budget_lock);
}

/* A new QP's send engine: paced to a DCQCN rate unless dcqcn=0 */
void sroce_cc_qp_init(struct sroce_qp *qp)
{
	INIT_LIST_HEAD(&qp->budget_node);
	sroce_sq_set_cc(&qp->sq_eng,
			READ_ONCE(sroce_dcqcn_on) ? &sroce_dcqcn : NULL,
			READ_ONCE(sroce_line_mbps));
}

/*
 * Notification point: a request from @qp's peer came marked CE. Count it,
 * and queue a CNP to the peer's QP on @out if one is due.
 */
void sroce_glue_ce(struct sroce_qp *qp, struct sk_buff_head *out)
{
	struct sroce_hdrs h;
	struct sk_buff *skb;
	u8 *payload;

	/* without a path (RESET, INIT, ERR) there is nobody to tell */
	if (qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS &&
	    qp->state != IB_QPS_SQD)
		return;
	sroce_qp_count(qp, SROCE_CNT_ECN_MARKED);
	if (!sroce_np_cnp_due(&qp->cnp_last, ktime_get_ns(),
			      READ_ONCE(sroce_cnp_gap_us)))
		return;
	sroce_cnp_hdrs(qp->dest_qpn, &h);
	skb = sroce_pkt_new(qp, &h, 0, &payload);
	/* lost if either fails: the next mark sends another */
	if (!skb || sroce_pkt_seal(&qp->av, skb))
		return;
	__skb_queue_tail(out, skb);
	sroce_qp_count(qp, SROCE_CNT_CNP_SENT);
}

/* Reaction point: a CNP from @qp's peer (checked as its packets are) */
void sroce_glue_cnp_rcv(struct sroce_qp *qp)
{
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD)
		return;
	sroce_qp_count(qp, SROCE_CNT_CNP_RECEIVED);
	sroce_sq_clock(&qp->sq_eng, ktime_get_ns());
	if (sroce_sq_cnp(&qp->sq_eng))
		sroce_qp_count(qp, SROCE_CNT_RATE_CUTS);
}
