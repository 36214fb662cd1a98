/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce simulator internals shared by sim.c, sim_work.c, sim_check.c and
 * sim_adv.c: the world, its two endpoints, the workload they run.
 */
#ifndef _SROCE_SIM_INT_H
#define _SROCE_SIM_INT_H

#include "sim.h"
#include "sroce/ud.h"

#define SIM_MAX_RES		16	/* READ resources per responder */
#define SIM_NMR			5	/* MRs per endpoint */
#define SIM_NCELLS		8	/* 8-byte atomic targets per endpoint */
#define SIM_WC_FLUSH		5	/* IB_WC_WR_FLUSH_ERR */
#define SIM_WC_NONE		0xff	/* not completed (yet) */
#define SIM_TRACE		1024	/* events kept for a failure report */

/* Memory zones of an endpoint, laid out in this order with guards */
enum sim_zone {
	SZ_W,			/* peer may write (REMOTE_WRITE MR) */
	SZ_R,			/* peer may read (REMOTE_READ MR) */
	SZ_RW,			/* peer may do both */
	SZ_A,			/* peer may do atomics (SIM_NCELLS cells) */
	SZ_LOCAL,		/* send sources, READ destinations */
	SZ_RECV,		/* receive buffers */
	SZ_NR
};

/* Per byte of an endpoint's memory: who may change it */
#define SM_TARGET	BIT(0)	/* an operation's destination */
#define SM_PEER		BIT(1)	/* a forged packet may legitimately */

/* One send WQE of the workload */
struct sim_op {
	u8	kind;		/* enum sroce_wr_kind */
	u8	flags;		/* SROCE_WQE_* */
	u32	len;
	u32	imm;
	u8	lzone;		/* local buffer: zone, offset */
	u64	loff;
	u8	rzone;		/* remote buffer at the peer (WRITE/READ) */
	u64	roff;
	u64	rva;
	u32	rkey;
	u32	rwqe;		/* peer receive it consumes, or ~0 */
	u64	post_ns;	/* the user posts it then (if room) */
	u64	rd_req_hi;	/* READ: bytes requested so far, at most */
	u8	cell;		/* atomics: the peer's cell */
	u32	first_psn;	/* UC: its PSNs, once sent */
	u32	npkts;
	u64	swap_add;
	u64	compare;
	/* results */
	u8	ncomp;
	u8	status;
	u8	nlocal;		/* local WQE: times carried out */
};

/* One receive WQE */
struct sim_rwqe {
	u64	off;		/* buffer */
	u32	len;
	u32	op;		/* the peer op expected to consume it */
	u8	ncomp;
	u8	status;
	u32	byte_len;
	u32	got_op;		/* UC: the peer op that completed it */
	bool	imm;
	u32	imm_val;
	bool	rdma_imm;
};

struct sim_mr {
	u64	va;
	u64	off;
	u64	len;
	u32	rkey;
	u32	access;
};

struct sim_params {
	u32	mtu;
	u32	sq_size[2];
	u32	max_rd[2];	/* side i's requester; side !i's nres */
	u8	retry_cnt;
	u8	rnr_retry;
	u8	timeout;
	u8	min_rnr_timer;
	bool	rq_trickle;	/* receives posted over time */
	u32	rq_batch;
	u64	rq_gap_ns;
	u32	psn0[2];	/* side i's first request PSN */
	u32	qpn[2];
	bool	uc;		/* both QPs UC: Sends and Writes only */
	bool	ud;		/* both QPs UD: one-MTU Sends, datagrams */
	bool	uc_strict;	/* UC on a perfect wire: nothing may be lost */
};

struct sim_side {
	int	id;
	struct sim_side *peer;
	/* memory */
	u8	*mem;
	u8	*init;
	u8	*mark;		/* SM_* per byte */
	u64	mem_len;
	u64	va_base;
	u64	zone_len[SZ_NR];
	u64	zone_off[SZ_NR];
	struct sim_mr mr[SIM_NMR];	/* mr[z] covers zone z < SZ_LOCAL */
	u64	cell0;		/* zone offset of atomic cell 0 (VA aligned) */
	/* send side */
	struct sroce_sq_eng sq;
	struct sroce_wqe *ring;
	struct sim_op *ops;
	u32	nops;
	u32	sq_base;	/* engine index of ops[0] */
	u32	posted;		/* ops posted by the user */
	u32	done;		/* ops completed */
	u32	comp_seen;	/* e->comp last seen */
	/* ops below this may not be sent or placed into again: an ORDERED
	 * local WQE (LOCAL_INV of their buffers) was carried out after them
	 */
	u32	inv_upto;
	u32	rexmit_gen;
	bool	rexmit_on;
	u32	rnr_gen;
	/* receive side */
	struct sroce_rq_eng rq;
	struct sroce_rd_res res[SIM_MAX_RES];
	struct sim_rwqe *rwqes;
	u32	nrwqes;
	u32	rposted;
	u32	rtaken;
	bool	rheld;
	u32	rheld_idx;
	s64	uc_last_op;	/* UC: peer op of the last receive completed */
	u32	ud_sent;	/* UD: ops sent */
	/* rkey_ok approvals of the message in progress (MR placement) */
	u32	ok_rkey;
	u64	ok_va;
	u64	ok_len;
	bool	ok_valid;
	/* QP */
	bool	qp_err;
	bool	sq_err;		/* the send side failed itself */
	u64	err_ns;		/* when the QP went to error */
	/* transmit: one link, shared by requester and responder */
	u64	link_free;
	bool	tx_sched;
	bool	want_req;
	bool	want_rsp;
	bool	rsp_turn;
	bool	in_pump;
	/* receive: a slow receiver's queue (sim_wire_cfg.rx_ns) */
	u64	rx_free;
	u32	rx_queued;
};

struct sim_trace {
	u64	t;
	u8	side;
	u8	what;
	u8	opcode;
	u32	psn;
	u64	a;
	u64	b;
};

struct sim_ev;

struct sim {
	const struct sim_cfg *cfg;
	struct sim_result *res;
	struct sim_params p;
	struct sim_rng wl;	/* workload */
	struct sim_rng net;	/* wire faults */
	struct sim_rng adv;	/* adversary */
	struct sim_rng lo;	/* which WQEs are local ones */
	u64	now;
	u64	seq;
	struct sim_ev *heap;
	u32	nheap;
	u32	cap;
	struct sim_side side[2];
	bool	failed;
	bool	adversarial;
	u32	script_next;
	struct sim_trace trace[SIM_TRACE];
	u64	ntrace;
};

/* sim.c */
void sim_fail(struct sim *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sim_note(struct sim *w, int side, u8 what, u8 opcode, u32 psn, u64 a,
	      u64 b);
void sim_send_raw(struct sim *w, struct sim_side *from, u8 *buf, u32 len);
void sim_inject(struct sim *w, struct sim_side *to, u8 *buf, u32 len);
const struct sim_mr *sim_mr_find(const struct sim_side *s, u32 rkey);

#define SIM_UD_QKEY		0x1234abcdu

/* UC or UD: the receive WQE a message lands in is not known beforehand */
static inline bool sim_unreliable(const struct sim_params *p)
{
	return p->uc || p->ud;
}

/* An atomic on a cell: CmpSwap, FetchAdd or ATOMIC WRITE */
static inline bool sim_kind_atomic(u8 kind)
{
	return kind == SROCE_WR_CMP_SWAP || kind == SROCE_WR_FETCH_ADD ||
	       kind == SROCE_WR_ATOMIC_WRITE;
}

/* sim_work.c */
int sim_work_build(struct sim *w);
void sim_work_free(struct sim *w);
u64 sim_zone_va(const struct sim_side *s, u8 zone, u64 zoff);

/* sim_check.c */
void sim_check_final(struct sim *w);
bool sim_all_done(const struct sim *w);

/* sim_adv.c */
void sim_forge_random(struct sim_rng *r, struct sim_forge *f);
void sim_forge_inject(struct sim *w, const struct sim_forge *f);

/* Trace event kinds */
enum sim_what {
	ST_TX_REQ,
	ST_TX_ACK,
	ST_TX_RSP,
	ST_LOST,
	ST_CORRUPT,
	ST_DUP,
	ST_RX,
	ST_RX_FORGED,
	ST_DROP,
	ST_PLACE,
	ST_COMP,
	ST_RCOMP,
	ST_ERROR,
	ST_TIMER,
	ST_TIMEOUT,
	ST_RNR_DONE,
	ST_POST,
	ST_RPOST,
	ST_FORGE,
	ST_FLUSH,
	ST_REQ_IDLE,
	ST_RESULT,	/* what the engine made of a packet: events, flags */
};

#endif /* _SROCE_SIM_INT_H */
