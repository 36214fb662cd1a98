// SPDX-License-Identifier: GPL-2.0-only
/*
 * srq_verify: shared receive queues through the stock rxe provider, on
 * one device whose RC QPs connect to each other through its own address.
 * Two receiving QPs share one SRQ; two senders feed them. Checked: create
 * and query; the limit event, raised once when the posted count falls
 * below the armed limit, then disarmed; a resize with WQEs pending, after
 * which the provider posts into the new ring past the old size; every
 * receive WQE consumed exactly once, by either QP, with its data intact;
 * a receiving QP moved to the error state raises LAST_WQE_REACHED and
 * leaves the SRQ's WQEs to the other QP.
 *
 *   srq_verify -d DEV -g GID_INDEX       prints KTAP, exits 1 on a failure
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#include "verbs_util.h"

#define MSG		4096
#define SLOTS		64		/* receive buffers, one per wr_id */
#define WAIT_S		300		/* a safety net, never the thing tested */

struct ctx {
	struct ibv_context *ibv;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_mr *rmr, *smr;
	uint8_t *rbuf, *sbuf;
	union ibv_gid gid;
	int gid_index;
	struct ibv_qp *snd[2], *rcv[2];	/* snd[i] -> rcv[i] */
	int taken[SLOTS];		/* receive completions per wr_id */
};

static struct ibv_qp *make_qp(struct ctx *c, int receiver)
{
	struct ibv_qp_init_attr a = {
		.send_cq = c->cq, .recv_cq = c->cq,
		.srq = receiver ? c->srq : NULL,
		.cap = { .max_send_wr = SLOTS, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(c->pd, &a);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static void connect_qp(struct ctx *c, struct ibv_qp *qp, uint32_t dest)
{
	struct vu_rc p;

	/* every RNR retry: an empty SRQ is waited for, not an error */
	vu_rc_path(&p, &c->gid, c->gid_index, dest);
	p.access = IBV_ACCESS_LOCAL_WRITE;
	vu_rc_connect(qp, &p);
}

static void post_recv(struct ctx *c, int first, int n)
{
	int i;

	for (i = first; i < first + n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)c->rbuf + (size_t)i * MSG,
			.length = MSG, .lkey = c->rmr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		memset(c->rbuf + (size_t)i * MSG, 0, MSG);
		if (ibv_post_srq_recv(c->srq, &wr, &bad))
			die("ibv_post_srq_recv");
	}
}

/* Message @seq of sender @s: its bytes say who sent it. */
static uint8_t pattern(int s, int seq, int i)
{
	return (uint8_t)(s * 131 + seq * 7 + i);
}

/* Sender @s sends messages @first.. @first + @n - 1, one at a time. */
static void send_msgs(struct ctx *c, int s, int first, int n)
{
	int seq, i;

	for (seq = first; seq < first + n; seq++) {
		/* each sender has half the send buffers */
		uint8_t *p = c->sbuf + (size_t)(s * SLOTS / 2 + seq % (SLOTS / 2)) *
			     MSG;
		struct ibv_sge sge = { .addr = (uintptr_t)p, .length = MSG,
				       .lkey = c->smr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 0x10000 * (s + 1) + seq, .sg_list = &sge,
			.num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		for (i = 0; i < MSG; i++)
			p[i] = pattern(s, seq, i);
		if (ibv_post_send(c->snd[s], &wr, &bad))
			die("ibv_post_send");
	}
}

/*
 * Poll until @sends send and @recvs receive completions came. Each
 * receive is checked: a live wr_id taken once, the whole message, the
 * QP it came to, and the data of some message of the matching sender.
 * Returns the number of receives per receiving QP in @per_qp.
 */
static int reap(struct ctx *c, int sends, int recvs, int per_qp[2])
{
	time_t end = time(NULL) + WAIT_S;
	int bad = 0, s, i;

	per_qp[0] = per_qp[1] = 0;
	while ((sends || recvs) && time(NULL) < end) {
		struct ibv_wc wc;
		int r = ibv_poll_cq(c->cq, 1, &wc);

		if (r < 0)
			die("ibv_poll_cq");
		if (!r)
			continue;
		if (wc.status != IBV_WC_SUCCESS) {
			printf("# completion %lu status %s\n",
			       (unsigned long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
			bad++;
			continue;
		}
		if (wc.opcode == IBV_WC_SEND) {
			sends--;
			continue;
		}
		recvs--;
		s = wc.qp_num == c->rcv[0]->qp_num ? 0 :
		    wc.qp_num == c->rcv[1]->qp_num ? 1 : -1;
		if (s < 0 || wc.wr_id >= SLOTS || c->taken[wc.wr_id]++ ||
		    wc.byte_len != MSG) {
			printf("# receive wr_id %lu qp %u len %u\n",
			       (unsigned long)wc.wr_id, wc.qp_num, wc.byte_len);
			bad++;
			continue;
		}
		per_qp[s]++;
		{
			const uint8_t *p = c->rbuf + wc.wr_id * MSG;
			int seq, hit = -1;

			/* which message it is: try every sequence number */
			for (seq = 0; seq < 256 && hit < 0; seq++) {
				for (i = 0; i < MSG; i++)
					if (p[i] != pattern(s, seq, i))
						break;
				if (i == MSG)
					hit = seq;
			}
			if (hit < 0) {
				printf("# wr_id %lu: data of no message of sender %d\n",
				       (unsigned long)wc.wr_id, s);
				bad++;
			}
		}
	}
	if (sends || recvs)
		printf("# %d sends, %d receives missing\n", sends, recvs);
	return bad + sends + recvs;
}

/* Wait for the async event @type; other events are reported. */
static int wait_event(struct ctx *c, enum ibv_event_type type,
		      void *element)
{
	struct pollfd pfd = { .fd = c->ibv->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int found = 0;

	while (!found && poll(&pfd, 1, WAIT_S * 1000) == 1) {
		if (ibv_get_async_event(c->ibv, &ev))
			die("ibv_get_async_event");
		found = ev.event_type == type &&
			(type == IBV_EVENT_SRQ_LIMIT_REACHED ?
			 (void *)ev.element.srq : (void *)ev.element.qp) ==
			element;
		if (!found)
			printf("# async event %s\n",
			       ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	return found;
}

/* No async event pending right now. */
static int no_event(struct ctx *c)
{
	struct pollfd pfd = { .fd = c->ibv->async_fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 0;
}

int main(int argc, char **argv)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 16,
						   .max_sge = 1 } };
	struct ibv_srq_attr sa;
	struct ibv_qp_attr qa;
	const char *dev = NULL;
	int per_qp[2], i, opt, bad;
	struct ctx c = {};

	while ((opt = getopt(argc, argv, "d:g:")) != -1) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'g')
			c.gid_index = atoi(optarg);
		else
			return 2;
	}
	printf("KTAP version 1\n");
	c.ibv = vu_open(dev);
	vu_query_gid(c.ibv, c.gid_index, &c.gid);
	c.pd = ibv_alloc_pd(c.ibv);
	c.cq = ibv_create_cq(c.ibv, 4 * SLOTS, NULL, NULL, 0);
	c.rbuf = calloc(SLOTS, MSG);
	c.sbuf = calloc(SLOTS, MSG);
	if (!c.pd || !c.cq || !c.rbuf || !c.sbuf)
		die("pd / cq / buffers");
	c.rmr = ibv_reg_mr(c.pd, c.rbuf, SLOTS * MSG, IBV_ACCESS_LOCAL_WRITE);
	c.smr = ibv_reg_mr(c.pd, c.sbuf, SLOTS * MSG, 0);
	if (!c.rmr || !c.smr)
		die("ibv_reg_mr");

	c.srq = ibv_create_srq(c.pd, &sia);
	ok(c.srq != NULL, "ibv_create_srq 16 WRs, 1 SGE");
	if (!c.srq)
		die("ibv_create_srq");
	bad = ibv_query_srq(c.srq, &sa);
	ok(!bad && sa.max_wr >= 16 && sa.max_sge == 1 && sa.srq_limit == 0,
	   "ibv_query_srq: max_wr %u, max_sge %u, limit %u", sa.max_wr,
	   sa.max_sge, sa.srq_limit);
	for (i = 0; i < 2; i++) {
		c.snd[i] = make_qp(&c, 0);
		c.rcv[i] = make_qp(&c, 1);
	}
	for (i = 0; i < 2; i++) {
		connect_qp(&c, c.snd[i], c.rcv[i]->qp_num);
		connect_qp(&c, c.rcv[i], c.snd[i]->qp_num);
	}
	ok(1, "two senders connected to two QPs sharing the SRQ");

	/* The limit: 8 posted, armed at 4, 5 consumed -> one event */
	post_recv(&c, 0, 8);
	sa.srq_limit = 4;
	ok(!ibv_modify_srq(c.srq, &sa, IBV_SRQ_LIMIT), "arm the limit at 4");
	bad = ibv_query_srq(c.srq, &sa);
	ok(!bad && sa.srq_limit == 4,
	   "ibv_query_srq: limit %u", sa.srq_limit);
	ok(no_event(&c), "no limit event while 8 are posted");
	send_msgs(&c, 0, 0, 3);
	send_msgs(&c, 1, 0, 2);
	bad = reap(&c, 5, 5, per_qp);
	ok(!bad && per_qp[0] == 3 && per_qp[1] == 2,
	   "5 messages received through the SRQ, data intact (%d + %d)",
	   per_qp[0], per_qp[1]);
	ok(wait_event(&c, IBV_EVENT_SRQ_LIMIT_REACHED, c.srq),
	   "IBV_EVENT_SRQ_LIMIT_REACHED below the limit");
	bad = ibv_query_srq(c.srq, &sa);
	ok(!bad && sa.srq_limit == 0,
	   "the limit is disarmed after its event (%u)", sa.srq_limit);

	/* Resize with 3 pending, then post past the old size */
	sa.max_wr = SLOTS;
	ok(!ibv_modify_srq(c.srq, &sa, IBV_SRQ_MAX_WR),
	   "resize to %d WRs with 3 pending", SLOTS);
	bad = ibv_query_srq(c.srq, &sa);
	ok(!bad && sa.max_wr >= SLOTS,
	   "ibv_query_srq: max_wr %u", sa.max_wr);
	post_recv(&c, 8, 40);
	send_msgs(&c, 0, 3, 23);
	send_msgs(&c, 1, 2, 20);
	bad = reap(&c, 43, 43, per_qp);
	ok(!bad && per_qp[0] == 23 && per_qp[1] == 20,
	   "43 messages over the resized SRQ, data intact (%d + %d)",
	   per_qp[0], per_qp[1]);
	for (i = 0; i < 48 && c.taken[i] == 1; i++)
		;
	ok(i == 48, "each of the 48 receive WQEs consumed exactly once");
	ok(no_event(&c), "no second limit event without re-arming");

	/* One receiver fails: the other goes on with the SRQ's WQEs */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_ERR;
	ok(!ibv_modify_qp(c.rcv[0], &qa, IBV_QP_STATE),
	   "first receiving QP to the error state");
	ok(wait_event(&c, IBV_EVENT_QP_LAST_WQE_REACHED, c.rcv[0]),
	   "IBV_EVENT_QP_LAST_WQE_REACHED for it");
	post_recv(&c, 48, 4);
	send_msgs(&c, 1, 22, 4);
	bad = reap(&c, 4, 4, per_qp);
	ok(!bad && per_qp[1] == 4,
	   "the other QP still receives through the SRQ");

	ibv_destroy_qp(c.snd[0]);
	ibv_destroy_qp(c.snd[1]);
	ibv_destroy_qp(c.rcv[0]);
	ibv_destroy_qp(c.rcv[1]);
	ok(!ibv_destroy_srq(c.srq), "ibv_destroy_srq once its QPs are gone");
	ibv_dereg_mr(c.rmr);
	ibv_dereg_mr(c.smr);
	ibv_destroy_cq(c.cq);
	ibv_dealloc_pd(c.pd);
	ibv_close_device(c.ibv);
	return ktap_done();
}
