// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device's and the port's own verbs: the attributes the device
 * reports, device and port queries and modifies, user contexts and
 * protection domains. The ops table that names every verb is in
 * sroce_device.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/etherdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "sroce_ah.h"
#include "sroce_cq.h"
#include "sroce_mcast.h"
#include "sroce_mr.h"
#include "sroce_mw.h"
#include "sroce_param.h"
#include "sroce_qp.h"
#include "sroce_verbs.h"

void sroce_init_attr(struct sroce_dev *sdev)
{
	struct ib_device_attr *a = &sdev->attr;

	a->fw_ver = SROCE_FW_VER;
	a->vendor_id = SROCE_VENDOR_ID;
	a->max_mr_size = U64_MAX;
	a->page_size_cap = 0xfffff000;
	a->max_qp = SROCE_MAX_QP;
	a->max_qp_wr = SROCE_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR |
			      IB_DEVICE_BAD_QKEY_CNTR |
			      IB_DEVICE_SYS_IMAGE_GUID |
			      IB_DEVICE_RC_RNR_NAK_GEN |
			      IB_DEVICE_MEM_MGT_EXTENSIONS |
			      IB_DEVICE_MEM_WINDOW |
			      IB_DEVICE_MEM_WINDOW_TYPE_2B |
			      IB_DEVICE_SRQ_RESIZE |
			      IB_DEVICE_PORT_ACTIVE_EVENT |
			      SROCE_DEVICE_ATOMIC_WRITE;
	/* Lets "rdma link delete" unregister the device. */
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_send_sge = SROCE_MAX_SGE;
	a->max_recv_sge = SROCE_MAX_SGE;
	a->max_sge_rd = SROCE_MAX_SGE_RD;
	a->max_cq = SROCE_MAX_CQ;
	a->max_cqe = SROCE_MAX_CQE;
	a->max_mr = SROCE_MAX_MR;
	a->max_mw = SROCE_MAX_MW;
	a->max_pd = SROCE_MAX_PD;
	a->max_qp_rd_atom = SROCE_MAX_QP_RD_ATOM;
	a->max_qp_init_rd_atom = SROCE_MAX_QP_RD_ATOM;
	a->max_res_rd_atom = SROCE_MAX_RES_RD_ATOM;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = SROCE_MAX_TOT_MCAST_QP_ATTACH;
	a->max_ah = SROCE_MAX_AH;
	a->max_srq = SROCE_MAX_SRQ;
	a->max_srq_wr = SROCE_MAX_SRQ_WR;
	a->max_srq_sge = SROCE_MAX_SRQ_SGE;
	a->max_fast_reg_page_list_len = SROCE_MAX_FAST_REG_PAGES;
	a->max_pkeys = SROCE_MAX_PKEYS;
	a->local_ca_ack_delay = SROCE_LOCAL_CA_ACK_DELAY;

	/* EUI-64 from the MAC, as every RoCE device does. */
	addrconf_addr_eui48((u8 *)&sdev->ibdev.node_guid,
			    sdev->ndev->dev_addr);
	a->sys_image_guid = sdev->ibdev.node_guid;
	sdev->port_cap_flags = IB_PORT_CM_SUP;
}

int sroce_query_device(struct ib_device *ibdev,
		       struct ib_device_attr *attr,
		       struct ib_udata *udata)
{
	/* The rxe provider sends no driver data; anything else is bogus. */
	if (udata && (udata->inlen || udata->outlen))
		return sroce_refuse(ibdev, -EINVAL,
				    "query_device: unexpected driver data\n");

	*attr = to_sdev(ibdev)->attr;
	return 0;
}

int sroce_query_port(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	/* *attr arrives zeroed. */
	attr->state = sroce_port_state(sdev);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (dev_get_flags(sdev->ndev) & IFF_UP)
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = sroce_active_mtu(sdev);
	attr->gid_tbl_len = SROCE_PORT_GID_TBL_LEN;
	attr->pkey_tbl_len = SROCE_PORT_PKEY_TBL_LEN;
	attr->port_cap_flags = READ_ONCE(sdev->port_cap_flags);
	attr->max_msg_sz = SROCE_PORT_MAX_MSG_SZ;
	attr->max_vl_num = 1;

	/*
	 * Takes RTNL; query_port is only called from process context. A
	 * netdev going away (the core let go of it already) leaves a port
	 * that is down, not a failed query: the core's cache update after
	 * the port event would log one.
	 */
	if (ib_get_eth_speed(ibdev, port, &attr->active_speed,
			     &attr->active_width) == -ENODEV) {
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	return 0;
}

int sroce_modify_port(struct ib_device *ibdev, u32 port, int mask,
		      struct ib_port_modify *props)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	u32 flags;

	if (mask & ~(IB_PORT_SHUTDOWN | IB_PORT_INIT_TYPE |
		     IB_PORT_RESET_QKEY_CNTR))
		return sroce_refuse(ibdev, -EOPNOTSUPP,
				    "modify_port: mask %#x\n", mask);

	/* ib_cm sets and clears IB_PORT_CM_SUP through here. */
	flags = READ_ONCE(sdev->port_cap_flags);
	flags |= props->set_port_cap_mask;
	flags &= ~props->clr_port_cap_mask;
	WRITE_ONCE(sdev->port_cap_flags, flags);
	return 0;
}

int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
			     struct ib_port_immutable *immutable)
{
	/* RoCEv2 only: no RoCEv1 GIDs, which we could not send. */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = SROCE_PORT_GID_TBL_LEN;
	immutable->pkey_tbl_len = SROCE_PORT_PKEY_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
					  u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

int sroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
		     u16 *pkey)
{
	if (index >= SROCE_PORT_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

int sroce_modify_device(struct ib_device *ibdev, int mask,
			struct ib_device_modify *props)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	if (mask & ~(IB_DEVICE_MODIFY_SYS_IMAGE_GUID |
		     IB_DEVICE_MODIFY_NODE_DESC))
		return sroce_refuse(ibdev, -EOPNOTSUPP,
				    "modify_device: mask %#x\n", mask);
	if (mask & IB_DEVICE_MODIFY_SYS_IMAGE_GUID)
		sdev->attr.sys_image_guid =
			cpu_to_be64(props->sys_image_guid);
	if (mask & IB_DEVICE_MODIFY_NODE_DESC)
		memcpy(ibdev->node_desc, props->node_desc,
		       IB_DEVICE_NODE_DESC_MAX);
	return 0;
}

int sroce_alloc_ucontext(struct ib_ucontext *ibuc,
			 struct ib_udata *udata)
{
	return 0;
}

void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	if (!atomic_add_unless(&to_sdev(ibpd->device)->npd, 1, SROCE_MAX_PD))
		return sroce_refuse(ibpd->device, -ENOMEM,
				    "alloc_pd: the device's %u PDs exist\n",
				    SROCE_MAX_PD);
	return 0;
}

int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_sdev(ibpd->device)->npd);
	return 0;
}
