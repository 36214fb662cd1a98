/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device and port limits sroce advertises through query_device and
 * query_port. One place, so the verbs that enforce a limit and the query
 * that reports it cannot drift apart.
 */
#ifndef SROCE_PARAM_H
#define SROCE_PARAM_H

#define SROCE_VENDOR_ID			0xffffff	/* no IEEE OUI: software */
#define SROCE_FW_VER			0x000100000000ULL	/* 1.0.0 */

#define SROCE_MAX_QP			0x10000
#define SROCE_MAX_QP_WR			0x4000
#define SROCE_MAX_SGE			32
#define SROCE_MAX_SGE_RD		32
#define SROCE_MAX_CQ			0x10000
#define SROCE_MAX_CQE			((1 << 15) - 1)
#define SROCE_MAX_MR			0x40000
/* Windows are counted apart: they cannot crowd MRs out of the key table */
#define SROCE_MAX_MW			0x10000
#define SROCE_KEY_TABLE			(SROCE_MAX_MR + SROCE_MAX_MW)
#define SROCE_MAX_PD			0x10000
#define SROCE_MAX_QP_RD_ATOM		128
#define SROCE_MAX_RES_RD_ATOM		0x3f000
#define SROCE_MAX_AH			0x8000
#define SROCE_MAX_SRQ			0x4000
#define SROCE_MAX_SRQ_WR		0x4000
#define SROCE_MAX_SRQ_SGE		27
#define SROCE_MAX_FAST_REG_PAGES	512
#define SROCE_MAX_PKEYS			1
#define SROCE_LOCAL_CA_ACK_DELAY	15
#define SROCE_MAX_MCAST_GRP		8192
#define SROCE_MAX_MCAST_QP_ATTACH	56
#define SROCE_MAX_TOT_MCAST_QP_ATTACH	0x70000

#define SROCE_MAX_INLINE		400
#define SROCE_MIN_QPN			16	/* below: special QPs */
#define SROCE_MAX_QPN			(SROCE_MIN_QPN + SROCE_MAX_QP - 1)

#define SROCE_PORT_GID_TBL_LEN		1024
#define SROCE_PORT_PKEY_TBL_LEN		1
#define SROCE_PORT_MAX_MSG_SZ		0x80000000U	/* 2 GiB */

/*
 * The most a RoCEv2 data packet carries besides its payload: IPv6 (40) +
 * UDP (8) + BTH (12) + RETH and ImmDt (20) + ICRC (4). The active IB MTU
 * is the largest of 256..4096 that still fits the netdev MTU after this.
 */
#define SROCE_MAX_HDR_OVERHEAD		84

/*
 * IBA 1.5 ATOMIC WRITE in the user ABI, as rdma-core's rxe provider (v42
 * on) builds and reads it; 6.1's headers do not name it. The values of
 * IB_UVERBS_WR_ATOMIC_WRITE, IB_UVERBS_WC_ATOMIC_WRITE and
 * IB_UVERBS_DEVICE_ATOMIC_WRITE from 6.2 on. Its 8 bytes are the first
 * of the WQE's data area (rdma-core's dma.atomic_wr).
 */
#define SROCE_UWR_ATOMIC_WRITE		15
#define SROCE_UWC_ATOMIC_WRITE		9
#define SROCE_DEVICE_ATOMIC_WRITE	BIT_ULL(40)

#endif /* SROCE_PARAM_H */
