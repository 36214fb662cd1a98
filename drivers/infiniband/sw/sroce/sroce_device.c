// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device lifetime, the ops table (every verb the RDMA core can call on an
 * sroce device starts at one of its entries), and port state changes
 * announced (sroce_port.c reads the state).
 *
 * - "rdma link add NAME type sroce netdev DEV" lands in sroce_newlink(),
 *   which checks the netdev, allocates a struct sroce_dev, binds it to
 *   the netdev and registers it with the RDMA core.
 * - A device goes away through the core only: "rdma link delete", the
 *   netdev being unregistered (queued, we are under RTNL there) or module
 *   unload (sroce_unregister_all()). Whichever path wins, the core calls
 *   sroce_dealloc_driver() exactly once, and that is where the device
 *   leaves our list.
 * - Port state is read live from the netdev (carrier, IFF_UP, MTU); the
 *   netdev notifier only announces changes to the core as port events.
 *
 * sroce never calls ib_unregister_driver(): rdma_rxe shares our driver_id
 * and that call would take its devices too. We only touch devices on
 * sroce_devices.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/delay.h>
#include <linux/if_arp.h>
#include <linux/mutex.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>

#include "sroce.h"
#include "sroce_ah.h"
#include "sroce_cc.h"
#include "sroce_compat.h"
#include "sroce_counters.h"
#include "sroce_cq.h"
#include "sroce_mcast.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_net.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_srq.h"
#include "sroce_verbs.h"

static LIST_HEAD(sroce_devices);
/*
 * Guards sroce_devices. Taken under RTNL by the netdev notifier, so it
 * is never held across anything that takes RTNL or waits for the core:
 * registration and synchronous unregistration run without it.
 */
static DEFINE_MUTEX(sroce_devices_lock);

/* Caller holds sroce_devices_lock. */
static struct sroce_dev *sroce_find_by_netdev(struct net_device *ndev)
{
	struct sroce_dev *sdev;

	list_for_each_entry(sdev, &sroce_devices, list)
		if (sdev->ndev == ndev)
			return sdev;
	return NULL;
}

static bool sroce_netdev_usable(struct net_device *ndev)
{
	/*
	 * RoCEv2 rides on IP over Ethernet. Loopback is Ethernet-like enough
	 * (it has an L2 header the stack fills in) and is handy for tests.
	 * L3 devices (tun, WireGuard, IP tunnels) have no MAC to make the
	 * node GUID and default GID of, nor the Ethernet frames hardware
	 * peers and the RDMA core's address resolution expect: refused.
	 */
	return ndev->type == ARPHRD_ETHER || ndev->type == ARPHRD_LOOPBACK;
}

/* /sys/class/infiniband/<dev>/parent names the netdev, as rxe does. */
static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct sroce_dev *sdev =
		rdma_device_to_drv_device(device, struct sroce_dev, ibdev);

	return sysfs_emit(buf, "%s\n", netdev_name(sdev->ndev));
}
static DEVICE_ATTR_RO(parent);

static struct attribute *sroce_dev_attributes[] = {
	&dev_attr_parent.attr,
	NULL,
};

static const struct attribute_group sroce_attr_group = {
	.attrs = sroce_dev_attributes,
};

static const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = SROCE_UVERBS_ABI_VERSION,

	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.counter_alloc_stats = sroce_counter_alloc_stats,
	.counter_bind_qp = sroce_counter_bind_qp,
	.counter_dealloc = sroce_counter_dealloc,
	.counter_unbind_qp = sroce_counter_unbind_qp,
	.counter_update_stats = sroce_counter_update_stats,
	.alloc_mr = sroce_alloc_mr,
	.alloc_mw = sroce_alloc_mw,
	.alloc_pd = sroce_alloc_pd,
	.alloc_ucontext = sroce_alloc_ucontext,
	.attach_mcast = sroce_attach_mcast,
	.create_ah = sroce_create_ah,
	.create_cq = sroce_create_cq,
	.create_qp = sroce_create_qp,
	.create_srq = sroce_create_srq,
	.create_user_ah = sroce_create_ah,
	.dealloc_driver = sroce_dealloc_driver,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.dereg_mr = sroce_dereg_mr,
	.destroy_ah = sroce_destroy_ah,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = sroce_detach_mcast,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.device_group = &sroce_attr_group,
	.fill_res_cq_entry = sroce_fill_res_cq_entry,
	.fill_res_qp_entry = sroce_fill_res_qp_entry,
	.get_dma_mr = sroce_get_dma_mr,
	.get_hw_stats = sroce_get_hw_stats,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.map_mr_sg = sroce_map_mr_sg,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	.modify_device = sroce_modify_device,
	.modify_port = sroce_modify_port,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.poll_cq = sroce_poll_cq,
	.process_mad = sroce_process_mad,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,
	.query_ah = sroce_query_ah,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	.reg_user_mr = sroce_reg_user_mr,
	.req_notify_cq = sroce_req_notify_cq,
	.resize_cq = sroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_ibmw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
};

static void sroce_set_ops(struct sroce_dev *sdev)
{
	struct ib_device *ibdev = &sdev->ibdev;

	strscpy(ibdev->node_desc, "sroce", sizeof(ibdev->node_desc));
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	/* The doorbell and CQ arming reach us through write() commands. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	ib_set_device_ops(ibdev, &sroce_dev_ops);
}

static struct lock_class_key sroce_ah_table_key;

int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct ib_device *other;
	struct sroce_dev *sdev;
	struct net *net;
	int err;

	if (!sroce_netdev_usable(ndev)) {
		pr_err("%s: %s is not an Ethernet device (type %u): RoCE needs Ethernet frames; bind the Ethernet netdev its packets leave on\n",
		       ibdev_name, ndev->name, ndev->type);
		return -EINVAL;
	}
	other = ib_device_get_by_name(ibdev_name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		ib_device_put(other);
		pr_err("%s: an RDMA device with that name exists\n",
		       ibdev_name);
		return -EEXIST;
	}
	other = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
	if (other) {
		pr_err("%s: %s is already bound to RDMA device %s\n",
		       ibdev_name, ndev->name, dev_name(&other->dev));
		ib_device_put(other);
		return -EEXIST;
	}

	/*
	 * The netdev's namespace, read once and held until the device is
	 * on the list (from then on its end waits for the device): a
	 * namespace already ending gets no device.
	 */
	net = maybe_get_net(dev_net(ndev));
	if (!net)
		return -ENODEV;
	/* its sockets: opened for its first device */
	err = sroce_net_get(net);
	if (err)
		goto err_net;
	sdev = ib_alloc_device(sroce_dev, ibdev);
	if (!sdev) {
		sroce_net_put(net);
		err = -ENOMEM;
		goto err_net;
	}
	/* from here on, sroce_dealloc_driver() lets the sockets go */
	sdev->net = net;
	/* Ours until dealloc_driver: sysfs "parent" may read it late. */
	dev_hold(ndev);
	sdev->ndev = ndev;
	INIT_LIST_HEAD(&sdev->list);
	xa_init_flags(&sdev->qp_table, XA_FLAGS_ALLOC);
	xa_init_flags(&sdev->mr_table, XA_FLAGS_ALLOC);
	xa_init_flags(&sdev->ah_table, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&sdev->qcounters, XA_FLAGS_ALLOC1);
	/*
	 * The tables share xa_init_flags()'s lock class; the AH table's
	 * lock is taken under QP locks (irqs off) and the others in process
	 * context only: lockdep must tell them apart.
	 */
	lockdep_set_class(&sdev->ah_table.xa_lock, &sroce_ah_table_key);
	spin_lock_init(&sdev->mcg_lock);
	sroce_cc_dev_init(sdev);
	/* first: from here on, ib_dealloc_device() puts the netdev */
	sroce_set_ops(sdev);
	err = sroce_mcast_dev_init(sdev);
	if (err)
		goto err_dealloc;
	sroce_init_attr(sdev);

	err = ib_device_set_netdev(&sdev->ibdev, ndev, SROCE_PORT);
	if (err)
		goto err_dealloc;

	/*
	 * Join the list before registering, under the lock, so that two
	 * racing link adds on one netdev cannot both get past this point.
	 */
	mutex_lock(&sroce_devices_lock);
	if (sroce_find_by_netdev(ndev)) {
		mutex_unlock(&sroce_devices_lock);
		pr_err("%s: %s already has an sroce device\n", ibdev_name,
		       ndev->name);
		err = -EEXIST;
		goto err_dealloc;
	}
	list_add_tail(&sdev->list, &sroce_devices);
	mutex_unlock(&sroce_devices_lock);
	put_net(net);
	net = NULL;

	sdev->reported_state = sroce_port_state(sdev);
	sroce_mark_name_assigned_by_user(&sdev->ibdev);	/* "link add NAME" */
	/* Keeps sdev's memory ours until we are done with it below. */
	get_device(&sdev->ibdev.dev);
	err = ib_register_device(&sdev->ibdev, ibdev_name, NULL);
	if (err) {
		pr_err("%s: registration failed: %d\n", ibdev_name, err);
		ib_dealloc_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
		return err;
	}
	pr_info("%s: created on %s\n", ibdev_name, ndev->name);

	/*
	 * The netdev may have started unregistering, or moved to another
	 * namespace, while we registered: the notifier skips devices not
	 * yet registered, so finish the job here. If the notifier or a
	 * "link delete" got there first, this is a no-op.
	 */
	if (READ_ONCE(ndev->reg_state) != NETREG_REGISTERED ||
	    !net_eq(dev_net(ndev), sdev->net))
		ib_unregister_device(&sdev->ibdev);
	put_device(&sdev->ibdev.dev);
	return 0;

err_dealloc:
	/* Calls sroce_dealloc_driver(), which leaves the list. */
	ib_dealloc_device(&sdev->ibdev);
err_net:
	put_net(net);
	return err;
}

/*
 * The core's last call for a device, on every teardown path (and on a
 * failed registration through ib_dealloc_device()). The core frees the
 * memory afterwards.
 */
void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	/* The core destroyed every QP and MR before calling us. */
	WARN_ON(!xa_empty(&sdev->qp_table) || !xa_empty(&sdev->mr_table) ||
		!xa_empty(&sdev->ah_table));
	xa_destroy(&sdev->qp_table);
	xa_destroy(&sdev->mr_table);
	xa_destroy(&sdev->ah_table);
	sroce_counters_dev_exit(sdev);
	sroce_mcast_dev_exit(sdev);
	sroce_net_put(sdev->net);
	/*
	 * Last: while it is on the list, the end of its namespace waits
	 * for it (sroce_devices_net_exit()), so sdev->net is alive above.
	 */
	mutex_lock(&sroce_devices_lock);
	list_del_init(&sdev->list);
	mutex_unlock(&sroce_devices_lock);
	dev_put(sdev->ndev);
}

/* Module unload: tear down every device we created, one at a time. */
void sroce_unregister_all(void)
{
	struct sroce_dev *sdev;

	mutex_lock(&sroce_devices_lock);
	while ((sdev = list_first_entry_or_null(&sroce_devices,
						struct sroce_dev, list))) {
		/*
		 * The device memory is valid while it is on the list (it
		 * leaves in dealloc_driver, before the core frees it); the
		 * extra struct device reference keeps it valid after we drop
		 * the lock, even if another path is unregistering it now:
		 * ib_unregister_device() then waits for that to finish.
		 */
		get_device(&sdev->ibdev.dev);
		mutex_unlock(&sroce_devices_lock);
		ib_unregister_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
		mutex_lock(&sroce_devices_lock);
	}
	mutex_unlock(&sroce_devices_lock);
}

static void sroce_port_event(struct sroce_dev *sdev, enum ib_port_state now)
{
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = SROCE_PORT,
	};

	if (now == sdev->reported_state)
		return;
	sdev->reported_state = now;
	ev.event = now == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
					   IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
	dev_info(&sdev->ibdev.dev, "port %s\n",
		 now == IB_PORT_ACTIVE ? "active" : "down");
}

/* Runs under RTNL, in process context. */
static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct sroce_dev *sdev;

	mutex_lock(&sroce_devices_lock);
	sdev = sroce_find_by_netdev(ndev);
	/*
	 * A device that is not registered yet (sroce_newlink() checks the
	 * netdev again afterwards) or already being torn down by another
	 * path needs nothing from us.
	 */
	if (!sdev || !ib_device_try_get(&sdev->ibdev))
		goto out;

	switch (event) {
	case NETDEV_UNREGISTER:
		/* Synchronous unregistration would deadlock on RTNL. */
		ib_unregister_device_queued(&sdev->ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		sroce_port_event(sdev, sroce_port_state(sdev));
		break;
	default:
		/* MTU and address changes are read live by query_port. */
		break;
	}
	ib_device_put(&sdev->ibdev);
out:
	mutex_unlock(&sroce_devices_lock);
	return NOTIFY_OK;
}

static struct notifier_block sroce_netdev_nb = {
	.notifier_call = sroce_netdev_event,
};

/* Caller holds sroce_devices_lock. */
static struct sroce_dev *sroce_find_by_net(struct net *net)
{
	struct sroce_dev *sdev;

	list_for_each_entry(sdev, &sroce_devices, list)
		if (net_eq(sdev->net, net))
			return sdev;
	return NULL;
}

/*
 * A network namespace ends. Its netdevs went first (unregistered, or a
 * physical one moved back to the initial namespace), and each one's
 * NETDEV_UNREGISTER started its sroce device's unregistration: wait for
 * those, so that the namespace's sockets close with the last device and
 * nothing of ours refers to the namespace afterwards. Runs before the
 * wire layer's own namespace exit (registered after it).
 */
static void __net_exit sroce_devices_net_exit(struct net *net)
{
	struct sroce_dev *sdev;
	struct sroce_dev *last = NULL;

	mutex_lock(&sroce_devices_lock);
	while ((sdev = sroce_find_by_net(net))) {
		/* as in sroce_unregister_all() */
		get_device(&sdev->ibdev.dev);
		mutex_unlock(&sroce_devices_lock);
		/*
		 * One still there after its unregistration returned is in
		 * a link add's error path or the core's dealloc, almost
		 * done: let it finish rather than spin.
		 */
		if (sdev == last)
			msleep(20);
		ib_unregister_device(&sdev->ibdev);
		last = sdev;
		put_device(&sdev->ibdev.dev);
		mutex_lock(&sroce_devices_lock);
	}
	mutex_unlock(&sroce_devices_lock);
}

static struct pernet_operations sroce_devices_net_ops = {
	.exit = sroce_devices_net_exit,
};

int sroce_netdev_events_init(void)
{
	int err;

	err = register_pernet_subsys(&sroce_devices_net_ops);
	if (err)
		return err;
	err = register_netdevice_notifier(&sroce_netdev_nb);
	if (err)
		unregister_pernet_subsys(&sroce_devices_net_ops);
	return err;
}

void sroce_netdev_events_exit(void)
{
	unregister_netdevice_notifier(&sroce_netdev_nb);
	unregister_pernet_subsys(&sroce_devices_net_ops);
}
