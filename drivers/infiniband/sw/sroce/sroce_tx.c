// SPDX-License-Identifier: GPL-2.0-only
/*
 * A QP's transmit context (struct sroce_tx_ctx, sroce_net.h): what the
 * packets it sent still hold once the stack has them. Paced packets
 * count in it until their destructor runs (transmit pacing); zero-copy
 * packets hold their WQE's ubuf_info until they let go of the pages
 * (the WQE's completion waits for that), and the pages they pin are
 * charged to the QP's owner meanwhile. The module stays loaded while any
 * packet holds the context, since the destructor and the zerocopy
 * completion are our code: one module reference per context, taken by
 * its first hold and dropped with its last.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "sroce.h"
#include "sroce_compat.h"
#include "sroce_net.h"
#include "sroce_qp.h"

/* Transmit contexts alive: module exit waits for the last one */
static atomic_t sroce_tx_ctxs = ATOMIC_INIT(0);

static void sroce_tx_ctx_free(struct sroce_tx_ctx *ctx)
{
	free_uid(ctx->user);
	kvfree(ctx->zc);
	kfree(ctx);
	if (atomic_dec_and_test(&sroce_tx_ctxs))
		wake_up_var(&sroce_tx_ctxs);
}

static void sroce_tx_ctx_free_work(struct work_struct *work)
{
	sroce_tx_ctx_free(container_of(work, struct sroce_tx_ctx, free_work));
}

/*
 * The last reference may go in any context: a packet freed in softirq,
 * or by a task holding a spinlock. vfree() may sleep there, so a
 * context whose slots were vmalloc()ed is freed from the workqueue
 * (module exit waits for the count, then destroys the queue, which
 * lets the work finish).
 */
static void sroce_tx_ctx_unref(struct sroce_tx_ctx *ctx)
{
	if (!refcount_dec_and_test(&ctx->refs))
		return;
	if (is_vmalloc_addr(ctx->zc)) {
		INIT_WORK(&ctx->free_work, sroce_tx_ctx_free_work);
		queue_work(sroce_wq, &ctx->free_work);
	} else {
		sroce_tx_ctx_free(ctx);
	}
}

/*
 * A packet (or a slot's packets) of @ctx now in the stack's hands. The
 * first hold takes the module: the QP may be destroyed and the device
 * removed while the stack still holds packets whose destructor is ours,
 * and rmmod must then fail, not wait for them.
 */
static void sroce_tx_hold(struct sroce_tx_ctx *ctx)
{
	refcount_inc(&ctx->refs);
	if (atomic_inc_return(&ctx->holds) == 1)
		__module_get(THIS_MODULE);
}

/*
 * Let go of a hold. Callers are in an RCU read-side section to their
 * end, so that module exit's grace period, after the last context is
 * freed, waits for them to leave this code (sroce_tx_ctx_wait_all()).
 */
static void sroce_tx_unhold(struct sroce_tx_ctx *ctx)
{
	if (atomic_dec_and_test(&ctx->holds))
		module_put(THIS_MODULE);
	sroce_tx_ctx_unref(ctx);
}

/* Wake @ctx's QP, if it still exists, on the workqueue. RCU held. */
static void sroce_tx_wake(struct sroce_tx_ctx *ctx)
{
	struct sroce_qp *qp = rcu_dereference(ctx->qp);

	if (qp)
		queue_work(sroce_wq, &qp->work);
}

/* Give back @pages of @ctx's owner's locked memory */
static void sroce_tx_unpin(struct sroce_tx_ctx *ctx, int pages)
{
	if (ctx->user && pages)
		atomic_long_sub(pages, &ctx->user->locked_vm);
}

/*
 * The stack lets go of the pages of a WQE's zero-copy packet: the skb's
 * data freed, linearised, or its fragments copied out
 * (skb_orphan_frags()); once per reference, clones of the data
 * included. The last one gives the charge back, wakes the QP if a
 * completion waits for this WQE, and drops the slot's hold. Any context
 * but hard irq, qp->lock possibly held (an skb freed as it is built):
 * nothing here takes it.
 */
static void sroce_zc_done(struct sk_buff *skb, struct ubuf_info *ubuf,
			  bool zerocopy_success)
{
	struct sroce_zc *z = container_of(ubuf, struct sroce_zc, ubuf);
	struct sroce_tx_ctx *ctx = z->ctx;

	if (!refcount_dec_and_test(&ubuf->refcnt))
		return;
	rcu_read_lock();
	sroce_tx_unpin(ctx, atomic_xchg(&z->pages, 0));
	if (test_and_clear_bit(SROCE_TX_ZC_WAIT, &ctx->flags))
		sroce_tx_wake(ctx);
	sroce_tx_unhold(ctx);
	rcu_read_unlock();
}

SROCE_DEFINE_UBUF_OPS(sroce_zc_ops, sroce_zc_done);

int sroce_tx_ctx_create(struct sroce_qp *qp)
{
	struct sroce_tx_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	ctx->base.ctx = ctx;
	refcount_set(&ctx->refs, 1);	/* the QP's */
	RCU_INIT_POINTER(ctx->qp, qp);
	atomic_inc(&sroce_tx_ctxs);
	qp->tx = ctx;
	return 0;
}

/*
 * A user RC QP's zero-copy slots, one per SQ slot (@slots, a power of
 * two); kernel QPs send no user pages. The pages are charged to the
 * creating process's user against its RLIMIT_MEMLOCK, unless it may
 * lock memory at will (CAP_IPC_LOCK). Process context, at create.
 */
int sroce_tx_ctx_zc_init(struct sroce_tx_ctx *ctx, u32 slots)
{
	u32 i;

	ctx->zc = kvcalloc(slots, sizeof(*ctx->zc), GFP_KERNEL);
	if (!ctx->zc)
		return -ENOMEM;
	ctx->zc_mask = slots - 1;
	for (i = 0; i < slots; i++) {
		struct sroce_zc *z = &ctx->zc[i];

		SROCE_UBUF_SET_OPS(&z->ubuf, sroce_zc_ops);
		z->ubuf.flags = SKBFL_ZEROCOPY_FRAG;
		z->ctx = ctx;
	}
	if (!capable(CAP_IPC_LOCK)) {
		ctx->user = get_uid(current_user());
		ctx->pin_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	}
	return 0;
}

/* Charge @pages to @ctx's owner: false if over its limit. */
static bool sroce_tx_pin(struct sroce_tx_ctx *ctx, u32 pages)
{
	if (!ctx->user)
		return true;
	if (atomic_long_add_return(pages, &ctx->user->locked_vm) <=
	    ctx->pin_limit)
		return true;
	atomic_long_sub(pages, &ctx->user->locked_vm);
	return false;
}

/*
 * Make @skb, whose payload is @pages page fragments of user MRs, a
 * zero-copy packet of SQ WQE @idx: it holds the WQE's ubuf_info, and its
 * pages are charged, until the stack lets go of them. False if the
 * charge is over the owner's limit, or the QP has no slots (a kernel
 * QP): the caller copies instead. Before
 * the skb is sealed and sent; qp->lock held.
 */
bool sroce_tx_zc_attach(struct sroce_tx_ctx *ctx, u32 idx,
			struct sk_buff *skb, u32 pages)
{
	struct sroce_zc *z;

	if (!ctx->zc || !sroce_tx_pin(ctx, pages))
		return false;
	z = &ctx->zc[idx & ctx->zc_mask];
	/*
	 * From 0 only here, under qp->lock: at 0 no packet holds the slot,
	 * so no completion can run for it meanwhile.
	 */
	if (!refcount_inc_not_zero(&z->ubuf.refcnt)) {
		sroce_tx_hold(ctx);
		refcount_set(&z->ubuf.refcnt, 1);
	}
	atomic_add(pages, &z->pages);
	skb_zcopy_init(skb, &z->ubuf);
	return true;
}

/*
 * Do zero-copy packets still read SQ WQE @idx's buffers? If so, the
 * context is marked (fully ordered against the count read again) so
 * that the completion that lets go of the last one wakes the QP. A QP
 * without slots (not RC) has none. qp->lock held.
 */
bool sroce_tx_zc_busy(struct sroce_tx_ctx *ctx, u32 idx)
{
	struct sroce_zc *z;

	if (!ctx->zc)
		return false;
	z = &ctx->zc[idx & ctx->zc_mask];
	if (!refcount_read(&z->ubuf.refcnt))
		return false;
	set_bit(SROCE_TX_ZC_WAIT, &ctx->flags);
	/* the mark, then the count; sroce_zc_done(): the count, then the mark */
	smp_mb__after_atomic();
	return refcount_read(&z->ubuf.refcnt);
}

/* The QP is done with its context (see sroce_tx_ctx_detach()). */
void sroce_tx_ctx_put(struct sroce_tx_ctx *ctx)
{
	sroce_tx_ctx_unref(ctx);
}

/*
 * Module exit, once every device (so every QP) is gone: wait for the
 * packets the stack still holds, whose destructor (and zerocopy
 * completion, sroce_zc_done()) is our code. Packets sent before the
 * unload began hold the module (sroce_tx_hold()), so this waits only for
 * those sent while the devices were being torn down.
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
	struct sroce_zc *z = container_of(skb_shinfo(skb)->destructor_arg,
					  struct sroce_zc, ubuf);
	struct sroce_tx_ctx *ctx = z->ctx;
	int left = atomic_dec_return(&ctx->inflight);

	rcu_read_lock();
	if (left <= SROCE_TX_LOW &&
	    test_and_clear_bit(SROCE_TX_THROTTLED, &ctx->flags))
		sroce_tx_wake(ctx);
	sroce_tx_unhold(ctx);
	rcu_read_unlock();
}

/*
 * Paced packet @skb of @ctx goes to the stack: it counts in inflight
 * until its destructor runs. A zero-copy packet's destructor_arg is its
 * WQE's ubuf_info already; every other's is the context's base.
 */
void sroce_tx_paced(struct sroce_tx_ctx *ctx, struct sk_buff *skb)
{
	atomic_inc(&ctx->inflight);
	sroce_tx_hold(ctx);
	if (!skb_zcopy(skb))
		skb_shinfo(skb)->destructor_arg = &ctx->base.ubuf;
	skb->destructor = sroce_tx_done;
}
