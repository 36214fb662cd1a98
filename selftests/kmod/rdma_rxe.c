// SPDX-License-Identifier: GPL-2.0-only
/*
 * A stand-in for rdma_rxe, named like it, for sroce/rxe.sh: what an
 * rdma_rxe that binds no UDP port at load does at load (mainline's, since
 * its sockets became per network namespace and are opened by the first
 * "rdma link add"). It registers rdma link type "rxe" and nothing else,
 * so sroce cannot tell it is there by port 4791; sroce must refuse it by
 * its module name, and refuse to load beside it. Its newlink makes no
 * device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <rdma/rdma_netlink.h>

static int standin_newlink(const char *ibdev_name, struct net_device *ndev)
{
	return -EOPNOTSUPP;
}

static struct rdma_link_ops standin_link_ops = {
	.type = "rxe",
	.newlink = standin_newlink,
};

static int __init standin_init(void)
{
	rdma_link_register(&standin_link_ops);
	pr_info("stand-in loaded, answering link type rxe\n");
	return 0;
}

static void __exit standin_exit(void)
{
	rdma_link_unregister(&standin_link_ops);
	pr_info("stand-in unloaded\n");
}

module_init(standin_init);
module_exit(standin_exit);

MODULE_DESCRIPTION("sroce selftest: an rdma_rxe that binds no port at load");
MODULE_LICENSE("GPL");
