// SPDX-License-Identifier: GPL-2.0-only
/*
 * Address handles, for UD sends: create/destroy/query, and the lookup
 * by number a send WQE makes.
 *
 * Userspace names an AH in its UD WQEs only by the number create_ah
 * returned (the rxe provider's ABI); kernel callers' WQEs, in kernel
 * memory, carry the address vector itself. Each user send looks the
 * number up, checks that the AH belongs to
 * the QP's PD, and copies its address vector under the table lock, so a
 * number that is stale, forged or another process's sends nothing. The
 * provider's legacy full-AV WQE (number 0) is refused: it would let a
 * process choose any source address.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/rdma_user_rxe.h>

#include "sroce.h"
#include "sroce_ah.h"
#include "sroce_param.h"

/*
 * The IP fields of a RoCE v2 path; the UDP source port is the caller's
 * to set. Both ends must be of one family. @av is written only on
 * success: a refused modify_qp or create_ah changes nothing.
 *
 * The GRH's flow label is a 20-bit field; the verbs attribute is a u32
 * that consumers fill as they like (UCX passes ~0): the low 20 bits are
 * the label, as hardware RoCE devices take them, and the rest is ignored.
 */
int sroce_av_from_attr(struct sroce_av *out, const struct rdma_ah_attr *attr)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);
	union {
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} src, dst;
	struct sroce_av tmp, *av = &tmp;
	struct ib_device *ibdev;
	struct net_device *ndev;
	int ifindex = 0;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) || !grh->sgid_attr)
		return -EINVAL;		/* the core fills both in for RoCE */
	ibdev = grh->sgid_attr->device;
	if (grh->sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return sroce_refuse(ibdev, -EINVAL,
				    "path: source GID %u is not RoCE v2\n",
				    grh->sgid_index);
	/*
	 * Packets leave through the source GID's netdev: the bound one, or
	 * a VLAN on it, whose tag they then carry. A GID whose netdev is
	 * gone, or was moved to another namespace, is no path of ours.
	 */
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(grh->sgid_attr);
	if (!IS_ERR(ndev) && sroce_netdev_ours(to_sdev(ibdev), ndev))
		ifindex = ndev->ifindex;
	rcu_read_unlock();
	if (!ifindex)
		return sroce_refuse(ibdev, -ENETUNREACH,
				    "path: source GID %u's netdev is gone or in another namespace\n",
				    grh->sgid_index);
	rdma_gid2ip((struct sockaddr *)&src, &grh->sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&dst, &grh->dgid);
	if (src.in.sin_family != dst.in.sin_family)
		return sroce_refuse(ibdev, -EINVAL,
				    "path: IPv4 and IPv6 GIDs cannot be joined\n");

	memset(av, 0, sizeof(*av));
	av->ipv6 = src.in.sin_family == AF_INET6;
	if (av->ipv6) {
		av->saddr6 = src.in6.sin6_addr;
		av->daddr6 = dst.in6.sin6_addr;
	} else {
		av->saddr = src.in.sin_addr.s_addr;
		av->daddr = dst.in.sin_addr.s_addr;
	}
	av->flow_label = grh->flow_label & SROCE_FLOW_LABEL_MASK;
	av->tos = grh->traffic_class;
	av->ttl = grh->hop_limit ? grh->hop_limit : 64;
	av->ifindex = ifindex;
	*out = tmp;
	return 0;
}

/*
 * Copy the address vector of AH @ah_num into @av if it is live and of
 * @pd. Any context.
 */
bool sroce_ah_get_av(struct sroce_dev *sdev, struct ib_pd *pd, u32 ah_num,
		     struct sroce_av *av)
{
	struct sroce_ah *ah;
	unsigned long flags;
	bool ok = false;

	xa_lock_irqsave(&sdev->ah_table, flags);
	ah = xa_load(&sdev->ah_table, ah_num);
	if (ah && ah->ibah.pd == pd) {
		*av = ah->av;
		ok = true;
	}
	xa_unlock_irqrestore(&sdev->ah_table, flags);
	return ok;
}

static void sroce_ah_unlist(struct sroce_dev *sdev, struct sroce_ah *ah)
{
	unsigned long flags;

	xa_lock_irqsave(&sdev->ah_table, flags);
	__xa_erase(&sdev->ah_table, ah->ah_num);
	xa_unlock_irqrestore(&sdev->ah_table, flags);
}

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	unsigned long flags;
	int err;

	if (udata && udata->inlen)
		return sroce_refuse(ibah->device, -EINVAL,
				    "create_ah: unexpected driver data\n");
	err = sroce_av_from_attr(&ah->av, init->ah_attr);
	if (err)
		return err;
	ah->attr = *init->ah_attr;
	ah->attr.grh.sgid_attr = NULL;
	/*
	 * Kernel AHs need no number: kernel WQEs carry the address vector.
	 * So no process creating AHs by the thousand can starve the CM.
	 */
	if (!udata)
		return 0;

	/*
	 * Cyclic, so that a destroyed AH's number is not soon reused. The
	 * caller may hold a spinlock (no RDMA_CREATE_AH_SLEEPABLE): atomic.
	 */
	xa_lock_irqsave(&sdev->ah_table, flags);
	err = __xa_alloc_cyclic(&sdev->ah_table, &ah->ah_num, ah,
				XA_LIMIT(1, SROCE_MAX_AH), &sdev->ah_next,
				GFP_ATOMIC);
	xa_unlock_irqrestore(&sdev->ah_table, flags);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;

	{
		struct rxe_create_ah_resp resp = { .ah_num = ah->ah_num };

		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
		if (err) {
			sroce_ah_unlist(sdev, ah);
			return err;
		}
	}
	return 0;
}

int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	/* After this no send copies its address vector. */
	if (to_sah(ibah)->ah_num)
		sroce_ah_unlist(to_sdev(ibah->device), to_sah(ibah));
	return 0;
}

int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	*attr = to_sah(ibah)->attr;
	return 0;
}
