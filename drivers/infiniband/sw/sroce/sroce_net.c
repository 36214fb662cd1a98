// SPDX-License-Identifier: GPL-2.0-only
/*
 * The RoCEv2 UDP sockets: in each network namespace that has sroce
 * devices, one per address family bound to port 4791, opened by the
 * namespace's first device and closed with its last (struct
 * sroce_netns). A device sends and routes in its netdev's namespace.
 *
 * rdma_rxe, which wants the port as well, is kept out by module name
 * (sroce_main.c), not by the port: an rdma_rxe with per-namespace
 * sockets binds it only at its first "rdma link add". Any other socket
 * may hold the port before us, a user's too: then that namespace's
 * first link is refused, saying whose it is (sroce_port_taken()).
 *
 * The wire layer: sroce_xmit() sends a batch of packets (built once,
 * headers and ICRC included, by sroce_pkt.c) through the IP output path
 * with a route cached per QP, or, to an address of this host, to the
 * receive entry point through a per-CPU queue: no process can imitate
 * those. The QPs' routes are here too; what packets hold once sent
 * (pacing, zero copy) is sroce_tx.c's. What arrives, on the sockets or
 * the queue, goes to the two functions the receive entry point gives
 * sroce_net_open() (sroce_recv.c); nothing here looks into a received
 * packet.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/inetdevice.h>
#include <linux/interrupt.h>
#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_fib.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "sroce.h"
#include "sroce_compat.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_trace.h"

/*
 * A network namespace's RoCEv2 sockets: one per address family (IPv6's
 * NULL where the kernel has no IPv6), bound to port 4791 while the
 * namespace has an sroce device. sroce_net_get() at "rdma link add"
 * opens them for the first, sroce_net_put() at the device's end closes
 * them with the last. Writers hold sroce_netns_lock; the transmit path
 * reads them under RCU.
 */
struct sroce_netns {
	struct socket __rcu	*sock4;
	struct socket __rcu	*sock6;
	unsigned int		links;
};

static unsigned int sroce_net_id;
static DEFINE_MUTEX(sroce_netns_lock);
static udp_tunnel_encap_rcv_t sroce_encap_rcv;

static struct sroce_netns *sroce_netns(const struct net *net)
{
	return net_generic(net, sroce_net_id);
}

/* Where a QP's packets leave: its netdev's namespace and sockets */
struct sroce_xmit_ns {
	struct net	*net;
	struct sock	*sk4;
	struct sock	*sk6;		/* NULL without IPv6 */
};

/* RCU held: false if the namespace has no sockets (its end is near) */
static bool sroce_xmit_ns(struct sroce_qp *qp, struct sroce_xmit_ns *xn)
{
	struct sroce_netns *ns;
	struct socket *s4, *s6;

	xn->net = dev_net(qp->sdev->ndev);
	ns = sroce_netns(xn->net);
	s4 = rcu_dereference(ns->sock4);
	s6 = rcu_dereference(ns->sock6);
	if (!s4)
		return false;
	xn->sk4 = s4->sk;
	xn->sk6 = s6 ? s6->sk : NULL;
	return true;
}

static struct dst_entry *sroce_lookup4(const struct sroce_xmit_ns *xn,
				       int oif, __be32 saddr, __be32 daddr)
{
	struct rtable *rt;
	struct flowi4 fl;

	memset(&fl, 0, sizeof(fl));
	fl.flowi4_oif = oif;
	fl.flowi4_proto = IPPROTO_UDP;
	fl.saddr = saddr;
	fl.daddr = daddr;
	rt = ip_route_output_key(xn->net, &fl);
	return IS_ERR(rt) ? NULL : &rt->dst;
}

static struct dst_entry *sroce_lookup6(const struct sroce_xmit_ns *xn,
				       int oif, const struct in6_addr *saddr,
				       const struct in6_addr *daddr)
{
	struct dst_entry *dst;
	struct flowi6 fl;

	if (!IS_ENABLED(CONFIG_IPV6) || !xn->sk6)
		return NULL;
	memset(&fl, 0, sizeof(fl));
	fl.flowi6_oif = oif;
	fl.flowi6_proto = IPPROTO_UDP;
	fl.saddr = *saddr;
	fl.daddr = *daddr;
	dst = ipv6_stub->ipv6_dst_lookup_flow(xn->net, xn->sk6, &fl, NULL);
	return IS_ERR(dst) ? NULL : dst;
}

static bool sroce_skb_mcast(struct sk_buff *skb)
{
	if (skb->protocol == htons(ETH_P_IP))
		return ipv4_is_multicast(ip_hdr(skb)->daddr);
	return ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
}

/*
 * A datagram's route (referenced), from the addresses it carries and
 * out of its path's netdev (the device's, or a VLAN on it: the source
 * GID's, sroce_av_from_attr()): each UD send may go elsewhere, so
 * nothing is cached. RCU held.
 */
static struct dst_entry *sroce_route_pkt(struct sroce_qp *qp,
					 const struct sroce_xmit_ns *xn,
					 struct sk_buff *skb)
{
	struct net_device *ndev = qp->sdev->ndev;
	int oif = SROCE_SKB_CB(skb)->oif;

	/*
	 * A VLAN the path was set up through may have gone since, and its
	 * index been given to another netdev: still one of the port's?
	 */
	if (!oif)
		oif = ndev->ifindex;
	else if (oif != ndev->ifindex &&
		 !sroce_netdev_ours(qp->sdev,
				    dev_get_by_index_rcu(xn->net, oif)))
		return NULL;

	if (skb->protocol == htons(ETH_P_IP))
		return sroce_lookup4(xn, oif, ip_hdr(skb)->saddr,
				     ip_hdr(skb)->daddr);
	return sroce_lookup6(xn, oif, &ipv6_hdr(skb)->saddr,
			     &ipv6_hdr(skb)->daddr);
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
					const struct sroce_xmit_ns *xn,
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

	dst = sroce_route_pkt(qp, xn, skb);
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
 * A multicast datagram a device sends goes to the wire and, as a copy,
 * to this queue too, for the QPs of that device attached to the group
 * (sroce_loop_mcast()). The receive entry point takes each packet
 * (sroce_loop_rcv, given at load).
 */
struct sroce_loop {
	struct sk_buff_head	queue;
	struct tasklet_struct	tasklet;
};

static DEFINE_PER_CPU(struct sroce_loop, sroce_loop);
static void (*sroce_loop_rcv)(struct sk_buff *skb);

#define SROCE_LOOP_BUDGET	64
#define SROCE_LOOP_MAX		1000

static void sroce_loop_run(struct tasklet_struct *t)
{
	struct sroce_loop *l = container_of(t, struct sroce_loop, tasklet);
	struct sk_buff *skb;
	int n = 0;

	while (n++ < SROCE_LOOP_BUDGET && (skb = skb_dequeue(&l->queue)))
		sroce_loop_rcv(skb);		/* frees skb */
	if (!skb_queue_empty_lockless(&l->queue))
		tasklet_schedule(t);
}

/*
 * BHs off: queue @skb, or drop it at the bound. While it waits, skb->dev
 * is the sending device's netdev, held: the receive side finds the
 * namespace and the link the packet was sent in through it, and puts it.
 */
static void sroce_loop_queue(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_loop *l = this_cpu_ptr(&sroce_loop);

	if (skb_queue_len_lockless(&l->queue) >= SROCE_LOOP_MAX) {
		sroce_count(sdev, SROCE_CNT_TX_DROP);
		kfree_skb(skb);
		return;
	}
	skb->dev = sdev->ndev;
	dev_hold(skb->dev);
	skb_queue_tail(&l->queue, skb);
	tasklet_schedule(&l->tasklet);
}

/*
 * BHs off: queue a packet for a local address, as the wire would. A
 * zero-copy packet waits with its fragments: the receiving side reads
 * the sender's pages when it takes the packet (skb_linearize() in
 * sroce_loop_rcv()), which lets go of them, and the sending WQE's
 * completion waits until then (struct sroce_zc).
 */
static void sroce_loop_deliver(struct sroce_dev *sdev, struct sk_buff *skb)
{
	sroce_count(sdev, SROCE_CNT_TX_LOCAL);
	SROCE_SKB_CB(skb)->mcast_ifindex = 0;
	sroce_loop_queue(sdev, skb);
}

/*
 * BHs off: a copy of multicast datagram @skb, about to leave on its
 * route's netdev, for @sdev's own members of the group. (The stack does
 * not loop it back: the RoCE socket, a UDP tunnel socket, has multicast
 * loopback off.) No copy, no local delivery: UD promises none.
 */
static void sroce_loop_mcast(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sk_buff *copy;

	/* a device no QP of which is in any group has no one to copy for */
	if (!READ_ONCE(sdev->nmcg))
		return;
	copy = skb_copy(skb, GFP_ATOMIC);
	if (!copy)
		return;
	skb_dst_drop(copy);
	SROCE_SKB_CB(copy)->mcast_ifindex = skb->dev->ifindex;
	sroce_loop_queue(sdev, copy);
}

static void sroce_loop_init(void (*rcv)(struct sk_buff *skb))
{
	int cpu;

	sroce_loop_rcv = rcv;
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
static void sroce_loop_exit(void)
{
	struct sk_buff *skb;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct sroce_loop *l = per_cpu_ptr(&sroce_loop, cpu);

		tasklet_kill(&l->tasklet);
		while ((skb = skb_dequeue(&l->queue))) {
			dev_put(skb->dev);
			kfree_skb(skb);
		}
	}
}

/*
 * Send a batch of sealed packets. Called without qp->lock, in process or
 * softirq context, by the one context that sends @qp's packets now
 * (sroce_qp_xmit()); a packet we cannot route or the stack drops is lost
 * like on any wire, and the protocol retransmits it. A zero-copy packet
 * holds its WQE's ubuf_info since it was built (struct sroce_zc), which
 * makes the stack copy the pages before it keeps the packet anywhere,
 * and the WQE's completion wait until it lets go of them. A packet whose
 * route is local goes to sroce_loop_deliver() instead of the stack.
 */
void sroce_xmit(struct sroce_qp *qp, struct sk_buff_head *list)
{
	bool connected = !sroce_qp_is_ud(qp);
	struct dst_entry *dst = NULL;
	struct sroce_xmit_ns xn;
	struct sk_buff *skb;
	bool have_ns;
	u32 gen = 0;
	u32 len;

	if (skb_queue_empty(list))
		return;
	local_bh_disable();
	rcu_read_lock();
	have_ns = sroce_xmit_ns(qp, &xn);
	while ((skb = __skb_dequeue(list))) {
		struct dst_entry *d;

		if (!have_ns) {
			d = NULL;
		} else if (!connected) {
			d = sroce_route_pkt(qp, &xn, skb);
		} else {
			/* a batch is built for one path, or rarely two */
			if (!dst || SROCE_SKB_CB(skb)->av_gen != gen) {
				dst_release(dst);
				gen = SROCE_SKB_CB(skb)->av_gen;
				dst = sroce_route_qp(qp, &xn, skb);
			}
			d = dst_clone(dst);	/* NULL if no route */
		}
		if (!d) {
			sroce_qp_count(qp, SROCE_CNT_TX_DROP);
			kfree_skb(skb);
			continue;
		}
		if (skb_zcopy(skb))
			sroce_qp_count(qp, SROCE_CNT_TX_ZCOPY);
		len = ntohs(udp_hdr(skb)->len) - sizeof(struct udphdr);
		sroce_qp_count(qp, SROCE_CNT_TX_PACKETS);
		sroce_count_port(qp->sdev, SROCE_PORT_XMIT_OCTETS, len);
		trace_sroce_tx(&qp->sdev->ibdev,
			       skb_transport_header(skb) + sizeof(struct udphdr),
			       len);
		if (d->dev->flags & IFF_LOOPBACK) {
			dst_release(d);
			sroce_loop_deliver(qp->sdev, skb);
			continue;
		}
		skb->dev = d->dev;
		skb_dst_set(skb, d);
		if (!connected && sroce_skb_mcast(skb)) {
			sroce_count_port(qp->sdev, SROCE_PORT_XMIT_MCAST, 1);
			sroce_loop_mcast(qp->sdev, skb);
		}
		if (skb->protocol == htons(ETH_P_IPV6)) {
			memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
			ip6_local_out(xn.net, xn.sk6, skb);
		} else {
			memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
			ip_local_out(xn.net, xn.sk4, skb);
		}
	}
	dst_release(dst);
	rcu_read_unlock();
	local_bh_enable();
}

static struct socket *sroce_udp_open(struct net *net, bool ipv6,
				     udp_tunnel_encap_rcv_t rcv)
{
	struct udp_tunnel_sock_cfg tnl = {
		.encap_type = 1,
		.encap_rcv = rcv,
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

	err = udp_sock_create(net, &cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(net, sock, &tnl);
	/*
	 * That turns IPv4 multicast loopback off, not IPv6's: a datagram we
	 * send to a group we joined would come back on top of the local
	 * delivery of sroce_loop_mcast().
	 */
	if (ipv6)
		sroce_ipv6_mc_loop_off(sock->sk);
	return sock;
}

/*
 * Port 4791 of @ipv6's family is taken: say by whom. The socket bound to
 * the wildcard address is found the way a datagram to that port would
 * find it (the lookup is there only with netfilter's socket or TPROXY
 * matches, as in Debian's kernels); one bound to a single address is not,
 * and then the message says where to look. The kernel does not know a
 * socket's process, but its inode names it in ss and /proc/PID/fd.
 */
static void sroce_port_taken(struct net *net, bool ipv6)
{
	const char *fam = ipv6 ? "IPv6" : "IPv4";
	struct sock *sk = NULL;

	rcu_read_lock();
#if IS_ENABLED(CONFIG_NF_TPROXY_IPV4) || IS_ENABLED(CONFIG_NF_SOCKET_IPV4)
	if (!ipv6)
		sk = udp4_lib_lookup(net, 0, 0, 0,
				     htons(ROCE_V2_UDP_DPORT), 0);
#endif
#if IS_ENABLED(CONFIG_IPV6) && \
	(IS_ENABLED(CONFIG_NF_TPROXY_IPV6) || IS_ENABLED(CONFIG_NF_SOCKET_IPV6))
	if (ipv6)
		sk = udp6_lib_lookup(net, &in6addr_any, 0, &in6addr_any,
				     htons(ROCE_V2_UDP_DPORT), 0);
#endif
	rcu_read_unlock();

	if (!sk) {
		pr_err("UDP port %d (%s) is taken by another socket: ss -ulpne 'sport = :%d' shows it\n",
		       ROCE_V2_UDP_DPORT, fam, ROCE_V2_UDP_DPORT);
		return;
	}
	if (sk->sk_kern_sock)
		pr_err("UDP port %d (%s) is taken by a kernel socket: another module holds it\n",
		       ROCE_V2_UDP_DPORT, fam);
	else
		pr_err("UDP port %d (%s) is taken by a socket of uid %u, inode %lu: ss -ulpne 'sport = :%d' shows its process\n",
		       ROCE_V2_UDP_DPORT, fam,
		       from_kuid_munged(&init_user_ns, sock_i_uid(sk)),
		       sock_i_ino(sk), ROCE_V2_UDP_DPORT);
	sock_put(sk);
}

/*
 * Take UDP port 4791 of @net with one socket per address family, whose
 * packets go to the receive entry point. sroce_netns_lock held.
 */
static int sroce_netns_open(struct net *net, struct sroce_netns *ns)
{
	struct socket *sock4, *sock6 = NULL;
	bool ipv6 = false;
	int err;

	sock4 = sroce_udp_open(net, false, sroce_encap_rcv);
	err = PTR_ERR_OR_ZERO(sock4);
	if (!err && IS_ENABLED(CONFIG_IPV6)) {
		ipv6 = true;
		sock6 = sroce_udp_open(net, true, sroce_encap_rcv);
		err = PTR_ERR_OR_ZERO(sock6);
		/* A kernel booted with ipv6.disable=1 has no AF_INET6. */
		if (err == -EAFNOSUPPORT) {
			sock6 = NULL;
			err = 0;
		}
		if (err)
			udp_tunnel_sock_release(sock4);
	}
	if (err == -EADDRINUSE)
		sroce_port_taken(net, ipv6);
	else if (err)
		pr_err("cannot open the RoCEv2 UDP socket: %d\n", err);
	if (err)
		return err;
	rcu_assign_pointer(ns->sock4, sock4);
	rcu_assign_pointer(ns->sock6, sock6);
	return 0;
}

/* sroce_netns_lock held; the transmit path may be reading them */
static void sroce_netns_close(struct sroce_netns *ns)
{
	struct socket *sock4 = rcu_dereference_protected(ns->sock4,
					lockdep_is_held(&sroce_netns_lock));
	struct socket *sock6 = rcu_dereference_protected(ns->sock6,
					lockdep_is_held(&sroce_netns_lock));

	RCU_INIT_POINTER(ns->sock4, NULL);
	RCU_INIT_POINTER(ns->sock6, NULL);
	/* each waits for RCU readers before it shuts its socket down */
	if (sock6)
		udp_tunnel_sock_release(sock6);
	if (sock4)
		udp_tunnel_sock_release(sock4);
}

/*
 * A device is made on a netdev of @net: the namespace's sockets are
 * opened for its first. Fails if port 4791 is taken there.
 */
int sroce_net_get(struct net *net)
{
	struct sroce_netns *ns = sroce_netns(net);
	int err = 0;

	mutex_lock(&sroce_netns_lock);
	if (!ns->links)
		err = sroce_netns_open(net, ns);
	if (!err)
		ns->links++;
	mutex_unlock(&sroce_netns_lock);
	return err;
}

/* A device of @net is gone: its last closes the sockets */
void sroce_net_put(struct net *net)
{
	struct sroce_netns *ns = sroce_netns(net);

	mutex_lock(&sroce_netns_lock);
	if (!WARN_ON_ONCE(!ns->links) && !--ns->links)
		sroce_netns_close(ns);
	mutex_unlock(&sroce_netns_lock);
}

/*
 * A namespace ends. Its devices ended before (sroce_device.c's pernet
 * exit, which runs first, waits for them): nothing should be left.
 */
static void __net_exit sroce_netns_exit(struct net *net)
{
	struct sroce_netns *ns = sroce_netns(net);

	mutex_lock(&sroce_netns_lock);
	if (WARN_ONCE(ns->links,
		      "a network namespace ends with %u sroce devices\n",
		      ns->links)) {
		ns->links = 0;
		sroce_netns_close(ns);
	}
	mutex_unlock(&sroce_netns_lock);
}

static struct pernet_operations sroce_netns_ops = {
	.exit = sroce_netns_exit,
	.id = &sroce_net_id,
	.size = sizeof(struct sroce_netns),
};

/*
 * At module load: packets of the namespaces' sockets will go to @udp_rcv,
 * local deliveries to @loop_rcv: the receive entry point's two doors.
 */
int sroce_net_init(udp_tunnel_encap_rcv_t udp_rcv,
		   void (*loop_rcv)(struct sk_buff *skb))
{
	int err;

	sroce_encap_rcv = udp_rcv;
	sroce_loop_init(loop_rcv);
	err = register_pernet_subsys(&sroce_netns_ops);
	if (err)
		sroce_loop_exit();
	return err;
}

/* At unload, every device gone: so are the sockets */
void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_netns_ops);
	sroce_loop_exit();
}
