// SPDX-License-Identifier: GPL-2.0-only
/*
 * fan_verify: many RC QPs at once, and how fairly they share.
 *
 * Traffic (a pair; the receiver with -s or no address, the sender with
 * -c IP or the address last, as perftest takes it): both sides
 * open -q QPs (default 16) on one CQ, connected one to one over TCP
 * port -p (default 18530). The sender keeps -w RDMA Writes (default 2)
 * of -m bytes (default 64 KiB) in flight on every QP, each into that
 * QP's own region of the receiver's MR, either -n Writes per QP (the
 * tests: the work is fixed) or for -t seconds (the bench: the time is).
 * Every Write fills its bytes with a pattern of (QP, Write number); the
 * last one a QP makes is what its region must hold, and the receiver,
 * told each QP's count once all completed, compares every region byte
 * for byte. The sender reports per QP what it moved: aggregate MB/s,
 * the slowest, median and fastest QP, and Jain's fairness index
 * (sum x)^2 / (n sum x^2) over the QPs' bytes (1: all equal), measured
 * at the moment the first QP finishes (-n) or at the deadline (-t).
 * Fairness and speed are reported, never tested.
 *
 * Objects (-O N, one side): N RC QPs created on one CQ and moved to RTS
 * along a path to this host's own GID (their peers are each other, in
 * pairs), then destroyed; twice, so that what the first round left
 * behind shows in the second. Reports microseconds per QP and the
 * memory each took (MemAvailable before and after).
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "verbs_util.h"

#define WAIT_SECS	600
#define MAX_QPS		4096

struct wire_qp {
	uint32_t	qpn;
	uint32_t	psn;
};

struct wire_hdr {
	uint8_t		gid[16];
	uint64_t	addr;
	uint32_t	rkey;
	uint32_t	nqp;
};

static const char *dev_name = "sroce0";
static int gid_index = 1;
static const char *peer_ip;
static int port = 18530;
static int nqp = 16;
static size_t msg = 65536;
static int depth = 2;
static long iters;
static int secs = 5;
static int objects;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The byte at offset @i of Write @n of QP @q */
static inline uint8_t pattern(int q, long n, size_t i)
{
	return (uint8_t)(q * 31 + n * 7 + i * 13 + (i >> 8));
}

struct side {
	struct ibv_context	*ibv;
	struct ibv_pd		*pd;
	struct ibv_cq		*cq;
	struct ibv_qp		**qp;
	struct ibv_mr		*mr;
	uint8_t			*buf;
	size_t			len;
	union ibv_gid		gid;
};

static struct ibv_qp *make_qp(struct side *s, int sq, int rq)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = sq, .max_recv_wr = rq,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(s->pd, &qa);
}

static void side_open(struct side *s, size_t len, int cqe)
{
	s->ibv = vu_open(dev_name);
	vu_query_gid(s->ibv, gid_index, &s->gid);
	s->pd = ibv_alloc_pd(s->ibv);
	s->cq = ibv_create_cq(s->ibv, cqe, NULL, NULL, 0);
	if (!s->pd || !s->cq)
		die("pd/cq");
	s->qp = calloc(MAX_QPS, sizeof(*s->qp));
	if (!s->qp)
		die("calloc");
	if (!len)
		return;
	s->len = len;
	s->buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->buf == MAP_FAILED)
		die("mmap");
	memset(s->buf, 0, len);
	s->mr = ibv_reg_mr(s->pd, s->buf, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (!s->mr)
		die("ibv_reg_mr");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The figures: per-QP bytes @b over @t seconds */
static void report(const long *n, double t)
{
	double *x = calloc(nqp, sizeof(*x)), sum = 0, sq = 0;
	int q;

	for (q = 0; q < nqp; q++) {
		x[q] = (double)n[q] * msg;
		sum += x[q];
		sq += x[q] * x[q];
	}
	qsort(x, nqp, sizeof(*x), cmp_double);
	printf("# fan: %d QPs, %zu-byte Writes, %.2f s: %.2f MB/s in all; per QP min %.3f median %.3f max %.3f MB/s; Jain %.3f\n",
	       nqp, msg, t, sum / t / 1e6, x[0] / t / 1e6,
	       x[nqp / 2] / t / 1e6, x[nqp - 1] / t / 1e6,
	       sq > 0 ? sum * sum / (nqp * sq) : 0);
	free(x);
}

/* Write @n of QP @q from its slot @k, its bytes filled with the pattern */
static void post_write(struct side *s, const struct wire_hdr *peer, int q,
		       int k, long n)
{
	uint8_t *src = s->buf + ((size_t)q * depth + k) * msg;
	struct ibv_sge sge = {
		.addr = (uintptr_t)src, .length = msg, .lkey = s->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)q << 32 | k,
		.sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma.remote_addr = peer->addr + (uint64_t)q * msg,
		.wr.rdma.rkey = peer->rkey,
	}, *bad;
	size_t i;

	for (i = 0; i < msg; i++)
		src[i] = pattern(q, n, i);
	if (ibv_post_send(s->qp[q], &wr, &bad))
		die("ibv_post_send");
}

/* Sender: Writes on every QP; each QP's count of completed ones in @done */
static void send_side(struct side *s, const struct wire_hdr *peer,
		      long *done)
{
	long *posted = calloc(nqp, sizeof(long));
	long *at_first = calloc(nqp, sizeof(long));
	char *fin = calloc(nqp, 1);	/* QP finished: done or failed */
	int q, k, errors = 0, finished = 0;
	double t0, deadline, t_first = 0;
	long total = 0;

	t0 = now_s();
	deadline = t0 + secs;
	for (q = 0; q < nqp; q++)
		for (k = 0; k < depth && (!iters || posted[q] < iters); k++)
			post_write(s, peer, q, k, posted[q]++);
	while (finished < nqp) {
		struct ibv_wc wc[16];
		int n, i;

		n = ibv_poll_cq(s->cq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq");
		if (!n && now_s() > t0 + WAIT_SECS) {
			printf("# no completion in %d s\n", WAIT_SECS);
			errors++;
			break;
		}
		for (i = 0; i < n; i++) {
			q = (int)(wc[i].wr_id >> 32);
			k = (int)(wc[i].wr_id & 0xffffffff);
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (errors++ < 5)
					printf("# QP %d: %s\n", q,
					       ibv_wc_status_str(wc[i].status));
				/* its other Writes complete flushed */
				finished += !fin[q];
				fin[q] = 1;
				continue;
			}
			done[q]++;
			total++;
			if ((iters && done[q] == iters) ||
			    (!iters && done[q] == posted[q] &&
			     now_s() >= deadline)) {
				if (!t_first) {
					t_first = now_s() - t0;
					memcpy(at_first, done,
					       nqp * sizeof(long));
				}
				finished += !fin[q];
				fin[q] = 1;
				continue;
			}
			if ((iters && posted[q] >= iters) ||
			    (!iters && now_s() >= deadline))
				continue;
			/* the next Write of QP q, from the slot just freed */
			post_write(s, peer, q, k, posted[q]++);
		}
	}
	ok(!errors, "%d QPs: %ld Writes of %zu bytes completed, none in error",
	   nqp, total, msg);
	if (iters)
		report(at_first, t_first > 0 ? t_first : now_s() - t0);
	else
		report(done, now_s() - t0);
	free(posted);
	free(at_first);
	free(fin);
}

static void traffic(void)
{
	struct wire_hdr me = { 0 }, peer;
	struct wire_qp *mine, *theirs;
	struct side s = { 0 };
	long *done;
	int fd, q, bad = 0;
	char sync;
	size_t len;

	len = peer_ip ? (size_t)nqp * depth * msg : (size_t)nqp * msg;
	side_open(&s, len, nqp * (depth + 1) + 16);
	mine = calloc(nqp, sizeof(*mine));
	theirs = calloc(nqp, sizeof(*theirs));
	done = calloc(nqp, sizeof(long));
	for (q = 0; q < nqp; q++) {
		s.qp[q] = make_qp(&s, depth + 1, 1);
		if (!s.qp[q])
			die("ibv_create_qp");
		mine[q].qpn = s.qp[q]->qp_num;
		mine[q].psn = (uint32_t)(q * 4099) & 0xffffff;
	}
	memcpy(me.gid, &s.gid, 16);
	me.addr = (uintptr_t)s.buf;
	me.rkey = s.mr->rkey;
	me.nqp = nqp;
	if (!peer_ip)
		printf("# listening on %d\n", port);
	fd = vu_tcp_connect(peer_ip, port);
	vu_xfer(fd, &me, &peer, sizeof(me));
	if (peer.nqp != (uint32_t)nqp)
		die("the two sides disagree on the number of QPs");
	vu_xfer(fd, mine, theirs, nqp * sizeof(*mine));
	for (q = 0; q < nqp; q++) {
		struct vu_rc p;

		vu_rc_path(&p, (union ibv_gid *)peer.gid, gid_index,
			   theirs[q].qpn);
		p.access = IBV_ACCESS_REMOTE_WRITE;
		p.sq_psn = mine[q].psn;
		p.rq_psn = theirs[q].psn;
		vu_rc_connect(s.qp[q], &p);
	}
	vu_xfer(fd, "r", &sync, 1);	/* both ready */
	ok(1, "%d RC QPs connected", nqp);
	if (peer_ip) {
		send_side(&s, &peer, done);
		vu_xfer(fd, done, NULL, nqp * sizeof(long));
		vu_xfer(fd, NULL, &sync, 1);
	} else {
		vu_xfer(fd, NULL, done, nqp * sizeof(long));
		for (q = 0; q < nqp; q++) {
			const uint8_t *r = s.buf + (size_t)q * msg;
			size_t i;

			if (!done[q])
				continue;
			for (i = 0; i < msg; i++)
				if (r[i] != pattern(q, done[q] - 1, i))
					break;
			if (i < msg && bad++ < 5)
				printf("# QP %d: byte %zu of its last Write (%ld) differs\n",
				       q, i, done[q] - 1);
		}
		ok(!bad, "every QP's region holds its last Write, byte for byte");
		vu_xfer(fd, "d", NULL, 1);
	}
	close(fd);
	for (q = 0; q < nqp; q++)
		if (ibv_destroy_qp(s.qp[q]))
			die("ibv_destroy_qp");
}

static long mem_available_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* -O: @objects QPs to RTS and back, twice */
static void objects_rounds(void)
{
	struct side s = { 0 };
	int round, q, rts, failed;

	if (objects > MAX_QPS || objects < 2)
		die("-O: 2 to 4096 QPs");
	side_open(&s, 0, 64);
	for (round = 1; round <= 2; round++) {
		long kb0 = mem_available_kb(), kb1;
		double t0 = now_s(), t1;
		int made = 0;

		for (q = 0; q < objects; q++) {
			s.qp[q] = make_qp(&s, 4, 4);
			if (!s.qp[q])
				break;
			made++;
		}
		ok(made == objects, "round %d: %d of %d RC QPs created", round,
		   made, objects);
		for (q = 0; q + 1 < made; q += 2) {
			struct vu_rc p;

			vu_rc_path(&p, &s.gid, gid_index, s.qp[q + 1]->qp_num);
			vu_rc_connect(s.qp[q], &p);
			p.dest_qpn = s.qp[q]->qp_num;
			vu_rc_connect(s.qp[q + 1], &p);
		}
		t1 = now_s();
		kb1 = mem_available_kb();
		rts = 0;
		for (q = 0; q < (made & ~1); q++) {
			struct ibv_qp_init_attr init;
			struct ibv_qp_attr attr;

			if (!ibv_query_qp(s.qp[q], &attr, IBV_QP_STATE, &init) &&
			    attr.qp_state == IBV_QPS_RTS)
				rts++;
		}
		ok(rts == (made & ~1), "round %d: %d of %d QPs in RTS", round,
		   rts, made & ~1);
		printf("# round %d: %.0f us per QP created and connected, %.1f KiB each\n",
		       round, (t1 - t0) * 1e6 / (made ? made : 1),
		       (double)(kb0 - kb1) / (made ? made : 1));
		failed = 0;
		for (q = 0; q < made; q++)
			if (ibv_destroy_qp(s.qp[q]))
				failed++;
		printf("# round %d: %.0f us per QP destroyed\n", round,
		       (now_s() - t1) * 1e6 / (made ? made : 1));
		ok(!failed, "round %d: %d QPs destroyed, %d refused", round,
		   made - failed, failed);
	}
	ibv_destroy_cq(s.cq);
	ibv_dealloc_pd(s.pd);
	ibv_close_device(s.ibv);
}

int main(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "d:g:sc:p:q:m:w:n:t:O:")) != -1) {
		switch (c) {
		case 'd': dev_name = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 's': peer_ip = NULL; break;
		case 'c': peer_ip = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'q': nqp = atoi(optarg); break;
		case 'm': msg = strtoul(optarg, NULL, 0); break;
		case 'w': depth = atoi(optarg); break;
		case 'n': iters = atol(optarg); break;
		case 't': secs = atoi(optarg); break;
		case 'O': objects = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-d dev] [-g gid] [-s | -c IP] [-p port] [-q qps] [-m bytes] [-w depth] [-n writes | -t secs] [IP] | -O qps\n",
				argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		peer_ip = argv[optind];	/* perftest's way: the peer last */
	if (nqp < 1 || nqp > MAX_QPS || depth < 1 || depth > 64 || !msg)
		die("arguments");
	if (objects)
		objects_rounds();
	else
		traffic();
	return ktap_done();
}
