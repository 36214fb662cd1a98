/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce deterministic simulator: two endpoints A and B built from the
 * pure protocol core (sroce/rc_engine.h for RC and UC, sroce/ud.h for
 * UD), a virtual clock, a seeded PRNG, a lossy wire per direction, an
 * optional adversary, and an oracle.
 *
 *   sim.c        the world: wire, timers, the user, per-event checks,
 *                as hooks of the host glue (tools/host/glue.c)
 *   sim_ev.c     the event queue
 *   sim_trace.c  the trace of the last events, failure reports
 *   sim_work.c   workload and parameters drawn from the seed
 *   sim_check.c  the end-of-run oracle (completions, memory image)
 *   sim_adv.c    forged packets (random or from a fuzzer's script)
 *   sim_main.c   command line, TAP output, bench
 *   fuzz_sim.c   libFuzzer entry point
 *
 * Everything a run does follows from struct sim_cfg: the same cfg replays
 * the same run, event for event.
 */
#ifndef _SROCE_SIM_H
#define _SROCE_SIM_H

#include <stdarg.h>

#include "sroce/rc_engine.h"
#include "sroce/opcode.h"

/* ---------------------------------------------------------------- */
/* PRNG: splitmix64, one independent stream per concern               */

struct sim_rng {
	u64 s;
};

static inline u64 rng_next(struct sim_rng *r)
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); 0 when n is 0 */
static inline u64 rng_below(struct sim_rng *r, u64 n)
{
	return n ? rng_next(r) % n : 0;
}

/* Uniform in [lo, hi] */
static inline u64 rng_range(struct sim_rng *r, u64 lo, u64 hi)
{
	return lo + rng_below(r, hi - lo + 1);
}

static inline bool rng_chance(struct sim_rng *r, double p)
{
	if (p <= 0)
		return false;
	return (double)(rng_next(r) >> 11) * 0x1p-53 < p;
}

static inline void rng_seed(struct sim_rng *r, u64 seed, u64 stream)
{
	r->s = seed ^ (stream * 0xd1b54a32d192ed03ULL);
	rng_next(r);
}

/* ---------------------------------------------------------------- */
/* Configuration                                                       */

/* One direction of the wire */
struct sim_wire_cfg {
	double	loss;		/* packet dropped */
	double	dup;		/* packet delivered twice */
	double	reorder;	/* packet gets up to reorder_ns extra delay */
	double	corrupt;	/* packet dropped as bad ICRC (counted) */
	u64	latency_ns;
	u64	jitter_ns;	/* delay is latency +- jitter, uniform */
	u64	reorder_ns;
	u32	ps_per_byte;	/* bandwidth: 800 ps/B = 10 Gb/s */
	/*
	 * A slow receiver (a starved virtual machine): each packet costs
	 * rx_ns to take in, at most rx_queue wait (more are dropped), and
	 * every stall_every_ns it takes nothing for stall_ns.  0: off.
	 */
	u64	rx_ns;
	u32	rx_queue;
	u64	stall_ns;
	u64	stall_every_ns;
	/*
	 * Contexts: the kernel builds a QP's packets under its lock and
	 * hands them to the stack after dropping it, from whichever context
	 * ran the engine (a posting task, the receive softirq, the
	 * workqueue, a timer), any of which may be held up there.  Each
	 * event's packets leave up to ctx_ns late (drawn per event); they
	 * reach the wire in the order they were built (the kernel's
	 * qp->txq), or with ctx_unordered in the order their contexts got
	 * to send them (the driver before that queue).  0: off.
	 */
	u64	ctx_ns;
	bool	ctx_unordered;
};

/* A forged packet: how to derive it from the live state at injection */
enum sim_psn_sel {
	SIM_PSN_UNA,		/* target requester: oldest unacked */
	SIM_PSN_NEXT,		/* target requester: next to send */
	SIM_PSN_WQE,		/* inside an outstanding WQE */
	SIM_PSN_EPSN,		/* target responder: expected PSN */
	SIM_PSN_PEER_NEXT,	/* target responder: peer's next PSN */
	SIM_PSN_RAW,		/* psn_delta is the PSN */
	SIM_PSN_NR
};

#define SIM_FORGE_ACKREQ	BIT(0)
#define SIM_FORGE_SE		BIT(1)
#define SIM_FORGE_BAD_QPN	BIT(2)	/* wrong destination QP */
#define SIM_FORGE_RAW_OPCODE	BIT(3)	/* opcode byte as is, any value */

struct sim_forge {
	u64	delay_ns;	/* script: after the previous injection */
	u8	target;		/* 0 = A, 1 = B */
	u8	opcode;		/* index into the RC opcode list, or raw */
	u8	psn_sel;	/* enum sim_psn_sel */
	s32	psn_delta;
	u8	syndrome;
	s32	msn_delta;
	u8	key_sel;	/* < number of MRs: that MR's rkey; else rkey */
	u32	rkey;
	bool	va_in_mr;	/* va is an offset into the key_sel MR */
	u64	va;
	u32	dma_len;
	u16	payload_len;
	u8	flags;		/* SIM_FORGE_* */
	u32	imm;
};

struct sim_cfg {
	u64	seed;
	struct sim_wire_cfg wire;
	double	adversary;	/* forged packets per legitimate one */
	const struct sim_forge *script;	/* fuzzer: forged packets in order */
	u32	nscript;
	u64	budget;		/* workload payload bytes per side */
	u32	max_ops;	/* send WQEs per side, at most */
	bool	bench_mix;	/* fixed, friendly parameters (bench) */
	u8	timeout;	/* the QPs' local ACK timeout, 0: fit the wire */
	bool	legit_errors_ok; /* error outcome allowed (adversary) */
	int	verbose;
	u64	time_limit_ns;	/* give up (hang) after this much */
	u64	event_limit;	/* give up (livelock) after this many */
};

/* ---------------------------------------------------------------- */
/* Results                                                             */

enum sim_outcome {
	SIM_DONE,		/* every WQE completed, oracle happy */
	SIM_KILLED,		/* a QP went to error legitimately */
	SIM_FAILED,		/* a check failed: a bug */
};

enum sim_counter {
	SC_PKTS,		/* legitimate packets put on the wire */
	SC_BYTES_WIRE,
	SC_LOST,
	SC_DUPED,
	SC_REORDERED,
	SC_CORRUPT,
	SC_FORGED,
	SC_FORGED_DROPPED,	/* parser or QPN refused it */
	SC_RETRANSMITS,
	SC_TIMEOUTS,
	SC_RNR_WAITS,
	SC_RX_REQ,
	SC_RX_RESP,
	SC_ACKS_SENT,
	SC_READ_RESP_SENT,
	SC_RKEY_DENIED,
	SC_RQ_EMPTY,
	SC_ATOMICS,		/* atomics carried out by a responder */
	SC_ATOMIC_WRITES,	/* of which ATOMIC WRITEs */
	SC_RX_OVERFLOW,		/* dropped: the slow receiver's queue was full */
	SC_EV_BASE,		/* + enum sroce_eng_event */
	SC_NR = SC_EV_BASE + SROCE_EV_NR
};

struct sim_result {
	enum sim_outcome outcome;
	char	why[1024];	/* failure or kill reason */
	char	desc[256];	/* parameters, one line */
	u64	finish_ns;	/* simulated time when everything completed */
	u64	bytes;		/* workload payload bytes, both sides */
	u32	ops;
	u32	sq_err_status[2];	/* first error status per side, or 0 */
	u64	events;
	u64	cnt[SC_NR];
};

/* Run one simulation; returns res->outcome */
enum sim_outcome sim_run(const struct sim_cfg *cfg, struct sim_result *res);

/*
 * Fuzzer input -> configuration and adversary script (at most @max
 * packets into @script).  Returns the number of forged packets.
 */
u32 sim_cfg_decode(const u8 *data, size_t size, struct sim_cfg *cfg,
		   struct sim_forge *script, u32 max);

/* Name of a counter, for printing */
const char *sim_counter_name(enum sim_counter c);

/* Print the last events of the run in progress (abort paths) */
void sim_dump_trace(void);

#endif /* _SROCE_SIM_H */
