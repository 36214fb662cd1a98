/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Packets on the wire: building RoCEv2 skbs for a QP (sroce_pkt.c),
 * routing, pacing and sending them, and local delivery (sroce_net.c).
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
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
/* A send WQE's completion waits for its zero-copy packets (sroce_zc) */
#define SROCE_TX_ZC_WAIT	1

/* What a built packet carries to sroce_xmit() in skb->cb */
struct sroce_skb_cb {
	u32			av_gen;
	int			oif;		/* the path's netdev */
	u8			trailer;	/* pad and ICRC bytes */
	/* Local delivery of a copy of a multicast datagram: the netdev it
	 * left on, in the sender's namespace (0 for unicast).
	 */
	int			mcast_ifindex;
};

#define SROCE_SKB_CB(skb)	((struct sroce_skb_cb *)(skb)->cb)

void sroce_route_init(struct sroce_route *r);
void sroce_route_release(struct sroce_route *r);
int sroce_net_init(udp_tunnel_encap_rcv_t udp_rcv,
		   void (*loop_rcv)(struct sk_buff *skb));
void sroce_net_exit(void);
int sroce_net_get(struct net *net);
void sroce_net_put(struct net *net);

/*
 * Zero-copy transmit keeps the verbs contract: a send WQE completes only
 * once no packet of the stack reads its buffers any more. Each SQ slot of
 * an RC QP has a zerocopy ubuf_info; a packet whose payload is a user
 * MR's pages (sroce_pkt_zcopy()) holds its WQE's, so that
 *  - wherever the stack would keep the packet beyond its transmission (a
 *    clone for a packet socket, a tun reader, a veth or bridge into
 *    another namespace), it copies the pages out first
 *    (skb_orphan_frags());
 *  - the ubuf_info's refcnt counts the packets (and clones of their
 *    data) that still read the pages: sent, dropped, linearised or
 *    copied out, each lets go, and the completer reports the WQE only
 *    when none is left (sroce_tx_zc_busy()), however early the peer
 *    acknowledged it. The last one wakes the QP if it waits
 *    (SROCE_TX_ZC_WAIT).
 * A slot's refcnt is 0 while no packet holds it; from 0 to 1 (under
 * qp->lock, as packets are built) it takes a hold on the context, which
 * it gives back when it drops to 0 again. The pages such packets pin are
 * charged to the QP owner's locked memory (RLIMIT_MEMLOCK, as
 * MSG_ZEROCOPY does) while they are held: past the limit, payloads are
 * copied instead.
 */
struct sroce_zc {
	struct ubuf_info	ubuf;
	struct sroce_tx_ctx	*ctx;
	atomic_t		pages;		/* charged for the packets held */
};

/*
 * Every paced packet's destructor_arg is a struct sroce_zc's ubuf: its
 * WQE's when it carries user pages, else @base's, which is never a
 * zerocopy ubuf_info. Both lead to the context.
 */
struct sroce_tx_ctx {
	struct sroce_zc		base;
	struct sroce_zc		*zc;		/* one per SQ slot; user RC only */
	u32			zc_mask;
	refcount_t		refs;		/* the QP's, and one per hold */
	atomic_t		holds;		/* packets, busy slots: module held */
	atomic_t		inflight;	/* paced packets held */
	unsigned long		flags;		/* SROCE_TX_THROTTLED, _ZC_WAIT */
	struct user_struct	*user;		/* charged for pinned pages */
	unsigned long		pin_limit;	/* pages, RLIMIT_MEMLOCK's */
	struct sroce_qp __rcu	*qp;		/* to wake; NULL once destroyed */
	struct work_struct	free_work;
};

int sroce_tx_ctx_create(struct sroce_qp *qp);
int sroce_tx_ctx_zc_init(struct sroce_tx_ctx *ctx, u32 slots);
bool sroce_tx_zc_attach(struct sroce_tx_ctx *ctx, u32 idx,
			struct sk_buff *skb, u32 pages);
bool sroce_tx_zc_busy(struct sroce_tx_ctx *ctx, u32 idx);
void sroce_tx_ctx_detach(struct sroce_qp *qp);
void sroce_tx_paced(struct sroce_tx_ctx *ctx, struct sk_buff *skb);
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

/*
 * A zero-copy payload carries at least this many bytes per page it pins,
 * on average, or it is copied (sroce_pkt.c)
 */
#define SROCE_ZCOPY_PER_PAGE	512

/* Should RC requester @qp send @payload_len bytes of user MRs as fragments? */
bool sroce_pkt_zcopy(struct sroce_qp *qp, u32 payload_len);
struct sk_buff *sroce_pkt_new(struct sroce_qp *qp, struct sroce_hdrs *h,
			      u32 payload_len, u8 **payload);
int sroce_pkt_seal(const struct sroce_av *av, struct sk_buff *skb);
void sroce_xmit(struct sroce_qp *qp, struct sk_buff_head *list);

#endif /* SROCE_NET_H */
