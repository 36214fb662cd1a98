// SPDX-License-Identifier: GPL-2.0-only
/*
 * The port, as every layer reads it: its state and active MTU, read live
 * from the netdev, the netdevs its packets use, and its one P_Key. And
 * the workqueue the driver's deferred work runs on (QP runs, CQ overflow
 * events), which module load allocates.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>

#include "sroce/wire.h"
#include "sroce.h"
#include "sroce_param.h"

struct workqueue_struct *sroce_wq;

/*
 * Does a packet on netdev @dev belong to @sdev's port? Its own netdev,
 * or a VLAN device on it (stacked VLANs too) in the same namespace: the
 * RDMA core gives the port the GIDs of the VLANs on its netdev, as RoCE
 * NICs have them, and the packets of those GIDs come in and leave
 * tagged, through the VLAN device. Other upper devices (macvlan, ipvlan,
 * a bond) get no GIDs of ours: a device of their own serves them. RCU
 * held, or @dev otherwise pinned.
 */
bool sroce_netdev_ours(const struct sroce_dev *sdev,
		       const struct net_device *dev)
{
	if (dev == sdev->ndev)
		return true;
	return dev && is_vlan_dev(dev) &&
	       vlan_dev_real_dev(dev) == sdev->ndev &&
	       net_eq(dev_net(dev), dev_net(sdev->ndev));
}

enum ib_port_state sroce_port_state(struct sroce_dev *sdev)
{
	if (netif_running(sdev->ndev) && netif_carrier_ok(sdev->ndev))
		return IB_PORT_ACTIVE;
	return IB_PORT_DOWN;
}

enum ib_mtu sroce_active_mtu(struct sroce_dev *sdev)
{
	int room = (int)READ_ONCE(sdev->ndev->mtu) - SROCE_MAX_HDR_OVERHEAD;

	/* A netdev too small even for 256 B still reports the minimum. */
	if (room < 512)
		return IB_MTU_256;
	return ib_mtu_int_to_enum(room);
}

/*
 * Does the port's only P_Key (0xffff) accept @pkey? IBTA: the low 15 bits
 * match and at least one of the two keys is a full member, so 0xffff
 * and 0x7fff.
 */
bool sroce_pkey_ok(u16 pkey)
{
	return (pkey & 0x7fff) == (SROCE_DEFAULT_PKEY & 0x7fff) &&
	       ((pkey | SROCE_DEFAULT_PKEY) & 0x8000);
}
