// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce UD transport decisions: datagram headers and the receive checks.
 * Pure functions over plain values; see ud.h.
 */
#include "sroce/opcode.h"
#include "sroce/psn.h"
#include "sroce/ud.h"

enum sroce_ud_status sroce_ud_tx_hdrs(const struct sroce_ud_cfg *cfg,
				      const struct sroce_ud_send *s, u32 psn,
				      struct sroce_hdrs *h)
{
	memset(h, 0, sizeof(*h));
	if (s->length > cfg->mtu)
		return SROCE_UD_TOO_LONG;
	h->bth.opcode = s->imm ? SROCE_UD_SEND_ONLY_IMM : SROCE_UD_SEND_ONLY;
	h->bth.se = s->se;
	h->bth.pkey = cfg->pkey;
	h->bth.dqpn = s->remote_qpn & SROCE_QPN_MASK;
	h->bth.psn = sroce_psn_mask(psn);
	/*
	 * IBTA 10.2.5: a Q_Key with the high bit set in the WR is replaced
	 * by the QP's own, so only a QP its owner set up sends a controlled
	 * Q_Key (the GSI QP's included).
	 */
	h->deth.qkey = (s->remote_qkey & SROCE_QKEY_CONTROLLED) ?
		       cfg->qkey : s->remote_qkey;
	h->deth.sqpn = cfg->qpn & SROCE_QPN_MASK;
	if (s->imm)
		h->imm = s->imm_data;
	return SROCE_UD_OK;
}

enum sroce_ud_status sroce_ud_rx_check(const struct sroce_ud_cfg *cfg,
				       const struct sroce_pkt *p)
{
	u8 op = p->hdr.bth.opcode;

	if (op != SROCE_UD_SEND_ONLY && op != SROCE_UD_SEND_ONLY_IMM)
		return SROCE_UD_BAD_OPCODE;
	/* The GSI QP takes only the GSI Q_Key, whatever it was set to */
	if (cfg->qpn == SROCE_GSI_QPN ? p->hdr.deth.qkey != SROCE_GSI_QKEY :
					p->hdr.deth.qkey != cfg->qkey)
		return SROCE_UD_BAD_QKEY;
	if (p->payload_len > cfg->mtu)
		return SROCE_UD_TOO_LONG;
	return SROCE_UD_OK;
}
