/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef SROCE_CRC_H
#define SROCE_CRC_H

int sroce_crc_init(void);
void sroce_crc_exit(void);

#endif
