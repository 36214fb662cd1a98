/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sroce UD transport decisions (IBTA Vol 1 ch. 9.8 and 11; RoCE Annex
 * A16/A17): what a datagram's headers are, and whether a received one is
 * delivered. Pure functions over plain values, shared by the UD and GSI
 * QPs of the module and the host tests. Implemented in sroce_ud.c.
 *
 * A UD message is one packet: SEND_ONLY or SEND_ONLY_WITH_IMMEDIATE with
 * a DETH (Q_Key, source QPN), no acknowledgment, no ordering; the PSN
 * only counts. The receiver places a 40-byte GRH first (the IPv6 header,
 * or 20 zero bytes and the IPv4 header), then the payload.
 */
#ifndef _SROCE_UD_H
#define _SROCE_UD_H

#include "sroce/compat.h"
#include "sroce/wire.h"

#define SROCE_GSI_QPN		1
#define SROCE_GSI_QKEY		0x80010000u	/* IB_QP1_QKEY */
#define SROCE_GRH_LEN		40
/* A Q_Key with this bit set in a send WR means "the QP's own Q_Key" */
#define SROCE_QKEY_CONTROLLED	0x80000000u

/* A UD QP's attributes the decisions use */
struct sroce_ud_cfg {
	u32 qpn;		/* this QP's number (1 for the GSI QP) */
	u32 qkey;		/* the QP's Q_Key */
	u32 mtu;		/* largest payload: the port's active MTU */
	u16 pkey;		/* P_Key sent */
};

/* One validated UD send WQE */
struct sroce_ud_send {
	bool imm;		/* SEND_WITH_IMM */
	bool se;		/* solicited event */
	u32 imm_data;		/* as a big-endian number */
	u32 length;		/* payload bytes */
	u32 remote_qpn;		/* as posted: bits 31..24 are ignored */
	u32 remote_qkey;	/* as posted */
};

enum sroce_ud_status {
	SROCE_UD_OK,
	SROCE_UD_TOO_LONG,	/* send: longer than the MTU */
	SROCE_UD_BAD_OPCODE,	/* receive: not a UD SEND_ONLY(_IMM) */
	SROCE_UD_BAD_QKEY,	/* receive: Q_Key is not the QP's */
	SROCE_UD_NO_ROOM,	/* receive: GRH + payload exceed the WQE */
};

/*
 * The headers of the datagram @s, sent with PSN @psn, into @h (zeroed
 * first). Returns SROCE_UD_OK or SROCE_UD_TOO_LONG.
 */
enum sroce_ud_status sroce_ud_tx_hdrs(const struct sroce_ud_cfg *cfg,
				      const struct sroce_ud_send *s, u32 psn,
				      struct sroce_hdrs *h);

/*
 * May @p, a parsed packet addressed to the QP of @cfg, be delivered?
 * SROCE_UD_OK, SROCE_UD_BAD_OPCODE or SROCE_UD_BAD_QKEY; a payload over
 * the MTU is SROCE_UD_TOO_LONG. The P_Key and addresses are the glue's.
 */
enum sroce_ud_status sroce_ud_rx_check(const struct sroce_ud_cfg *cfg,
				       const struct sroce_pkt *p);

/* Bytes a receive WQE of @wqe_len needs for @p: the GRH and the payload */
static inline enum sroce_ud_status sroce_ud_rx_fits(const struct sroce_pkt *p,
						    u32 wqe_len)
{
	return wqe_len >= SROCE_GRH_LEN &&
	       p->payload_len <= wqe_len - SROCE_GRH_LEN ?
	       SROCE_UD_OK : SROCE_UD_NO_ROOM;
}

#endif /* _SROCE_UD_H */
