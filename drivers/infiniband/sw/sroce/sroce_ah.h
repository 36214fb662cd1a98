/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Address vectors (where a packet goes: the IP/UDP fields of a path) and
 * address handles, which carry one for UD sends.
 */
#ifndef SROCE_AH_H
#define SROCE_AH_H

#include <linux/in6.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;

/* The GRH and IPv6 flow label: 20 bits */
#define SROCE_FLOW_LABEL_MASK	0xfffff

struct sroce_av {
	bool		ipv6;
	__be32		saddr;
	__be32		daddr;
	struct in6_addr	saddr6;
	struct in6_addr	daddr6;
	u32		flow_label;
	u8		tos;		/* or IPv6 traffic class */
	u8		ttl;		/* or IPv6 hop limit */
	__be16		sport;
	int		ifindex;	/* the source GID's netdev */
	u32		gen;		/* a connected QP's: bumped on change */
};

struct sroce_ah {
	struct ib_ah		ibah;
	struct sroce_av		av;
	struct rdma_ah_attr	attr;		/* for query_ah; no sgid_attr */
	u32			ah_num;		/* in sdev->ah_table; 0: kernel */
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

/*
 * The UDP source port of the flow between two QPs: one per pair, so that
 * ECMP and RSS keep its packets in order.
 */
static inline __be16 sroce_flow_sport(u32 qpn, u32 dest_qpn)
{
	return htons(0xc000 | ((qpn ^ dest_qpn) & 0x3fff));
}

int sroce_av_from_attr(struct sroce_av *av, const struct rdma_ah_attr *attr);
bool sroce_ah_get_av(struct sroce_dev *sdev, struct ib_pd *pd, u32 ah_num,
		     struct sroce_av *av);

int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);
int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);

#endif /* SROCE_AH_H */
