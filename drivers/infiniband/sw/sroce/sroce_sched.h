/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The scheduler (sroce_sched.c): where and when the engines run, the
 * error state, and the handlers called once qp->lock is dropped.
 */
#ifndef SROCE_SCHED_H
#define SROCE_SCHED_H

#include <linux/compiler_types.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

struct sroce_qp;

/* Run the requester now if this context may send, else later. */
void sroce_qp_kick(struct sroce_qp *qp);
void sroce_qp_work(struct work_struct *work);
void sroce_retrans_timer(struct timer_list *t);
void sroce_rnr_timer(struct timer_list *t);
enum hrtimer_restart sroce_pace_timer(struct hrtimer *t);
void sroce_qp_fail(struct sroce_qp *qp);
void sroce_qp_unlock(struct sroce_qp *qp, unsigned long flags)
	__releases(&qp->lock);
bool sroce_qp_queue(struct sroce_qp *qp, struct sk_buff_head *out, bool paced);
void sroce_qp_xmit(struct sroce_qp *qp);

#endif /* SROCE_SCHED_H */
