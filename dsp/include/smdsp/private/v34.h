/* SPDX-License-Identifier: GPL-2.0 */
/* Private to dsp/: the state behind <smdsp/v34.h> (v34.c). */
#ifndef SMDSP_PRIVATE_V34_H
#define SMDSP_PRIVATE_V34_H

#include <smdsp/v34.h>
#include <smdsp/v34_train.h>
#include <smdsp/private/v34_phase2.h>
#include <smdsp/private/v34_onset.h>

#define SMDSP_V34_RXHIST 256		/* received samples kept for the call modem's S (32 ms) */
/* the user's echo_latency at most: v34_train's, less the history and S's start */
#define SMDSP_V34_LATENCY_MAX (SMDSP_V34_MAX_LATENCY - SMDSP_V34_RXHIST - 64)
#define SMDSP_V34_STEP 8		/* the decisions' grid, samples: any block length, the same call */

struct smdsp_v34 {
	struct smdsp_v34_config cfg;
	bool made_two_wire;		/* created 2-wire: either kind of line may be configured */
	struct smdsp_v34_phase2 p2;
	struct smdsp_v34_train_tx *ttx;
	struct smdsp_v34_train_rx *trx;
	enum smdsp_v34_state state;
	enum smdsp_v34_fail fail;
	uint32_t now;			/* samples since create or reset */
	uint32_t p2_end;		/* phase 2 ended (DONE) on this sample */
	uint32_t tail_until;		/* phase 2's last DPSK symbol leaves its filter */
	bool p2_listen;			/* the answer modem in phase 3: phase 2 still fed (the call modem may go back) */
	uint32_t tx_from;		/* our train transmitter starts here (0: not scheduled) */
	bool tx_on, rx_on;		/* the train transmitter and receiver run */
	bool attached;			/* our receiver may end our J (see v34.c) */
	uint32_t deadline;		/* phases 3 and 4 done by then, or failed */
	uint32_t bad_since;		/* data: the decisions no better than noise since (0: they are) */
	uint16_t gain;			/* the train's output to our level, Q12 */
	int16_t rxbuf[SMDSP_V34_STEP];	/* the train receiver's input, given it a whole step at a time */
	unsigned int rxn;
	int16_t hist[SMDSP_V34_RXHIST];	/* the last received samples, for the call modem's S */
	unsigned int hist_pos;
	bool hist_due;			/* the call modem's receiver is to hear the history first */
	/* the data mode: renegotiation and retrain (v34.c's second part) */
	uint32_t p2_base;		/* phase 2 (again) began on this sample */
	unsigned int tx_lim, rx_lim;	/* the rates our next MP allows each way */
	uint32_t rn_deadline;		/* the renegotiation done by then, or failed */
	uint32_t rn_hold;		/* no automatic renegotiation before then */
	uint32_t level_steps;		/* data: our receiver's level moves seen (a move is judged as a renegotiation) */
	uint32_t rechoose_until;	/* ... the rate held to the training's need until then */
	bool step_live;			/* ... a step's rate not yet found to fit: its decisions a rate's matter */
	uint32_t step_sym;		/* ... its error judged from our receiver's symbol (0: from the next) */
	bool step_first;		/* ... at the rate it found (not one renegotiated for it since) */
	uint32_t poor_since;		/* the error past the rate's margin since (0: it is not) */
	uint32_t good_since;		/* the error a margin above a higher rate's need since (0: it is not) */
	uint32_t up_wait;		/* ... for this long before we ask for it (0: T_UP; doubled by a climb undone) */
	uint32_t up_done;		/* our last climb's data began (0: none) */
	unsigned int rn_top;		/* the most our climbs ask: what the training or our user settled */
	bool top_due;			/* rn_top from the next data mode's rate */
	bool rn_up;			/* the renegotiation under way is our climb ... */
	unsigned int up_from;		/* ... from this rate */
	bool rn_lift;			/* ... above rn_top and phase 2's (the line better than it trained) */
	bool lift_off;			/* such a climb won nothing: no more of them */
	bool lift_due;			/* the next data mode is the training's: its error is the reference */
	int lift_ref;			/* the data's error early after the training (dB x 10; LIFT_NONE: none) */
	uint32_t lift_ref_end;		/* ... the most of it until then */
	uint32_t lift_since;		/* the error LIFT_DB10 better than lift_ref since (0: it is not) */
	unsigned int lift_max;		/* our user's limit on such a climb (our max_rate, or the last asked) */
	bool mute;			/* phase 3: the far MD, our receiver hears zeros ... */
	uint32_t mute_until;		/* ... until then */
	bool md_hold_due;		/* the answer modem: the call modem's MD to let pass once our J starts */
	uint64_t lvl_acc;		/* the received level: this 128 ms's sum of squares */
	uint32_t lvl;			/* ... the last 128 ms's mean square */
	uint32_t lvl_data;		/* ... when the data began, or our receiver last followed it down */
	unsigned int lvl_n;
	bool rt_ours;			/* the retrain is ours: our tone until the far one */
	uint32_t rt_until;		/* our tone until then (the far end's) */
	uint32_t rt_deadline;
	uint32_t tone_ph, tone_step;
	int16_t tone_amp;
	struct smdsp_v34_stats st;
	struct smdsp_v34_onset near;	/* our first signal's echo, sought in phase 2 */
	int16_t near_tf[4], near_rf[4];	/* the search's band filter: its last inputs, what we send and hear */
	int near_lat;			/* the user's latency, or the near echo's where it was found beyond it */
	/* the hand-over's configurations of the two train ends (hand_over(): off the stack) */
	struct smdsp_v34_train_config ho_tc, ho_rc;
};

#endif /* SMDSP_PRIVATE_V34_H */
