/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Completion queues. The engines report a completion with sroce_cq_post()
 * in a struct ib_wc; a user CQ stores it as the struct ib_uverbs_wc the
 * rxe provider reads, a kernel CQ as the struct ib_wc itself.
 */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "sroce_compat.h"
#include "sroce_queue.h"

struct sroce_cq {
	struct ib_cq		ibcq;
	spinlock_t		lock;		/* queue, notify */
	struct sroce_queue	q;
	bool			user;
	u8			notify;		/* armed IB_CQ_* flags */
	bool			overflow;	/* lost entries, not yet posted again */
	struct work_struct	err_work;	/* raises IB_EVENT_CQ_ERR */
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

bool sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc,
		   bool solicited);
void sroce_cq_notify(struct sroce_cq *cq);

#ifdef SROCE_HAVE_CREATE_CQ_ATTRS
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct uverbs_attr_bundle *attrs);
#else
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct ib_udata *udata);
#endif
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

#endif /* SROCE_CQ_H */
