/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What differs between the kernels sroce builds for (Debian's 6.1 and
 * 6.12), in one place. The SROCE_HAVE_* defines come from compiling a few
 * lines against the kernel at hand (compat/probe.sh, run by Kbuild), not
 * from its version number, which backports make a poor guide.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "sroce_compat_gen.h"

/* Multicast loopback off on an IPv6 socket */
static inline void sroce_ipv6_mc_loop_off(struct sock *sk)
{
#ifdef SROCE_HAVE_INET6_MC6_LOOP_BIT
	inet6_clear_bit(MC6_LOOP, sk);
#else
	inet6_sk(sk)->mc_loop = 0;
#endif
}

/*
 * The device's name was the user's ("rdma link add NAME"): udev's naming
 * rules must leave it alone (6.10+; nothing to say before).
 */
static inline void sroce_mark_name_assigned_by_user(struct ib_device *ibdev)
{
#ifdef SROCE_HAVE_IB_MARK_NAME_ASSIGNED_BY_USER
	ib_mark_name_assigned_by_user(ibdev);
#endif
}

/*
 * A zerocopy ubuf_info's completion, called as each skb that holds it
 * lets go (6.12 has it in a const ubuf_info_ops, 6.1 in the ubuf_info):
 * SROCE_DEFINE_UBUF_OPS(name, done) defines what SROCE_UBUF_SET_OPS(u,
 * name) gives ubuf_info @u.
 */
#ifdef SROCE_HAVE_UBUF_INFO_OPS
#define SROCE_DEFINE_UBUF_OPS(name, done) \
	static const struct ubuf_info_ops name = { .complete = (done) }
#define SROCE_UBUF_SET_OPS(u, name)	((u)->ops = &(name))
#else
#define SROCE_DEFINE_UBUF_OPS(name, done) \
	static void (*const name)(struct sk_buff *, struct ubuf_info *, \
				  bool) = (done)
#define SROCE_UBUF_SET_OPS(u, name)	((u)->callback = (name))
#endif

#endif /* SROCE_COMPAT_H */
