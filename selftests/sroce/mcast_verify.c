// SPDX-License-Identifier: GPL-2.0-only
/*
 * mcast_verify: multicast attachments through the stock rxe provider, on
 * one device. A UD QP attached to a group twice (the LID differs, which
 * RoCE ignores) must be detached twice before it can be destroyed, and a
 * process that exits attached twice is cleaned up (uverbs detaches both;
 * a lost count would leave the QP undestroyable and warn). Then for an
 * IPv4 and an IPv6 group: one datagram sent to the group reaches the
 * device's own attached QP exactly once, with its data.
 *
 *   mcast_verify -d DEV -4 GID_INDEX_V4 -6 GID_INDEX_V6
 *
 * With -l, a loop instead: one UD QP attached to and detached from one
 * group LOOPS times, then attached once more, in steps the calling
 * script paces through files in directory DIR (it holds RTNL meanwhile
 * and looks at what the kernel queued): the program creates "ready" and
 * waits for "go", loops, creates "looped" and waits for "leave", then
 * detaches and exits.
 *
 *   mcast_verify -d DEV -l LOOPS -g GROUP -w DIR [-G]
 *
 * -G: the device may be gone (unregistered with its netdev, this
 * process's context disassociated) before the last detach; that detach
 * then fails with EIO, which is the verbs contract, not a fault.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <infiniband/verbs.h>

#include "verbs_util.h"

#define QKEY		0x11110000
#define MSG		256
#define WAIT_S		300	/* a safety net, never the thing tested */

struct ctx {
	struct ibv_context *ibv;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t buf[2 * (MSG + 40)];
};

static struct ibv_qp *ud_qp(struct ctx *c)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = c->cq, .recv_cq = c->cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = QKEY };
	struct ibv_qp *qp = ibv_create_qp(c->pd, &ia);

	if (!qp || ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				 IBV_QP_PORT | IBV_QP_QKEY))
		die("UD QP to INIT");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		die("UD QP to RTR");
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("UD QP to RTS");
	return qp;
}

/* Completions of kind @op within @secs seconds, up to @max */
static int count_wc(struct ctx *c, enum ibv_wc_opcode op, int max, int secs,
		    int *bad)
{
	time_t end = time(NULL) + secs;
	int n = 0;

	while (n < max && time(NULL) < end) {
		struct ibv_wc wc;
		int r = ibv_poll_cq(c->cq, 1, &wc);

		if (r < 0)
			die("ibv_poll_cq");
		if (!r) {
			usleep(1000);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			printf("# completion status %s\n",
			       ibv_wc_status_str(wc.status));
			(*bad)++;
		} else if (wc.opcode == op) {
			n++;
			if (op == IBV_WC_RECV &&
			    (wc.byte_len != MSG + 40 ||
			     memcmp(c->buf + 40, c->buf + 2 * 40 + MSG, MSG)))
				(*bad)++;
		}
	}
	return n;
}

/* One datagram to @group from @snd reaches @rcv once. */
static void one_to_group(struct ctx *c, const char *name, int gid_index,
			 const char *group)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	union ibv_gid gid;
	struct ibv_qp *snd = ud_qp(c), *rcv = ud_qp(c);
	struct ibv_sge rs = { .addr = (uintptr_t)c->buf, .length = MSG + 40,
			      .lkey = c->mr->lkey };
	struct ibv_sge ss = { .addr = (uintptr_t)c->buf + MSG + 2 * 40,
			      .length = MSG, .lkey = c->mr->lkey };
	struct ibv_recv_wr rw = { .sg_list = &rs, .num_sge = 1 }, *brw;
	struct ibv_send_wr sw = { .sg_list = &ss, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bsw;
	char what[160];
	int bad = 0, got, i;
	struct ibv_ah *ah;

	memset(&gid, 0, sizeof(gid));
	if (strchr(group, ':')) {
		inet_pton(AF_INET6, group, gid.raw);
	} else {
		gid.raw[10] = gid.raw[11] = 0xff;
		inet_pton(AF_INET, group, gid.raw + 12);
	}
	snprintf(what, sizeof(what), "%s: attach a QP to %s", name, group);
	ok(!ibv_attach_mcast(rcv, &gid, 0), "%s", what);
	for (i = 0; i < MSG; i++)
		c->buf[MSG + 2 * 40 + i] = (uint8_t)(i * 3 + name[3]);
	if (ibv_post_recv(rcv, &rw, &brw) || ibv_post_recv(rcv, &rw, &brw))
		die("ibv_post_recv");
	aa.grh.dgid = gid;
	aa.grh.sgid_index = gid_index;
	aa.grh.hop_limit = 1;
	ah = ibv_create_ah(c->pd, &aa);
	if (!ah)
		die("ibv_create_ah for the group");
	sw.wr.ud.ah = ah;
	sw.wr.ud.remote_qpn = 0xffffff;
	sw.wr.ud.remote_qkey = QKEY;
	if (ibv_post_send(snd, &sw, &bsw))
		die("ibv_post_send");
	ok(count_wc(c, IBV_WC_SEND, 1, WAIT_S, &bad) == 1 && !bad,
	   "send to the group completes");
	got = count_wc(c, IBV_WC_RECV, 1, WAIT_S, &bad);
	snprintf(what, sizeof(what),
		 "%s: the attached QP of the sending device receives it, data intact",
		 name);
	ok(got == 1 && !bad, "%s", what);
	/* A second copy would come at once: the stack's own loopback */
	got = count_wc(c, IBV_WC_RECV, 1, 2, &bad);
	snprintf(what, sizeof(what), "%s: and only once", name);
	ok(got == 0, "%s", what);
	ok(!ibv_detach_mcast(rcv, &gid, 0), "detach");
	ibv_destroy_ah(ah);
	ibv_destroy_qp(snd);
	ibv_destroy_qp(rcv);
}

/* The script's step @name: create file @name in @dir, or wait for it */
static void step_done(const char *dir, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		die(path);
	close(fd);
}

static void step_wait(const char *dir, const char *name)
{
	time_t end = time(NULL) + 2 * WAIT_S;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (access(path, F_OK)) {
		if (time(NULL) > end)
			die(path);
		usleep(20000);
	}
}

/*
 * Attach and detach one QP @loops times, then attach it once more: the
 * netdev must end a member of the group, and what the kernel queued for
 * that is the script's to look at between the steps.
 */
static void attach_loop(struct ctx *c, const char *group, long loops,
			const char *dir, int may_go)
{
	struct ibv_qp *qp = ud_qp(c);
	long i, bad = 0;
	int ret;
	union ibv_gid gid;

	memset(&gid, 0, sizeof(gid));
	gid.raw[10] = gid.raw[11] = 0xff;
	if (inet_pton(AF_INET, group, gid.raw + 12) != 1)
		die("-g wants an IPv4 group");
	step_done(dir, "ready");
	step_wait(dir, "go");
	for (i = 0; i < loops; i++) {
		bad += !!ibv_attach_mcast(qp, &gid, 0);
		bad += !!ibv_detach_mcast(qp, &gid, 0);
	}
	ok(!bad, "%ld attaches and detaches of one QP to %s (%ld failed)",
	   loops, group, bad);
	ok(!ibv_attach_mcast(qp, &gid, 0), "attached once more");
	step_done(dir, "looped");
	step_wait(dir, "leave");
	ret = ibv_detach_mcast(qp, &gid, 0);
	if (ret && may_go)
		ok(ret == EIO, "detach after the device went: %s (EIO expected)",
		   strerror(ret));
	else
		ok(!ret, "detached");
	ok(!ibv_destroy_qp(qp), "QP destroyed");
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *group = "239.7.7.7", *dir = NULL;
	int g4 = -1, g6 = -1, opt, status;
	long loops = 0;
	int may_go = 0;
	pid_t child;
	union ibv_gid gid;
	struct ibv_qp *qp;
	struct ctx c;

	memset(&c, 0, sizeof(c));
	while ((opt = getopt(argc, argv, "d:4:6:l:g:w:G")) != -1) {
		if (opt == 'd')
			dev = optarg;
		else if (opt == 'l')
			loops = atol(optarg);
		else if (opt == 'g')
			group = optarg;
		else if (opt == 'w')
			dir = optarg;
		else if (opt == 'G')
			may_go = 1;
		else if (opt == '4')
			g4 = atoi(optarg);
		else if (opt == '6')
			g6 = atoi(optarg);
		else
			return 2;
	}
	printf("KTAP version 1\n");
	c.ibv = vu_open(dev);
	c.pd = ibv_alloc_pd(c.ibv);
	c.cq = ibv_create_cq(c.ibv, 16, NULL, NULL, 0);
	c.mr = c.pd ? ibv_reg_mr(c.pd, c.buf, sizeof(c.buf),
				 IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!c.mr || !c.cq)
		die("device, PD, CQ, MR");
	if (loops > 0) {
		if (!dir)
			return 2;
		attach_loop(&c, group, loops, dir, may_go);
		goto out;
	}

	/* Attached twice (the LID differs, which RoCE ignores) */
	qp = ud_qp(&c);
	memset(&gid, 0, sizeof(gid));
	gid.raw[10] = gid.raw[11] = 0xff;
	inet_pton(AF_INET, "239.9.9.9", gid.raw + 12);
	ok(!ibv_attach_mcast(qp, &gid, 0), "attach a UD QP to 239.9.9.9");
	ok(!ibv_attach_mcast(qp, &gid, 1),
	   "attach it again (another LID, same group)");
	ok(ibv_destroy_qp(qp) != 0,
	   "destroy refused while attached (uverbs' rule)");
	ok(!ibv_detach_mcast(qp, &gid, 0), "detach the first attachment");
	ok(!ibv_detach_mcast(qp, &gid, 1), "detach the second one");
	ok(!ibv_destroy_qp(qp), "then the destroy succeeds");
	/* A process that exits attached twice: uverbs detaches both */
	child = fork();
	if (!child) {
		struct ctx cc;

		memset(&cc, 0, sizeof(cc));
		cc.ibv = vu_open(dev);
		cc.pd = ibv_alloc_pd(cc.ibv);
		cc.cq = cc.ibv ? ibv_create_cq(cc.ibv, 16, NULL, NULL, 0) :
				 NULL;
		if (!cc.pd || !cc.cq)
			_exit(1);
		qp = ud_qp(&cc);
		_exit(ibv_attach_mcast(qp, &gid, 0) ||
		      ibv_attach_mcast(qp, &gid, 1) ? 1 : 0);
	}
	ok(child > 0 && waitpid(child, &status, 0) == child &&
	   WIFEXITED(status) && !WEXITSTATUS(status),
	   "a process exits attached twice (the kernel log must stay clean)");

	one_to_group(&c, "IPv4", g4, "239.1.2.4");
	one_to_group(&c, "IPv6", g6, "ff0e::1:2:4");
out:
	ibv_dereg_mr(c.mr);
	ibv_destroy_cq(c.cq);
	ibv_dealloc_pd(c.pd);
	ibv_close_device(c.ibv);
	return ktap_done();
}
