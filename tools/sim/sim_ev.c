// SPDX-License-Identifier: GPL-2.0-only
/*
 * The simulator's event queue: a binary min-heap on (time, insertion
 * order), so that ties break the same way in every replay of a seed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim_int.h"

static bool ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t != b->t ? a->t < b->t : a->seq < b->seq;
}

static void ev_push(struct sim *w, struct sim_ev *ev)
{
	u32 i;

	if (w->nheap == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 1024;
		w->heap = realloc(w->heap, w->cap * sizeof(*w->heap));
		if (!w->heap) {
			fprintf(stderr, "sim: out of memory (events)\n");
			exit(2);
		}
	}
	ev->seq = w->seq++;
	for (i = w->nheap++; i; ) {
		u32 parent = (i - 1) / 2;

		if (!ev_before(ev, &w->heap[parent]))
			break;
		w->heap[i] = w->heap[parent];
		i = parent;
	}
	w->heap[i] = *ev;
}

bool sim_ev_pop(struct sim *w, struct sim_ev *out)
{
	struct sim_ev last;
	u32 i = 0;

	if (!w->nheap)
		return false;
	*out = w->heap[0];
	last = w->heap[--w->nheap];
	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= w->nheap)
			break;
		if (c + 1 < w->nheap && ev_before(&w->heap[c + 1], &w->heap[c]))
			c++;
		if (!ev_before(&w->heap[c], &last))
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	if (w->nheap)
		w->heap[i] = last;
	return true;
}

/* An event at @t; a packet's @buf is the queue's until it is popped */
void sim_ev_at(struct sim *w, u64 t, u8 type, int side, u32 gen, u8 *buf,
	       u32 len, u8 flags)
{
	struct sim_ev ev = {
		.t = t, .type = type, .side = (u8)side, .gen = gen,
		.buf = buf, .len = len, .flags = flags,
	};

	ev_push(w, &ev);
}

/* The run is over: the packets still queued go */
void sim_ev_free(struct sim *w)
{
	u32 i;

	for (i = 0; i < w->nheap; i++)
		free(w->heap[i].buf);
	free(w->heap);
}
