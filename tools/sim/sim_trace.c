// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulator's records of a run: the trace of its last events and
 * the failure report.  Everything else in the simulator calls these; they
 * call nothing of it, so a check anywhere can fail a run.
 */
#include <stdio.h>

#include "sim_int.h"

static const char *const what_name[] = {
	[ST_TX_REQ] = "tx-req",
	[ST_TX_ACK] = "tx-ack",
	[ST_TX_RSP] = "tx-rsp",
	[ST_LOST] = "lost",
	[ST_CORRUPT] = "corrupt",
	[ST_DUP] = "dup",
	[ST_RX] = "rx",
	[ST_RX_FORGED] = "rx-forged",
	[ST_DROP] = "drop",
	[ST_PLACE] = "place",
	[ST_COMP] = "complete",
	[ST_RCOMP] = "recv-comp",
	[ST_ERROR] = "qp-error",
	[ST_TIMER] = "timer",
	[ST_TIMEOUT] = "timeout",
	[ST_RNR_DONE] = "rnr-done",
	[ST_POST] = "post",
	[ST_RPOST] = "post-recv",
	[ST_FORGE] = "forge",
	[ST_FLUSH] = "flushed",
	[ST_REQ_IDLE] = "req-idle",
	[ST_RESULT] = "  ->",
};

static void trace_print(FILE *f, const struct sim_trace *t)
{
	const char *op = t->opcode == 0xff ? "" : sroce_opcode_name(t->opcode);

	fprintf(f, "#  %10llu.%03llu us  %c  %-9s %-24s psn %06x  %llx %llx\n",
		(unsigned long long)(t->t / 1000),
		(unsigned long long)(t->t % 1000), 'A' + t->side,
		what_name[t->what], op, t->psn, (unsigned long long)t->a,
		(unsigned long long)t->b);
}

void sim_note(struct sim *w, int side, u8 what, u8 opcode, u32 psn, u64 a,
	      u64 b)
{
	struct sim_trace *t = &w->trace[w->ntrace++ % SIM_TRACE];

	t->t = w->now;
	t->side = (u8)side;
	t->what = what;
	t->opcode = opcode;
	t->psn = psn;
	t->a = a;
	t->b = b;
	if (w->cfg->verbose > 1)
		trace_print(stdout, t);
}

void sim_trace_dump(const struct sim *w, FILE *f, u32 last)
{
	u64 n = w->ntrace < last ? w->ntrace : last;
	u64 i;

	fprintf(f, "# last %llu of %llu events (time side what opcode psn a b):\n",
		(unsigned long long)n, (unsigned long long)w->ntrace);
	for (i = w->ntrace - n; i < w->ntrace; i++)
		trace_print(f, &w->trace[i % SIM_TRACE]);
}

/* The first failure of a run is its reason; later ones are its echoes */
void sim_vfail(struct sim *w, const char *fmt, va_list ap)
{
	int n;

	if (w->failed)
		return;
	w->failed = true;
	n = snprintf(w->res->why, sizeof(w->res->why), "t=%llu ns: ",
		     (unsigned long long)w->now);
	vsnprintf(w->res->why + n, sizeof(w->res->why) - (size_t)n, fmt, ap);
}

void sim_fail(struct sim *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sim_vfail(w, fmt, ap);
	va_end(ap);
}
