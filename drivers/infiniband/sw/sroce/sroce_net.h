/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Packets on the wire: building RoCEv2 skbs for a QP and sending them,
 * and the receive entry point.
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/skbuff.h>

#include "sroce/wire.h"

struct sroce_qp;

struct sk_buff *sroce_pkt_new(struct sroce_qp *qp, struct sroce_hdrs *h,
			      u32 payload_len, u8 **payload);
void sroce_pkt_seal(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_xmit(struct sroce_qp *qp, struct sk_buff_head *list);

#endif /* SROCE_NET_H */
