/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Memory windows, and the remote keys that name MRs or windows.
 *
 * A window shares the key table with the MRs (its entry tagged
 * SROCE_KEY_MW): index << 8 | key byte, an rkey only, never an lkey.
 * Type 1 windows are bound by ibv_bind_mw() and used by any QP of their
 * PD; type 2 (2B) windows by a send WQE of one QP, used by that QP only,
 * and freed by LOCAL_INV or a Send with Invalidate. Binding checks the
 * MR (same PD, IB_ACCESS_MW_BIND, LOCAL_WRITE for a writable window,
 * the window inside it) and holds it: an MR with windows bound to it
 * cannot be deregistered (-EBUSY).
 */
#ifndef SROCE_MW_H
#define SROCE_MW_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "sroce_mr.h"

struct sroce_qp;
struct sroce_swqe;

/* Tag of a window's entry in the key table */
#define SROCE_KEY_MW		1

struct sroce_mw_state;

/* The core's object; the window's state is apart, freed after RCU */
struct sroce_ibmw {
	struct ib_mw		ibmw;
	struct sroce_mw_state	*mw;
};

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);

/* IB_WR_BIND_MW of @w on @qp: an ib_wc_status */
u8 sroce_mw_bind(struct sroce_qp *qp, const struct sroce_swqe *w);

/*
 * An rkey from the wire, for @qp: the MR it reaches (itself, or through
 * a window), checked for @access over [@va, @va + @len) and referenced;
 * NULL otherwise. Release with sroce_mr_put().
 */
struct sroce_mr *sroce_rkey_get(struct sroce_qp *qp, u32 rkey, u32 access,
				u64 va, u64 len);

/*
 * LOCAL_INV or Send with Invalidate on @qp: free the fast-registration
 * MR or the type 2 window @key names. -EINVAL if it may not.
 */
int sroce_key_invalidate(struct sroce_qp *qp, u32 key);

#endif /* SROCE_MW_H */
