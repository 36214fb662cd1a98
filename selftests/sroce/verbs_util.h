/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Verbs set-up the selftest programs share, on top of ktap.h: open a
 * device and read a GID, connect an RC QP (RESET -> INIT -> RTR -> RTS)
 * along a path, wait for a completion. Each program includes it once,
 * after ktap.h; a set-up step that fails die()s.
 */
#ifndef SROCE_SELFTEST_VERBS_UTIL_H
#define SROCE_SELFTEST_VERBS_UTIL_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "ktap.h"

/* Device @name (NULL: the first there is), opened */
static inline struct ibv_context *vu_open(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ibv = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (list && list[i])
		ibv = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ibv)
		die(name ? name : "no device");
	return ibv;
}

static inline void vu_query_gid(struct ibv_context *ibv, int index,
				union ibv_gid *gid)
{
	if (ibv_query_gid(ibv, 1, index, gid))
		die("ibv_query_gid");
}

/* An RC QP's path and the attributes its moves to INIT, RTR, RTS set */
struct vu_rc {
	int		access;		/* qp_access_flags */
	uint32_t	dest_qpn;
	union ibv_gid	dgid;
	int		sgid_index;
	uint8_t		hop_limit;
	uint8_t		traffic_class;
	uint32_t	flow_label;
	enum ibv_mtu	mtu;
	uint32_t	sq_psn;
	uint32_t	rq_psn;		/* the peer's sq_psn */
	uint8_t		rd_atomic;	/* max_rd_atomic, max_dest_rd_atomic */
	uint8_t		min_rnr_timer;
	uint8_t		timeout;
	uint8_t		retry_cnt;
	uint8_t		rnr_retry;
};

/*
 * The path to QP @dest behind @dgid, from GID @sgid_index, with what the
 * tests take unless they say otherwise: path MTU 1024, hop limit 1, PSN 0,
 * one READ or atomic in flight, and every retry (7) with a timeout of
 * 67 ms (14) and an RNR timer of 0.01 ms (1).
 */
static inline void vu_rc_path(struct vu_rc *p, const union ibv_gid *dgid,
			      int sgid_index, uint32_t dest)
{
	memset(p, 0, sizeof(*p));
	p->dest_qpn = dest;
	p->dgid = *dgid;
	p->sgid_index = sgid_index;
	p->hop_limit = 1;
	p->mtu = IBV_MTU_1024;
	p->rd_atomic = 1;
	p->min_rnr_timer = 1;
	p->timeout = 14;
	p->retry_cnt = 7;
	p->rnr_retry = 7;
}

/* RESET -> INIT with @access: ibv_modify_qp()'s result */
static inline int vu_rc_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = access,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* INIT -> RTR along @p: ibv_modify_qp()'s result */
static inline int vu_rc_rtr(struct ibv_qp *qp, const struct vu_rc *p)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = p->mtu;
	a.dest_qp_num = p->dest_qpn;
	a.rq_psn = p->rq_psn;
	a.max_dest_rd_atomic = p->rd_atomic;
	a.min_rnr_timer = p->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = p->dgid;
	a.ah_attr.grh.sgid_index = p->sgid_index;
	a.ah_attr.grh.hop_limit = p->hop_limit;
	a.ah_attr.grh.traffic_class = p->traffic_class;
	a.ah_attr.grh.flow_label = p->flow_label;
	a.ah_attr.port_num = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

/* RTR -> RTS along @p: ibv_modify_qp()'s result */
static inline int vu_rc_rts(struct ibv_qp *qp, const struct vu_rc *p)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = p->timeout;
	a.retry_cnt = p->retry_cnt;
	a.rnr_retry = p->rnr_retry;
	a.sq_psn = p->sq_psn;
	a.max_rd_atomic = p->rd_atomic;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* RESET -> RTS along @p, or die() */
static inline void vu_rc_connect(struct ibv_qp *qp, const struct vu_rc *p)
{
	if (vu_rc_init(qp, p->access))
		die("modify INIT");
	if (vu_rc_rtr(qp, p))
		die("modify RTR");
	if (vu_rc_rts(qp, p))
		die("modify RTS");
}

/*
 * The next completion of @cq into @wc, waiting up to @secs (a safety
 * net, never the thing tested): 0, or -1 on a poll error or none in time
 * (said in a comment line).
 */
static inline int vu_wait_wc(struct ibv_cq *cq, int secs, struct ibv_wc *wc)
{
	time_t end = time(NULL) + secs;

	while (time(NULL) < end) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return -1;
		if (n)
			return 0;
	}
	printf("# no completion in %d s\n", secs);
	return -1;
}

/*
 * The TCP connection two guests exchange QP numbers over, on @port:
 * without @peer_ip this side listens and takes one connection; with it,
 * it connects, trying again for two minutes while the peer comes up.
 */
static inline int vu_tcp_connect(const char *peer_ip, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd, one = 1, i;

	sa.sin_port = htons(port);
	if (!peer_ip) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		sa.sin_addr.s_addr = INADDR_ANY;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (void *)&sa, sizeof(sa)) || listen(fd, 1))
			die("listen");
		i = accept(fd, NULL, NULL);
		close(fd);
		return i;
	}
	if (inet_pton(AF_INET, peer_ip, &sa.sin_addr) != 1)
		die("peer address");
	for (i = 0; i < 600; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (!connect(fd, (void *)&sa, sizeof(sa)))
			return fd;
		close(fd);
		usleep(200000);
	}
	die("connect");
	return -1;
}

/* Send @len bytes of @out (if any), then receive @len into @in (if any) */
static inline void vu_xfer(int fd, const void *out, void *in, size_t len)
{
	if (out && write(fd, out, len) != (ssize_t)len)
		die("write");
	if (in && recv(fd, in, len, MSG_WAITALL) != (ssize_t)len)
		die("read");
}

#endif /* SROCE_SELFTEST_VERBS_UTIL_H */
