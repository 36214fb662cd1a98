// SPDX-License-Identifier: GPL-2.0-only
/*
 * The receive entry point: every RoCE packet enters the driver here.
 *
 * Packets from the wire arrive in sroce_udp_rcv(), the RoCE UDP sockets'
 * hook, in softirq context; it refuses what came through a loopback
 * device or claims a source address of this host. Packets to an address
 * of this host, and copies of the multicast datagrams a device sends,
 * come from the wire layer's local delivery queue (sroce_loop_rcv()),
 * also in softirq context: no process can imitate those. sroce_rcv()
 * then checks the headers and the ICRC, finds the device and the QP,
 * checks that the packet may enter the QP (its peer's addresses, the
 * P_Key; unicast addresses for datagrams), and hands it to the engine
 * glue under the QP lock. A fatal event the glue reports moves the QP to
 * the error state before the lock is dropped.
 *
 * Both doors are handed to the wire layer at module load
 * (sroce_recv_init()), which owns the sockets and the queue.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "sroce/icrc.h"
#include "sroce/opcode.h"
#include "sroce.h"
#include "sroce_cc.h"
#include "sroce_glue.h"
#include "sroce_mcast.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_sched.h"
#include "sroce_trace.h"

/* Is @ibdev one of ours (rdma_rxe reports the same driver_id)? */
static bool sroce_owns(struct ib_device *ibdev)
{
	return ibdev->ops.dealloc_driver == sroce_dealloc_driver;
}

/*
 * The netdev that owns the packet's destination address, in the
 * namespace of skb->dev (the netdev it came in on, or the sending
 * device's); RCU held. An IPv6 link-local address names a host on one
 * link only, and several netdevs (a VLAN and its parent) may carry the
 * same one: with @local, the packet was sent here by skb->dev's device,
 * through the netdev of its path (skb->cb's oif: the device's, or a
 * VLAN on it), and it is looked up on that link alone.
 */
static struct net_device *sroce_addr_owner(struct sk_buff *skb, bool local)
{
	struct net *net = dev_net(skb->dev);
	const struct in6_addr *d6;
	struct net_device *link;

	if (skb->protocol == htons(ETH_P_IP))
		return __ip_dev_find(net, ip_hdr(skb)->daddr, false);
	if (!IS_ENABLED(CONFIG_IPV6))
		return NULL;
	d6 = &ipv6_hdr(skb)->daddr;
	if (!local || !(ipv6_addr_type(d6) & IPV6_ADDR_LINKLOCAL))
		return ipv6_dev_find(net, d6, NULL);
	link = skb->dev;
	if (SROCE_SKB_CB(skb)->oif)
		link = dev_get_by_index_rcu(net, SROCE_SKB_CB(skb)->oif);
	return link && ipv6_chk_addr(net, d6, link, 1) ? link : NULL;
}

/*
 * The RDMA device (referenced) of a packet on netdev @ndev: the one
 * bound to it, or, for a VLAN device, the one bound to the netdev under
 * it in the same namespace, whose port has the VLAN's GIDs
 * (sroce_netdev_ours()). An rdma_rxe device may answer too. RCU held.
 */
static struct ib_device *sroce_netdev_ibdev(struct net_device *ndev)
{
	struct ib_device *ibdev;
	struct net_device *real;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (ibdev || !is_vlan_dev(ndev))
		return ibdev;
	real = vlan_dev_real_dev(ndev);
	if (!net_eq(dev_net(real), dev_net(ndev)))
		return NULL;
	return ib_device_get_by_netdev(real, RDMA_DRIVER_RXE);
}

/*
 * The RDMA device (referenced) of the netdev owning the destination,
 * and that netdev in @owner (if asked): valid while RCU is held, which
 * the caller's softirq is. NULL if the address is no device's.
 */
static struct ib_device *sroce_local_device(struct sk_buff *skb, bool local,
					    struct net_device **owner)
{
	struct ib_device *ibdev = NULL;
	struct net_device *ndev;

	rcu_read_lock();
	ndev = sroce_addr_owner(skb, local);
	if (ndev)
		ibdev = sroce_netdev_ibdev(ndev);
	rcu_read_unlock();
	if (owner)
		*owner = ndev;
	return ibdev;
}

/*
 * A RoCE packet the IP stack carried through a loopback device or looped
 * back a local multicast send (PACKET_LOOPBACK: the sender may have
 * forged its IPv6 source with IPV6_FREEBIND), or from the wire with a
 * source address of this host: not one of ours, since sroce_xmit()
 * delivers those itself, through the local delivery queue. RCU held.
 */
static bool sroce_rx_forged_local(struct sk_buff *skb)
{
	if ((skb->dev->flags & IFF_LOOPBACK) ||
	    skb->pkt_type == PACKET_LOOPBACK)
		return true;
	if (skb->protocol == htons(ETH_P_IP))
		return __ip_dev_find(dev_net(skb->dev), ip_hdr(skb)->saddr,
				     false);
	return IS_ENABLED(CONFIG_IPV6) &&
	       ipv6_chk_addr(dev_net(skb->dev), &ipv6_hdr(skb)->saddr, NULL,
			     0);
}

/* Count and report it on the device its destination belongs to. */
static void sroce_rx_drop_local(struct sk_buff *skb)
{
	struct ib_device *ibdev = sroce_local_device(skb, false, NULL);

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
 * destination are the path's, reversed, they came in on the path's
 * netdev (the port's, or the VLAN of its GID), and the P_Key is ours.
 * Without this, anyone who can send a UDP datagram to port 4791 could
 * inject into a connection by guessing its QPN. (RC carries no source
 * QPN.)
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
	/*
	 * And on the path's link: the port's other VLANs, or its untagged
	 * netdev, are other links, where the peer's address proves nothing.
	 */
	if (ok && skb->dev->ifindex != qp->av.ifindex) {
		pr_notice_ratelimited("%s: QP %u: packet on %s, not on its path's link, dropped\n",
				      dev_name(&sdev->ibdev.dev),
				      qp->ibqp.qp_num, skb->dev->name);
		ok = false;
	}
	if (!ok) {
		sroce_qp_count(qp, SROCE_CNT_RX_DROP_ADDRESS);
		return false;
	}

	if (!sroce_pkey_ok(p->hdr.bth.pkey)) {
		sroce_qp_count(qp, SROCE_CNT_RX_DROP_PKEY);
		pr_notice_ratelimited("%s: QP %u: packet with P_Key %#06x dropped\n",
				      dev_name(&sdev->ibdev.dev),
				      qp->ibqp.qp_num, p->hdr.bth.pkey);
		return false;
	}
	return true;
}

/*
 * May a datagram for a UD or GSI QP (not the multicast QPN) be taken?
 * Only if it was sent to a unicast address of this device (of its
 * netdev or a VLAN on it): a broadcast or a group address would
 * otherwise reach the same-numbered QP on every sroce host of the
 * segment. (The multicast QPN is for group addresses only:
 * sroce_mcast_rcv().) skb->dev is the netdev it came in on, or the one
 * owning the address it was delivered to locally. RCU held by the
 * caller or not needed.
 */
static bool sroce_ud_dest_ok(struct sroce_dev *sdev, struct sk_buff *skb)
{
	bool ok;

	rcu_read_lock();
	if (skb->protocol == htons(ETH_P_IP))
		ok = sroce_netdev_ours(sdev,
				       __ip_dev_find(dev_net(sdev->ndev),
						     ip_hdr(skb)->daddr,
						     false));
	else
		ok = IS_ENABLED(CONFIG_IPV6) &&
		     sroce_netdev_ours(sdev, skb->dev) &&
		     ipv6_chk_addr(dev_net(sdev->ndev), &ipv6_hdr(skb)->daddr,
				   skb->dev, 1);
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
	type = inet_addr_type(dev_net(sdev->ndev), ip_hdr(skb)->saddr);
	if (type == RTN_UNICAST || type == RTN_LOCAL)
		return true;
	sroce_count(sdev, SROCE_CNT_RX_DROP_DEST);
	return false;
}

/* Did a congested queue on the way mark @skb CE? */
static bool sroce_rx_ce(const struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
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
	bool send;
	u32 len;

	if (!sroce_owns(ibdev))
		goto put_dev;
	sdev = to_sdev(ibdev);
	sroce_count(sdev, SROCE_CNT_RX_PACKETS);
	len = ntohs(udp_hdr(skb)->len) - sizeof(struct udphdr);
	sroce_count_port(sdev, SROCE_PORT_RCV_OCTETS, len);
	rx.bth = skb_transport_header(skb) + sizeof(struct udphdr);
	ip = skb_network_header(skb);
	if (sroce_parse_bth_packet(rx.bth, len, &rx.p)) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_MALFORMED);
		goto put_dev;
	}
	trace_sroce_rx(ibdev, rx.bth, len);
	if (sroce_icrc_verify(ip, rx.bth + len - ip)) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_ICRC);
		goto put_dev;
	}
	if (rx.p.hdr.bth.dqpn == SROCE_MULTICAST_QPN) {
		sroce_count_port(sdev, SROCE_PORT_RCV_MCAST, 1);
		if (sroce_ud_src_ok(sdev, skb))
			sroce_mcast_rcv(sdev, skb, &rx);
		goto put_dev;
	}
	qp = sroce_qp_get(sdev, rx.p.hdr.bth.dqpn);
	if (!qp) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_NO_QP);
		goto put_dev;
	}
	sroce_qp_stat(qp, SROCE_CNT_RX_PACKETS);	/* counted above */

	if (sroce_qp_is_ud(qp)) {
		/*
		 * Datagrams come from anyone with the P_Key and Q_Key, to
		 * an address of ours.
		 */
		if (!sroce_ud_dest_ok(sdev, skb) || !sroce_ud_src_ok(sdev, skb))
			goto put_qp;
		spin_lock_irqsave(&qp->lock, flags);
		if (sroce_pkey_ok(rx.p.hdr.bth.pkey))
			sroce_glue_ud_rcv(qp, skb, &rx);
		else
			sroce_qp_count(qp, SROCE_CNT_RX_DROP_PKEY);
		sroce_qp_unlock(qp, flags);
		goto put_qp;
	}
	__skb_queue_head_init(&out);
	spin_lock_irqsave(&qp->lock, flags);
	if (!sroce_rx_from_peer(qp, skb, &rx.p)) {
		sroce_qp_unlock(qp, flags);
		goto put_qp;
	}
	if (rx.p.info->mask & SROCE_MASK_CNP) {
		/* congestion on the way to the peer: this QP slows down */
		sroce_glue_cnp_rcv(qp);
		sroce_qp_unlock(qp, flags);
		goto put_qp;
	}
	/* a congested request: tell its requester (the peer) with a CNP */
	if ((rx.p.info->mask & SROCE_MASK_REQ) && sroce_rx_ce(skb))
		sroce_glue_ce(qp, &out);
	if (rx.p.info->mask & SROCE_MASK_REQ)
		res = sroce_glue_resp_rcv(qp, &rx, &out);	/* READ responses */
	else
		res = sroce_glue_comp_rcv(qp, &rx);	/* requester may go on */
	if (res & SROCE_RUN_FATAL)
		sroce_qp_fail(qp);
	send = sroce_qp_queue(qp, &out, false);
	sroce_qp_unlock(qp, flags);
	if (send)
		sroce_qp_xmit(qp);
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
	rcu_read_lock();
	ibdev = sroce_netdev_ibdev(skb->dev);
	rcu_read_unlock();
	if (!ibdev)
		goto drop;
	sroce_rcv(skb, ibdev);
	return 0;
drop:
	kfree_skb(skb);
	return 0;
}

/*
 * A copy of a multicast datagram @sdev sent on netdev @ifindex (of its
 * namespace): for the device's own QPs attached to the group, as on an
 * HCA's port. RCU held.
 */
static void sroce_loop_mcast_rcv(struct sroce_dev *sdev, struct sk_buff *skb,
				 int ifindex)
{
	struct net_device *dev;

	dev = dev_get_by_index_rcu(dev_net(sdev->ndev), ifindex);
	if (!dev)
		return;			/* gone meanwhile */
	skb->dev = dev;			/* as it left: its VLAN, if any */
	sroce_mcast_loopback(sdev, skb);
}

/*
 * A local packet lost for want of memory, counted as a transmit drop of
 * the device that sent it (on netdev @from).
 */
static void sroce_loop_nomem(struct net_device *from)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(from, RDMA_DRIVER_RXE);
	if (!ibdev)
		return;
	if (sroce_owns(ibdev))
		sroce_count(to_sdev(ibdev), SROCE_CNT_TX_DROP);
	ib_device_put(ibdev);
}

/*
 * The wire layer's local delivery queue: a packet to an address of this
 * host, or a multicast copy, sent by the device of netdev skb->dev, which
 * the queue held for it (put here). Softirq. Frees @skb.
 */
static void sroce_loop_rcv(struct sk_buff *skb)
{
	const struct sroce_skb_cb *cb = SROCE_SKB_CB(skb);
	struct net_device *from = skb->dev;
	struct net_device *owner;
	struct ib_device *ibdev;

	/*
	 * A zero-copy packet: its payload is still the sending WQE's pages,
	 * read now; that lets go of them, and the WQE may complete.
	 */
	if (skb_linearize(skb)) {
		sroce_loop_nomem(from);
		kfree_skb(skb);
		goto out;
	}
	if (cb->mcast_ifindex) {
		ibdev = ib_device_get_by_netdev(from, RDMA_DRIVER_RXE);
		rcu_read_lock();
		if (ibdev && sroce_owns(ibdev))
			sroce_loop_mcast_rcv(to_sdev(ibdev), skb,
					     cb->mcast_ifindex);
		rcu_read_unlock();
		if (ibdev)
			ib_device_put(ibdev);
		kfree_skb(skb);
		goto out;
	}
	ibdev = sroce_local_device(skb, true, &owner);
	if (!ibdev) {
		kfree_skb(skb);		/* address gone meanwhile */
		goto out;
	}
	/*
	 * As if it had come in on the netdev owning the address: the
	 * receiving device's, or a VLAN on it. (This softirq holds RCU.)
	 */
	if (sroce_owns(ibdev))
		skb->dev = owner;
	sroce_rcv(skb, ibdev);		/* puts ibdev, frees skb */
out:
	dev_put(from);
}

int sroce_recv_init(void)
{
	return sroce_net_init(sroce_udp_rcv, sroce_loop_rcv);
}

void sroce_recv_exit(void)
{
	sroce_net_exit();
}
