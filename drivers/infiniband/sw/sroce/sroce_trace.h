/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce tracepoints, the trace system "sroce": packets sent and received
 * (device, QPN, opcode, PSN, bytes from the BTH to the ICRC), every
 * counter as it counts (each drop, NAK, retransmit and timeout has one:
 * its name is the reason), QP state changes and completions posted.
 * Off, each costs a patched-out branch. Documentation/admin-guide.rst
 * shows how to record them with trace-cmd or perf.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(_SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SROCE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#define SROCE_TRACE_NAME	32

/* A RoCE packet: its BTH's opcode, destination QPN and PSN */
DECLARE_EVENT_CLASS(sroce_pkt_class,
	TP_PROTO(const struct ib_device *ibdev, const u8 *bth, u32 len),
	TP_ARGS(ibdev, bth, len),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, qpn)
		__field(u32, psn)
		__field(u32, len)
		__field(u8, opcode)
	),
	TP_fast_assign(
		strscpy(__entry->dev, dev_name(&ibdev->dev), IB_DEVICE_NAME_MAX);
		__entry->opcode = bth[0];
		__entry->qpn = (bth[5] << 16) | (bth[6] << 8) | bth[7];
		__entry->psn = (bth[9] << 16) | (bth[10] << 8) | bth[11];
		__entry->len = len;
	),
	TP_printk("%s qpn=0x%06x opcode=0x%02x psn=0x%06x len=%u",
		  __entry->dev, __entry->qpn, __entry->opcode, __entry->psn,
		  __entry->len)
);

/* Handed to IP (or delivered locally): @len bytes from the BTH on */
DEFINE_EVENT(sroce_pkt_class, sroce_tx,
	TP_PROTO(const struct ib_device *ibdev, const u8 *bth, u32 len),
	TP_ARGS(ibdev, bth, len)
);

/* Received and parsed, before the ICRC and the QP are checked */
DEFINE_EVENT(sroce_pkt_class, sroce_rx,
	TP_PROTO(const struct ib_device *ibdev, const u8 *bth, u32 len),
	TP_ARGS(ibdev, bth, len)
);

/* A device counter counted (rdma statistic's name): drops say why */
TRACE_EVENT(sroce_count,
	TP_PROTO(const struct ib_device *ibdev, const char *name),
	TP_ARGS(ibdev, name),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__array(char, name, SROCE_TRACE_NAME)
	),
	TP_fast_assign(
		strscpy(__entry->dev, dev_name(&ibdev->dev), IB_DEVICE_NAME_MAX);
		strscpy(__entry->name, name, SROCE_TRACE_NAME);
	),
	TP_printk("%s %s", __entry->dev, __entry->name)
);

/*
 * A QP's protocol event: a retransmit timeout, a NAK or RNR NAK sent or
 * received, a rewind, a duplicate or out-of-sequence request, ... by its
 * counter's name, with the requester's oldest unacknowledged PSN or the
 * responder's expected PSN after it
 */
TRACE_EVENT(sroce_qp_event,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, const char *name,
		 u32 psn),
	TP_ARGS(ibdev, qpn, name, psn),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, qpn)
		__array(char, name, SROCE_TRACE_NAME)
		__field(u32, psn)
	),
	TP_fast_assign(
		strscpy(__entry->dev, dev_name(&ibdev->dev), IB_DEVICE_NAME_MAX);
		__entry->qpn = qpn;
		strscpy(__entry->name, name, SROCE_TRACE_NAME);
		__entry->psn = psn;
	),
	TP_printk("%s qpn=0x%06x %s psn=0x%06x", __entry->dev, __entry->qpn,
		  __entry->name, __entry->psn)
);

#define sroce_show_qps(s)					\
	__print_symbolic(s, { IB_QPS_RESET, "RESET" },		\
			 { IB_QPS_INIT, "INIT" },		\
			 { IB_QPS_RTR, "RTR" },			\
			 { IB_QPS_RTS, "RTS" },			\
			 { IB_QPS_SQD, "SQD" },			\
			 { IB_QPS_SQE, "SQE" },			\
			 { IB_QPS_ERR, "ERR" })

/* A QP's state changed (modify_qp, or the error state the engine took) */
TRACE_EVENT(sroce_qp_state,
	TP_PROTO(const struct ib_device *ibdev, u32 qpn, int from, int to),
	TP_ARGS(ibdev, qpn, from, to),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u32, qpn)
		__field(int, from)
		__field(int, to)
	),
	TP_fast_assign(
		strscpy(__entry->dev, dev_name(&ibdev->dev), IB_DEVICE_NAME_MAX);
		__entry->qpn = qpn;
		__entry->from = from;
		__entry->to = to;
	),
	TP_printk("%s qpn=0x%06x %s -> %s", __entry->dev, __entry->qpn,
		  sroce_show_qps(__entry->from), sroce_show_qps(__entry->to))
);

/* A completion posted to CQ @cqn (ib_wc's status and opcode numbers) */
TRACE_EVENT(sroce_cqe,
	TP_PROTO(const struct ib_device *ibdev, u32 cqn,
		 const struct ib_wc *wc),
	TP_ARGS(ibdev, cqn, wc),
	TP_STRUCT__entry(
		__array(char, dev, IB_DEVICE_NAME_MAX)
		__field(u64, wr_id)
		__field(u32, cqn)
		__field(u32, qpn)
		__field(u32, byte_len)
		__field(int, status)
		__field(int, opcode)
	),
	TP_fast_assign(
		strscpy(__entry->dev, dev_name(&ibdev->dev), IB_DEVICE_NAME_MAX);
		__entry->wr_id = wc->wr_id;
		__entry->cqn = cqn;
		__entry->qpn = wc->qp ? wc->qp->qp_num : 0;
		__entry->byte_len = wc->byte_len;
		__entry->status = wc->status;
		__entry->opcode = wc->opcode;
	),
	TP_printk("%s cq=%u qpn=0x%06x wr_id=0x%llx status=%d opcode=%d len=%u",
		  __entry->dev, __entry->cqn, __entry->qpn,
		  (unsigned long long)__entry->wr_id, __entry->status,
		  __entry->opcode, __entry->byte_len)
);

#endif /* _SROCE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sroce_trace
#include <trace/define_trace.h>
