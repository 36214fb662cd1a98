// SPDX-License-Identifier: GPL-2.0-only
/*
 * rc_verify: end-to-end checks of an RC connection between two hosts,
 * with stock libibverbs. Run it on both ends:
 *
 *   rc_verify -d DEV -g GIDIDX -s            (server, passive)
 *   rc_verify -d DEV -g GIDIDX -c SERVER_IP  (client, active)
 *
 * (-t CASES picks cases, -m MTU the path MTU, default 1024)
 * and both print KTAP. The cases:
 *
 *   data     every operation (Send, Send with immediate, RDMA Write,
 *            Write with immediate, RDMA Read) at every size class from 0
 *            bytes to 1 MiB, one, three and (to 64 KiB) twenty SGEs,
 *            each in a page of its own, inline sends; the data
 *            is compared byte for byte on the other side; every work
 *            request must complete exactly once
 *   burst    64 Writes and 64 Sends in flight at once, then verified
 *   sig      selective signalling (8 of 64 Writes signalled: 8 completions,
 *            all data landed); an inline Send of exactly max_inline_data
 *   rnr      a Send with no receive posted ends in RNR_RETRY_EXC_ERR
 *   retry    a Send to a peer QP in the error state ends in RETRY_EXC_ERR
 *   access   Write without REMOTE_WRITE, a bad rkey, out of bounds, an MR
 *            of another PD, for Writes and Reads, each end in
 *            REM_ACCESS_ERR, and the responder's QP goes to the error state
 *   qp       transitions missing a required attribute are refused, so
 *            is a path MTU above the port's active MTU;
 *            ibv_query_qp returns what was set; SQD drains with an event
 *   mr       Writes and Reads from an MR at an odd address and length
 *   cq       solicited-only arming: an event for a solicited Send and
 *            none for an unsolicited one; ibv_resize_cq with a completion
 *            pending keeps it
 *   garbage  the client writes random bytes as WQEs straight into its SQ
 *            ring (found in /proc/self/maps), rings the doorbell, and
 *            expects every one to complete, the QP in the error state,
 *            and the kernel unharmed (the testbed checks its log)
 *   atomic   192 fetch-and-add in flight (max_rd_atomic 16) on one
 *            counter, a READ of it after every eighth: each returns the
 *            value before it, in order; each READ sees at least the ones
 *            before it (exactly those on a clean wire; a READ resent
 *            after a loss reads the memory again, as the spec allows);
 *            compare-and-swap that hits and one that misses;
 *            the counter ends right (every atomic ran exactly once, also
 *            over a lossy, duplicating wire); an atomic to an MR without
 *            REMOTE_ATOMIC ends in REM_ACCESS_ERR, to a QP without it in
 *            REM_ACCESS_ERR (sroce) or REM_INV_REQ_ERR (rdma_rxe), with
 *            the target untouched (with -l, a lossy wire, also in
 *            RETRY_EXC_ERR: the one fatal NAK may be lost)
 *   rkey     the server deregisters an MR, then registers and
 *            deregisters 600 more: none gets the revoked rkey back; a
 *            Write with the revoked rkey while a new MR covers the same
 *            memory ends in REM_ACCESS_ERR and lands nothing
 *   forge    (not in the default set) a stream of verified Writes and
 *            Sends while another program forges packets into the
 *            connection: with -f FILE the client writes "QPN PSN VA RKEY"
 *            of the server's QP, its first PSN and a 4 KiB target in the
 *            server's buffer to FILE once the stream runs, and streams
 *            until FILE.done exists; the server then checks that nothing
 *            landed in the target (rc_forge.sh)
 *
 * The two sides talk over TCP (port 18517) to exchange QP numbers, PSNs,
 * GIDs and remote keys, and to agree on each step and its outcome.
 */
#define _GNU_SOURCE		/* pthread_timedjoin_np() */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <infiniband/verbs.h>

#include "verbs_util.h"
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PORT		18517
#define BUF_SIZE	(4u << 20)
#define MAX_MSG		(1u << 20)
/* The most pieces a gather list of the data case has (make_sges()) */
#define MANY_SGES	20
/*
 * A safety net only: a work request completes, in error if need be, once
 * the transport's retries run out; this catches an engine that stalls.
 */
#define POLL_SECONDS	400

struct peer {
	uint32_t qpn;
	uint32_t psn;
	union ibv_gid gid;
	uint64_t addr;		/* writable, readable region */
	uint32_t rkey;
	uint64_t ro_addr;	/* region without REMOTE_WRITE */
	uint32_t ro_rkey;
	uint64_t pd2_addr;	/* writable region of another PD */
	uint32_t pd2_rkey;
	uint64_t at_addr;	/* atomic cells */
	uint32_t at_rkey;
	uint32_t len;
};

struct ctx {
	struct ibv_context *ibv;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;	/* local: LOCAL_WRITE | REMOTE_* */
	struct ibv_mr *ro_mr;	/* REMOTE_READ only */
	struct ibv_pd *pd2;
	struct ibv_mr *pd2_mr;	/* full access, but in pd2 */
	struct ibv_mr *at_mr;	/* REMOTE_ATOMIC | REMOTE_READ */
	uint64_t *at_buf;
	uint8_t *buf;
	uint8_t *ro_buf;
	int gid_index;
	int sock;
	bool server;
	struct peer me, remote;
};

static enum ibv_mtu path_mtu = IBV_MTU_1024;

/* ---- TCP side channel ---- */

static void xfer(struct ctx *c, void *out, void *in, size_t len)
{
	size_t done;
	ssize_t n;

	for (done = 0; done < len; done += n) {
		n = write(c->sock, (char *)out + done, len - done);
		if (n <= 0)
			die("tcp write");
	}
	for (done = 0; done < len; done += n) {
		n = read(c->sock, (char *)in + done, len - done);
		if (n <= 0)
			die("tcp read");
	}
}

/* Both sides reach this point; exchange one verdict byte. */
static uint8_t sync_peer(struct ctx *c, uint8_t mine)
{
	uint8_t theirs;

	xfer(c, &mine, &theirs, 1);
	return theirs;
}

static void tcp_connect(struct ctx *c, const char *host)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	int one = 1, i, s;

	if (c->server) {
		s = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
		if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 1))
			die("listen");
		printf("# listening on %d\n", PORT);
		fflush(stdout);
		c->sock = accept(s, NULL, NULL);
		close(s);
		if (c->sock < 0)
			die("accept");
	} else {
		if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
			die("server address");
		/* The server may still be starting: a bounded wait. */
		for (i = 0; i < 600; i++) {
			c->sock = socket(AF_INET, SOCK_STREAM, 0);
			if (!connect(c->sock, (struct sockaddr *)&sa, sizeof(sa)))
				break;
			close(c->sock);
			c->sock = -1;
			usleep(100000);
		}
		if (c->sock < 0)
			die("connect");
	}
	setsockopt(c->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ---- verbs ---- */

static void open_device(struct ctx *c, const char *name)
{
	c->ibv = vu_open(name);
	c->pd = ibv_alloc_pd(c->ibv);
	c->cq = ibv_create_cq(c->ibv, 512, NULL, NULL, 0);
	c->buf = aligned_alloc(4096, BUF_SIZE);
	c->ro_buf = aligned_alloc(4096, BUF_SIZE);
	c->at_buf = aligned_alloc(4096, 4096);
	if (!c->pd || !c->cq || !c->buf || !c->ro_buf || !c->at_buf)
		die("resources");
	c->mr = ibv_reg_mr(c->pd, c->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	c->pd2 = ibv_alloc_pd(c->ibv);
	if (!c->pd2)
		die("second PD");
	c->pd2_mr = ibv_reg_mr(c->pd2, c->ro_buf, BUF_SIZE,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			       IBV_ACCESS_REMOTE_READ);
	c->ro_mr = ibv_reg_mr(c->pd, c->ro_buf, BUF_SIZE,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	c->at_mr = ibv_reg_mr(c->pd, c->at_buf, 4096,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC |
			      IBV_ACCESS_REMOTE_READ);
	if (!c->mr || !c->ro_mr || !c->at_mr)
		die("ibv_reg_mr");
	vu_query_gid(c->ibv, c->gid_index, &c->me.gid);
}

struct qp_opts {
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	bool no_atomic;		/* the QP grants no REMOTE_ATOMIC */
};

static const struct qp_opts default_opts = { 14, 7, 7, 12, false };

/* A fresh QP for a case, connected to the peer's fresh QP. */
static void connect_qp_with(struct ctx *c, const struct qp_opts *o,
			    struct ibv_qp_init_attr *init);

static void connect_qp(struct ctx *c, const struct qp_opts *o)
{
	struct ibv_qp_init_attr init = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = { .max_send_wr = 256, .max_recv_wr = 256,
			 .max_send_sge = MANY_SGES, .max_recv_sge = 4,
			 .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
	};

	connect_qp_with(c, o, &init);
}

static void connect_qp_with(struct ctx *c, const struct qp_opts *o,
			    struct ibv_qp_init_attr *init)
{
	struct peer me;
	struct ibv_wc wc;
	struct vu_rc p;
	int access;

	if (c->qp)
		ibv_destroy_qp(c->qp);
	/* Leftovers of the previous case (flushes) are not ours any more. */
	while (ibv_poll_cq(c->cq, 1, &wc) > 0)
		;
	c->qp = ibv_create_qp(c->pd, init);
	if (!c->qp)
		die("ibv_create_qp");

	c->me.qpn = c->qp->qp_num;
	c->me.psn = (uint32_t)(rand() & 0xffffff);
	c->me.addr = (uintptr_t)c->buf;
	c->me.rkey = c->mr->rkey;
	c->me.ro_addr = (uintptr_t)c->ro_buf;
	c->me.ro_rkey = c->ro_mr->rkey;
	c->me.pd2_addr = (uintptr_t)c->ro_buf;
	c->me.pd2_rkey = c->pd2_mr->rkey;
	c->me.at_addr = (uintptr_t)c->at_buf;
	c->me.at_rkey = c->at_mr->rkey;
	c->me.len = BUF_SIZE;
	me = c->me;
	xfer(c, &me, &c->remote, sizeof(me));

	access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (!o->no_atomic)
		access |= IBV_ACCESS_REMOTE_ATOMIC;
	if (vu_rc_init(c->qp, access))
		die("INIT");

	vu_rc_path(&p, &c->remote.gid, c->gid_index, c->remote.qpn);
	p.mtu = path_mtu;
	p.rq_psn = c->remote.psn;
	p.sq_psn = c->me.psn;
	p.rd_atomic = 16;
	p.min_rnr_timer = o->min_rnr_timer;
	p.hop_limit = 64;
	p.timeout = o->timeout;
	p.retry_cnt = o->retry_cnt;
	p.rnr_retry = o->rnr_retry;
	if (vu_rc_rtr(c->qp, &p))
		die("RTR");
	if (vu_rc_rts(c->qp, &p))
		die("RTS");
	sync_peer(c, 1);
}

/* Poll until @n completions arrived (or the deadline passed). */
static int poll_n(struct ctx *c, struct ibv_wc *wc, int n)
{
	time_t end = time(NULL) + POLL_SECONDS;
	int got = 0, r;

	while (got < n && time(NULL) < end) {
		r = ibv_poll_cq(c->cq, n - got, wc + got);
		if (r < 0)
			die("ibv_poll_cq");
		got += r;
	}
	return got;
}

static uint8_t pattern(uint32_t seed, uint32_t i)
{
	uint32_t x = seed * 2654435761u + i * 40503u;

	return (uint8_t)(x ^ (x >> 13) ^ (x >> 24));
}

static void fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern(seed, i);
}

static bool check(const uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern(seed, i)) {
			printf("# byte %u: %#x, want %#x\n", i, p[i],
			       pattern(seed, i));
			return false;
		}
	return true;
}

/*
 * Local gather list for a message of @len bytes at the start of the
 * message area: one SGE, or @pieces pieces with gaps between them, each
 * in other pages than its neighbours (sroce sends a packet's payload as
 * page fragments of the MR, at most 16 of them, and copies a packet
 * that would need more: twenty pieces of a small message take that
 * path).
 */
static int make_sges(struct ctx *c, uint8_t *base, uint32_t len, int pieces,
		     struct ibv_sge *sge)
{
	uint32_t off = 0, p;
	int i;

	if (pieces == 1 || len < (uint32_t)pieces) {
		sge[0] = (struct ibv_sge){ (uintptr_t)base, len, c->mr->lkey };
		return 1;
	}
	for (i = 0; i < pieces; i++) {
		p = i < pieces - 1 ? len / pieces :
				     len - (pieces - 1) * (len / pieces);
		/* 4 KiB + 8 bytes of gap between the pieces */
		sge[i] = (struct ibv_sge){ (uintptr_t)base + off + i * 4104u, p,
					   c->mr->lkey };
		off += p;
	}
	return pieces;
}

static void fill_sges(struct ibv_sge *sge, int n, uint32_t seed)
{
	uint32_t pos = 0, i;
	int k;

	for (k = 0; k < n; k++)
		for (i = 0; i < sge[k].length; i++)
			((uint8_t *)(uintptr_t)sge[k].addr)[i] =
				pattern(seed, pos++);
}

static bool gather_check(struct ibv_sge *sge, int n, uint32_t seed)
{
	uint32_t pos = 0, i;
	int k;

	for (k = 0; k < n; k++)
		for (i = 0; i < sge[k].length; i++, pos++)
			if (((uint8_t *)(uintptr_t)sge[k].addr)[i] !=
			    pattern(seed, pos)) {
				printf("# byte %u differs\n", pos);
				return false;
			}
	return true;
}

enum op { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_NR };
static const char *const op_name[] = {
	"send", "send_imm", "write", "write_imm", "read"
};
static const uint32_t sizes[] = {
	0, 1, 3, 63, 64, 1000, 1023, 1024, 1025, 4096, 65537, 262144, MAX_MSG
};

/* Receive area on the server: the second MiB of its buffer. */
#define RECV_OFF	(1u << 20)
/* Client's local message area: the third MiB (room for SGE gaps). */
#define LOCAL_OFF	(2u << 20)
/* Server: 4 KiB no data case touches, for MRs of their own and forgeries. */
#define SPARE_OFF	(3u << 20)
#define SPARE_LEN	4096u

static void post_recv(struct ctx *c, uint64_t wr_id, int pieces)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .num_sge = 1 }, *bad;
	struct ibv_sge sge[2];

	sge[0] = (struct ibv_sge){ (uintptr_t)c->buf + RECV_OFF, MAX_MSG,
				   c->mr->lkey };
	if (pieces > 1) {
		/* Two pieces: the first is odd-sized, the second the rest. */
		sge[0].length = 777;
		sge[1] = (struct ibv_sge){ (uintptr_t)c->buf + RECV_OFF + 777,
					   MAX_MSG - 777, c->mr->lkey };
		wr.num_sge = 2;
	}
	wr.sg_list = sge;
	if (ibv_post_recv(c->qp, &wr, &bad))
		die("ibv_post_recv");
}

/* One message of @op and @len, verified on the receiving side. */
static bool data_step(struct ctx *c, enum op op, uint32_t len, int pieces,
		      bool inl, uint32_t seed)
{
	uint32_t imm = 0x1000000u + seed;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge[MANY_SGES];
	struct ibv_wc wc[2];
	bool good = true;
	uint8_t verdict;
	int n;

	if (c->server) {
		if (op == OP_SEND || op == OP_SEND_IMM || op == OP_WRITE_IMM)
			post_recv(c, seed, pieces);
		if (op == OP_READ)
			fill(c->buf, len, seed);
		memset(c->buf + RECV_OFF, 0xee, MAX_MSG);
		if (op == OP_WRITE || op == OP_WRITE_IMM)
			memset(c->buf, 0xee, len + 16);
		sync_peer(c, 1);
		if (op == OP_SEND || op == OP_SEND_IMM || op == OP_WRITE_IMM) {
			n = poll_n(c, wc, 1);
			good = n == 1 && wc[0].status == IBV_WC_SUCCESS &&
			       wc[0].wr_id == seed && wc[0].byte_len == len;
			if (good && op != OP_SEND)
				good = (wc[0].wc_flags & IBV_WC_WITH_IMM) &&
				       ntohl(wc[0].imm_data) == imm;
			if (good)
				good = wc[0].opcode == (op == OP_WRITE_IMM ?
					IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV);
			if (!good && n == 1)
				printf("# recv: status %d opcode %d len %u flags %#x\n",
				       wc[0].status, wc[0].opcode,
				       wc[0].byte_len, wc[0].wc_flags);
		}
		/* Wait for the sender's completion before looking. */
		sync_peer(c, 1);
		if (op == OP_SEND || op == OP_SEND_IMM)
			good = good && check(c->buf + RECV_OFF, len, seed) &&
			       (len == MAX_MSG || c->buf[RECV_OFF + len] == 0xee);
		if (op == OP_WRITE || op == OP_WRITE_IMM)
			good = good && check(c->buf, len, seed) &&
			       c->buf[len] == 0xee;
		verdict = sync_peer(c, good);
		return good && verdict;
	}

	n = make_sges(c, c->buf + LOCAL_OFF, len, pieces, sge);
	if (op == OP_READ)
		memset(c->buf + LOCAL_OFF, 0, len + pieces * 4104);
	else if (!inl)
		fill_sges(sge, n, seed);
	else
		fill(c->buf + LOCAL_OFF, len, seed);
	wr.wr_id = seed;
	wr.sg_list = sge;
	wr.num_sge = len ? n : 0;
	wr.send_flags = IBV_SEND_SIGNALED | (inl ? IBV_SEND_INLINE : 0);
	wr.imm_data = htonl(imm);
	wr.opcode = op == OP_SEND ? IBV_WR_SEND :
		    op == OP_SEND_IMM ? IBV_WR_SEND_WITH_IMM :
		    op == OP_WRITE ? IBV_WR_RDMA_WRITE :
		    op == OP_WRITE_IMM ? IBV_WR_RDMA_WRITE_WITH_IMM :
		    IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = c->remote.addr;
	wr.wr.rdma.rkey = c->remote.rkey;
	sync_peer(c, 1);
	if (ibv_post_send(c->qp, &wr, &bad))
		die("ibv_post_send");
	n = poll_n(c, wc, 1);
	good = n == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == seed;
	if (!good && n == 1)
		printf("# send: status %s\n", ibv_wc_status_str(wc[0].status));
	if (!good && n == 0)
		printf("# send: no completion\n");
	/* Exactly once: nothing else may show up. */
	if (good && ibv_poll_cq(c->cq, 1, &wc[1]) != 0) {
		printf("# an extra completion\n");
		good = false;
	}
	if (good && op == OP_READ)
		good = gather_check(sge, make_sges(c, c->buf + LOCAL_OFF, len,
						   pieces, sge), seed);
	sync_peer(c, 1);
	verdict = sync_peer(c, good);
	return good && verdict;
}

static void case_data(struct ctx *c)
{
	uint32_t seed = 1;
	unsigned int s;
	static const int piece_counts[] = { 1, 3, MANY_SGES };
	int op, pc, pieces, all = 0, bad = 0;

	connect_qp(c, &default_opts);
	for (op = 0; op < OP_NR; op++)
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (pc = 0; pc < 3; pc++) {
				bool inl;

				pieces = piece_counts[pc];
				inl = op <= OP_SEND_IMM && pieces == 1 &&
				      sizes[s] <= 64 && sizes[s] % 2;
				/* the message area holds MAX_MSG + 3 gaps */
				if (pieces > 3 && sizes[s] > 65537)
					continue;
				all++;
				if (!data_step(c, op, sizes[s], pieces, inl,
					       seed++)) {
					bad++;
					printf("# %s %u bytes, %d SGEs%s: FAILED\n",
					       op_name[op], sizes[s], pieces,
					       inl ? ", inline" : "");
				}
			}
	ok(bad == 0, "data: %d messages, every op and size, compared", all);
}

/* Many requests in flight: each completes exactly once, data intact. */
static void case_burst(struct ctx *c, bool sends)
{
	const int n = 64, len = 5000;
	struct ibv_wc wc[64];
	bool seen[64] = {};
	bool good = true;
	int i, got;

	if (c->server) {
		if (sends)
			for (i = 0; i < n; i++) {
				struct ibv_recv_wr wr = { .wr_id = i, .num_sge = 1 }, *bad;
				struct ibv_sge sge = { (uintptr_t)c->buf + i * 8192u,
						       8192, c->mr->lkey };

				wr.sg_list = &sge;
				if (ibv_post_recv(c->qp, &wr, &bad))
					die("ibv_post_recv");
			}
		memset(c->buf, 0, n * 8192u);
		sync_peer(c, 1);
		if (sends) {
			got = poll_n(c, wc, n);
			good = got == n;
			for (i = 0; i < got; i++) {
				good = good && wc[i].status == IBV_WC_SUCCESS &&
				       wc[i].wr_id < (uint64_t)n &&
				       !seen[wc[i].wr_id] &&
				       wc[i].byte_len == (uint32_t)len;
				if (wc[i].wr_id < (uint64_t)n)
					seen[wc[i].wr_id] = true;
			}
		}
		sync_peer(c, 1);
		/* Sends land in posting order, i.e. message i in buffer i. */
		for (i = 0; i < n && good; i++)
			good = check(c->buf + i * 8192u, len, 5000 + i);
		ok(sync_peer(c, good) && good, "burst of %d %s in flight",
		   n, sends ? "sends" : "writes");
		return;
	}

	sync_peer(c, 1);
	for (i = 0; i < n; i++) {
		struct ibv_send_wr wr = {}, *bad;
		struct ibv_sge sge = { (uintptr_t)c->buf + LOCAL_OFF + i * 8192u,
				       len, c->mr->lkey };

		fill(c->buf + LOCAL_OFF + i * 8192u, len, 5000 + i);
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.opcode = sends ? IBV_WR_SEND : IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = c->remote.addr + i * 8192u;
		wr.wr.rdma.rkey = c->remote.rkey;
		if (ibv_post_send(c->qp, &wr, &bad))
			die("ibv_post_send");
	}
	got = poll_n(c, wc, n);
	good = got == n;
	for (i = 0; i < got; i++) {
		good = good && wc[i].status == IBV_WC_SUCCESS &&
		       wc[i].wr_id == (uint64_t)i;	/* in order, once */
		if (wc[i].status != IBV_WC_SUCCESS)
			printf("# wr %d: %s\n", i,
			       ibv_wc_status_str(wc[i].status));
	}
	if (ibv_poll_cq(c->cq, 1, wc) != 0)
		good = false;
	sync_peer(c, 1);
	ok(sync_peer(c, good) && good, "burst of %d %s in flight", n,
	   sends ? "sends" : "writes");
}

/* The client's one request must fail with @want. */
static void expect_error(struct ctx *c, const char *name,
			 enum ibv_wr_opcode opcode, uint64_t raddr,
			 uint32_t rkey, uint32_t len, enum ibv_wc_status want)
{
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge = { (uintptr_t)c->buf + LOCAL_OFF, len,
			       c->mr->lkey };
	struct ibv_wc wc;
	bool good;

	fill(c->buf + LOCAL_OFF, len, 77);
	wr.wr_id = 4242;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = opcode;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(c->qp, &wr, &bad))
		die("ibv_post_send");
	good = poll_n(c, &wc, 1) == 1 && wc.wr_id == 4242 && wc.status == want;
	if (!good)
		printf("# %s: got %s\n", name, ibv_wc_status_str(wc.status));
	sync_peer(c, 1);
	ok(sync_peer(c, good) && good, "%s ends in %s", name,
	   ibv_wc_status_str(want));
}

/* Server side of an access case: the QP must end in the error state. */
static void responder_errs(struct ctx *c, const char *name)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	bool good;

	sync_peer(c, 1);
	good = !ibv_query_qp(c->qp, &a, IBV_QP_STATE, &init) &&
	       a.qp_state == IBV_QPS_ERR;
	/* The read-only region was not written. */
	good = good && c->ro_buf[0] == 0x5a && c->ro_buf[BUF_SIZE - 1] == 0x5a;
	if (!good)
		printf("# responder state %d\n", a.qp_state);
	ok(sync_peer(c, good) && good, "%s: responder QP in error, memory intact",
	   name);
}

static void case_access(struct ctx *c)
{
	struct {
		const char *name;
		enum ibv_wr_opcode op;
		/* 0 no write access, 1 bad rkey, 2 out of bounds, 3 other PD */
		int kind;
	} cases[] = {
		{ "write without REMOTE_WRITE", IBV_WR_RDMA_WRITE, 0 },
		{ "write with a bad rkey", IBV_WR_RDMA_WRITE, 1 },
		{ "write out of bounds", IBV_WR_RDMA_WRITE, 2 },
		{ "read with a bad rkey", IBV_WR_RDMA_READ, 1 },
		{ "read out of bounds", IBV_WR_RDMA_READ, 2 },
		{ "write to an MR of another PD", IBV_WR_RDMA_WRITE, 3 },
		{ "read from an MR of another PD", IBV_WR_RDMA_READ, 3 },
	};
	unsigned int i;

	memset(c->ro_buf, 0x5a, BUF_SIZE);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t addr;
		uint32_t rkey;

		connect_qp(c, &default_opts);
		if (c->server) {
			responder_errs(c, cases[i].name);
			continue;
		}
		addr = cases[i].kind == 0 ? c->remote.ro_addr : c->remote.addr;
		rkey = cases[i].kind == 0 ? c->remote.ro_rkey : c->remote.rkey;
		if (cases[i].kind == 1)
			rkey ^= 0x5500;
		if (cases[i].kind == 3) {
			addr = c->remote.pd2_addr;
			rkey = c->remote.pd2_rkey;
		}
		if (cases[i].kind == 2)
			addr += c->remote.len - 10;
		expect_error(c, cases[i].name, cases[i].op, addr, rkey, 100,
			     IBV_WC_REM_ACCESS_ERR);
	}
}

static void post_atomic(struct ctx *c, uint64_t wr_id, enum ibv_wr_opcode op,
			uint64_t raddr, uint32_t rkey, uint64_t compare_add,
			uint64_t swap, uint64_t *result)
{
	struct ibv_sge sge = { (uintptr_t)result, 8, c->mr->lkey };
	struct ibv_send_wr wr = {}, *bad;

	*result = 0xeeeeeeeeeeeeeeeeULL;
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	wr.wr.atomic.rkey = rkey;
	if (ibv_post_send(c->qp, &wr, &bad))
		die("ibv_post_send (atomic)");
}

#define AT_N		192	/* fetch-and-adds in the stream */
#define AT_BASE		1000
#define AT_ADD		3

/* Client: the atomic stream and compare-and-swap; true if all as said */
static bool atomic_stream(struct ctx *c)
{
	uint64_t *res = (uint64_t *)(c->buf + LOCAL_OFF);
	uint64_t *rd = res + AT_N, *cas = rd + AT_N / 8;
	struct ibv_wc wc[AT_N + AT_N / 8];
	int i, k = 0, got, want = AT_N + AT_N / 8;
	bool good;

	for (i = 0; i < AT_N; i++) {
		post_atomic(c, i, IBV_WR_ATOMIC_FETCH_AND_ADD, c->remote.at_addr,
			    c->remote.at_rkey, AT_ADD, 0, &res[i]);
		if (i % 8 == 7) {
			struct ibv_sge sge = { (uintptr_t)&rd[i / 8], 8,
					       c->mr->lkey };
			struct ibv_send_wr wr = {}, *bad;

			rd[i / 8] = 0;
			wr.wr_id = 10000 + i;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = IBV_WR_RDMA_READ;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.wr.rdma.remote_addr = c->remote.at_addr;
			wr.wr.rdma.rkey = c->remote.at_rkey;
			if (ibv_post_send(c->qp, &wr, &bad))
				die("ibv_post_send (READ)");
		}
	}
	got = poll_n(c, wc, want);
	good = got == want;
	for (i = 0; i < got; i++) {
		bool is_rd = i % 9 == 8;
		uint64_t id = is_rd ? 10000 + (uint64_t)(i / 9) * 8 + 7 :
				      (uint64_t)(i - i / 9);

		if (wc[i].status != IBV_WC_SUCCESS || wc[i].wr_id != id ||
		    wc[i].opcode != (is_rd ? IBV_WC_RDMA_READ :
					     IBV_WC_FETCH_ADD)) {
			printf("# completion %d: wr_id %lu %s opcode %d\n", i,
			       (unsigned long)wc[i].wr_id,
			       ibv_wc_status_str(wc[i].status), wc[i].opcode);
			good = false;
		}
	}
	for (i = 0; i < AT_N && good; i++) {
		if (res[i] != AT_BASE + (uint64_t)AT_ADD * i) {
			printf("# fetch-and-add %d returned %llu\n", i,
			       (unsigned long long)res[i]);
			good = false;
		}
		/* a resent READ may see later atomics: never earlier */
		if (i % 8 == 7 &&
		    (rd[i / 8] < AT_BASE + (uint64_t)AT_ADD * (i + 1) ||
		     rd[i / 8] > AT_BASE + (uint64_t)AT_ADD * AT_N ||
		     (rd[i / 8] - AT_BASE) % AT_ADD)) {
			printf("# READ after fetch-and-add %d returned %llu\n",
			       i, (unsigned long long)rd[i / 8]);
			good = false;
		}
	}
	/* compare-and-swap: 7 -> 9 swaps; 7 -> 11 finds 9 and keeps it */
	post_atomic(c, 20000, IBV_WR_ATOMIC_CMP_AND_SWP, c->remote.at_addr + 8,
		    c->remote.at_rkey, 7, 9, &cas[0]);
	post_atomic(c, 20001, IBV_WR_ATOMIC_CMP_AND_SWP, c->remote.at_addr + 8,
		    c->remote.at_rkey, 7, 11, &cas[1]);
	got = poll_n(c, wc, 2);
	for (i = 0; i < got; i++)
		k += wc[i].status == IBV_WC_SUCCESS &&
		     wc[i].opcode == IBV_WC_COMP_SWAP &&
		     wc[i].wr_id == 20000u + (unsigned int)i;
	if (k != 2 || cas[0] != 7 || cas[1] != 9) {
		printf("# compare-and-swap: %d good completions, returned %llu, %llu\n",
		       k, (unsigned long long)cas[0],
		       (unsigned long long)cas[1]);
		good = false;
	}
	return good;
}

/*
 * -l: the wire loses packets. A responder sends its fatal NAK once and
 * then drops everything in the error state: if that NAK is lost, the
 * requester's retries run out instead (RETRY_EXC_ERR), as with any RC
 * implementation.
 */
static bool lossy_wire;

/* Client: one atomic that must fail with @want */
static bool atomic_fails(struct ctx *c, const char *name, uint64_t raddr,
			 uint32_t rkey, enum ibv_wc_status want)
{
	uint64_t *res = (uint64_t *)(c->buf + LOCAL_OFF);
	struct ibv_wc wc;
	bool good;

	post_atomic(c, 4343, IBV_WR_ATOMIC_FETCH_AND_ADD, raddr, rkey, 1, 0,
		    res);
	good = poll_n(c, &wc, 1) == 1 && wc.wr_id == 4343 &&
	       (wc.status == want ||
		/* rdma_rxe NAKs an opcode its QP disallows invalid */
		(want == IBV_WC_REM_INV_REQ_ERR &&
		 wc.status == IBV_WC_REM_ACCESS_ERR) ||
		(lossy_wire && wc.status == IBV_WC_RETRY_EXC_ERR));
	if (!good || wc.status == IBV_WC_RETRY_EXC_ERR)
		printf("# %s: got %s\n", name, ibv_wc_status_str(wc.status));
	return good;
}

static void case_atomic(struct ctx *c)
{
	static const struct qp_opts no_atomic = { 14, 7, 7, 12, true };
	const char *what[2] = {
		"atomic to an MR without REMOTE_ATOMIC",
		"atomic to a QP without REMOTE_ATOMIC",
	};
	bool good;
	int i;

	connect_qp(c, &default_opts);
	if (c->server) {
		memset(c->at_buf, 0, 4096);
		c->at_buf[0] = AT_BASE;
		c->at_buf[1] = 7;
		sync_peer(c, 1);
		sync_peer(c, 1);	/* the client is done */
		good = c->at_buf[0] == AT_BASE + (uint64_t)AT_ADD * AT_N &&
		       c->at_buf[1] == 9 && !c->at_buf[2];
		if (!good)
			printf("# cells hold %llu, %llu, %llu\n",
			       (unsigned long long)c->at_buf[0],
			       (unsigned long long)c->at_buf[1],
			       (unsigned long long)c->at_buf[2]);
	} else {
		sync_peer(c, 1);
		good = atomic_stream(c);
		sync_peer(c, 1);
	}
	ok(sync_peer(c, good) && good,
	   "atomics: %d fetch-and-add in flight with READs between, compare-and-swap; each ran once, in order",
	   AT_N);

	memset(c->ro_buf, 0x5a, BUF_SIZE);
	for (i = 0; i < 2; i++) {
		connect_qp(c, c->server && i == 1 ? &no_atomic : &default_opts);
		if (c->server) {
			struct ibv_qp_init_attr init;
			struct ibv_qp_attr a;

			c->at_buf[3] = 5;
			sync_peer(c, 1);
			good = !ibv_query_qp(c->qp, &a, IBV_QP_STATE, &init) &&
			       a.qp_state == IBV_QPS_ERR && c->at_buf[3] == 5 &&
			       c->ro_buf[0] == 0x5a;
			ok(sync_peer(c, good) && good,
			   "%s: responder QP in error, memory intact", what[i]);
			continue;
		}
		good = i == 0 ?
		       atomic_fails(c, what[i], c->remote.ro_addr,
				    c->remote.ro_rkey, IBV_WC_REM_ACCESS_ERR) :
		       atomic_fails(c, what[i], c->remote.at_addr + 24,
				    c->remote.at_rkey, IBV_WC_REM_INV_REQ_ERR);
		sync_peer(c, 1);
		ok(sync_peer(c, good) && good, "%s: responder QP in error, memory intact",
		   what[i]);
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool spare_intact(struct ctx *c)
{
	uint32_t i;

	for (i = 0; i < SPARE_LEN; i++)
		if (c->buf[SPARE_OFF + i] != 0x5a) {
			printf("# byte %u of the spare area is %#x\n", i,
			       c->buf[SPARE_OFF + i]);
			return false;
		}
	return true;
}

/*
 * A revoked rkey must stay dead: the next registrations (600, more than
 * the 256 values of the key byte) never hand it out again, and a Write
 * with it fails even while a new MR covers the very same memory.
 */
static void case_rkey(struct ctx *c)
{
	enum { N = 600 };
	static uint32_t keys[N + 1];
	struct { uint64_t addr; uint32_t rkey; } revoked;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	struct ibv_mr *mr;
	bool differ = true, distinct = true, good;
	int i;

	connect_qp(c, &default_opts);
	if (!c->server) {
		xfer(c, &revoked, &revoked, sizeof(revoked));
		expect_error(c, "rkey: write with a revoked rkey, a new MR on its memory",
			     IBV_WR_RDMA_WRITE, revoked.addr, revoked.rkey, 100,
			     IBV_WC_REM_ACCESS_ERR);
		return;
	}

	mr = ibv_reg_mr(c->pd, c->buf + SPARE_OFF, SPARE_LEN,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	keys[N] = mr->rkey;
	if (ibv_dereg_mr(mr))
		die("ibv_dereg_mr");
	for (i = 0; i < N; i++) {
		mr = ibv_reg_mr(c->pd, c->buf + SPARE_OFF, SPARE_LEN,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
		if (!mr)
			die("ibv_reg_mr");
		keys[i] = mr->rkey;
		if (keys[i] == keys[N]) {
			printf("# registration %d got the revoked rkey %#x\n", i,
			       keys[N]);
			differ = false;
		}
		if (ibv_dereg_mr(mr))
			die("ibv_dereg_mr");
	}
	ok(differ, "rkey: %d registrations after a deregistration, none gets the revoked rkey",
	   N);
	qsort(keys, N + 1, sizeof(keys[0]), cmp_u32);
	for (i = 0; i < N && distinct; i++)
		if (keys[i] == keys[i + 1]) {
			printf("# rkey %#x handed out twice\n", keys[i]);
			distinct = false;
		}
	ok(distinct, "rkey: %d consecutive registrations, all rkeys different",
	   N + 1);

	memset(c->buf + SPARE_OFF, 0x5a, SPARE_LEN);
	mr = ibv_reg_mr(c->pd, c->buf + SPARE_OFF, SPARE_LEN,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	revoked.addr = (uintptr_t)c->buf + SPARE_OFF;
	revoked.rkey = keys[N];
	xfer(c, &revoked, &revoked, sizeof(revoked));
	sync_peer(c, 1);
	good = !ibv_query_qp(c->qp, &a, IBV_QP_STATE, &init) &&
	       a.qp_state == IBV_QPS_ERR && spare_intact(c);
	ok(sync_peer(c, good) && good,
	   "rkey: revoked rkey refused: responder QP in error, memory intact");
	ibv_dereg_mr(mr);
}

/*
 * Traffic while rc_forge.sh forges packets into the connection: Writes
 * and Sends of 64 KiB + 1, each compared, until the forger is done. A
 * forged PSN makes the responder NAK or re-ACK; the data must not care.
 * (A long timeout: a slow guest is not what this case is about.)
 */
static const char *forge_file;

static void case_forge(struct ctx *c)
{
	static const struct qp_opts o = { 17, 7, 7, 12, false };
	static const enum op ops[] = { OP_WRITE, OP_SEND };
	char done[4096];
	uint32_t seed = 50000;
	int rounds = 0, bad = 0;
	uint8_t go;

	connect_qp(c, &o);
	if (c->server)
		memset(c->buf + SPARE_OFF, 0x5a, SPARE_LEN);
	snprintf(done, sizeof(done), "%s.done", forge_file ? forge_file : "");
	for (;;) {
		/* Once the stream runs, tell the forger where to aim. */
		if (!c->server && forge_file && rounds == 1) {
			char tmp[4096];
			FILE *f;

			snprintf(tmp, sizeof(tmp), "%s.tmp", forge_file);
			f = fopen(tmp, "w");
			if (!f)
				die(tmp);
			fprintf(f, "%u %u %llu %u\n", c->remote.qpn, c->me.psn,
				(unsigned long long)c->remote.addr + SPARE_OFF,
				c->remote.rkey);
			if (fclose(f) || rename(tmp, forge_file))
				die(forge_file);
		}
		go = rounds < 2 ||
		     (forge_file ? access(done, F_OK) != 0 : rounds < 3);
		/* The client decides. */
		go = c->server ? sync_peer(c, 1) : (sync_peer(c, go), go);
		if (!go)
			break;
		if (!data_step(c, ops[rounds % 2], 65537, 1, false, seed++)) {
			printf("# %s of 65537 bytes: FAILED\n",
			       op_name[ops[rounds % 2]]);
			bad++;
		}
		rounds++;
	}
	ok(bad == 0, "forge: %d messages during the forgery, compared", rounds);
	if (c->server)
		ok(spare_intact(c), "forge: nothing landed in the forger's target");
}

/* Wait up to POLL_SECONDS for @file to exist (the forger's signal). */
static bool wait_file(const char *file)
{
	int i;

	for (i = 0; i < POLL_SECONDS * 10; i++) {
		if (!access(file, F_OK))
			return true;
		usleep(100000);
	}
	return false;
}

static enum ibv_qp_state qp_state(struct ibv_qp *qp, uint32_t *rq_psn)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_RQ_PSN, &init))
		die("ibv_query_qp");
	if (rq_psn)
		*rq_psn = a.rq_psn;
	return a.qp_state;
}

static void *dereg_thread(void *mr)
{
	return (void *)(intptr_t)ibv_dereg_mr(mr);
}

/*
 * A remote Write whose last packet never comes must not pin its MR: the
 * forger (roce_forge.py, driven by the shell on the peer's host) sends a
 * WRITE_FIRST of a 4 KiB Write into a fresh MR, then we deregister the
 * MR; that must return at once (it used to sleep, uninterruptibly, until
 * the QP was destroyed). The forger then sends the Write's last packet,
 * which must fail the QP with a remote access error. Server side only
 * does the checks; the client just holds the connection.
 */
static void case_halfwrite(struct ctx *c)
{
	char tmp[4096], first[4096], deregd[4096];
	struct timespec until;
	struct ibv_mr *mr;
	uint32_t psn, now;
	pthread_t t;
	void *ret;
	bool done, moved = false;
	uint8_t *buf;
	FILE *f;
	int i;

	connect_qp(c, &default_opts);
	if (!c->server) {
		sync_peer(c, 1);
		return;
	}
	if (!forge_file)
		die("halfwrite needs -f FILE");
	buf = aligned_alloc(4096, 16384);
	if (!buf)
		die("aligned_alloc");
	memset(buf, 0, 16384);
	mr = ibv_reg_mr(c->pd, buf, 16384,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("ibv_reg_mr");
	qp_state(c->qp, &psn);
	snprintf(tmp, sizeof(tmp), "%s.tmp", forge_file);
	snprintf(first, sizeof(first), "%s.first", forge_file);
	snprintf(deregd, sizeof(deregd), "%s.dereg", forge_file);
	f = fopen(tmp, "w");
	if (!f)
		die(tmp);
	fprintf(f, "%u %u %llu %u\n", c->qp->qp_num, psn,
		(unsigned long long)(uintptr_t)buf, mr->rkey);
	if (fclose(f) || rename(tmp, forge_file))
		die(forge_file);

	/* The forged WRITE_FIRST has been taken: the expected PSN moved. */
	if (wait_file(first))
		for (i = 0; i < POLL_SECONDS * 10 && !moved; i++) {
			qp_state(c->qp, &now);
			moved = now == ((psn + 1) & 0xffffff);
			if (!moved)
				usleep(100000);
		}
	ok(moved, "halfwrite: a forged WRITE_FIRST taken (expected PSN %u -> %u)",
	   psn, (psn + 1) & 0xffffff);

	/* A safety net against a hang, which is forever; never a timing. */
	if (pthread_create(&t, NULL, dereg_thread, mr))
		die("pthread_create");
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += POLL_SECONDS;
	done = !pthread_timedjoin_np(t, &ret, &until);
	ok(done && !ret, "halfwrite: ibv_dereg_mr returns with the Write half done");
	if (!done) {
		/* Only destroying the QP used to let go of the MR. */
		ibv_destroy_qp(c->qp);
		c->qp = NULL;
		pthread_join(t, &ret);
	}
	f = fopen(deregd, "w");
	if (!f || fclose(f))
		die(deregd);

	/* Its last packet finds no MR: remote access error, QP in error. */
	done = false;
	for (i = 0; c->qp && i < POLL_SECONDS * 10 && !done; i++) {
		done = qp_state(c->qp, NULL) == IBV_QPS_ERR;
		if (!done)
			usleep(100000);
	}
	ok(done, "halfwrite: the Write's last packet after dereg fails the QP");
	free(buf);
	sync_peer(c, 1);
}

static void case_rnr(struct ctx *c)
{
	const struct qp_opts o = { 14, 7, 1, 1, false };

	connect_qp(c, &o);
	if (c->server) {	/* posts no receive */
		sync_peer(c, 1);
		ok(sync_peer(c, 1), "rnr: peer saw its error");
		return;
	}
	expect_error(c, "send with no receive posted (rnr_retry 1)",
		     IBV_WR_SEND, 0, 0, 100, IBV_WC_RNR_RETRY_EXC_ERR);
}

static void case_retry(struct ctx *c)
{
	const struct qp_opts o = { 8, 2, 7, 12, false };	/* ~1 ms timeout */
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	connect_qp(c, &o);
	if (c->server) {
		if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE))
			die("to ERR");
		sync_peer(c, 1);
		sync_peer(c, 1);
		ok(sync_peer(c, 1), "retry: peer saw its error");
		return;
	}
	sync_peer(c, 1);
	expect_error(c, "send to a dead peer QP (retry_cnt 2)", IBV_WR_SEND,
		     0, 0, 100, IBV_WC_RETRY_EXC_ERR);
}

/*
 * Selective signalling: of 64 Writes only every 8th is signalled; exactly
 * 8 completions come, in order, and all 64 land. Then a Send of exactly
 * the QP's max_inline_data bytes, inline.
 */
static void case_sig(struct ctx *c)
{
	struct ibv_qp_init_attr init;
	const int n = 64, len = 3000;
	struct ibv_qp_attr qa;
	struct ibv_wc wc[64];
	uint32_t inl;
	bool good = true;
	int i, got;

	connect_qp(c, &default_opts);
	if (ibv_query_qp(c->qp, &qa, IBV_QP_CAP, &init))
		die("ibv_query_qp");
	inl = qa.cap.max_inline_data;
	if (c->server) {
		memset(c->buf, 0, n * 4096u);
		post_recv(c, 555, 1);
		sync_peer(c, 1);
		sync_peer(c, 1);
		for (i = 0; i < n && good; i++)
			good = check(c->buf + i * 4096u, len, 7000 + i);
		ok(sync_peer(c, good) && good, "sig: 64 writes, 8 signalled, all landed");
		got = poll_n(c, wc, 1);
		sync_peer(c, 1);
		good = got == 1 && wc[0].status == IBV_WC_SUCCESS &&
		       wc[0].byte_len == inl && check(c->buf + RECV_OFF, inl, 31);
		ok(sync_peer(c, good) && good, "sig: inline send of max_inline_data (%u) bytes",
		   inl);
		return;
	}
	sync_peer(c, 1);
	for (i = 0; i < n; i++) {
		struct ibv_send_wr wr = {}, *bad;
		struct ibv_sge sge = { (uintptr_t)c->buf + LOCAL_OFF + i * 4096u,
				       len, c->mr->lkey };

		fill(c->buf + LOCAL_OFF + i * 4096u, len, 7000 + i);
		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = i % 8 == 7 ? IBV_SEND_SIGNALED : 0;
		wr.wr.rdma.remote_addr = c->remote.addr + i * 4096u;
		wr.wr.rdma.rkey = c->remote.rkey;
		if (ibv_post_send(c->qp, &wr, &bad))
			die("ibv_post_send");
	}
	got = poll_n(c, wc, n / 8);
	good = got == n / 8;
	for (i = 0; i < got; i++)
		good = good && wc[i].status == IBV_WC_SUCCESS &&
		       wc[i].wr_id == (uint64_t)(i * 8 + 7);
	if (ibv_poll_cq(c->cq, 1, wc) != 0)
		good = false;	/* nothing for the unsignalled ones */
	sync_peer(c, 1);
	ok(sync_peer(c, good) && good, "sig: 64 writes, 8 signalled, 8 completions in order");

	{
		struct ibv_send_wr wr = {}, *bad;
		struct ibv_sge sge = { (uintptr_t)c->buf + LOCAL_OFF, inl,
				       c->mr->lkey };

		fill(c->buf + LOCAL_OFF, inl, 31);
		wr.wr_id = 556;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		good = !ibv_post_send(c->qp, &wr, &bad) && poll_n(c, wc, 1) == 1 &&
		       wc[0].status == IBV_WC_SUCCESS;
		sync_peer(c, 1);
		ok(sync_peer(c, good) && good, "sig: inline send of max_inline_data (%u) bytes",
		   inl);
	}
}

/* Required attributes are enforced; query returns what was set. */
static void case_qp(struct ctx *c)
{
	struct ibv_qp_init_attr init = {
		.send_cq = c->cq, .recv_cq = c->cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr a = {}, q = {};
	struct ibv_qp *qp;
	bool good;

	connect_qp(c, &default_opts);
	good = !ibv_query_qp(c->qp, &q, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_DEST_QPN | IBV_QP_PATH_MTU | IBV_QP_SQ_PSN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC |
			     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_ACCESS_FLAGS,
			     &init) &&
	       q.qp_state == IBV_QPS_RTS && q.timeout == default_opts.timeout &&
	       q.retry_cnt == default_opts.retry_cnt &&
	       q.rnr_retry == default_opts.rnr_retry &&
	       q.dest_qp_num == c->remote.qpn && q.path_mtu == path_mtu &&
	       q.sq_psn == c->me.psn && q.rq_psn == c->remote.psn &&
	       q.max_rd_atomic == 16 && q.max_dest_rd_atomic == 16 &&
	       q.qp_access_flags == (IBV_ACCESS_REMOTE_WRITE |
				     IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_REMOTE_ATOMIC);
	ok(good, "qp: ibv_query_qp returns the attributes set");

	/* RTS -> SQD: an idle send queue is drained at once, with an event. */
	{
		struct pollfd pfd = { .fd = c->ibv->async_fd, .events = POLLIN };
		struct ibv_async_event ev;
		bool drained = false;
		int fl = fcntl(c->ibv->async_fd, F_GETFL);

		fcntl(c->ibv->async_fd, F_SETFL, fl | O_NONBLOCK);
		a.qp_state = IBV_QPS_SQD;
		good = !ibv_modify_qp(c->qp, &a, IBV_QP_STATE);
		while (good && !drained && poll(&pfd, 1, 10000) == 1 &&
		       !ibv_get_async_event(c->ibv, &ev)) {
			drained = ev.event_type == IBV_EVENT_SQ_DRAINED &&
				  ev.element.qp == c->qp;
			ibv_ack_async_event(&ev);
		}
		ok(drained, "qp: RTS->SQD raises IBV_EVENT_SQ_DRAINED");
		a.qp_state = IBV_QPS_RTS;
		ok(!ibv_modify_qp(c->qp, &a, IBV_QP_STATE) &&
		   !ibv_query_qp(c->qp, &q, IBV_QP_STATE, &init) &&
		   q.qp_state == IBV_QPS_RTS, "qp: SQD->RTS");
	}

	/*
	 * A claimed current state that is not the QP's: RTR->RTS with a new
	 * SQ PSN on a QP in RTS would move a live requester's PSNs.
	 */
	{
		struct ibv_qp_attr s = {
			.qp_state = IBV_QPS_RTS, .cur_qp_state = IBV_QPS_RTR,
			.sq_psn = 0x123456, .timeout = 14, .retry_cnt = 7,
			.rnr_retry = 7, .max_rd_atomic = 1,
		};
		int r = ibv_modify_qp(c->qp, &s, IBV_QP_STATE |
				      IBV_QP_CUR_STATE | IBV_QP_SQ_PSN |
				      IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				      IBV_QP_RNR_RETRY |
				      IBV_QP_MAX_QP_RD_ATOMIC);

		ok(r == EINVAL && !ibv_query_qp(c->qp, &q, IBV_QP_SQ_PSN,
						 &init) &&
		   q.sq_psn == c->me.psn,
		   "qp: a false current state (RTR while in RTS) refused with EINVAL (got %d)",
		   r);
	}

	/*
	 * Posted in the error state, through the ring and the doorbell:
	 * each completes flushed (ib_drain_qp and friends count on it).
	 */
	{
		struct ibv_sge sge = {
			.addr = (uintptr_t)c->buf, .length = 64,
			.lkey = c->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = 0xe77, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *bad;
		struct ibv_wc wc[2];
		int got;

		a.qp_state = IBV_QPS_ERR;
		good = !ibv_modify_qp(c->qp, &a, IBV_QP_STATE);
		while (good && ibv_poll_cq(c->cq, 1, wc) > 0)
			;	/* what the move to ERR flushed */
		good = good && !ibv_post_send(c->qp, &wr, &bad);
		wr.wr_id = 0xe78;
		good = good && !ibv_post_send(c->qp, &wr, &bad);
		got = good ? poll_n(c, wc, 2) : 0;
		ok(got == 2 && wc[0].wr_id == 0xe77 && wc[1].wr_id == 0xe78 &&
		   wc[0].status == IBV_WC_WR_FLUSH_ERR &&
		   wc[1].status == IBV_WC_WR_FLUSH_ERR,
		   "qp: sends posted in ERR complete flushed, in order (got %d)",
		   got);
	}

	qp = ibv_create_qp(c->pd, &init);
	if (!qp)
		die("ibv_create_qp");
	a.qp_state = IBV_QPS_INIT;
	ok(ibv_modify_qp(qp, &a, IBV_QP_STATE) != 0,
	   "qp: RESET->INIT without port, pkey, access refused");
	a.port_num = 1;
	ok(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS),
	   "qp: RESET->INIT with them accepted");
	a.qp_state = IBV_QPS_RTR;
	ok(ibv_modify_qp(qp, &a, IBV_QP_STATE) != 0,
	   "qp: INIT->RTR without an address vector refused");
	a.qp_state = IBV_QPS_RTS;
	ok(ibv_modify_qp(qp, &a, IBV_QP_STATE) != 0,
	   "qp: INIT->RTS (skipping RTR) refused");
	{
		/* A path MTU above the port's active MTU is refused. */
		const int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		struct ibv_qp_attr r = {};
		struct ibv_port_attr pa;
		int ret;

		if (ibv_query_port(c->ibv, 1, &pa))
			die("ibv_query_port");
		r.qp_state = IBV_QPS_RTR;
		r.dest_qp_num = c->remote.qpn;
		r.max_dest_rd_atomic = 1;
		r.min_rnr_timer = 12;
		r.ah_attr.is_global = 1;
		r.ah_attr.grh.dgid = c->remote.gid;
		r.ah_attr.grh.sgid_index = c->gid_index;
		r.ah_attr.grh.hop_limit = 64;
		r.ah_attr.port_num = 1;
		if (pa.active_mtu < IBV_MTU_4096) {
			r.path_mtu = IBV_MTU_4096;
			ret = ibv_modify_qp(qp, &r, mask);
			ok(ret == EINVAL,
			   "qp: INIT->RTR with path MTU 4096 above the active MTU %d refused with EINVAL (got %d)",
			   128 << pa.active_mtu, ret);
		} else {
			ok(true, "qp: INIT->RTR with path MTU above the active MTU refused # SKIP active MTU is 4096");
		}
		r.path_mtu = pa.active_mtu;
		ok(!ibv_modify_qp(qp, &r, mask),
		   "qp: INIT->RTR with the active MTU accepted");
	}
	a.qp_state = IBV_QPS_ERR;
	ok(!ibv_modify_qp(qp, &a, IBV_QP_STATE) &&
	   !ibv_query_qp(qp, &q, IBV_QP_STATE, &init) &&
	   q.qp_state == IBV_QPS_ERR, "qp: any state to ERR");
	a.qp_state = IBV_QPS_RESET;
	ok(!ibv_modify_qp(qp, &a, IBV_QP_STATE) &&
	   !ibv_query_qp(qp, &q, IBV_QP_STATE, &init) &&
	   q.qp_state == IBV_QPS_RESET, "qp: ERR to RESET");
	ibv_destroy_qp(qp);
	sync_peer(c, 1);
}

/* Local buffers at odd addresses and lengths, spanning pages. */
static void case_mr(struct ctx *c)
{
	const uint32_t len = 100003, off = 3 * 4096 + 37;
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_mr *mr;
	struct ibv_sge sge;
	struct ibv_wc wc;
	bool good;
	int i;

	connect_qp(c, &default_opts);
	if (c->server) {
		for (i = 0; i < 2; i++) {
			if (i == 1)
				fill(c->buf, len, 99);
			else
				memset(c->buf, 0, len + 1);
			sync_peer(c, 1);
			sync_peer(c, 1);
			good = i == 1 || (check(c->buf, len, 98) && !c->buf[len]);
			ok(sync_peer(c, good) && good, "mr: %s from an MR at an odd address",
			   i ? "read" : "write");
		}
		return;
	}
	mr = ibv_reg_mr(c->pd, c->buf + LOCAL_OFF + off, len,
			IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr unaligned");
	for (i = 0; i < 2; i++) {
		uint8_t *p = c->buf + LOCAL_OFF + off;

		if (i == 1)
			memset(p, 0, len);
		else
			fill(p, len, 98);
		sge = (struct ibv_sge){ (uintptr_t)p, len, mr->lkey };
		wr.wr_id = 7;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = i ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = c->remote.addr;
		wr.wr.rdma.rkey = c->remote.rkey;
		sync_peer(c, 1);
		good = !ibv_post_send(c->qp, &wr, &bad) &&
		       poll_n(c, &wc, 1) == 1 && wc.status == IBV_WC_SUCCESS;
		if (i == 1)
			good = good && check(p, len, 99);
		sync_peer(c, 1);
		ok(sync_peer(c, good) && good, "mr: %s from an MR at an odd address",
		   i ? "read" : "write");
	}
	ibv_dereg_mr(mr);
}

/* Wait up to @ms for a completion event on @ch. */
static bool cq_event(struct ibv_comp_channel *ch, int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	if (poll(&pfd, 1, ms) != 1)
		return false;
	if (ibv_get_cq_event(ch, &cq, &ctx))
		return false;
	ibv_ack_cq_events(cq, 1);
	return true;
}

/*
 * Solicited-only arming and resize, on a receive CQ of its own with a
 * completion channel.
 */
static void case_cq(struct ctx *c)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(c->ibv);
	struct ibv_qp_init_attr init = {
		.send_cq = c->cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_cq *rcq;
	struct ibv_wc wc;
	int i, flags;

	if (!ch)
		die("ibv_create_comp_channel");
	flags = fcntl(ch->fd, F_GETFL);
	fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK);
	rcq = ibv_create_cq(c->ibv, 4, NULL, ch, 0);
	if (!rcq)
		die("ibv_create_cq");
	init.recv_cq = rcq;
	connect_qp_with(c, &default_opts, &init);

	if (c->server) {
		bool quiet, woke, kept;

		for (i = 0; i < 3; i++)
			post_recv(c, 100 + i, 1);
		ibv_req_notify_cq(rcq, 1);
		sync_peer(c, 1);		/* unsolicited send */
		sync_peer(c, 1);
		quiet = !cq_event(ch, 300) && ibv_poll_cq(rcq, 1, &wc) == 1 &&
			wc.wr_id == 100;
		ok(quiet, "cq: no event for an unsolicited send (solicited-only)");
		ibv_req_notify_cq(rcq, 1);
		sync_peer(c, 1);		/* solicited send */
		woke = cq_event(ch, 20000) && ibv_poll_cq(rcq, 1, &wc) == 1 &&
		       wc.wr_id == 101;
		ok(woke, "cq: an event for a solicited send");
		sync_peer(c, 1);		/* third send, left in the CQ */
		sync_peer(c, 1);
		kept = !ibv_resize_cq(rcq, 64) && rcq->cqe >= 64 &&
		       ibv_poll_cq(rcq, 1, &wc) == 1 && wc.wr_id == 102 &&
		       wc.status == IBV_WC_SUCCESS;
		ok(kept, "cq: ibv_resize_cq keeps a pending completion");
	} else {
		bool sent = true;

		for (i = 0; i < 3; i++) {
			struct ibv_send_wr wr = {}, *bad;
			struct ibv_sge sge = { (uintptr_t)c->buf + LOCAL_OFF, 64,
					       c->mr->lkey };

			wr.wr_id = 200 + i;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = IBV_WR_SEND;
			wr.send_flags = IBV_SEND_SIGNALED |
					(i == 1 ? IBV_SEND_SOLICITED : 0);
			sync_peer(c, 1);
			if (ibv_post_send(c->qp, &wr, &bad) ||
			    poll_n(c, &wc, 1) != 1 || wc.status != IBV_WC_SUCCESS)
				sent = false;
			if (i != 1)
				sync_peer(c, 1);
		}
		ok(sent, "cq: the unsolicited, solicited and third send completed");
	}
	ibv_destroy_qp(c->qp);
	c->qp = NULL;
	ibv_destroy_cq(rcq);
	ibv_destroy_comp_channel(ch);
}

/* Mappings of the uverbs device in this process, "start-end" each. */
static int uverbs_maps(uintptr_t *start, uintptr_t *end, int max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		die("/proc/self/maps");
	while (n < max && fgets(line, sizeof(line), f))
		if (strstr(line, "/dev/infiniband/uverbs") &&
		    sscanf(line, "%lx-%lx", &start[n], &end[n]) == 2)
			n++;
	fclose(f);
	return n;
}

/* Small and plausible half the time, anything the other half. */
static uint32_t pick(uint32_t small)
{
	return rand() % 2 ? (uint32_t)rand() % small : (uint32_t)rand();
}

/* The rxe provider's ring header (see Documentation/abi.rst). */
struct ring_hdr {
	uint32_t log2_elem_size;
	uint32_t index_mask;
	uint32_t pad1[30];
	uint32_t producer_index;
	uint32_t pad2[31];
	uint32_t consumer_index;
};

/*
 * Hostile WQEs: random bytes, with the fields the kernel must check
 * (opcode, flags, SGE count, inline length, keys, addresses) drawn from
 * ranges that include nonsense. The provider never sees them.
 */
static void case_garbage(struct ctx *c)
{
	uintptr_t s1[16], e1[16];
	int rounds = 50, r, n1, i, k;
	int posted = 0, completed = 0, errors = 0, in_err = 0;

	for (r = 0; r < rounds; r++) {
		struct ring_hdr *sq = NULL;
		struct ibv_qp_init_attr init;
		struct ibv_qp_attr a;
		uint32_t prod, mask;
		int nwqe = 1 + rand() % 8;

		/* A valid-looking Send must not wait on RNR for long. */
		static const struct qp_opts o = { 10, 2, 1, 1, false };

		connect_qp(c, &o);
		n1 = uverbs_maps(s1, e1, 16);
		if (c->server) {
			sync_peer(c, 1);
			continue;
		}
		/*
		 * The one mapping whose slots are send WQE sized (CQ and RQ
		 * slots are smaller; earlier QPs are destroyed and unmapped).
		 */
		for (i = 0; i < n1 && !sq; i++)
			if (((struct ring_hdr *)s1[i])->log2_elem_size >= 8)
				sq = (struct ring_hdr *)s1[i];
		if (!sq) {
			printf("# no SQ mapping found\n");
			errors = -1;
			sync_peer(c, 1);
			break;
		}
		mask = sq->index_mask;
		prod = sq->producer_index;
		for (i = 0; i < nwqe; i++) {
			uint8_t *slot = (uint8_t *)sq + 384 +
					((size_t)(prod & mask) << sq->log2_elem_size);
			uint32_t *w = (uint32_t *)slot;

			for (k = 0; k < (1 << sq->log2_elem_size) / 4; k++)
				w[k] = (uint32_t)rand() * 2654435761u;
			/* opcode, send flags; dma.length at 184, num_sge at 196 */
			w[3] = pick(24);
			w[4] = pick(16);
			w[46] = pick(1024);
			w[49] = pick(40);
			prod = (prod + 1) & mask;
		}
		__atomic_store_n(&sq->producer_index, prod, __ATOMIC_RELEASE);
		posted += nwqe;
		{
			/*
			 * More SGEs than the QP allows: the provider refuses
			 * the WR, but rings the doorbell all the same.
			 */
			struct ibv_sge sge[16] = {};
			struct ibv_send_wr wr = { .sg_list = sge, .num_sge = 16,
						  .opcode = IBV_WR_SEND }, *bad;

			ibv_post_send(c->qp, &wr, &bad);
		}
		for (i = 0; i < nwqe; i++) {
			struct ibv_wc wc;

			if (poll_n(c, &wc, 1) != 1)
				break;
			completed++;
			if (wc.status != IBV_WC_SUCCESS)
				errors++;
		}
		if (i != nwqe)
			printf("# round %d: %d of %d completions\n", r, i, nwqe);
		if (!ibv_query_qp(c->qp, &a, IBV_QP_STATE, &init) &&
		    a.qp_state == IBV_QPS_ERR)
			in_err++;
		sync_peer(c, 1);
	}
	if (!c->server)
		ok(completed == posted && errors > 0 && in_err > 0,
		   "garbage: %d of %d hostile WQEs completed (%d in error), %d QPs in error",
		   completed, posted, errors, in_err);
}

int main(int argc, char **argv)
{
	const char *dev = "sroce0", *host = NULL;
	const char *cases = "data,burst,sig,rnr,retry,access,qp,mr,cq,garbage,rkey,atomic";
	struct ctx c = { .gid_index = 1, .sock = -1 };
	int opt;

	while ((opt = getopt(argc, argv, "d:g:sc:t:m:f:l")) != -1) {
		switch (opt) {
		case 'l': lossy_wire = true; break;
		case 'f': forge_file = optarg; break;
		case 'd': dev = optarg; break;
		case 'g': c.gid_index = atoi(optarg); break;
		case 's': c.server = true; break;
		case 'c': host = optarg; break;
		case 't': cases = optarg; break;
		case 'm':
			switch (atoi(optarg)) {
			case 256: path_mtu = IBV_MTU_256; break;
			case 512: path_mtu = IBV_MTU_512; break;
			case 1024: path_mtu = IBV_MTU_1024; break;
			case 2048: path_mtu = IBV_MTU_2048; break;
			case 4096: path_mtu = IBV_MTU_4096; break;
			default: return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: %s -d DEV -g GID (-s | -c IP) [-t cases] [-m MTU] [-f FILE] [-l]\n",
				argv[0]);
			return 2;
		}
	}
	if (!c.server && !host)
		return 2;
	srand(getpid());
	/* Line-buffered: a crash must not swallow what was printed. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n");
	open_device(&c, dev);
	tcp_connect(&c, host);

	if (strstr(cases, "data"))
		case_data(&c);
	if (strstr(cases, "burst")) {
		connect_qp(&c, &default_opts);
		case_burst(&c, false);
		case_burst(&c, true);
	}
	if (strstr(cases, "sig"))
		case_sig(&c);
	if (strstr(cases, "rnr"))
		case_rnr(&c);
	if (strstr(cases, "retry"))
		case_retry(&c);
	if (strstr(cases, "access"))
		case_access(&c);
	if (strstr(cases, "qp"))
		case_qp(&c);
	if (strstr(cases, "mr"))
		case_mr(&c);
	if (strstr(cases, "cq"))
		case_cq(&c);
	if (strstr(cases, "garbage"))
		case_garbage(&c);
	if (strstr(cases, "rkey"))
		case_rkey(&c);
	if (strstr(cases, "atomic"))
		case_atomic(&c);
	if (strstr(cases, "forge"))
		case_forge(&c);
	if (strstr(cases, "halfwrite"))
		case_halfwrite(&c);

	return ktap_done();
}
