/* SPDX-License-Identifier: GPL-2.0 */
/* Private to dsp/: the state behind <smdsp/v34_rtd.h> (v34_rtd.c). */
#ifndef SMDSP_PRIVATE_V34_RTD_H
#define SMDSP_PRIVATE_V34_RTD_H

#include <smdsp/v34_rtd.h>
#include <smdsp/private/v34_info.h>

#define SMDSP_V34R_TX_LAT 40	/* a symbol's start to its pulse's centre on the line */
#define SMDSP_V34R_RX_LAT 40	/* the line to the receiver's event: its matched filter, and events count from 1 */
#define SMDSP_V34R_HOLD 80	/* 10 ms of the reversed tone before silence */

struct smdsp_v34_rtd {
	struct smdsp_v34_info_tx tx;
	struct smdsp_v34_info_rx rx;
	enum smdsp_v34_rtd_state state;
	uint32_t now;			/* samples since create or reset */
	bool pending;			/* a reversal asked of the transmitter, not yet begun */
	bool scheduled;			/* a reversal to ask for at ... */
	uint32_t due;			/* ... this sample (its start, less the half symbol) */
	uint32_t sent;			/* the last reversal's time on the line */
	uint32_t wait_from;		/* the timeout runs from here */
	uint32_t silence_at;		/* the tone stops at this sample (0: not planned) */
	unsigned int reversals_sent;
	int32_t rtd;
	bool calling;
	int level_dbm0_10;
};

void smdsp_v34_rtd_init(struct smdsp_v34_rtd *s, bool calling, int level_dbm0_10);

#endif /* SMDSP_PRIVATE_V34_RTD_H */
