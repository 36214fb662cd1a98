/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce - a software RoCEv2 device on top of any Ethernet netdev.
 *
 * This header owns the objects every part of the driver shares: the
 * device (one per "rdma link add"), the user context and the PD, and the
 * prototypes of module load, link add and the port.
 *
 * The driver is built in layers that call one way, top first: entry
 * points (verbs, posting, receive, multicast), the scheduler, the engine
 * glue, the wire, the work-queue formats, the objects, and the pure
 * protocol core (core/, include/sroce/). Documentation/design.rst's file
 * map gives every file its layer, and tools/layers.py checks the code
 * against it.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "sroce/budget.h"
#include "sroce_counters.h"

#define SROCE_LINK_TYPE		"sroce"
#define SROCE_PORT		1

/*
 * Identity shared with rdma-core's rxe provider: driver_id and the
 * provider ABI version it accepts (see Documentation/abi.rst).
 */
#define SROCE_UVERBS_ABI_VERSION	2

struct sroce_dev {
	struct ib_device	ibdev;		/* first: ib_alloc_device() */
	/* The bound netdev; ib_device_set_netdev() holds its reference. */
	struct net_device	*ndev;
	/*
	 * Its namespace when the link was made, whose sockets the device
	 * holds (sroce_net_get()); not counted: the namespace's end waits
	 * for the device's (sroce_devices_net_exit()).
	 */
	struct net		*net;
	/* On sroce_devices, under sroce_devices_lock. */
	struct list_head	list;
	struct ib_device_attr	attr;
	/* Port capability bits changed by ib_cm via modify_port. */
	u32			port_cap_flags;
	/* Last port state announced with an event; RTNL serialises. */
	enum ib_port_state	reported_state;
	struct xarray		qp_table;	/* QPN -> struct sroce_qp */
	u32			qp_next;	/* next QPN to try; xa lock */
	struct xarray		mr_table;	/* key >> 8 -> struct sroce_mr */
	u32			mr_next;	/* next index to try; xa lock */
	/* Objects counted against the limits query_device reports. */
	atomic_t		npd;
	atomic_t		nmr;		/* MRs, DMA and fast-reg included */
	atomic_t		ncq;
	atomic_t		nsrq;
	atomic_t		nmw;		/* memory windows */
	atomic64_t		qp_uid;		/* last QP identity given */
	struct xarray		ah_table;	/* AH number -> struct sroce_ah */
	u32			ah_next;	/* next number to try; xa lock */
	atomic_t		srq_next;	/* last SRQ number given */
	spinlock_t		mcg_lock;	/* groups, attachments, nmcg */
	struct hlist_head	*mcg_hash;	/* multicast groups by GID */
	u32			mcg_seed;	/* of their hash */
	u32			nmcg;		/* read unlocked as a hint */
	atomic64_t		counters[SROCE_CNT_NR];
	/*
	 * Of those, the counts QPs bound to RDMA core counters took: the
	 * core shows a port's value as its own plus its counters', so the
	 * port's own is counters[] less these (sroce_get_hw_stats()).
	 */
	atomic64_t		counted_by_qps[SROCE_CNT_NR];
	struct xarray		qcounters;	/* counter id -> retired counts */
	u32			qcounter_next;	/* next id to try; xa lock */
	atomic64_t		port_counters[SROCE_PORT_NR];
	/*
	 * Packets its RC QPs keep in flight together (sroce_cc.c): the
	 * core decides, budget_lock serializes; taken under QP locks.
	 */
	spinlock_t		budget_lock;
	struct sroce_budget	budget;
	struct list_head	budget_wait;	/* QPs it held, oldest first */
};

struct sroce_ucontext {
	struct ib_ucontext	ibuc;
	/* its uverbs file's, once it mapped a ring (sroce_queue.c) */
	struct address_space	*mapping;
};

struct sroce_pd {
	struct ib_pd		ibpd;
};

/*
 * A caller's request refused: why, to dynamic debug (ibdev_dbg(), off
 * unless asked for: "echo 'module rdma_sroce +p' >
 * /sys/kernel/debug/dynamic_debug/control"); evaluates to @err.
 */
#define sroce_refuse(ibdev, err, fmt, ...)				\
	({ ibdev_dbg(ibdev, fmt, ##__VA_ARGS__); (err); })

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

/* sroce_device.c */
int sroce_newlink(const char *ibdev_name, struct net_device *ndev);
void sroce_unregister_all(void);
void sroce_dealloc_driver(struct ib_device *ibdev);
int sroce_netdev_events_init(void);
void sroce_netdev_events_exit(void);

/* sroce_port.c */
enum ib_port_state sroce_port_state(struct sroce_dev *sdev);
enum ib_mtu sroce_active_mtu(struct sroce_dev *sdev);
bool sroce_pkey_ok(u16 pkey);
bool sroce_netdev_ours(const struct sroce_dev *sdev,
		       const struct net_device *dev);
/* runs work deferred out of atomic context; allocated at module load */
extern struct workqueue_struct *sroce_wq;

/* sroce_recv.c: the receive entry point, with the sockets it needs */
int sroce_recv_init(void);
void sroce_recv_exit(void);

#endif /* SROCE_H */
