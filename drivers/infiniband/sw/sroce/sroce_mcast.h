/* SPDX-License-Identifier: GPL-2.0-only */
/* Multicast groups of UD QPs (sroce_mcast.c). */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_qp;
struct sroce_rxpkt;

int sroce_mcast_dev_init(struct sroce_dev *sdev);
void sroce_mcast_dev_exit(struct sroce_dev *sdev);
int sroce_mcast_init(void);
void sroce_mcast_exit(void);
int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
void sroce_mcast_detach_all(struct sroce_qp *qp);
void sroce_mcast_rcv(struct sroce_dev *sdev, struct sk_buff *skb,
		     const struct sroce_rxpkt *rx);
void sroce_mcast_loopback(struct sroce_dev *sdev, struct sk_buff *skb);

#endif /* SROCE_MCAST_H */
