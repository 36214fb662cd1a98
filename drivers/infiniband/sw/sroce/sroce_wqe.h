/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Work-queue formats (sroce_wqe.c): the rxe provider's send and receive
 * ring entries, written for kernel callers and read, copied once and
 * checked, for the engines.
 */
#ifndef SROCE_WQE_H
#define SROCE_WQE_H

#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "sroce_mr.h"

struct sroce_qp;
struct sroce_queue;
struct sroce_av;
struct sroce_ud_send;
struct sroce_send_entry;

/* Kernel callers' work requests into a ring; qp->lock or the SRQ's held */
int sroce_wqe_post_send(struct sroce_qp *qp, const struct ib_send_wr *wr);
int sroce_wqe_post_recv(struct sroce_queue *q, u32 max_sge,
			const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/* Send entries, read once into the QP's slot or a datagram */
enum ib_wc_status sroce_wqe_fetch_rc(struct sroce_qp *qp, u32 idx);
enum ib_wc_status sroce_wqe_fetch_ud(struct sroce_qp *qp,
				     const struct rxe_send_wqe *slot,
				     struct sroce_send_entry *e,
				     struct sroce_ud_send *s,
				     struct sroce_av *av, void *data);
enum ib_wc_opcode sroce_wqe_wc_opcode(u32 wr_opcode);

/* Receive entries: the next one of the QP's RQ or SRQ, into qp->rwqe */
enum sroce_recv {
	SROCE_RECV_NONE,	/* nothing posted */
	SROCE_RECV_SHORT,	/* the next WQE is too small: left posted */
	SROCE_RECV_TAKEN,	/* in qp->rwqe */
};

enum sroce_recv sroce_wqe_take_recv(struct sroce_qp *qp, u32 need);

/* The bytes an entry's SGEs name, lkeys checked at use */
int sroce_wqe_sge_copy(struct sroce_qp *qp, const struct rxe_sge *sge,
		       u32 nsge, u32 off, void *buf, u32 len,
		       enum sroce_copy_dir dir);
/*
 * The same bytes, read, appended to @skb as fragments of user MRs'
 * pages (sroce_mr_frags()). -EOPNOTSUPP or -EMSGSIZE: they cannot be;
 * the caller drops @skb and copies instead.
 */
int sroce_wqe_sge_frags(struct sroce_qp *qp, const struct rxe_sge *sge,
			u32 nsge, u32 off, u32 len, struct sk_buff *skb);

#endif /* SROCE_WQE_H */
