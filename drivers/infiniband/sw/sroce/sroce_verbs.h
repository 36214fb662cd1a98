/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Entry points of the device's ops table (sroce_device.c) that belong to
 * no object: the device's and port's (sroce_verbs.c), the QP verbs
 * (sroce_qp_verbs.c) and posting (sroce_post.c). The objects' own verbs
 * (CQ, MR, MW, AH, SRQ) are declared with them.
 */
#ifndef SROCE_VERBS_H
#define SROCE_VERBS_H

#include <rdma/ib_verbs.h>

struct sroce_dev;

/* sroce_verbs.c */
void sroce_init_attr(struct sroce_dev *sdev);
int sroce_query_device(struct ib_device *ibdev,
		       struct ib_device_attr *attr,
		       struct ib_udata *udata);
int sroce_query_port(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr);
int sroce_modify_port(struct ib_device *ibdev, u32 port, int mask,
		      struct ib_port_modify *props);
int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
			     struct ib_port_immutable *immutable);
enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
					  u32 port);
int sroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
		     u16 *pkey);
int sroce_modify_device(struct ib_device *ibdev, int mask,
			struct ib_device_modify *props);
int sroce_alloc_ucontext(struct ib_ucontext *ibuc,
			 struct ib_udata *udata);
void sroce_dealloc_ucontext(struct ib_ucontext *ibuc);
int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* sroce_qp_verbs.c */
int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

/* sroce_post.c */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/* sroce_res.c */
struct ib_mad;
struct ib_grh;
int sroce_process_mad(struct ib_device *ibdev, int flags, u32 port,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_size, u16 *out_pkey_index);
int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int sroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);

#endif /* SROCE_VERBS_H */
