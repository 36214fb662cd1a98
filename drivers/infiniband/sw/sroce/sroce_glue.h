/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The engine glue: one file per engine of the protocol core, carrying out
 * what it decides. The RC send queue, requester and completer
 * (sroce_glue_sq.c), the RC receive side (sroce_glue_rq.c), UD and GSI
 * (sroce_glue_ud.c). All are called with qp->lock held, by the
 * scheduler and the entry points only.
 */
#ifndef SROCE_GLUE_H
#define SROCE_GLUE_H

#include <linux/bits.h>
#include <linux/skbuff.h>

#include "sroce/rc_engine.h"

struct sroce_qp;
struct sroce_rxpkt;

/*
 * What a glue call reports to its caller, instead of calling up:
 * SROCE_RUN_AGAIN, the requester or the READ responses have packets to
 * send (run them again: sroce_qp_kick(), or the work item after a run
 * that spent its budget); SROCE_RUN_FATAL, the QP must go to the error
 * state: the caller calls sroce_qp_fail() before it drops qp->lock.
 */
#define SROCE_RUN_AGAIN		BIT(0)
#define SROCE_RUN_FATAL		BIT(1)

/* RC send queue: requests out, responses in (sroce_glue_sq.c) */
unsigned int sroce_glue_req_run(struct sroce_qp *qp, struct sk_buff_head *out,
				int budget);
unsigned int sroce_glue_comp_rcv(struct sroce_qp *qp,
				 const struct sroce_rxpkt *rx);
unsigned int sroce_glue_sq_apply(struct sroce_qp *qp, u32 comp_before,
				 const struct sroce_sq_act *act);
void sroce_glue_sq_flush(struct sroce_qp *qp);
void sroce_glue_sq_reap(struct sroce_qp *qp);
void sroce_glue_sq_drained(struct sroce_qp *qp);

/* RC receive side: requests in, ACKs and READ responses out (_rq.c) */
unsigned int sroce_glue_resp_rcv(struct sroce_qp *qp,
				 const struct sroce_rxpkt *rx,
				 struct sk_buff_head *out);
unsigned int sroce_glue_read_run(struct sroce_qp *qp, struct sk_buff_head *out,
				 int budget);
void sroce_glue_rq_flush(struct sroce_qp *qp);

/* UD and GSI (sroce_glue_ud.c) */
unsigned int sroce_glue_ud_run(struct sroce_qp *qp, struct sk_buff_head *out,
			       int budget);
void sroce_glue_ud_flush(struct sroce_qp *qp);
void sroce_glue_ud_rcv(struct sroce_qp *qp, struct sk_buff *skb,
		       const struct sroce_rxpkt *rx);

#endif /* SROCE_GLUE_H */
