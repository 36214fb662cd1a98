// SPDX-License-Identifier: GPL-2.0-only
/*
 * teardown_verify: a process that holds a device while it goes away
 * ("rdma link delete", the netdev removed, rmmod, the device moved to
 * another namespace). Run it, wait for its "# ready" line, take the
 * device away, and it checks what it sees, in KTAP:
 *
 *   teardown_verify -d DEV -g GIDIDX -m event
 *       blocks in ibv_get_cq_event() on an armed CQ (its RC QP, looped
 *       to itself, idle): the call must fail, not hang
 *   teardown_verify -d DEV -g GIDIDX -m busy
 *       an RC QP looped to itself moves 4 KiB RDMA Writes without pause,
 *       posting and polling (touching its rings all the time): the loop
 *       must end in a refused post, a failed poll, a completion in error
 *       or SIGBUS on a ring, never in a hang or wrong data
 *
 * Both then must find IBV_EVENT_DEVICE_FATAL among the async events and
 * may not create a new CQ; the exit status says whether every point
 * passed.
 */
#include <getopt.h>
#include <setjmp.h>
#include <signal.h>

#include "verbs_util.h"

#define WR_SIZE		4096
#define IN_FLIGHT	16
#define WARMUP		100

static sigjmp_buf ring_gone;

static void on_sigbus(int sig __attribute__((unused)))
{
	siglongjmp(ring_gone, 1);
}

struct td {
	struct ibv_context	*ibv;
	struct ibv_pd		*pd;
	struct ibv_comp_channel	*ch;
	struct ibv_cq		*cq;
	struct ibv_qp		*qp;
	struct ibv_mr		*mr;
	uint8_t			*buf;		/* source, then target */
};

static void td_setup(struct td *t, const char *dev, int gid_index)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 64, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	union ibv_gid gid;
	struct vu_rc path;

	t->ibv = vu_open(dev);
	t->pd = ibv_alloc_pd(t->ibv);
	t->ch = ibv_create_comp_channel(t->ibv);
	if (!t->pd || !t->ch)
		die("PD, channel");
	t->cq = ibv_create_cq(t->ibv, 128, NULL, t->ch, 0);
	if (!t->cq)
		die("ibv_create_cq");
	qa.send_cq = t->cq;
	qa.recv_cq = t->cq;
	t->qp = ibv_create_qp(t->pd, &qa);
	t->buf = aligned_alloc(4096, 2 * WR_SIZE);
	if (!t->qp || !t->buf)
		die("QP, buffer");
	t->mr = ibv_reg_mr(t->pd, t->buf, 2 * WR_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!t->mr)
		die("ibv_reg_mr");
	vu_query_gid(t->ibv, gid_index, &gid);
	vu_rc_path(&path, &gid, gid_index, t->qp->qp_num);
	path.access = IBV_ACCESS_REMOTE_WRITE;
	vu_rc_connect(t->qp, &path);
}

static int post_write(struct td *t, uint64_t id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->buf, .length = WR_SIZE,
		.lkey = t->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)t->buf + WR_SIZE,
			     .rkey = t->mr->rkey },
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(t->qp, &wr, &bad);
}

/* Writes until the device goes: how the loop ended, as a string */
static const char *busy_loop(struct td *t)
{
	static const char *volatile why;
	volatile uint64_t done = 0, posted = 0;
	struct ibv_wc wc;
	int n;

	why = NULL;
	if (sigsetjmp(ring_gone, 1))
		return "SIGBUS on a ring";
	while (!why) {
		while (posted - done < IN_FLIGHT && !why) {
			if (post_write(t, posted))
				why = "ibv_post_send refused";
			else
				posted++;
		}
		n = ibv_poll_cq(t->cq, 1, &wc);
		if (n < 0) {
			why = "ibv_poll_cq failed";
		} else if (n && wc.status != IBV_WC_SUCCESS) {
			why = "a completion in error";
		} else if (n) {
			done++;
			if (done == WARMUP) {
				ok(!memcmp(t->buf, t->buf + WR_SIZE, WR_SIZE),
				   "%d Writes completed, their data in place",
				   WARMUP);
				printf("# ready\n");
				fflush(stdout);
			}
		}
	}
	printf("# %llu Writes completed\n", (unsigned long long)done);
	return why;
}

/* The async events until DEVICE_FATAL, or none left to read */
static int saw_device_fatal(struct ibv_context *ibv)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(ibv, &ev)) {
		enum ibv_event_type type = ev.event_type;

		ibv_ack_async_event(&ev);
		printf("# async event: %s\n", ibv_event_type_str(type));
		if (type == IBV_EVENT_DEVICE_FATAL)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *mode = "event";
	struct sigaction sa = { .sa_handler = on_sigbus };
	struct ibv_cq *cq2;
	struct td t = {};
	int gid_index = 1;
	void *ctx;
	int opt, i;

	while ((opt = getopt(argc, argv, "d:g:m:")) != -1) {
		switch (opt) {
		case 'd': dev = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'm': mode = optarg; break;
		default:
			fprintf(stderr, "usage: %s -d DEV -g GID -m event|busy\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGBUS, &sa, NULL);
	td_setup(&t, dev, gid_index);
	for (i = 0; i < 2 * WR_SIZE; i++)
		t.buf[i] = i < WR_SIZE ? (uint8_t)(i * 7 + 1) : 0;

	if (!strcmp(mode, "busy")) {
		const char *why = busy_loop(&t);

		ok(why != NULL, "the Writes stopped: %s", why);
	} else {
		struct ibv_cq *ev_cq;

		if (ibv_req_notify_cq(t.cq, 0))
			die("ibv_req_notify_cq");
		printf("# ready\n");
		fflush(stdout);
		errno = 0;
		ok(ibv_get_cq_event(t.ch, &ev_cq, &ctx) != 0,
		   "ibv_get_cq_event() returned, failing (%s)",
		   strerror(errno));
	}
	ok(saw_device_fatal(t.ibv), "IBV_EVENT_DEVICE_FATAL");
	cq2 = ibv_create_cq(t.ibv, 16, NULL, NULL, 0);
	ok(cq2 == NULL, "no new CQ on the device that went (%s)",
	   strerror(errno));
	return ktap_done();
}
