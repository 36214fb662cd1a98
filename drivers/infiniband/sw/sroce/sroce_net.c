// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RoCEv2 UDP sockets: one per address family, bound to port 4791 in
 * the initial network namespace for as long as the module is loaded.
 *
 * Holding the port is also how sroce and rdma_rxe keep out of each
 * other's way: both want 4791 and both report driver_id RDMA_DRIVER_RXE,
 * so whichever module loads second fails to bind and refuses to load
 * before it has touched anything.
 *
 * Received packets arrive in sroce_udp_rcv() in softirq context, which
 * refuses what came through a loopback device, and sroce_rcv() checks
 * the headers and the ICRC, finds the device and the QP, and runs the
 * responder (requests) or the completer (responses) under the QP lock.
 * sroce_xmit() sends a batch of packets (built once, headers and ICRC
 * included, by sroce_pkt.c) through the IP output path with a route
 * cached per QP, or, to an address of this host, straight to
 * sroce_rcv() through a per-CPU queue: no process can imitate those.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/inetdevice.h>
#include <linux/interrupt.h>
#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <linux/wait_bit.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/udp_tunnel.h>

#include "sroce/icrc.h"
#include "sroce/opcode.h"
#include "sroce.h"
#include "sroce_engine.h"
#include "sroce_mcast.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_sched.h"

static struct socket *sroce_sock4;
static struct socket *sroce_sock6;

static struct dst_entry *sroce_lookup4(struct sroce_qp *qp,
				       __be32 saddr, __be32 daddr)
{
	struct rtable *rt;
	struct flowi4 fl;

	memset(&fl, 0, sizeof(fl));
	fl.flowi4_oif = qp->sdev->ndev->ifindex;
	fl.flowi4_proto = IPPROTO_UDP;
	fl.saddr = saddr;
	fl.daddr = daddr;
	rt = ip_route_output_key(&init_net, &fl);
	return IS_ERR(rt) ? NULL : &rt->dst;
}

static struct dst_entry *sroce_lookup6(struct sroce_qp *qp,
				       const struct in6_addr *saddr,
				       const struct in6_addr *daddr)
{
	struct dst_entry *dst;
	struct flowi6 fl;

	if (!IS_ENABLED(CONFIG_IPV6) || !sroce_sock6)
		return NULL;
	memset(&fl, 0, sizeof(fl));
	fl.flowi6_oif = qp->sdev->ndev->ifindex;
	fl.flowi6_proto = IPPROTO_UDP;
	fl.saddr = *saddr;
	fl.daddr = *daddr;
	dst = ipv6_stub->ipv6_dst_lookup_flow(&init_net, sroce_sock6->sk, &fl,
					      NULL);
	return IS_ERR(dst) ? NULL : dst;
}

static bool sroce_skb_mcast(struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ipv4_is_multicast(ip_hdr(skb)->daddr);
	return ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
}

/*
 * A datagram's route (referenced), from the addresses it carries: each
 * UD send may go elsewhere, so nothing is cached.
 */
static struct dst_entry *sroce_route_pkt(struct sroce_qp *qp,
					 struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return sroce_lookup4(qp, ip_hdr(skb)->saddr,
				     ip_hdr(skb)->daddr);
	return sroce_lookup6(qp, &ipv6_hdr(skb)->saddr, &ipv6_hdr(skb)->daddr);
}

void sroce_route_init(struct sroce_route *r)
{
	spin_lock_init(&r->lock);
	r->dst = NULL;
}

void sroce_route_release(struct sroce_route *r)
{
	dst_release(r->dst);
	r->dst = NULL;
}

static u32 sroce_route_cookie(struct dst_entry *dst)
{
	if (IS_ENABLED(CONFIG_IPV6) && dst->ops->family == AF_INET6)
		return rt6_get_cookie((struct rt6_info *)dst);
	return 0;
}

/*
 * A connected QP's packet's route (referenced): the QP's cached one if
 * it was made for the path version the packet was built with and is
 * still valid, else looked up from the packet's own addresses, never
 * from qp->av, which a modify_qp may be changing (SQD -> SQD) while we
 * run without qp->lock. A lookup replaces the cache unless the cache is
 * of a newer path already. BHs off.
 */
static struct dst_entry *sroce_route_qp(struct sroce_qp *qp,
					struct sk_buff *skb)
{
	struct sroce_route *r = &qp->route;
	u32 gen = SROCE_SKB_CB(skb)->av_gen;
	struct dst_entry *dst, *old = NULL;

	spin_lock(&r->lock);
	dst = r->dst;
	if (dst && r->gen == gen &&
	    (!dst->obsolete || dst->ops->check(dst, r->cookie))) {
		dst_hold(dst);
		spin_unlock(&r->lock);
		return dst;
	}
	spin_unlock(&r->lock);

	dst = sroce_route_pkt(qp, skb);
	if (!dst)
		return NULL;
	spin_lock(&r->lock);
	if (!r->dst || (s32)(gen - r->gen) >= 0) {
		old = r->dst;
		r->dst = dst_clone(dst);
		r->cookie = sroce_route_cookie(dst);
		r->gen = gen;
	}
	spin_unlock(&r->lock);
	dst_release(old);
	return dst;
}

/* Transmit contexts alive: module exit waits for the last one */
static atomic_t sroce_tx_ctxs = ATOMIC_INIT(0);

int sroce_tx_ctx_create(struct sroce_qp *qp)
{
	struct sroce_tx_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	refcount_set(&ctx->refs, 1);
	RCU_INIT_POINTER(ctx->qp, qp);
	atomic_inc(&sroce_tx_ctxs);
	qp->tx = ctx;
	return 0;
}

void sroce_tx_ctx_put(struct sroce_tx_ctx *ctx)
{
	if (refcount_dec_and_test(&ctx->refs)) {
		kfree(ctx);
		if (atomic_dec_and_test(&sroce_tx_ctxs))
			wake_up_var(&sroce_tx_ctxs);
	}
}

/*
 * Module exit, once every device (so every QP) is gone: wait for the
 * packets the stack still holds, whose destructor is our code. Packets
 * sent before the unload began hold a module reference (see
 * sroce_xmit()), so this waits only for those sent while the devices
 * were being torn down.
 */
void sroce_tx_ctx_wait_all(void)
{
	wait_var_event(&sroce_tx_ctxs, !atomic_read(&sroce_tx_ctxs));
	synchronize_rcu();	/* the last destructor has left our code */
}

/*
 * The QP is going away: its packets' destructors stop waking it. The
 * caller waits for an RCU grace period before it cancels the QP's work,
 * then drops the QP's reference with sroce_tx_ctx_put().
 */
void sroce_tx_ctx_detach(struct sroce_qp *qp)
{
	RCU_INIT_POINTER(qp->tx->qp, NULL);
}

/*
 * The stack is done with one of a QP's paced packets: sent, or dropped.
 * Wakes the QP if it waits for room (sroce_qp_run()). Any context but
 * hard irq.
 */
static void sroce_tx_done(struct sk_buff *skb)
{
	struct sroce_tx_ctx *ctx = skb_shinfo(skb)->destructor_arg;
	int left = atomic_dec_return(&ctx->inflight);
	struct sroce_qp *qp;

	/*
	 * A read-side section to the end, so that module exit's grace
	 * period waits for us to leave this code (see sroce_exit()).
	 */
	rcu_read_lock();
	if (left <= SROCE_TX_LOW &&
	    test_and_clear_bit(SROCE_TX_THROTTLED, &ctx->flags)) {
		qp = rcu_dereference(ctx->qp);
		if (qp)
			queue_work(sroce_wq, &qp->work);
	}
	sroce_tx_ctx_put(ctx);
	if (!left)
		module_put(THIS_MODULE);	/* taken by the first in flight */
	rcu_read_unlock();
}

/*
 * Packets to an address of this host (two QPs of one device, two devices
 * of one host, a device on lo) never enter the IP stack: they are
 * delivered here, so that the receive path can refuse every RoCE packet
 * the stack's loopback carries (any local process can send one with a
 * plain UDP socket). One queue per CPU, drained by a tasklet a budget at
 * a time, like the loopback device's backlog: a transfer between two
 * local QPs runs in softirq rounds, never as one long call chain in the
 * sender's context. Filled with BHs off on its own CPU; the lock is for
 * the one other reader, the CPU a dead CPU's tasklet moved to. At most
 * SROCE_LOOP_MAX packets wait (netdev_max_backlog's default): beyond
 * that, packets are dropped and counted as the wire would drop them, so
 * local senders cannot pin unbounded memory while softirqs are starved.
 */
struct sroce_loop {
	struct sk_buff_head	queue;
	struct tasklet_struct	tasklet;
};

static DEFINE_PER_CPU(struct sroce_loop, sroce_loop);

#define SROCE_LOOP_BUDGET	64
#define SROCE_LOOP_MAX		1000

static void sroce_rcv(struct sk_buff *skb, struct ib_device *ibdev);

/* Is @ibdev one of ours (rdma_rxe reports the same driver_id)? */
static bool sroce_owns(struct ib_device *ibdev)
{
	return ibdev->ops.dealloc_driver == sroce_dealloc_driver;
}

/*
 * The netdev that owns the packet's destination address; RCU held. An
 * IPv6 link-local address names a host on one link only, and several
 * netdevs (a VLAN and its parent) may carry the same one: with
 * @ifindex, the sender's netdev, it is looked up on that link alone.
 */
static struct net_device *sroce_addr_owner(struct sk_buff *skb, int ifindex)
{
	const struct in6_addr *d6;
	struct net_device *dev;

	if (skb->protocol == htons(ETH_P_IP))
		return __ip_dev_find(&init_net, ip_hdr(skb)->daddr, false);
	if (!IS_ENABLED(CONFIG_IPV6))
		return NULL;
	d6 = &ipv6_hdr(skb)->daddr;
	if (!ifindex || !(ipv6_addr_type(d6) & IPV6_ADDR_LINKLOCAL))
		return ipv6_dev_find(&init_net, d6, NULL);
	dev = dev_get_by_index_rcu(&init_net, ifindex);
	return dev && ipv6_chk_addr(&init_net, d6, dev, 1) ? dev : NULL;
}

/* The RDMA device (referenced) of the netdev owning the destination */
static struct ib_device *sroce_local_device(struct sk_buff *skb, int ifindex)
{
	struct ib_device *ibdev = NULL;
	struct net_device *ndev;

	rcu_read_lock();
	ndev = sroce_addr_owner(skb, ifindex);
	if (ndev)
		ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	rcu_read_unlock();
	return ibdev;
}

static void sroce_loop_run(struct tasklet_struct *t)
{
	struct sroce_loop *l = container_of(t, struct sroce_loop, tasklet);
	struct sk_buff *skb;
	int n = 0;

	while (n++ < SROCE_LOOP_BUDGET && (skb = skb_dequeue(&l->queue))) {
		struct ib_device *ibdev;

		ibdev = sroce_local_device(skb, SROCE_SKB_CB(skb)->ifindex);
		if (!ibdev) {
			kfree_skb(skb);		/* address gone meanwhile */
			continue;
		}
		/* as if it had come in on the receiving device's netdev */
		if (sroce_owns(ibdev))
			skb->dev = to_sdev(ibdev)->ndev;
		sroce_rcv(skb, ibdev);		/* puts ibdev, frees skb */
	}
	if (!skb_queue_empty_lockless(&l->queue))
		tasklet_schedule(t);
}

/* BHs off: queue a packet for a local address, as the wire would. */
static void sroce_loop_deliver(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_loop *l = this_cpu_ptr(&sroce_loop);

	if (skb_queue_len_lockless(&l->queue) >= SROCE_LOOP_MAX) {
		sroce_count(sdev, SROCE_CNT_TX_DROP);
		kfree_skb(skb);
		return;
	}
	sroce_count(sdev, SROCE_CNT_TX_LOCAL);
	SROCE_SKB_CB(skb)->ifindex = sdev->ndev->ifindex;
	skb_queue_tail(&l->queue, skb);
	tasklet_schedule(&l->tasklet);
}

void sroce_loop_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sroce_loop *l = per_cpu_ptr(&sroce_loop, cpu);

		skb_queue_head_init(&l->queue);
		tasklet_setup(&l->tasklet, sroce_loop_run);
	}
}

/*
 * Every device is gone, so nothing queues any more: let a scheduled run
 * finish (what it finds is dropped: its device is gone too), then free
 * what is left.
 */
void sroce_loop_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sroce_loop *l = per_cpu_ptr(&sroce_loop, cpu);

		tasklet_kill(&l->tasklet);
		skb_queue_purge(&l->queue);
	}
}

/*
 * Send a batch of sealed packets. Called without qp->lock, in process or
 * softirq context; a packet we cannot route or the stack drops is lost
 * like on any wire, and the protocol retransmits it. @paced packets (the
 * requester's and READ responses) count in qp->tx->inflight until the
 * stack frees them; our skbs are linear, so the destructor argument is
 * free to carry the context. ACKs sent as requests arrive are not
 * paced: they are one per request packet or fewer. A packet whose route
 * is local goes to sroce_loop_deliver() instead of the stack.
 */
void sroce_xmit(struct sroce_qp *qp, struct sk_buff_head *list, bool paced)
{
	bool connected = !sroce_qp_is_ud(qp);
	struct sroce_tx_ctx *ctx = qp->tx;
	struct dst_entry *dst = NULL;
	struct sk_buff *skb;
	u32 gen = 0;

	if (skb_queue_empty(list))
		return;
	local_bh_disable();
	while ((skb = __skb_dequeue(list))) {
		struct dst_entry *d;

		if (!connected) {
			d = sroce_route_pkt(qp, skb);
		} else {
			/* a batch is built for one path, or rarely two */
			if (!dst || SROCE_SKB_CB(skb)->av_gen != gen) {
				dst_release(dst);
				gen = SROCE_SKB_CB(skb)->av_gen;
				dst = sroce_route_qp(qp, skb);
			}
			d = dst_clone(dst);	/* NULL if no route */
		}
		if (!d) {
			sroce_count(qp->sdev, SROCE_CNT_TX_DROP);
			kfree_skb(skb);
			continue;
		}
		if (paced) {
			refcount_inc(&ctx->refs);
			/*
			 * While a QP has packets in the stack, the module
			 * stays: their destructor is our code. A QP with
			 * none pins nothing, so the MAD layer's QP1, which
			 * lives as long as its device, does not keep
			 * rmmod from tearing the devices down.
			 */
			if (atomic_inc_return(&ctx->inflight) == 1)
				__module_get(THIS_MODULE);
			skb_shinfo(skb)->destructor_arg = ctx;
			skb->destructor = sroce_tx_done;
		}
		sroce_count(qp->sdev, SROCE_CNT_TX_PACKETS);
		if (d->dev->flags & IFF_LOOPBACK) {
			dst_release(d);
			sroce_loop_deliver(qp->sdev, skb);
			continue;
		}
		skb->dev = d->dev;
		skb_dst_set(skb, d);
		if (!connected && sroce_skb_mcast(skb))
			sroce_mcast_loopback(qp->sdev, skb);
		if (skb->protocol == htons(ETH_P_IPV6)) {
			memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
			ip6_local_out(&init_net, sroce_sock6->sk, skb);
		} else {
			memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
			ip_local_out(&init_net, sroce_sock4->sk, skb);
		}
	}
	dst_release(dst);
	local_bh_enable();
}

/*
 * A RoCE packet the IP stack carried through a loopback device or looped
 * back a local multicast send (PACKET_LOOPBACK: the sender may have
 * forged its IPv6 source with IPV6_FREEBIND), or from the wire with a
 * source address of this host: not one of ours, since sroce_xmit() and
 * sroce_mcast_loopback() deliver those themselves. RCU held.
 */
static bool sroce_rx_forged_local(struct sk_buff *skb)
{
	if ((skb->dev->flags & IFF_LOOPBACK) ||
	    skb->pkt_type == PACKET_LOOPBACK)
		return true;
	if (skb->protocol == htons(ETH_P_IP))
		return __ip_dev_find(&init_net, ip_hdr(skb)->saddr, false);
	return IS_ENABLED(CONFIG_IPV6) &&
	       ipv6_chk_addr(&init_net, &ipv6_hdr(skb)->saddr, NULL, 0);
}

/* Count and report it on the device its destination belongs to. */
static void sroce_rx_drop_local(struct sk_buff *skb)
{
	struct ib_device *ibdev = sroce_local_device(skb, 0);

	if (!ibdev)
		return;
	if (sroce_owns(ibdev)) {
		sroce_count(to_sdev(ibdev), SROCE_CNT_RX_DROP_LOOPBACK);
		pr_notice_ratelimited("%s: RoCE packet from a local socket dropped (sroce delivers its own local traffic itself)\n",
				      dev_name(&ibdev->dev));
	}
	ib_device_put(ibdev);
}

/*
 * A connected RC QP takes packets only from its peer: IP source and
 * destination are the path's, reversed, and the P_Key is ours. Without
 * this, anyone who can send a UDP datagram to port 4791 could inject
 * into a connection by guessing its QPN. (RC carries no source QPN.)
 * A QP in RESET, INIT or ERR has no path to check against and takes
 * nothing anyway. qp->lock held; a mismatch is counted and logged.
 */
static bool sroce_rx_from_peer(struct sroce_qp *qp, struct sk_buff *skb,
			       const struct sroce_pkt *p)
{
	struct sroce_dev *sdev = qp->sdev;
	bool ok;

	if (qp->state != IB_QPS_RTR && qp->state != IB_QPS_RTS &&
	    qp->state != IB_QPS_SQD)
		return true;

	if (skb->protocol == htons(ETH_P_IP)) {
		const struct iphdr *iph = ip_hdr(skb);

		ok = !qp->av.ipv6 && iph->saddr == qp->av.daddr &&
		     iph->daddr == qp->av.saddr;
		if (!ok)
			pr_notice_ratelimited("%s: QP %u: packet from %pI4 to %pI4 is not from its peer, dropped\n",
					      dev_name(&sdev->ibdev.dev),
					      qp->ibqp.qp_num, &iph->saddr,
					      &iph->daddr);
	} else {
		const struct ipv6hdr *ip6h = ipv6_hdr(skb);

		ok = qp->av.ipv6 &&
		     ipv6_addr_equal(&ip6h->saddr, &qp->av.daddr6) &&
		     ipv6_addr_equal(&ip6h->daddr, &qp->av.saddr6);
		if (!ok)
			pr_notice_ratelimited("%s: QP %u: packet from %pI6c to %pI6c is not from its peer, dropped\n",
					      dev_name(&sdev->ibdev.dev),
					      qp->ibqp.qp_num, &ip6h->saddr,
					      &ip6h->daddr);
	}
	if (!ok) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_ADDRESS);
		return false;
	}

	if (!sroce_pkey_ok(p->hdr.bth.pkey)) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_PKEY);
		pr_notice_ratelimited("%s: QP %u: packet with P_Key %#06x dropped\n",
				      dev_name(&sdev->ibdev.dev),
				      qp->ibqp.qp_num, p->hdr.bth.pkey);
		return false;
	}
	return true;
}

/*
 * May a datagram for a UD or GSI QP (not the multicast QPN) be taken?
 * Only if it was sent to a unicast address of this device: a broadcast
 * or a group address would otherwise reach the same-numbered QP on every
 * sroce host of the segment. (The multicast QPN is for group addresses
 * only: sroce_mcast_rcv().) RCU held by the caller or not needed.
 */
static bool sroce_ud_dest_ok(struct sroce_dev *sdev, struct sk_buff *skb)
{
	bool ok;

	rcu_read_lock();
	if (skb->protocol == htons(ETH_P_IP))
		ok = __ip_dev_find(&init_net, ip_hdr(skb)->daddr, false) ==
		     sdev->ndev;
	else
		ok = IS_ENABLED(CONFIG_IPV6) &&
		     ipv6_chk_addr(&init_net, &ipv6_hdr(skb)->daddr,
				   sdev->ndev, 1);
	rcu_read_unlock();
	if (!ok)
		sroce_count(sdev, SROCE_CNT_RX_DROP_DEST);
	return ok;
}

/*
 * Is a datagram's IPv4 source a unicast address? The stack refuses only
 * 255.255.255.255 and group sources; a subnet's broadcast address would
 * send a reply (a MAD's, say) to every host of the segment. IPv6 has no
 * broadcast, and ip6_rcv() drops group sources. Counted with the
 * destination checks.
 */
static bool sroce_ud_src_ok(struct sroce_dev *sdev, struct sk_buff *skb)
{
	unsigned int type;

	if (skb->protocol != htons(ETH_P_IP))
		return true;
	type = inet_addr_type(&init_net, ip_hdr(skb)->saddr);
	if (type == RTN_UNICAST || type == RTN_LOCAL)
		return true;
	sroce_count(sdev, SROCE_CNT_RX_DROP_DEST);
	return false;
}

/*
 * One received RoCE packet for device @ibdev (referenced; put here),
 * from the wire or delivered locally: check the headers and the ICRC,
 * find the QP, and run the responder (requests) or the completer
 * (responses) under the QP lock. Softirq. Frees @skb.
 */
static void sroce_rcv(struct sk_buff *skb, struct ib_device *ibdev)
{
	struct sk_buff_head out;
	struct sroce_dev *sdev;
	struct sroce_rxpkt rx;
	struct sroce_qp *qp;
	unsigned long flags;
	unsigned int res;
	const u8 *ip;
	u32 len;

	if (!sroce_owns(ibdev))
		goto put_dev;
	sdev = to_sdev(ibdev);
	sroce_count(sdev, SROCE_CNT_RX_PACKETS);
	len = ntohs(udp_hdr(skb)->len) - sizeof(struct udphdr);
	rx.bth = skb_transport_header(skb) + sizeof(struct udphdr);
	ip = skb_network_header(skb);
	if (sroce_parse_bth_packet(rx.bth, len, &rx.p)) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_MALFORMED);
		goto put_dev;
	}
	if (sroce_icrc_verify(ip, rx.bth + len - ip)) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_ICRC);
		goto put_dev;
	}
	if (rx.p.hdr.bth.dqpn == SROCE_MULTICAST_QPN) {
		if (sroce_ud_src_ok(sdev, skb))
			sroce_mcast_rcv(sdev, skb, &rx);
		goto put_dev;
	}
	qp = sroce_qp_get(sdev, rx.p.hdr.bth.dqpn);
	if (!qp) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_NO_QP);
		goto put_dev;
	}

	if (sroce_qp_is_ud(qp)) {
		/*
		 * Datagrams come from anyone with the P_Key and Q_Key, to
		 * an address of ours.
		 */
		if (!sroce_ud_dest_ok(sdev, skb) || !sroce_ud_src_ok(sdev, skb))
			goto put_qp;
		spin_lock_irqsave(&qp->lock, flags);
		if (sroce_pkey_ok(rx.p.hdr.bth.pkey))
			sroce_ud_rcv(qp, skb, &rx);
		else
			sroce_count(sdev, SROCE_CNT_RX_DROP_PKEY);
		sroce_qp_unlock(qp, flags);
		goto put_qp;
	}
	__skb_queue_head_init(&out);
	spin_lock_irqsave(&qp->lock, flags);
	if (!sroce_rx_from_peer(qp, skb, &rx.p)) {
		sroce_qp_unlock(qp, flags);
		goto put_qp;
	}
	if (rx.p.info->mask & SROCE_MASK_REQ)
		res = sroce_resp_rcv(qp, &rx, &out);	/* READ responses */
	else
		res = sroce_comp_rcv(qp, &rx);	/* requester may go on */
	if (res & SROCE_RUN_FATAL)
		sroce_qp_fail(qp);
	sroce_qp_unlock(qp, flags);
	sroce_xmit(qp, &out, false);
	if (res & SROCE_RUN_AGAIN)
		sroce_qp_kick(qp);
put_qp:
	sroce_qp_put(qp);
put_dev:
	ib_device_put(ibdev);
	kfree_skb(skb);
}

/*
 * The RoCE UDP sockets' receive hook: packets the IP stack delivers to
 * port 4791. Softirq. Returning 0 means we consumed (and freed) the skb.
 */
static int sroce_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct ib_device *ibdev;
	bool forged;
	u32 len;

	if ((skb->protocol != htons(ETH_P_IP) &&
	     skb->protocol != htons(ETH_P_IPV6)) || skb_linearize(skb))
		goto drop;
	len = ntohs(udp_hdr(skb)->len);
	if (len < sizeof(struct udphdr) ||
	    skb_transport_header(skb) + len > skb_tail_pointer(skb))
		goto drop;
	rcu_read_lock();
	forged = sroce_rx_forged_local(skb);
	rcu_read_unlock();
	if (forged) {
		sroce_rx_drop_local(skb);
		goto drop;
	}
	ibdev = ib_device_get_by_netdev(skb->dev, RDMA_DRIVER_RXE);
	if (!ibdev)
		goto drop;
	sroce_rcv(skb, ibdev);
	return 0;
drop:
	kfree_skb(skb);
	return 0;
}

static struct socket *sroce_udp_open(bool ipv6)
{
	struct udp_tunnel_sock_cfg tnl = {
		.encap_type = 1,
		.encap_rcv = sroce_udp_rcv,
	};
	struct udp_port_cfg cfg = {
		.local_udp_port = htons(ROCE_V2_UDP_DPORT),
	};
	struct socket *sock;
	int err;

	if (ipv6) {
		cfg.family = AF_INET6;
		cfg.ipv6_v6only = 1;
		/* RoCEv2 senders may leave the UDP checksum zero. */
		cfg.use_udp6_rx_checksums = 0;
	} else {
		cfg.family = AF_INET;
	}

	err = udp_sock_create(&init_net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(&init_net, sock, &tnl);
	/*
	 * That turns IPv4 multicast loopback off, not IPv6's: a datagram we
	 * send to a group we joined would come back on top of the local
	 * delivery of sroce_mcast_loopback().
	 */
	if (ipv6)
		inet6_sk(sock->sk)->mc_loop = 0;
	return sock;
}

int sroce_net_init(void)
{
	struct socket *sock;

	sroce_loop_init();
	sock = sroce_udp_open(false);
	if (IS_ERR(sock))
		goto err;
	sroce_sock4 = sock;

	if (IS_ENABLED(CONFIG_IPV6)) {
		sock = sroce_udp_open(true);
		/* A kernel booted with ipv6.disable=1 has no AF_INET6. */
		if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT)
			goto err_close4;
		sroce_sock6 = IS_ERR(sock) ? NULL : sock;
	}
	return 0;

err_close4:
	udp_tunnel_sock_release(sroce_sock4);
	sroce_sock4 = NULL;
err:
	sroce_loop_exit();
	if (PTR_ERR(sock) == -EADDRINUSE)
		pr_err("UDP port %d is taken: is rdma_rxe loaded? sroce and rdma_rxe cannot be loaded together\n",
		       ROCE_V2_UDP_DPORT);
	else
		pr_err("cannot open the RoCEv2 UDP socket: %ld\n",
		       PTR_ERR(sock));
	return PTR_ERR(sock);
}

void sroce_net_exit(void)
{
	if (sroce_sock6)
		udp_tunnel_sock_release(sroce_sock6);
	udp_tunnel_sock_release(sroce_sock4);
	sroce_sock4 = NULL;
	sroce_sock6 = NULL;
	sroce_loop_exit();
}
