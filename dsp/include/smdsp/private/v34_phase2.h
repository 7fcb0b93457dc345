/* SPDX-License-Identifier: GPL-2.0 */
/* Private to dsp/: the state behind <smdsp/v34_phase2.h> (v34_phase2.c). */
#ifndef SMDSP_PRIVATE_V34_PHASE2_H
#define SMDSP_PRIVATE_V34_PHASE2_H

#include <smdsp/v34_phase2.h>
#include <smdsp/private/v34_info.h>
#include <smdsp/private/v34_probe.h>
#include <smdsp/private/v34_rtd.h>

/* timing, samples at 8000/s (see v34_phase2.c for why each) */
#define SMDSP_V34P2_MS(ms) ((uint32_t)(ms) * 8u)
#define SMDSP_V34P2_T_INFO0 SMDSP_V34P2_MS(2000)	/* our INFO0's start to the far one */
#define SMDSP_V34P2_RETRIES 3				/* INFO0 retransmissions before giving up */
#define SMDSP_V34P2_T_A_MIN SMDSP_V34P2_MS(80)	/* tone A sent before its first reversal */
#define SMDSP_V34P2_T_REV SMDSP_V34_RTD_TIMEOUT		/* a reversal waited for */
#define SMDSP_V34P2_T_PROBE SMDSP_V34P2_MS(1500)	/* the far L1/L2 to start (after its reversal or our tone) */
#define SMDSP_V34P2_T_L2 SMDSP_V34P2_MS(2500)	/* our L1/L2 at most, less the round trip */
#define SMDSP_V34P2_T_INFO1 SMDSP_V34P2_MS(2000)	/* the far INFO1, plus the round trip */
#define SMDSP_V34P2_L2_PERIODS 24			/* L2 periods averaged before we end it (480 ms) */
#define SMDSP_V34P2_HOLD_L1 (2 * SMDSP_V34R_HOLD)		/* the reversed tone before L1 */
#define SMDSP_V34P2_B_AFTER SMDSP_V34P2_MS(50)	/* tone B after the far L2 ended, before B-bar */
#define SMDSP_V34P2_T_INFO1_C SMDSP_V34P2_MS(1000)	/* the call modem's longer wait for INFO1a */
#define SMDSP_V34P2_T_REOPEN SMDSP_V34P2_MS(4500)	/* the answer modem done still hears INFO0c, plus 2 round trips */
#define SMDSP_V34P2_T_TOTAL SMDSP_V34P2_MS(25000)	/* no INFO0 sent again after this */

struct smdsp_v34_phase2 {
	struct smdsp_v34_info_tx tx;
	struct smdsp_v34_info_rx rx;
	struct smdsp_v34_probe_tx ptx;
	struct smdsp_v34_probe_rx prx;
	struct smdsp_v34_phase2_config cfg;
	enum smdsp_v34_phase2_state state;
	uint32_t now;			/* samples since create or reset */
	uint32_t since;			/* the current wait's start */
	/* INFO0 */
	bool have_far_info0;
	bool info0_going;		/* our INFO0 is going out */
	uint32_t info0_at;		/* ... began at */
	unsigned int retries;
	uint32_t tone_from;		/* our tone began after INFO0 at */
	/* reversals, as in v34_rtd.c, on the line's time */
	bool pending;			/* a reversal asked of the transmitter, not yet begun */
	bool scheduled;
	uint32_t due;
	uint32_t sent;			/* our last reversal left at */
	unsigned int reversals_sent;
	uint32_t first_rev_at;		/* listen only: the far end's first reversal ... */
	uint32_t last_rev_at;		/* ... and its last before L1 */
	uint32_t hold_until;		/* after our last reversal: then silence, or L1 */
	bool l1_after_hold;		/* the hold ends in L1 */
	/* probing */
	bool prx_on;			/* the probing receiver is listening */
	bool l1_reversal_asked;		/* the call modem: B-bar before its L1 asked for */
	struct smdsp_v34_probe_result probe;	/* our analysis of the far end's L1/L2 */
	bool have_probe;
	uint32_t seg_start;		/* the probing receiver's segment (L1, L2) ... */
	unsigned int segs;		/* ... and how many it has had */
	/*
	 * The far tone heard under our own L2's echo: the DFT over each 160
	 * samples (L2's period) of the tone's bin and the two beside it
	 */
	int64_t bin_re[3], bin_im[3];
	uint32_t bin_ph[3], bin_step[3];
	unsigned int bin_n;
	unsigned int bin_hits;		/* periods in a row with the tone */
	/* INFO1 */
	bool info1_sent;
	bool have_far_info1;
	uint32_t bad_crc;		/* the receiver's CRC errors when the far INFO1 began to be waited for */
	/* going back from a later step: our tone, then INFO0 */
	bool restart_pending;
	/* back on the far tone (smdsp_v34_phase2_reopen_tone()): no reversal before its INFO0, or until then */
	bool info0_due;
	uint32_t info0_by;
	enum smdsp_v34_phase2_fail restart_why;
	unsigned int steps;
	struct smdsp_v34_phase2_result res;
	struct smdsp_v34_phase2_stats st;
};

void smdsp_v34_phase2_init(struct smdsp_v34_phase2 *s, const struct smdsp_v34_phase2_config *cfg);

#endif /* SMDSP_PRIVATE_V34_PHASE2_H */
