// SPDX-License-Identifier: GPL-2.0-only
/*
 * Module load and unload, and the "sroce" rdma link type.
 *
 * Load order matters: first rdma_rxe is shut out (sroce_rxe_exclude()),
 * so that we fail before anything is registered if it is there; then the
 * UDP port is taken. Unload runs in reverse: no new links, then every
 * device torn down, then netdev events and the sockets, and rdma_rxe is
 * let in last.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/kobject.h>
#include <linux/module.h>
#include <rdma/ib_pack.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "sroce_crc.h"
#include "sroce_mcast.h"
#include "sroce_net.h"
#include "sroce_param.h"
#include "sroce_queue.h"
#include "sroce/opcode.h"
#include "sroce/rc_engine.h"
#include "sroce/ring.h"

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

/* The rxe provider's ring entries, as the core decodes them */
#define SROCE_SWR_OFF(f)	(offsetof(struct rxe_send_wqe, wr.wr.f) - \
				 offsetof(struct rxe_send_wqe, wr.wr))
static_assert(offsetof(struct rxe_send_wqe, wr.wr_id) == SROCE_SWQE_WR_ID);
static_assert(offsetof(struct rxe_send_wqe, wr.opcode) == SROCE_SWQE_OPCODE);
static_assert(offsetof(struct rxe_send_wqe, wr.send_flags) == SROCE_SWQE_FLAGS);
static_assert(offsetof(struct rxe_send_wqe, wr.ex) == SROCE_SWQE_EX);
static_assert(offsetof(struct rxe_send_wqe, wr.wr) == SROCE_SWQE_WR);
static_assert(offsetof(struct rxe_send_wqe, dma.length) ==
	      SROCE_SWQE_DMA_LENGTH);
static_assert(offsetof(struct rxe_send_wqe, dma.num_sge) ==
	      SROCE_SWQE_DMA_NUM_SGE);
static_assert(SROCE_SWQE_HDR_LEN == SROCE_SWQE_HDR);
static_assert(offsetof(struct rxe_send_wqe, dma.inline_data) ==
	      SROCE_SWQE_HDR_LEN);
static_assert(SROCE_SWR_OFF(rdma.remote_addr) == SROCE_SWR_RDMA_VA);
static_assert(SROCE_SWR_OFF(rdma.rkey) == SROCE_SWR_RDMA_RKEY);
static_assert(SROCE_SWR_OFF(atomic.remote_addr) == SROCE_SWR_ATOMIC_VA);
static_assert(SROCE_SWR_OFF(atomic.compare_add) ==
	      SROCE_SWR_ATOMIC_COMPARE_ADD);
static_assert(SROCE_SWR_OFF(atomic.swap) == SROCE_SWR_ATOMIC_SWAP);
static_assert(SROCE_SWR_OFF(atomic.rkey) == SROCE_SWR_ATOMIC_RKEY);
static_assert(SROCE_SWR_OFF(ud.remote_qpn) == SROCE_SWR_UD_QPN);
static_assert(SROCE_SWR_OFF(ud.remote_qkey) == SROCE_SWR_UD_QKEY);
static_assert(SROCE_SWR_OFF(ud.pkey_index) == SROCE_SWR_UD_PKEY_INDEX);
static_assert(SROCE_SWR_OFF(ud.ah_num) == SROCE_SWR_UD_AH_NUM);
static_assert(SROCE_SWR_OFF(ud.av) == SROCE_SWR_UD_AV);
static_assert(SROCE_SWR_OFF(mw.addr) == SROCE_SWR_MW_ADDR);
static_assert(SROCE_SWR_OFF(mw.length) == SROCE_SWR_MW_LENGTH);
static_assert(SROCE_SWR_OFF(mw.mr_lkey) == SROCE_SWR_MW_MR_LKEY);
static_assert(SROCE_SWR_OFF(mw.mw_rkey) == SROCE_SWR_MW_MW_RKEY);
static_assert(SROCE_SWR_OFF(mw.rkey) == SROCE_SWR_MW_RKEY);
static_assert(SROCE_SWR_OFF(mw.access) == SROCE_SWR_MW_ACCESS);
static_assert(SROCE_SWR_OFF(reg.mr) == SROCE_SWR_REG_MR);
static_assert(SROCE_SWR_OFF(reg.key) == SROCE_SWR_REG_KEY);
static_assert(SROCE_SWR_OFF(reg.access) == SROCE_SWR_REG_ACCESS);
static_assert(offsetof(struct rxe_recv_wqe, wr_id) == SROCE_RWQE_WR_ID);
static_assert(offsetof(struct rxe_recv_wqe, dma.num_sge) == SROCE_RWQE_NUM_SGE);
static_assert(SROCE_RWQE_HDR_LEN == SROCE_RWQE_HDR);
static_assert(offsetof(struct rxe_sge, addr) == SROCE_SGE_ADDR);
static_assert(offsetof(struct rxe_sge, length) == SROCE_SGE_LENGTH);
static_assert(offsetof(struct rxe_sge, lkey) == SROCE_SGE_LKEY);
static_assert(sizeof(struct rxe_sge) == SROCE_SGE_LEN);
static_assert(SROCE_WR_OP_RDMA_WRITE == IB_WR_RDMA_WRITE);
static_assert(SROCE_WR_OP_RDMA_WRITE_IMM == IB_WR_RDMA_WRITE_WITH_IMM);
static_assert(SROCE_WR_OP_SEND == IB_WR_SEND);
static_assert(SROCE_WR_OP_SEND_IMM == IB_WR_SEND_WITH_IMM);
static_assert(SROCE_WR_OP_RDMA_READ == IB_WR_RDMA_READ);
static_assert(SROCE_WR_OP_CMP_SWAP == IB_WR_ATOMIC_CMP_AND_SWP);
static_assert(SROCE_WR_OP_FETCH_ADD == IB_WR_ATOMIC_FETCH_AND_ADD);
static_assert(SROCE_WR_OP_LOCAL_INV == IB_WR_LOCAL_INV);
static_assert(SROCE_WR_OP_BIND_MW == IB_WR_BIND_MW);
static_assert(SROCE_WR_OP_SEND_INV == IB_WR_SEND_WITH_INV);
static_assert(SROCE_WR_OP_ATOMIC_WRITE == SROCE_UWR_ATOMIC_WRITE);
static_assert(SROCE_WR_OP_REG_MR == IB_WR_REG_MR);
static_assert(SROCE_SEND_FENCE == IB_SEND_FENCE);
static_assert(SROCE_SEND_SIGNALED == IB_SEND_SIGNALED);
static_assert(SROCE_SEND_SOLICITED == IB_SEND_SOLICITED);
static_assert(SROCE_SEND_INLINE == IB_SEND_INLINE);
static_assert(SROCE_SEND_IP_CSUM == IB_SEND_IP_CSUM);
static_assert(SROCE_MAX_MSG_LEN == SROCE_PORT_MAX_MSG_SZ);
static_assert(SROCE_PORT_PKEY_TBL_LEN == 1);	/* sroce_ring_send_data() */

static struct rdma_link_ops sroce_link_ops = {
	.type = SROCE_LINK_TYPE,
	.newlink = sroce_newlink,
};

/*
 * rdma_rxe drop-in mode: with rxe_compat=1, "rdma link add NAME type rxe"
 * makes an sroce device too, and the modprobe.d file the package ships
 * (disabled) aliases rdma_rxe and rdma-link-rxe to us, so that scripts
 * written for rdma_rxe run unchanged. The two modules are never loaded
 * together (sroce_rxe_exclude()), so the core never sees "rxe" twice.
 */
static bool rxe_compat;
module_param(rxe_compat, bool, 0444);
MODULE_PARM_DESC(rxe_compat,
		 "Also answer rdma link type \"rxe\" (rdma_rxe drop-in mode)");

static struct rdma_link_ops sroce_rxe_link_ops = {
	.type = "rxe",
	.newlink = sroce_newlink,
};

/*
 * rdma_rxe and sroce must never be loaded together. Both report driver_id
 * RDMA_DRIVER_RXE, and rdma_rxe takes every device of that driver_id for
 * its own: its netdev notifier would treat ours as struct rxe_dev, and its
 * module exit (ib_unregister_driver()) would unregister them. With
 * rxe_compat both register link type "rxe": the core warns at the second
 * registration and the loser's unregistration corrupts the core's list.
 *
 * UDP port 4791 cannot keep them apart: an rdma_rxe with per-namespace
 * sockets binds it only at its first "rdma link add". So sroce goes by
 * the module's name. While sroce is loaded, a module notifier refuses
 * rdma_rxe at MODULE_STATE_COMING, before its init runs; the load fails
 * with -EBUSY. At our own load, once that notifier is in place, we look
 * for rdma_rxe in /sys/module (module_kset; find_module() is not exported
 * to modules) and refuse to load if it is there in any state: loading,
 * live or going.
 *
 * Two cases are left. An rdma_rxe load racing ours, whose COMING
 * notifications ran just before our notifier was registered but which
 * has not yet added its /sys/module entry when we look (the kernel runs
 * parse_args() in between): neither check sees it. Only two loads at the
 * same instant can get there, and an rdma_rxe that binds port 4791 at
 * load still fails on the port. And an rdma_rxe built into the kernel,
 * which has no /sys/module entry since it has no parameters.
 */
#define SROCE_RXE_MODULE	"rdma_rxe"

static int sroce_module_event(struct notifier_block *nb, unsigned long event,
			      void *data)
{
	struct module *mod = data;

	if (event != MODULE_STATE_COMING || strcmp(mod->name, SROCE_RXE_MODULE))
		return NOTIFY_DONE;
	pr_err("refusing to load rdma_rxe: rdma_sroce is loaded, and the two cannot be loaded together; unload rdma_sroce first\n");
	return notifier_from_errno(-EBUSY);
}

static struct notifier_block sroce_module_nb = {
	.notifier_call = sroce_module_event,
};

/* Is rdma_rxe in /sys/module? 0 if not, else -EBUSY, saying so. */
static int sroce_rxe_present(void)
{
	struct kset *modules = THIS_MODULE->mkobj.kobj.kset;
	struct module_kobject *mk;
	struct kobject *kobj;
	const char *state;

	if (!modules)			/* a kernel without sysfs */
		return 0;
	kobj = kset_find_obj(modules, SROCE_RXE_MODULE);
	if (!kobj)
		return 0;
	/*
	 * The reference we hold keeps the module from being freed
	 * (mod_kobject_put() waits for it); its state may still move on.
	 */
	mk = container_of(kobj, struct module_kobject, kobj);
	if (!mk->mod)
		state = "built into the kernel";
	else if (READ_ONCE(mk->mod->state) == MODULE_STATE_COMING)
		state = "loading";
	else if (READ_ONCE(mk->mod->state) == MODULE_STATE_GOING)
		state = "unloading";
	else
		state = "loaded";
	kobject_put(kobj);
	pr_err("rdma_rxe is %s: rdma_sroce and rdma_rxe cannot be loaded together\n",
	       state);
	return -EBUSY;
}

/* Keep rdma_rxe out from here on, or fail if it is in already. */
static int sroce_rxe_exclude(void)
{
	int err;

	err = register_module_notifier(&sroce_module_nb);
	if (err)
		return err;
	err = sroce_rxe_present();
	if (err)
		unregister_module_notifier(&sroce_module_nb);
	return err;
}

static int __init sroce_init(void)
{
	int err;

	err = sroce_rxe_exclude();
	if (err)
		return err;
	err = sroce_crc_init();
	if (err)
		goto err_rxe;
	err = sroce_recv_init();
	if (err)
		goto err_crc;

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
	if (rxe_compat)
		rdma_link_register(&sroce_rxe_link_ops);
	pr_info("loaded%s\n",
		rxe_compat ? ", answering link type rxe (rxe_compat)" : "");
	return 0;

err_mcast:
	sroce_mcast_exit();
err_wq:
	destroy_workqueue(sroce_wq);
err_net:
	sroce_recv_exit();
err_crc:
	sroce_crc_exit();
err_rxe:
	unregister_module_notifier(&sroce_module_nb);
	return err;
}

static void __exit sroce_exit(void)
{
	if (rxe_compat)
		rdma_link_unregister(&sroce_rxe_link_ops);
	rdma_link_unregister(&sroce_link_ops);
	sroce_unregister_all();
	sroce_tx_ctx_wait_all();
	sroce_mcast_exit();		/* group leaves of the teardown */
	sroce_netdev_events_exit();
	destroy_workqueue(sroce_wq);
	sroce_recv_exit();
	sroce_crc_exit();
	unregister_module_notifier(&sroce_module_nb);
	pr_info("unloaded\n");
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_AUTHOR("The sroce developers");
MODULE_DESCRIPTION("Software RoCEv2 RDMA device");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK(SROCE_LINK_TYPE);
