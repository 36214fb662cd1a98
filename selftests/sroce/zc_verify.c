// SPDX-License-Identifier: GPL-2.0-only
/*
 * zc_verify: what zero-copy transmit promises an application, tested
 * from user space.
 *
 * -t early (a pair; -s on the receiver, -c IP on the sender): the sender
 * posts one Send of -l bytes (default 64 KiB) filled with 0xAA, moves
 * its QP to SQD and, the moment IBV_EVENT_SQ_DRAINED comes (with the
 * Send's completion, which must be there by then), overwrites the buffer
 * with 0xBB, as any application reusing its buffers does. The test around it holds the
 * sender's packets in a slow qdisc and has the peer acknowledge the
 * whole message early with a forged ACK (roce_forge.py --op ack): the
 * sender writes its QPN and the message's last PSN to -o FILE once the
 * Send is posted, for that. The receiver must get every byte
 * as 0xAA: a packet that left after the completion with 0xBB in it is
 * dropped for its ICRC and never resent, so the receive never completes.
 *
 * -t pin -c IP (one side, any user): the loop of a process that tries to
 * make the stack pin memory it no longer owns. -n times: a fresh buffer
 * (-l bytes), an MR, an RC QP "connected" to QP 0x123 behind IP (nobody
 * answers), one Send per packet whose payload is -k bytes in each page
 * it touches (-k 256: four pages for a 1 KiB packet), then the QP, MR
 * and buffer are destroyed at once, whatever the stack still holds.
 * Prints how many iterations ran; the test around it measures memory.
 *
 * Both sides of "early" talk over TCP port -p (default 18515).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "verbs_util.h"

#define WAIT_SECS	180

struct wire {
	uint32_t	qpn;
	uint32_t	psn;
	uint8_t		gid[16];
};

static const char *dev_name = "sroce0";
static int gid_index = 1;
static const char *peer_ip;
static const char *out_file;
static int port = 18515;
static size_t msg_len = 65536;
static int iters = 64;
static int per_page = 256;

struct res {
	struct ibv_context	*ibv;
	struct ibv_pd		*pd;
	struct ibv_cq		*cq;
	struct ibv_qp		*qp;
	struct ibv_mr		*mr;
	uint8_t			*buf;
	size_t			len;
};

static void res_open(struct res *r, size_t len, int sq_depth)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = sq_depth, .max_recv_wr = 4,
			 .max_send_sge = 4, .max_recv_sge = 1 },
	};

	r->len = len;
	r->buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->buf == MAP_FAILED)
		die("mmap");
	memset(r->buf, 0, len);
	r->pd = ibv_alloc_pd(r->ibv);
	r->cq = ibv_create_cq(r->ibv, sq_depth + 8, NULL, NULL, 0);
	if (!r->pd || !r->cq)
		die("pd/cq");
	r->mr = ibv_reg_mr(r->pd, r->buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!r->mr)
		die("ibv_reg_mr");
	qa.send_cq = r->cq;
	qa.recv_cq = r->cq;
	r->qp = ibv_create_qp(r->pd, &qa);
	if (!r->qp)
		die("ibv_create_qp");
}

static void res_close(struct res *r)
{
	if (ibv_destroy_qp(r->qp) || ibv_dereg_mr(r->mr) ||
	    ibv_destroy_cq(r->cq) || ibv_dealloc_pd(r->pd))
		die("destroy");
	munmap(r->buf, r->len);
}

static int post_one(struct res *r, enum ibv_wr_opcode op, size_t off,
		    size_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf + off, .length = len,
		.lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad;

	if (op == (enum ibv_wr_opcode)-1)
		return ibv_post_recv(r->qp, &rwr, &rbad);
	return ibv_post_send(r->qp, &wr, &bad);
}

/* RTS -> SQD, then wait for IBV_EVENT_SQ_DRAINED: 1 once it came */
static int sq_drain(struct res *r)
{
	struct pollfd pfd = { .fd = r->ibv->async_fd, .events = POLLIN };
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_SQD };
	struct ibv_async_event ev;
	int drained = 0;

	fcntl(pfd.fd, F_SETFL, fcntl(pfd.fd, F_GETFL) | O_NONBLOCK);
	if (ibv_modify_qp(r->qp, &a, IBV_QP_STATE))
		return 0;
	while (!drained && poll(&pfd, 1, WAIT_SECS * 1000) == 1 &&
	       !ibv_get_async_event(r->ibv, &ev)) {
		drained = ev.event_type == IBV_EVENT_SQ_DRAINED &&
			  ev.element.qp == r->qp;
		ibv_ack_async_event(&ev);
	}
	return drained;
}

/* -t early */
static void test_early(void)
{
	struct wire me = { .psn = 0x1000 }, peer;
	struct ibv_wc wc = { 0 };
	struct res r = { .ibv = vu_open(dev_name) };
	uint32_t npkts = (msg_len + 1023) / 1024;
	union ibv_gid gid;
	struct vu_rc p;
	char verdict = 0;
	size_t bad = 0, i;
	int fd;

	res_open(&r, msg_len, 16);
	vu_query_gid(r.ibv, gid_index, &gid);
	me.qpn = r.qp->qp_num;
	memcpy(me.gid, gid.raw, 16);
	fd = vu_tcp_connect(peer_ip, port);
	vu_xfer(fd, &me, &peer, sizeof(me));
	memcpy(gid.raw, peer.gid, 16);
	vu_rc_path(&p, &gid, gid_index, peer.qpn);
	p.sq_psn = me.psn;
	p.rq_psn = peer.psn;
	vu_rc_connect(r.qp, &p);
	if (!peer_ip && post_one(&r, -1, 0, msg_len))
		die("ibv_post_recv");
	vu_xfer(fd, &verdict, &verdict, 1);	/* both connected */

	if (peer_ip) {
		struct timespec t0, t1;
		int drained, polled;
		char tmp[4096];
		FILE *f;

		memset(r.buf, 0xaa, msg_len);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (post_one(&r, IBV_WR_SEND, 0, msg_len))
			die("ibv_post_send");
		/* whole or not at all: the forger reads it as it appears */
		snprintf(tmp, sizeof(tmp), "%s.tmp", out_file);
		f = fopen(tmp, "w");
		if (!f)
			die(tmp);
		fprintf(f, "%u %u\n", me.qpn,
			(me.psn + npkts - 1) & 0xffffff);
		if (fclose(f) || rename(tmp, out_file))
			die(out_file);
		/*
		 * SQD at once: IBV_EVENT_SQ_DRAINED says every send is
		 * done, so the Send's completion must be there with it.
		 */
		drained = sq_drain(&r);
		polled = ibv_poll_cq(r.cq, 1, &wc);
		ok(drained && polled == 1,
		   "early: SQ_DRAINED (%d) comes with the Send's completion (%d)",
		   drained, polled);
		ok((polled == 1 || !vu_wait_wc(r.cq, WAIT_SECS, &wc)) &&
		   wc.status == IBV_WC_SUCCESS,
		   "early: the Send completes (status %d)", wc.status);
		/* the buffer is the application's again: reuse it */
		memset(r.buf, 0xbb, msg_len);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("# completed %ld ms after it was posted\n",
		       (t1.tv_sec - t0.tv_sec) * 1000 +
		       (t1.tv_nsec - t0.tv_nsec) / 1000000);
		vu_xfer(fd, NULL, &verdict, 1);
		ok(verdict == 1,
		   "early: the receiver got every byte as posted (%d)",
		   verdict);
	} else {
		if (vu_wait_wc(r.cq, WAIT_SECS, &wc) ||
		    wc.status != IBV_WC_SUCCESS || wc.byte_len != msg_len) {
			ok(0, "early: the message arrives whole (status %d, %u bytes)",
			   wc.status, wc.byte_len);
			verdict = 2;
		} else {
			for (i = 0; i < msg_len; i++)
				bad += r.buf[i] != 0xaa;
			ok(!bad, "early: every byte as posted (%zu of %zu not)",
			   bad, msg_len);
			verdict = bad ? 3 : 1;
		}
		vu_xfer(fd, &verdict, NULL, 1);
	}
	close(fd);
	res_close(&r);
	ibv_close_device(r.ibv);
}

/*
 * -t pin: one iteration's QP, packets and teardown. Each Send is one
 * 1 KiB packet made of 1024 / per_page chunks; chunk j lies alone in its
 * page below 1 KiB per page, else packed, per_page bytes at a time.
 */
static void pin_once(struct ibv_context *ibv, const union ibv_gid *dgid)
{
	size_t per = per_page, cpp = per >= 1024 ? 4096 / per : 1;
	size_t chunks = msg_len / 4096 * cpp, j = 0;
	struct res r = { .ibv = ibv };
	struct ibv_sge sge[4];
	struct ibv_send_wr wr = {
		.sg_list = sge, .num_sge = 1024 / per,
		.opcode = IBV_WR_SEND,
	}, *bad;
	struct vu_rc p;
	int n, k;

	res_open(&r, msg_len, 128);
	memset(r.buf, 0x5a, msg_len);
	vu_rc_path(&p, dgid, gid_index, 0x123);
	vu_rc_connect(r.qp, &p);
	for (n = 0; n < 127 && j + wr.num_sge <= chunks; n++) {
		for (k = 0; k < wr.num_sge; k++, j++) {
			sge[k].addr = (uintptr_t)r.buf + j / cpp * 4096 +
				      j % cpp * per;
			sge[k].length = per;
			sge[k].lkey = r.mr->lkey;
		}
		if (ibv_post_send(r.qp, &wr, &bad))
			break;
	}
	res_close(&r);
}

static void test_pin(void)
{
	struct ibv_context *ibv = vu_open(dev_name);
	union ibv_gid dgid = { .raw = { [10] = 0xff, [11] = 0xff } };
	int i;

	if (inet_pton(AF_INET, peer_ip, &dgid.raw[12]) != 1)
		die("peer address");
	for (i = 0; i < iters; i++)
		pin_once(ibv, &dgid);
	ok(1, "pin: %d iterations of %zu-byte buffers, %d bytes per page",
	   iters, msg_len, per_page);
	ibv_close_device(ibv);
}

int main(int argc, char **argv)
{
	const char *test = "early";
	int c;

	while ((c = getopt(argc, argv, "d:g:sc:p:o:t:l:n:k:")) != -1) {
		switch (c) {
		case 'd': dev_name = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 's': peer_ip = NULL; break;
		case 'c': peer_ip = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'o': out_file = optarg; break;
		case 't': test = optarg; break;
		case 'l': msg_len = strtoul(optarg, NULL, 0); break;
		case 'n': iters = atoi(optarg); break;
		case 'k': per_page = atoi(optarg); break;
		default: return 2;
		}
	}
	printf("KTAP version 1\n");
	if (!strcmp(test, "early")) {
		if (peer_ip && !out_file)
			return 2;
		test_early();
	} else if (!strcmp(test, "pin") && peer_ip &&
		   (per_page == 256 || per_page == 512 || per_page == 1024)) {
		test_pin();
	} else {
		return 2;
	}
	return ktap_done();
}
