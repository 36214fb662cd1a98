/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce simulator internals shared by sim.c, sim_work.c, sim_check.c,
 * sim_adv.c, sim_ev.c and sim_trace.c: the world, its two endpoints, the
 * workload they run.
 *
 * Calls run one way (nm of the objects tells): sim_main.c and fuzz_sim.c
 * use sim.c and sim_adv.c; sim.c uses the others and the host glue
 * (tools/host/glue.c), which uses none of them; sim_adv.c uses sim_ev.c
 * and sim_trace.c; sim_check.c uses sim_trace.c; sim_ev.c, sim_trace.c
 * and sim_work.c use nothing of the simulator.
 */
#ifndef _SROCE_SIM_INT_H
#define _SROCE_SIM_INT_H

#include <stdio.h>

#include "sim.h"
#include "sroce/ud.h"
#include "../host/glue.h"

#define SIM_NMR			5	/* MRs per endpoint */
#define SIM_NCELLS		8	/* 8-byte atomic targets per endpoint */
#define SIM_WC_FLUSH		SROCE_WC_WR_FLUSH_ERR
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

/*
 * An endpoint: the host glue's side (engines, memory and MRs, receive
 * queue; tools/host/glue.h) and what the simulator adds: the workload,
 * the oracle's records, timers and the link.
 */
struct sim_side {
	struct hg_side g;
	struct sim *world;
	int	id;
	struct sim_side *peer;
	/* memory: g.mem, laid out in zones */
	u8	*init;
	u8	*mark;		/* SM_* per byte */
	u64	mem_len;
	u64	va_base;
	u64	zone_len[SZ_NR];
	u64	zone_off[SZ_NR];
	u64	cell0;		/* zone offset of atomic cell 0 (VA aligned) */
	/* send side: the workload */
	struct sim_op *ops;
	u32	nops;
	u32	posted;		/* ops posted by the user */
	u32	done;		/* ops completed */
	/* ops below this may not be sent or placed into again: an ORDERED
	 * local WQE (LOCAL_INV of their buffers) was carried out after them
	 */
	u32	inv_upto;
	u32	rexmit_gen;
	bool	rexmit_on;
	u32	rnr_gen;
	/* receive side: g.nrwqes of them */
	struct sim_rwqe *rwqes;
	s64	uc_last_op;	/* UC: peer op of the last receive completed */
	u32	ud_sent;	/* UD: ops sent */
	u64	err_ns;		/* when the QP went to error */
	/* transmit: one link, shared by requester and responder */
	u64	link_free;
	u64	tx_floor;	/* contexts in order: none leaves before this */
	bool	tx_sched;
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

enum sim_ev_type {
	EV_DELIVER,
	EV_REXMIT,
	EV_RNR,
	EV_TX_READY,
	EV_POST,
	EV_RPOST,
	EV_FORGE,
};

#define EVF_CORRUPT	BIT(0)
#define EVF_FORGED	BIT(1)
#define EVF_TAKEN	BIT(2)	/* through the slow receiver's queue */

struct sim_ev {
	u64	t;
	u64	seq;
	u8	type;
	u8	side;
	u8	flags;
	u32	gen;
	u8	*buf;
	u32	len;
};

struct sim {
	const struct sim_cfg *cfg;
	struct sim_result *res;
	struct sim_params p;
	struct sim_rng wl;	/* workload */
	struct sim_rng net;	/* wire faults */
	struct sim_rng adv;	/* adversary */
	struct sim_rng lo;	/* which WQEs are local ones */
	struct sim_rng ctx;	/* how late contexts send */
	u64	ctx_delay;	/* this event's context sends so late */
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

/* sim_trace.c */
void sim_fail(struct sim *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void sim_vfail(struct sim *w, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void sim_note(struct sim *w, int side, u8 what, u8 opcode, u32 psn, u64 a,
	      u64 b);
void sim_trace_dump(const struct sim *w, FILE *f, u32 last);

/* sim_ev.c: the event queue */
void sim_ev_at(struct sim *w, u64 t, u8 type, int side, u32 gen, u8 *buf,
	       u32 len, u8 flags);
bool sim_ev_pop(struct sim *w, struct sim_ev *out);
void sim_ev_free(struct sim *w);

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

/* Trace event kinds: the host glue's notes first, as it numbers them */
enum sim_what {
	ST_TX_REQ = HG_NOTE_TX_REQ,
	ST_TX_ACK = HG_NOTE_TX_ACK,
	ST_TX_RSP = HG_NOTE_TX_RSP,
	ST_PLACE = HG_NOTE_PLACE,
	ST_ERROR = HG_NOTE_ERROR,
	ST_REQ_IDLE = HG_NOTE_REQ_IDLE,
	ST_RESULT = HG_NOTE_RESULT,	/* what the engine made of a packet */
	ST_LOST = HG_NOTE_NR,
	ST_CORRUPT,
	ST_DUP,
	ST_RX,
	ST_RX_FORGED,
	ST_DROP,
	ST_COMP,
	ST_RCOMP,
	ST_TIMER,
	ST_TIMEOUT,
	ST_RNR_DONE,
	ST_POST,
	ST_RPOST,
	ST_FORGE,
	ST_FLUSH,
};

#endif /* _SROCE_SIM_INT_H */
