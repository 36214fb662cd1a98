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
#include <rdma/ib_pack.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "sroce_mcast.h"
#include "sroce_net.h"
#include "sroce/opcode.h"
#include "sroce/rc_engine.h"

/*
 * The pure core (include/sroce/) has no kernel headers; where its numbers
 * are the kernel's, the glue passes them through unconverted. Checked
 * here, in one place.
 */
static_assert(SROCE_WC_SUCCESS == IB_WC_SUCCESS);
static_assert(SROCE_WC_LOC_LEN_ERR == IB_WC_LOC_LEN_ERR);
static_assert(SROCE_WC_LOC_QP_OP_ERR == IB_WC_LOC_QP_OP_ERR);
static_assert(SROCE_WC_LOC_PROT_ERR == IB_WC_LOC_PROT_ERR);
static_assert(SROCE_WC_WR_FLUSH_ERR == IB_WC_WR_FLUSH_ERR);
static_assert(SROCE_WC_BAD_RESP_ERR == IB_WC_BAD_RESP_ERR);
static_assert(SROCE_WC_REM_INV_REQ_ERR == IB_WC_REM_INV_REQ_ERR);
static_assert(SROCE_WC_REM_ACCESS_ERR == IB_WC_REM_ACCESS_ERR);
static_assert(SROCE_WC_REM_OP_ERR == IB_WC_REM_OP_ERR);
static_assert(SROCE_WC_RETRY_EXC_ERR == IB_WC_RETRY_EXC_ERR);
static_assert(SROCE_WC_RNR_RETRY_EXC_ERR == IB_WC_RNR_RETRY_EXC_ERR);
static_assert(SROCE_ACC_REMOTE_WRITE == IB_ACCESS_REMOTE_WRITE);
static_assert(SROCE_ACC_REMOTE_READ == IB_ACCESS_REMOTE_READ);
static_assert(SROCE_ACC_REMOTE_ATOMIC == IB_ACCESS_REMOTE_ATOMIC);
static_assert(SROCE_MULTICAST_QPN == IB_MULTICAST_QPN);
static_assert(SROCE_RC_SEND_FIRST == IB_OPCODE_RC_SEND_FIRST);
static_assert(SROCE_RC_SEND_ONLY == IB_OPCODE_RC_SEND_ONLY);
static_assert(SROCE_RC_ACK == IB_OPCODE_RC_ACKNOWLEDGE);
static_assert(SROCE_RC_ATOMIC_ACK == IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE);
static_assert(SROCE_RC_CMP_SWAP == IB_OPCODE_RC_COMPARE_SWAP);
static_assert(SROCE_RC_FETCH_ADD == IB_OPCODE_RC_FETCH_ADD);
static_assert(SROCE_RC_READ_RESP_ONLY ==
	      IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY);
static_assert(SROCE_UD_SEND_ONLY == IB_OPCODE_UD_SEND_ONLY);
static_assert(SROCE_UD_SEND_ONLY_IMM ==
	      IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE);
static_assert(SROCE_CNP_OPCODE == (IB_OPCODE_CNP | 0x01));

static struct rdma_link_ops sroce_link_ops = {
	.type = SROCE_LINK_TYPE,
	.newlink = sroce_newlink,
};

static int __init sroce_init(void)
{
	int err;

	err = sroce_recv_init();
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
	sroce_recv_exit();
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
	sroce_recv_exit();
	pr_info("unloaded\n");
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_AUTHOR("The sroce developers");
MODULE_DESCRIPTION("Software RoCEv2 RDMA device");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK(SROCE_LINK_TYPE);
