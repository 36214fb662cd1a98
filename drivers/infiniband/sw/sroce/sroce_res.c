// SPDX-License-Identifier: GPL-2.0-only
/*
 * What operators read about a device, beyond hw_counters:
 *
 * - The port counters of the IBA's Performance Management class
 *   (PortCounters, PortCountersExtended). The RDMA core asks for them
 *   with a MAD through process_mad to fill
 *   /sys/class/infiniband/DEV/ports/1/counters/, which scripts and
 *   monitors read on every RDMA device. Only those local questions are
 *   answered here: a MAD from the wire goes on to the MAD agents as it
 *   would without process_mad.
 * - The driver's part of "rdma resource show qp|cq -dd" (fill_res_*): a
 *   QP's PSNs, packets in flight, retries left, timer and rate; a CQ's
 *   size and fill.
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include "sroce.h"
#include "sroce_cq.h"
#include "sroce_qp.h"
#include "sroce_verbs.h"

static u64 sroce_port_count(struct sroce_dev *sdev,
			    enum sroce_port_counter c)
{
	return atomic64_read(&sdev->port_counters[c]);
}

static u64 sroce_pkt_count(struct sroce_dev *sdev, enum sroce_counter c)
{
	return atomic64_read(&sdev->counters[c]);
}

/* The IBA's counters stop at all ones rather than wrap */
static __be16 sroce_pma16(u64 v)
{
	return cpu_to_be16(min_t(u64, v, U16_MAX));
}

static __be32 sroce_pma32(u64 v)
{
	return cpu_to_be32(min_t(u64, v, U32_MAX));
}

/*
 * PortCounters: the error counters a soft port has (a packet received
 * malformed or with a bad ICRC is a receive error; one the stack gave no
 * route is a transmit discard), and the 32-bit traffic counters. Data in
 * 4-octet words, as the IBA counts.
 */
static void sroce_pma_counters(struct sroce_dev *sdev,
			       struct ib_pma_portcounters *pc)
{
	pc->port_rcv_errors =
		sroce_pma16(sroce_pkt_count(sdev, SROCE_CNT_RX_DROP_MALFORMED) +
			    sroce_pkt_count(sdev, SROCE_CNT_RX_DROP_ICRC));
	pc->port_xmit_discards =
		sroce_pma16(sroce_pkt_count(sdev, SROCE_CNT_TX_DROP));
	pc->port_xmit_data =
		sroce_pma32(sroce_port_count(sdev, SROCE_PORT_XMIT_OCTETS) / 4);
	pc->port_rcv_data =
		sroce_pma32(sroce_port_count(sdev, SROCE_PORT_RCV_OCTETS) / 4);
	pc->port_xmit_packets =
		sroce_pma32(sroce_pkt_count(sdev, SROCE_CNT_TX_PACKETS));
	pc->port_rcv_packets =
		sroce_pma32(sroce_pkt_count(sdev, SROCE_CNT_RX_PACKETS));
}

/* PortCountersExtended: the same traffic in 64 bits, unicast apart */
static void sroce_pma_counters_ext(struct sroce_dev *sdev,
				   struct ib_pma_portcounters_ext *pc)
{
	u64 tx = sroce_pkt_count(sdev, SROCE_CNT_TX_PACKETS);
	u64 rx = sroce_pkt_count(sdev, SROCE_CNT_RX_PACKETS);
	u64 tx_mc = sroce_port_count(sdev, SROCE_PORT_XMIT_MCAST);
	u64 rx_mc = sroce_port_count(sdev, SROCE_PORT_RCV_MCAST);

	pc->port_xmit_data =
		cpu_to_be64(sroce_port_count(sdev, SROCE_PORT_XMIT_OCTETS) / 4);
	pc->port_rcv_data =
		cpu_to_be64(sroce_port_count(sdev, SROCE_PORT_RCV_OCTETS) / 4);
	pc->port_xmit_packets = cpu_to_be64(tx);
	pc->port_rcv_packets = cpu_to_be64(rx);
	/* read apart from the totals: never let a difference go negative */
	pc->port_unicast_xmit_packets = cpu_to_be64(tx - min(tx, tx_mc));
	pc->port_unicast_rcv_packets = cpu_to_be64(rx - min(rx, rx_mc));
	pc->port_multicast_xmit_packets = cpu_to_be64(tx_mc);
	pc->port_multicast_rcv_packets = cpu_to_be64(rx_mc);
}

/* Answer one Get of the Performance Management class into @resp */
static void sroce_pma_get(struct sroce_dev *sdev, u32 port,
			  const struct ib_pma_mad *req, struct ib_pma_mad *resp)
{
	struct ib_class_port_info *cpi = (void *)resp->data;
	struct ib_pma_portcounters_ext *ext = (void *)resp->data;
	struct ib_pma_portcounters *pc = (void *)resp->data;
	u16 status = IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;

	/* PortSelect is the second byte of both counter attributes */
	memcpy(resp->data, req->data, 2);
	switch (req->mad_hdr.attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		cpi->base_version = IB_MGMT_BASE_VERSION;
		cpi->class_version = 1;
		cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH;
		return;
	case IB_PMA_PORT_COUNTERS:
		if (pc->port_select != port)
			break;
		sroce_pma_counters(sdev, pc);
		return;
	case IB_PMA_PORT_COUNTERS_EXT:
		if (ext->port_select != port)
			break;
		sroce_pma_counters_ext(sdev, ext);
		return;
	default:
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
		break;
	}
	resp->mad_hdr.status = cpu_to_be16(status);
}

int sroce_process_mad(struct ib_device *ibdev, int flags, u32 port,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_size, u16 *out_pkey_index)
{
	const struct ib_pma_mad *req = (const void *)in;
	struct ib_pma_mad *resp = (void *)out;

	/* the core's own question (in_wc NULL), of the class we answer */
	if (in_wc || port != SROCE_PORT || *out_size < sizeof(*resp) ||
	    in->mad_hdr.mgmt_class != IB_MGMT_CLASS_PERF_MGMT ||
	    in->mad_hdr.method != IB_MGMT_METHOD_GET)
		return IB_MAD_RESULT_FAILURE;
	memset(resp, 0, sizeof(*resp));
	resp->mad_hdr = req->mad_hdr;
	resp->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	sroce_pma_get(to_sdev(ibdev), port, req, resp);
	*out_size = sizeof(*resp);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}

/* A QP's engine state, read under its lock and shown after */
struct sroce_res_qp {
	u32	next_psn;	/* the next request's PSN */
	u32	una_psn;	/* oldest not acknowledged */
	u32	epsn;		/* the responder's expected PSN */
	u32	inflight;	/* PSNs sent, not acknowledged */
	u32	cwnd;
	u32	budget;		/* its part of the device's budget */
	u8	retries;	/* retry_cnt left */
	u8	rnr_retries;
	u8	backoff;	/* timeouts doubled since progress */
	const char *timer;
	u32	srtt_us;	/* 0 before a sample */
	u32	rate_mbps;	/* DCQCN's current rate, 0 when off */
	u32	cnps;
	u32	rate_cuts;
};

static const char *sroce_res_timer(struct sroce_qp *qp)
{
	const struct sroce_sq_eng *e = &qp->sq_eng;

	if (e->rnr_wait)
		return "rnr";
	if (!timer_pending(&qp->retrans_timer))
		return "idle";
	return e->pto_armed ? "probe" : "ack";
}

static void sroce_res_qp_read(struct sroce_qp *qp, struct sroce_res_qp *r)
{
	const struct sroce_sq_eng *e = &qp->sq_eng;
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	r->next_psn = e->next_psn;
	r->una_psn = e->una_psn;
	r->epsn = qp->rq_eng.epsn;
	r->inflight = max(sroce_psn_diff(e->sent_psn, e->una_psn), 0);
	r->cwnd = e->cwnd;
	r->budget = qp->bq.charge;
	r->retries = e->retries_left;
	r->rnr_retries = e->rnr_left;
	r->backoff = e->backoff;
	r->timer = sroce_res_timer(qp);
	r->srtt_us = e->rtt_valid ? div_u64(e->srtt, NSEC_PER_USEC) : 0;
	r->rate_mbps = e->ccp ? e->cc.rc_kbps / 1000 : 0;
	r->cnps = e->cc.cnps;
	r->rate_cuts = e->cc.cuts;
	spin_unlock_irqrestore(&qp->lock, flags);
}

static int sroce_res_qp_put(struct sk_buff *msg, const struct sroce_res_qp *r)
{
	return rdma_nl_put_driver_u32_hex(msg, "next_psn", r->next_psn) ||
	       rdma_nl_put_driver_u32_hex(msg, "una_psn", r->una_psn) ||
	       rdma_nl_put_driver_u32_hex(msg, "epsn", r->epsn) ||
	       rdma_nl_put_driver_u32(msg, "inflight", r->inflight) ||
	       rdma_nl_put_driver_u32(msg, "cwnd", r->cwnd) ||
	       rdma_nl_put_driver_u32(msg, "budget", r->budget) ||
	       rdma_nl_put_driver_u32(msg, "retries_left", r->retries) ||
	       rdma_nl_put_driver_u32(msg, "rnr_retries_left",
				      r->rnr_retries) ||
	       rdma_nl_put_driver_u32(msg, "backoff", r->backoff) ||
	       rdma_nl_put_driver_string(msg, "timer", r->timer) ||
	       rdma_nl_put_driver_u32(msg, "srtt_us", r->srtt_us) ||
	       rdma_nl_put_driver_u32(msg, "rate_mbps", r->rate_mbps) ||
	       rdma_nl_put_driver_u32(msg, "cnp_received", r->cnps) ||
	       rdma_nl_put_driver_u32(msg, "rate_cuts", r->rate_cuts);
}

int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_res_qp r;
	struct nlattr *table;
	int err;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (sroce_qp_is_ud(qp)) {
		err = rdma_nl_put_driver_u32_hex(msg, "next_psn",
						 READ_ONCE(qp->ud_psn));
	} else {
		sroce_res_qp_read(qp, &r);
		err = sroce_res_qp_put(msg, &r);
	}
	if (err) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

int sroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct nlattr *table;
	unsigned long flags;
	u32 slots, used;
	bool overflow;
	u8 armed;

	spin_lock_irqsave(&cq->lock, flags);
	slots = sroce_queue_slots(&cq->q);
	/* the consumer index of a user CQ is the process's: shown as is */
	used = (cq->q.own - sroce_queue_consumer(&cq->q)) & cq->q.index_mask;
	overflow = cq->overflow;
	armed = cq->notify;
	spin_unlock_irqrestore(&cq->lock, flags);

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "slots", slots) ||
	    rdma_nl_put_driver_u32(msg, "used", used) ||
	    rdma_nl_put_driver_u32(msg, "overflow", overflow) ||
	    rdma_nl_put_driver_u32_hex(msg, "armed", armed)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}
