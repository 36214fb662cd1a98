// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building RoCEv2 packets for a QP: every header (BTH and extension
 * headers from the opcode table, UDP, IPv4 or IPv6) and the ICRC, in one
 * skb allocated once; the caller fills in the payload between
 * sroce_pkt_new() and sroce_pkt_seal().
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "sroce/icrc.h"
#include "sroce/opcode.h"
#include "sroce.h"
#include "sroce_net.h"
#include "sroce_qp.h"

#define SROCE_NET_HDR_LEN	(sizeof(struct iphdr) + sizeof(struct udphdr))

/*
 * A new packet for @qp: room for every header, BTH and extension headers
 * written from @h (PadCnt computed), @payload pointing at @payload_len
 * bytes for the caller to fill. The IP/UDP headers and the ICRC come in
 * sroce_pkt_seal(). Atomic context; NULL if out of memory.
 */
struct sk_buff *sroce_pkt_new(struct sroce_qp *qp, struct sroce_hdrs *h,
			      u32 payload_len, u8 **payload)
{
	struct net_device *ndev = qp->sdev->ndev;
	int len = sroce_pkt_len(h->bth.opcode, payload_len);
	int head = LL_RESERVED_SPACE(ndev) + SROCE_NET_HDR_LEN;
	struct sk_buff *skb;
	int hlen;

	if (len < 0)
		return NULL;
	skb = alloc_skb(head + len + ndev->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	hlen = sroce_build_hdrs(skb_put(skb, len), len, h, payload_len);
	if (hlen < 0) {
		kfree_skb(skb);
		return NULL;
	}
	*payload = skb->data + hlen;
	/* Pad and ICRC bytes; the ICRC is written by sroce_pkt_seal(). */
	memset(*payload + payload_len, 0, len - hlen - payload_len);
	return skb;
}

static void sroce_push_ipv4(const struct sroce_av *av, struct sk_buff *skb)
{
	struct iphdr *iph;

	__skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = av->tos;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->ttl;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = av->saddr;
	iph->daddr = av->daddr;
	__ip_select_ident(&init_net, iph, 1);
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
}

static void sroce_push_ipv6(const struct sroce_av *av, struct sk_buff *skb)
{
	struct ipv6hdr *ip6h;

	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, av->tos, htonl(av->flow_label));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->ttl;
	ip6h->saddr = av->saddr6;
	ip6h->daddr = av->daddr6;
	skb->protocol = htons(ETH_P_IPV6);
}

/*
 * Push UDP and IP headers for the path @av (a connected QP's, or a UD
 * send's address handle) and write the ICRC. The UDP
 * checksum stays zero, for IPv6 too, as RoCEv2 senders do: the ICRC
 * covers the packet, and receivers' RoCE sockets accept it.
 */
void sroce_pkt_seal(const struct sroce_av *av, struct sk_buff *skb)
{
	struct udphdr *uh;
	u32 icrc;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = av->sport;
	uh->dest = htons(ROCE_V2_UDP_DPORT);
	uh->len = htons(skb->len);
	uh->check = 0;

	if (av->ipv6)
		sroce_push_ipv6(av, skb);
	else
		sroce_push_ipv4(av, skb);

	if (sroce_icrc_compute(skb->data, skb->len - SROCE_ICRC_LEN, &icrc))
		icrc = 0;	/* cannot happen: we built these headers */
	sroce_icrc_put(skb_tail_pointer(skb) - SROCE_ICRC_LEN, icrc);
	skb->ip_summed = CHECKSUM_NONE;
	BUILD_BUG_ON(sizeof(struct sroce_skb_cb) > sizeof(skb->cb));
	SROCE_SKB_CB(skb)->av_gen = av->gen;
}
