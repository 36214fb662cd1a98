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
 * Received packets arrive in sroce_udp_rcv() in softirq context.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/skbuff.h>
#include <net/udp_tunnel.h>

#include "sroce.h"

#define ROCE_V2_UDP_DPORT	4791

static struct socket *sroce_sock4;
static struct socket *sroce_sock6;

/* Softirq. Returning 0 means we consumed (and freed) the skb. */
static int sroce_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	/* No queue pairs exist yet: nothing can be addressed. */
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
	return sock;
}

int sroce_net_init(void)
{
	struct socket *sock;

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
}
