// SPDX-License-Identifier: GPL-2.0-only
/*
 * Module load and unload, and the "sroce" rdma link type.
 *
 * Load order matters: the UDP port is taken first, so that a module that
 * cannot coexist (rdma_rxe) makes us fail before anything is registered.
 * Unload runs in reverse: no new links, then every device torn down, then
 * netdev events and the sockets.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/module.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "sroce_mcast.h"
#include "sroce_net.h"

struct workqueue_struct *sroce_wq;

static struct rdma_link_ops sroce_link_ops = {
	.type = SROCE_LINK_TYPE,
	.newlink = sroce_newlink,
};

static int __init sroce_init(void)
{
	int err;

	err = sroce_net_init();
	if (err)
		return err;

	sroce_wq = alloc_workqueue("sroce", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!sroce_wq) {
		err = -ENOMEM;
		goto err_net;
	}
	err = sroce_mcast_init();
	if (err)
		goto err_wq;
	err = sroce_netdev_events_init();
	if (err)
		goto err_mcast;

	rdma_link_register(&sroce_link_ops);
	pr_info("loaded\n");
	return 0;

err_mcast:
	sroce_mcast_exit();
err_wq:
	destroy_workqueue(sroce_wq);
err_net:
	sroce_net_exit();
	return err;
}

static void __exit sroce_exit(void)
{
	rdma_link_unregister(&sroce_link_ops);
	sroce_unregister_all();
	sroce_tx_ctx_wait_all();
	sroce_mcast_exit();		/* group leaves of the teardown */
	sroce_netdev_events_exit();
	destroy_workqueue(sroce_wq);
	sroce_net_exit();
	pr_info("unloaded\n");
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_AUTHOR("The sroce developers");
MODULE_DESCRIPTION("Software RoCEv2 RDMA device");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK(SROCE_LINK_TYPE);
