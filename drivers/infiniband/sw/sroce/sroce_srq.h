/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared receive queues, and taking a receive WQE for a QP from its own
 * RQ or from its SRQ.
 */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include <linux/mutex.h>
#include <rdma/ib_verbs.h>

#include "sroce_queue.h"

struct sroce_qp;

struct sroce_srq {
	struct ib_srq		ibsrq;
	spinlock_t		lock;		/* the queue, limit */
	struct mutex		modify_mutex;	/* one modify at a time */
	struct sroce_queue	q;
	bool			user;
	u32			max_sge;
	u32			limit;		/* armed when non-zero */
	u32			srq_num;
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

#endif /* SROCE_SRQ_H */
