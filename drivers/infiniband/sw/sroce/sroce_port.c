// SPDX-License-Identifier: GPL-2.0-only
/*
 * The port, as every layer reads it: its state and active MTU, read live
 * from the netdev, and its one P_Key. And the workqueue the driver's
 * deferred work runs on (QP runs, CQ overflow events), which module load
 * allocates.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "sroce/wire.h"
#include "sroce.h"
#include "sroce_param.h"

struct workqueue_struct *sroce_wq;

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
