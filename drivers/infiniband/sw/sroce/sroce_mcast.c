// SPDX-License-Identifier: GPL-2.0-only
/*
 * Multicast: UD QPs attached to multicast groups.
 *
 * A RoCE v2 multicast GID is an IP multicast address: IPv4-mapped
 * (::ffff:224.0.0.0/4) or IPv6 (ff00::/8). The first attach to a group
 * adds its MAC to the netdev's filter and joins it at the IP layer
 * (IGMP/MLD), so the stack accepts its datagrams; the last detach undoes
 * both. That runs from a work queue: the IP join needs RTNL, which an
 * attach or a detach must not take (QPs are destroyed, and so detached,
 * under RTNL when a netdev goes away), and the group list is a
 * spinlock's, taken by the receive path.
 *
 * Each group has one work item, which brings the netdev's membership in
 * line with the group's latest state (a member while a QP is attached)
 * and frees the group once it is empty and left. An attach or a detach
 * only queues it, if it is not queued already: however fast a process
 * attaches and detaches, and however long RTNL stays busy, a group has
 * at most one work item queued, and the netdev sees one join or leave
 * for each change of state the work finds, not one per attach.
 *
 * A datagram whose BTH names QPN 0xFFFFFF is delivered to every QP
 * attached to the group of its destination address, each under its own
 * lock with the same checks as any datagram (Q_Key, P_Key, room). One
 * this device sends to a group reaches its own attached QPs as well
 * (sroce_mcast_loopback()), as on an HCA's port.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/igmp.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>

#include "sroce.h"
#include "sroce_counters.h"
#include "sroce_glue.h"
#include "sroce_mcast.h"
#include "sroce_net.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_sched.h"

/*
 * Groups are hashed by GID with a per-device random seed, so that the
 * lookup each multicast datagram makes is O(1) whatever GIDs a process
 * attaches; each QP lists its own attachments, so that destroying it
 * touches only those. Everything under sdev->mcg_lock.
 */
#define SROCE_MCG_HASH_BITS	11

struct sroce_mcg {
	struct hlist_node	node;		/* sdev->mcg_hash */
	union ib_gid		gid;
	struct list_head	qps;		/* struct sroce_mca */
	u32			nqp;
	struct sroce_dev	*sdev;
	struct work_struct	work;		/* sroce_mcg_work() */
	/* The work is queued and has not yet read nqp */
	bool			queued;
	/*
	 * What the work obtained for the group, so that its leave undoes
	 * exactly that and never a membership someone else holds (rdma_cm
	 * joins IPv4 groups itself, sockets may too). The work's only,
	 * under RTNL.
	 */
	bool			joined;
	bool			mac;		/* dev_mc_add() succeeded */
	bool			ip;		/* IGMP/MLD membership taken */
};

/* One QP attached to one group */
struct sroce_mca {
	struct list_head	list;		/* g->qps */
	struct list_head	qp_list;	/* qp->mca_list */
	struct sroce_mcg	*g;
	struct sroce_qp		*qp;
	/*
	 * Attaches not yet detached: the core counts each successful
	 * attach on the QP (usecnt) and each detach takes one back, and
	 * RoCE ignores the LID that tells uverbs' copies apart.
	 */
	u32			refs;
};

static struct workqueue_struct *sroce_mc_wq;

static bool sroce_gid_is_v4(const union ib_gid *gid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)gid->raw);
}

static __be32 sroce_gid_v4(const union ib_gid *gid)
{
	return ((const struct in6_addr *)gid->raw)->s6_addr32[3];
}

/* The group's MAC address on Ethernet */
static void sroce_mcg_mac(const struct sroce_mcg *g, u8 *mac)
{
	if (sroce_gid_is_v4(&g->gid))
		ip_eth_mc_map(sroce_gid_v4(&g->gid), mac);
	else
		ipv6_eth_mc_map((const struct in6_addr *)g->gid.raw, mac);
}

/*
 * RTNL held. A netdev on its way out takes no new membership: its
 * addresses were flushed, and the group's leave will undo nothing.
 */
static void sroce_mc_join(struct sroce_mcg *g)
{
	const struct in6_addr *a6 = (const struct in6_addr *)g->gid.raw;
	struct net_device *ndev = g->sdev->ndev;
	struct in_device *in_dev;
	u8 mac[ETH_ALEN];

	g->joined = true;
	sroce_count(g->sdev, SROCE_CNT_MCAST_JOINS);
	if (ndev->reg_state != NETREG_REGISTERED)
		return;
	sroce_mcg_mac(g, mac);
	g->mac = !dev_mc_add(ndev, mac);
	if (sroce_gid_is_v4(&g->gid)) {
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev) {
			ip_mc_inc_group(in_dev, sroce_gid_v4(&g->gid));
			g->ip = true;
		}
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		g->ip = !ipv6_dev_mc_inc(ndev, a6);
	}
}

/* RTNL held */
static void sroce_mc_leave(struct sroce_mcg *g)
{
	const struct in6_addr *a6 = (const struct in6_addr *)g->gid.raw;
	struct net_device *ndev = g->sdev->ndev;
	struct in_device *in_dev;
	u8 mac[ETH_ALEN];

	sroce_mcg_mac(g, mac);
	if (g->mac)
		dev_mc_del(ndev, mac);
	if (g->ip && sroce_gid_is_v4(&g->gid)) {
		in_dev = __in_dev_get_rtnl(ndev);
		if (in_dev)
			ip_mc_dec_group(in_dev, sroce_gid_v4(&g->gid));
	} else if (g->ip && IS_ENABLED(CONFIG_IPV6)) {
		ipv6_dev_mc_dec(ndev, a6);
	}
	g->joined = false;
	g->mac = false;
	g->ip = false;
	sroce_count(g->sdev, SROCE_CNT_MCAST_LEAVES);
}

/*
 * The netdev's MAC filter and IGMP or MLD membership, from the queue:
 * joined while a QP is attached to the group, left otherwise, whatever
 * happened in between. The group is read under RTNL, so that a work
 * item that waited for it acts on the latest state, and an empty group
 * that is left and not queued again is freed here (the netdev is the
 * device's, held until sroce_mcast_dev_exit() has flushed the queue).
 */
static void sroce_mcg_work(struct work_struct *w)
{
	struct sroce_mcg *g = container_of(w, struct sroce_mcg, work);
	struct sroce_dev *sdev = g->sdev;
	unsigned long flags;
	bool want, gone = false;

	rtnl_lock();
	spin_lock_irqsave(&sdev->mcg_lock, flags);
	g->queued = false;
	want = g->nqp > 0;
	spin_unlock_irqrestore(&sdev->mcg_lock, flags);
	if (want && !g->joined)
		sroce_mc_join(g);
	else if (!want && g->joined)
		sroce_mc_leave(g);
	/* Emptied and not queued again since nqp was read: left */
	spin_lock_irqsave(&sdev->mcg_lock, flags);
	if (!g->nqp && !g->queued) {
		hlist_del(&g->node);
		WRITE_ONCE(sdev->nmcg, sdev->nmcg - 1);
		gone = true;
	}
	spin_unlock_irqrestore(&sdev->mcg_lock, flags);
	rtnl_unlock();
	if (gone)
		kfree(g);
}

/*
 * The group gained its first QP or lost its last one: queue its work,
 * unless it is queued already and so will see this. sdev->mcg_lock held.
 */
static void sroce_mcg_kick(struct sroce_mcg *g)
{
	if (g->queued)
		return;
	g->queued = true;
	queue_work(sroce_mc_wq, &g->work);
}

static struct hlist_head *sroce_mcg_bucket(struct sroce_dev *sdev,
					   const union ib_gid *gid)
{
	u32 h = jhash2((const u32 *)gid->raw, sizeof(gid->raw) / 4,
		       sdev->mcg_seed);

	return &sdev->mcg_hash[hash_32(h, SROCE_MCG_HASH_BITS)];
}

static struct sroce_mcg *sroce_mcg_find(struct sroce_dev *sdev,
					const union ib_gid *gid)
{
	struct sroce_mcg *g;

	hlist_for_each_entry(g, sroce_mcg_bucket(sdev, gid), node)
		if (!memcmp(&g->gid, gid, sizeof(*gid)))
			return g;
	return NULL;
}

int sroce_mcast_dev_init(struct sroce_dev *sdev)
{
	sdev->mcg_hash = kvcalloc(1 << SROCE_MCG_HASH_BITS,
				  sizeof(*sdev->mcg_hash), GFP_KERNEL);
	if (!sdev->mcg_hash)
		return -ENOMEM;
	sdev->mcg_seed = get_random_u32();
	return 0;
}

/*
 * Every QP is gone, so every group is empty: once the queue has run,
 * every group was left and freed.
 */
void sroce_mcast_dev_exit(struct sroce_dev *sdev)
{
	flush_workqueue(sroce_mc_wq);
	WARN_ON(sdev->nmcg);
	kvfree(sdev->mcg_hash);
	sdev->mcg_hash = NULL;
}

static bool sroce_gid_is_mcast(const union ib_gid *gid)
{
	const struct in6_addr *a6 = (const struct in6_addr *)gid->raw;

	if (sroce_gid_is_v4(gid))
		return ipv4_is_multicast(sroce_gid_v4(gid));
	return ipv6_addr_is_multicast(a6);
}

int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_mcg *g, *ng;
	struct sroce_mca *a, *na;
	unsigned long flags;
	int err = 0;

	if (ibqp->qp_type != IB_QPT_UD || !sroce_gid_is_mcast(gid))
		return sroce_refuse(ibqp->device, -EINVAL,
				    "QP %u: attach_mcast: %s\n", ibqp->qp_num,
				    ibqp->qp_type != IB_QPT_UD ?
				    "not a UD QP" : "not a multicast GID");
	ng = kzalloc(sizeof(*ng), GFP_KERNEL);
	na = kzalloc(sizeof(*na), GFP_KERNEL);
	if (!ng || !na) {
		err = -ENOMEM;
		goto out;
	}

	spin_lock_irqsave(&sdev->mcg_lock, flags);
	g = sroce_mcg_find(sdev, gid);
	if (!g) {
		if (sdev->nmcg >= SROCE_MAX_MCAST_GRP) {
			err = sroce_refuse(ibqp->device, -ENOMEM,
					   "attach_mcast: the device's %u groups exist\n",
					   SROCE_MAX_MCAST_GRP);
			goto unlock;
		}
		g = ng;
		ng = NULL;
		g->gid = *gid;
		g->sdev = sdev;
		INIT_LIST_HEAD(&g->qps);
		INIT_WORK(&g->work, sroce_mcg_work);
		hlist_add_head(&g->node, sroce_mcg_bucket(sdev, gid));
		WRITE_ONCE(sdev->nmcg, sdev->nmcg + 1);
	}
	/* at most SROCE_MAX_MCAST_QP_ATTACH */
	list_for_each_entry(a, &g->qps, list) {
		if (a->qp == qp) {
			a->refs++;	/* attached already: count it */
			goto unlock;
		}
	}
	if (g->nqp >= SROCE_MAX_MCAST_QP_ATTACH) {
		err = sroce_refuse(ibqp->device, -ENOMEM,
				   "attach_mcast: the group has its %u QPs\n",
				   SROCE_MAX_MCAST_QP_ATTACH);
		goto unlock;
	}
	na->qp = qp;
	na->g = g;
	na->refs = 1;
	list_add_tail(&na->list, &g->qps);
	list_add_tail(&na->qp_list, &qp->mca_list);
	if (!g->nqp++)
		sroce_mcg_kick(g);	/* join, or stay joined */
	na = NULL;
unlock:
	spin_unlock_irqrestore(&sdev->mcg_lock, flags);
out:
	kfree(ng);
	kfree(na);
	return err;
}

/*
 * Take attachment @a away; sdev->mcg_lock held. An emptied group stays
 * in place until its work has left it at the IP layer and freed it.
 */
static void sroce_mca_drop(struct sroce_mca *a)
{
	struct sroce_mcg *g = a->g;

	list_del(&a->list);
	list_del(&a->qp_list);
	kfree(a);
	if (!--g->nqp)
		sroce_mcg_kick(g);	/* leave, or stay joined */
}

int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_mca *a;
	unsigned long flags;
	int err = -EINVAL;

	spin_lock_irqsave(&sdev->mcg_lock, flags);
	list_for_each_entry(a, &qp->mca_list, qp_list) {
		if (memcmp(&a->g->gid, gid, sizeof(*gid)))
			continue;
		if (!--a->refs)
			sroce_mca_drop(a);
		err = 0;
		break;
	}
	spin_unlock_irqrestore(&sdev->mcg_lock, flags);
	if (err)
		ibdev_dbg(ibqp->device,
			  "QP %u: detach_mcast: not attached to that group\n",
			  ibqp->qp_num);
	return err;
}

/*
 * The QP is being destroyed: detach it from every group, so that no
 * datagram finds it afterwards. A caller should have detached it. Walks
 * only the QP's own attachments, and allocates nothing: the groups'
 * leaves are their own work items.
 */
void sroce_mcast_detach_all(struct sroce_qp *qp)
{
	struct sroce_dev *sdev = qp->sdev;
	struct sroce_mca *a;
	unsigned long flags;

	if (qp->ibqp.qp_type != IB_QPT_UD)
		return;
	spin_lock_irqsave(&sdev->mcg_lock, flags);
	while ((a = list_first_entry_or_null(&qp->mca_list, struct sroce_mca,
					     qp_list)))
		sroce_mca_drop(a);
	spin_unlock_irqrestore(&sdev->mcg_lock, flags);
}

/*
 * A copy of a datagram this device sent to a multicast group (the wire
 * layer's local delivery, sroce_loop_mcast()): QPs of this device
 * attached to it receive it too, as on an HCA's port. Softirq, no QP
 * lock held.
 */
void sroce_mcast_loopback(struct sroce_dev *sdev, struct sk_buff *skb)
{
	struct sroce_rxpkt rx;
	u32 len;

	rx.bth = skb_transport_header(skb) + sizeof(struct udphdr);
	len = skb_tail_pointer(skb) - rx.bth;
	if (sroce_parse_bth_packet(rx.bth, len, &rx.p))
		return;		/* cannot happen: we built it */
	/* Sent to one QP at a group address: the members do not get it */
	if (rx.p.hdr.bth.dqpn != SROCE_MULTICAST_QPN)
		return;
	sroce_mcast_rcv(sdev, skb, &rx);
}

/*
 * A datagram to the multicast QPN: deliver it to each QP attached to
 * the group of its destination address. Softirq.
 */
void sroce_mcast_rcv(struct sroce_dev *sdev, struct sk_buff *skb,
		     const struct sroce_rxpkt *rx)
{
	struct sroce_qp *qps[SROCE_MAX_MCAST_QP_ATTACH];
	union ib_gid gid;
	struct sroce_mcg *g;
	struct sroce_mca *a;
	unsigned long flags;
	u32 n = 0, i;

	/* The port's P_Key, once for all members */
	if (!sroce_pkey_ok(rx->p.hdr.bth.pkey)) {
		sroce_count(sdev, SROCE_CNT_RX_DROP_PKEY);
		return;
	}
	/* The multicast QPN at a unicast address: dropped, no lookup */
	if (skb->protocol == htons(ETH_P_IP)) {
		if (!ipv4_is_multicast(ip_hdr(skb)->daddr))
			goto drop;
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)gid.raw);
	} else {
		if (!ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr))
			goto drop;
		memcpy(gid.raw, &ipv6_hdr(skb)->daddr, sizeof(gid.raw));
	}

	spin_lock_irqsave(&sdev->mcg_lock, flags);
	g = sroce_mcg_find(sdev, &gid);
	if (g)
		list_for_each_entry(a, &g->qps, list)
			if (n < ARRAY_SIZE(qps) &&
			    refcount_inc_not_zero(&a->qp->refs))
				qps[n++] = a->qp;
	spin_unlock_irqrestore(&sdev->mcg_lock, flags);
	if (!n)
		goto drop;

	for (i = 0; i < n; i++) {
		spin_lock_irqsave(&qps[i]->lock, flags);
		sroce_glue_ud_rcv(qps[i], skb, rx);
		sroce_qp_unlock(qps[i], flags);
		sroce_qp_put(qps[i]);
	}
	return;
drop:
	sroce_count(sdev, SROCE_CNT_MCAST_DROP_NO_GROUP);
}

int sroce_mcast_init(void)
{
	sroce_mc_wq = alloc_ordered_workqueue("sroce_mc", 0);
	return sroce_mc_wq ? 0 : -ENOMEM;
}

/* Every device is gone, and with it every group (sroce_mcast_dev_exit()) */
void sroce_mcast_exit(void)
{
	destroy_workqueue(sroce_mc_wq);
}
