// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building RoCEv2 packets for a QP: every header (BTH and extension
 * headers from the opcode table, UDP, IPv4 or IPv6) and the ICRC, in one
 * skb allocated once; the caller fills in the payload between
 * sroce_pkt_new() and sroce_pkt_seal(): copied into the skb, or, from an
 * RC requester's user MRs, attached as their pinned pages (zero copy,
 * sroce_pkt_zcopy()).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/highmem.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "sroce/icrc.h"
#include "sroce/opcode.h"
#include "sroce.h"
#include "sroce_net.h"
#include "sroce_qp.h"

/* The IP and UDP headers sroce_pkt_seal() pushes: IPv6's, the larger */
#define SROCE_NET_HDR_LEN	(sizeof(struct ipv6hdr) + sizeof(struct udphdr))

/*
 * Zero-copy transmit: a payload of at least SROCE_ZCOPY_MIN bytes that an
 * RC requester (Send, RDMA Write) takes from user MRs goes out as page
 * fragments of the MR's pinned pages, each holding a page reference until
 * the stack frees the skb: no payload copy, and the skb's head holds
 * headers only (init_on_alloc zeroes every head it allocates). Below that
 * size the copy costs less than the fragments.
 *
 * RC only: its completer holds a WQE's completion until no packet reads
 * its pages any more (struct sroce_zc), so the application does not
 * reuse a buffer a packet of ours still reads, however early the peer
 * acknowledged it (UC completes at send time). READ responses are always
 * copied (sroce_glue_rq.c). An application that writes its buffer while
 * it is sent gets a packet whose ICRC fails, which the peer drops and
 * the requester resends. A payload is copied too where it would pin
 * more than a page per SROCE_ZCOPY_PER_PAGE bytes, or more than its
 * owner may lock (sroce_tx_zc_attach()).
 *
 * Each such packet holds its WQE's ubuf_info, as MSG_ZEROCOPY's hold
 * theirs: wherever the stack would keep a packet beyond its
 * transmission (a clone for a packet socket, a tun reader, a veth or a
 * bridge into another namespace), it copies the pages out first
 * (skb_orphan_frags()).
 *
 * auto (the default) sends fragments where the netdev gathers them
 * itself (NETIF_F_SG); on one that does not, the stack would copy each
 * packet into a new linear skb, which costs more than our copy (a virtio
 * NIC whose host offers no checksum offload is one). on sends them on
 * any netdev (the tests, on such a NIC), off copies.
 */
#define SROCE_ZCOPY_MIN		SROCE_ZCOPY_PER_PAGE

enum { SROCE_ZCOPY_OFF, SROCE_ZCOPY_AUTO, SROCE_ZCOPY_ON };
static const char *const sroce_zcopy_names[] = { "off", "auto", "on" };
static int sroce_zcopy_mode = SROCE_ZCOPY_AUTO;

static int sroce_zcopy_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(sroce_zcopy_names, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(sroce_zcopy_mode, i);
	return 0;
}

static int sroce_zcopy_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  sroce_zcopy_names[READ_ONCE(sroce_zcopy_mode)]);
}

static const struct kernel_param_ops sroce_zcopy_ops = {
	.set = sroce_zcopy_set,
	.get = sroce_zcopy_get,
};
module_param_cb(zcopy, &sroce_zcopy_ops, NULL, 0644);
MODULE_PARM_DESC(zcopy,
		 "RC Sends and Writes from user MRs' pages as skb fragments, not copies: off, auto (default: where the netdev does scatter-gather), on");

bool sroce_pkt_zcopy(struct sroce_qp *qp, u32 payload_len)
{
	int mode = READ_ONCE(sroce_zcopy_mode);

	if (payload_len < SROCE_ZCOPY_MIN || mode == SROCE_ZCOPY_OFF ||
	    qp->ibqp.qp_type != IB_QPT_RC)
		return false;
	return mode == SROCE_ZCOPY_ON ||
	       (READ_ONCE(qp->sdev->ndev->features) & NETIF_F_SG);
}

/*
 * A new packet for @qp: room for every header, BTH and extension headers
 * written from @h (PadCnt computed). With @payload, the skb holds
 * @payload_len more bytes, *@payload pointing at them for the caller to
 * fill; without, the caller attaches the payload as page fragments
 * (sroce_wqe_sge_frags(), sroce_mr_frags()). The IP/UDP headers and the
 * ICRC come in sroce_pkt_seal(). Atomic context; NULL if out of memory.
 */
struct sk_buff *sroce_pkt_new(struct sroce_qp *qp, struct sroce_hdrs *h,
			      u32 payload_len, u8 **payload)
{
	struct net_device *ndev = qp->sdev->ndev;
	int len = sroce_pkt_len(h->bth.opcode, payload_len);
	/* room for the tags of a path through a VLAN (or two) on it too */
	int head = LL_RESERVED_SPACE_EXTRA(ndev, 2 * VLAN_HLEN) +
		   SROCE_NET_HDR_LEN;
	struct sk_buff *skb;
	int hlen, room;

	if (len < 0)
		return NULL;
	/* from the BTH on: headers, payload, pad and ICRC; or no payload */
	room = payload ? len : len - payload_len;
	skb = alloc_skb(head + room + ndev->needed_tailroom, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	hlen = sroce_build_hdrs(skb_put(skb, room), room, h, payload_len);
	if (hlen < 0) {
		kfree_skb(skb);
		return NULL;
	}
	/* pad and ICRC */
	SROCE_SKB_CB(skb)->trailer = len - hlen - payload_len;
	if (!payload) {
		/* sroce_pkt_seal() adds the trailer behind the fragments */
		__skb_trim(skb, hlen);
		return skb;
	}
	*payload = skb->data + hlen;
	/* Pad and ICRC bytes; the ICRC is written by sroce_pkt_seal(). */
	memset(*payload + payload_len, 0, SROCE_SKB_CB(skb)->trailer);
	return skb;
}

/*
 * A fragment packet's pad and ICRC bytes, zeroed, as its last fragment
 * (a small piece of a per-CPU page, as drivers take receive buffers).
 * Returns where the bytes are, NULL if out of memory.
 */
static u8 *sroce_pkt_trailer(struct sk_buff *skb, unsigned int len)
{
	int i = skb_shinfo(skb)->nr_frags;
	struct page *page;
	u8 *p;

	if (i >= MAX_SKB_FRAGS)
		return NULL;
	p = netdev_alloc_frag(len);
	if (!p)
		return NULL;
	memset(p, 0, len);
	page = virt_to_head_page(p);
	skb_fill_page_desc(skb, i, page, p - (u8 *)page_address(page), len);
	skb->len += len;
	skb->data_len += len;
	skb->truesize += SKB_DATA_ALIGN(len);
	return p;
}

/* The ICRC of sealed fragment packet @skb, whose trailer is at @trailer */
static u32 sroce_pkt_icrc_frags(struct sk_buff *skb, const u8 *trailer)
{
	struct skb_shared_info *si = skb_shinfo(skb);
	u32 crc;
	int i, n;

	n = sroce_icrc_begin(skb->data, skb_headlen(skb), &crc);
	if (n < 0)
		return 0;	/* cannot happen: we built these headers */
	crc = sroce_icrc_update(crc, skb->data + n, skb_headlen(skb) - n);
	/* every fragment but the trailer lies within one page */
	for (i = 0; i < si->nr_frags - 1; i++) {
		const skb_frag_t *f = &si->frags[i];
		u8 *va = kmap_local_page(skb_frag_page(f));

		crc = sroce_icrc_update(crc, va + skb_frag_off(f),
					skb_frag_size(f));
		kunmap_local(va);
	}
	crc = sroce_icrc_update(crc, trailer,
				SROCE_SKB_CB(skb)->trailer - SROCE_ICRC_LEN);
	return sroce_icrc_final(crc);
}

/*
 * ECN: RC and UC requests say they are ECN-capable (ECT(0)), as a RoCE
 * NIC's do with congestion control on, so that a congested queue marks
 * them CE rather than drop them, the responder returns a CNP and the
 * requester slows down (sroce_cc.c). What nothing slows down for a mark
 * (ACKs, Read responses, datagrams) goes as the traffic class says; a
 * traffic class that sets the ECN bits itself keeps them, except on a
 * CNP, which is never ECN-capable.
 */
static bool sroce_ecn = true;
module_param_named(ecn, sroce_ecn, bool, 0644);
MODULE_PARM_DESC(ecn, "Mark RoCE packets ECT(0) unless the traffic class sets ECN bits (default on)");

static u8 sroce_pkt_tos(const struct sroce_av *av, u8 opcode)
{
	const struct sroce_opcode_info *info = sroce_opcode_get(opcode);
	u8 tr = sroce_opcode_transport(opcode);

	if (opcode == SROCE_CNP_OPCODE)
		return av->tos & ~INET_ECN_MASK;
	if (!READ_ONCE(sroce_ecn) || (av->tos & INET_ECN_MASK) || !info ||
	    !(info->mask & SROCE_MASK_REQ) ||
	    (tr != SROCE_TRANSPORT_RC && tr != SROCE_TRANSPORT_UC))
		return av->tos;
	return av->tos | INET_ECN_ECT_0;
}

static void sroce_push_ipv4(const struct sroce_av *av, struct sk_buff *skb,
			    u8 tos)
{
	struct iphdr *iph;

	__skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = tos;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->ttl;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = av->saddr;
	iph->daddr = av->daddr;
	/*
	 * An atomic datagram (DF, never fragmented): its ID names no
	 * fragments, so it is 0, as the kernel gives a UDP socket's DF
	 * datagrams (ip_select_ident_segs(), RFC 6864), and no hash of the
	 * addresses is computed per packet.
	 */
	iph->id = 0;
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
}

static void sroce_push_ipv6(const struct sroce_av *av, struct sk_buff *skb,
			    u8 tos)
{
	struct ipv6hdr *ip6h;

	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, tos, htonl(av->flow_label));
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
 * covers the packet, and receivers' RoCE sockets accept it. A packet
 * whose payload is in fragments gets its pad and ICRC as one more.
 * -ENOMEM (@skb freed) if that cannot be had.
 */
int sroce_pkt_seal(const struct sroce_av *av, struct sk_buff *skb)
{
	unsigned int trailer = SROCE_SKB_CB(skb)->trailer;
	/* skb->data is the BTH, whose first byte is the opcode */
	u8 tos = sroce_pkt_tos(av, skb->data[0]);
	unsigned int net = sizeof(struct udphdr) +
		(av->ipv6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr));
	struct udphdr *uh;
	u8 *tail = NULL;
	u32 icrc;

	/* sroce_pkt_new() reserves room for the larger, IPv6 */
	if (WARN_ON_ONCE(skb_headroom(skb) < net)) {
		kfree_skb(skb);
		return -ENOMEM;
	}
	if (skb_is_nonlinear(skb)) {
		tail = sroce_pkt_trailer(skb, trailer);
		if (!tail) {
			kfree_skb(skb);
			return -ENOMEM;
		}
		/*
		 * Pages other users map: the requester gave the skb its
		 * WQE's ubuf_info, SKBFL_ZEROCOPY_FRAG (shared fragments).
		 */
	}

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = av->sport;
	uh->dest = htons(ROCE_V2_UDP_DPORT);
	uh->len = htons(skb->len);
	uh->check = 0;

	if (av->ipv6)
		sroce_push_ipv6(av, skb, tos);
	else
		sroce_push_ipv4(av, skb, tos);

	if (tail) {
		icrc = sroce_pkt_icrc_frags(skb, tail);
		tail += trailer - SROCE_ICRC_LEN;
	} else {
		tail = skb_tail_pointer(skb) - SROCE_ICRC_LEN;
		if (sroce_icrc_compute(skb->data, skb->len - SROCE_ICRC_LEN,
				       &icrc))
			icrc = 0;	/* cannot happen: we built these headers */
	}
	sroce_icrc_put(tail, icrc);
	skb->ip_summed = CHECKSUM_NONE;
	BUILD_BUG_ON(sizeof(struct sroce_skb_cb) > sizeof(skb->cb));
	SROCE_SKB_CB(skb)->av_gen = av->gen;
	SROCE_SKB_CB(skb)->oif = av->ifindex;
	return 0;
}
