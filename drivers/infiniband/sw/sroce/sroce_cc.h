/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Congestion control glue (sroce_cc.c): ECN's notification point (a
 * CE-marked packet makes the QP send a CNP) and DCQCN's reaction point
 * (a CNP cuts the QP's rate, which paces its requester), and the
 * device's budget of packets in flight, with their module parameters.
 * Called with qp->lock held (irqs off), except sroce_cc_dev_init().
 */
#ifndef SROCE_CC_H
#define SROCE_CC_H

#include <linux/skbuff.h>

struct sroce_dev;
struct sroce_qp;

void sroce_cc_dev_init(struct sroce_dev *sdev);
void sroce_cc_budget_grant(struct sroce_qp *qp);
void sroce_cc_budget_hold(struct sroce_qp *qp);
void sroce_cc_budget_settle(struct sroce_qp *qp);
void sroce_cc_qp_init(struct sroce_qp *qp);
void sroce_glue_ce(struct sroce_qp *qp, struct sk_buff_head *out);
void sroce_glue_cnp_rcv(struct sroce_qp *qp);

#endif /* SROCE_CC_H */
