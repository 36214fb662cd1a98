/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Packets on the wire: building RoCEv2 skbs for a QP (sroce_pkt.c),
 * routing, pacing and sending them, and local delivery (sroce_net.c).
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <net/udp_tunnel.h>

#include "sroce/wire.h"

struct sroce_qp;
struct sroce_av;
struct sroce_route;

/*
 * Transmit pacing: a QP produces packets only while fewer than
 * SROCE_TX_HIGH of them are held by the stack (qdisc, driver ring), and
 * the destructor of the one that brings the count down to SROCE_TX_LOW
 * wakes it (SROCE_TX_THROTTLED says it waits). This is the flow control
 * of READ responses, which a peer asks for up to 2 GiB at a time, and it
 * keeps a fast requester from overflowing the device queue.
 *
 * The count lives in a context of its own, which each such packet
 * references, not in the QP: a packet the stack cannot free for a while
 * (a downed NIC's ring) must not keep the QP from being destroyed, nor
 * the netdev from going away. The module is held while a context has
 * packets in the stack, since their destructor is our code.
 */
#define SROCE_TX_HIGH		128
#define SROCE_TX_LOW		32
#define SROCE_TX_THROTTLED	0

/* What a built packet carries to sroce_xmit() in skb->cb */
struct sroce_skb_cb {
	u32			av_gen;
	u8			trailer;	/* pad and ICRC bytes */
	/* Local delivery: the sending device's netdev, and for a copy of
	 * a multicast datagram the netdev it left on (0 for unicast).
	 */
	int			ifindex;
	int			mcast_ifindex;
};

#define SROCE_SKB_CB(skb)	((struct sroce_skb_cb *)(skb)->cb)

void sroce_route_init(struct sroce_route *r);
void sroce_route_release(struct sroce_route *r);
int sroce_net_open(udp_tunnel_encap_rcv_t udp_rcv,
		   void (*loop_rcv)(struct sk_buff *skb));
void sroce_net_close(void);

/*
 * The context also carries the QP's zerocopy ubuf_info: a packet whose
 * payload is a user MR's pages (sroce_pkt_zcopy()) holds it, so that the
 * stack copies those pages out (skb_orphan_frags()) wherever it would
 * keep the packet beyond its transmission: a clone for a packet socket, a
 * tun reader, a veth or bridge into another namespace, local delivery.
 * Its refcnt counts the skbs that hold it plus one, the QP's; while it is
 * above zero it holds one of refs. Every paced packet's destructor_arg
 * is &ubuf, zerocopy or not.
 */
struct sroce_tx_ctx {
	struct ubuf_info	ubuf;
	refcount_t		refs;		/* the QP's, the ubuf's, one per packet */
	atomic_t		inflight;	/* paced packets held */
	unsigned long		flags;		/* SROCE_TX_THROTTLED */
	struct sroce_qp __rcu	*qp;		/* to wake; NULL once destroyed */
};

int sroce_tx_ctx_create(struct sroce_qp *qp);
void sroce_tx_ctx_detach(struct sroce_qp *qp);
void sroce_tx_ctx_put(struct sroce_tx_ctx *ctx);
void sroce_tx_ctx_wait_all(void);

/* A received packet: parsed headers and where its BTH starts. */
struct sroce_rxpkt {
	struct sroce_pkt	p;
	const u8		*bth;
};

static inline const u8 *sroce_rx_payload(const struct sroce_rxpkt *rx)
{
	return rx->bth + rx->p.payload_off;
}

/* Should RC requester @qp send @payload_len bytes of user MRs as fragments? */
bool sroce_pkt_zcopy(struct sroce_qp *qp, u32 payload_len);
struct sk_buff *sroce_pkt_new(struct sroce_qp *qp, struct sroce_hdrs *h,
			      u32 payload_len, u8 **payload);
int sroce_pkt_seal(const struct sroce_av *av, struct sk_buff *skb);
void sroce_xmit(struct sroce_qp *qp, struct sk_buff_head *list,
		bool paced);

#endif /* SROCE_NET_H */
