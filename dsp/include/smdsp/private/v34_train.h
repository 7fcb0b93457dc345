/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v34_train.h> (v34_train_tx.c,
 * v34_train_rx.c).
 */
#ifndef SMDSP_PRIVATE_V34_TRAIN_H
#define SMDSP_PRIVATE_V34_TRAIN_H

#include <smdsp/v34_train.h>
#include <smdsp/v34_mod.h>
#include <smdsp/v34_data.h>
#include <smdsp/private/v34_scramble.h>
#include <smdsp/echo.h>
#include <smdsp/private/v34_onset.h>

/*
 * The data pair's configuration for one direction: the transmitter codes in
 * its own role, the receiver decodes the far end's; the rate is the least of
 * this end's limit and rate. -EINVAL for a symbol rate out of range.
 */
static inline int smdsp_v34_train_data_config(const struct smdsp_v34_train_config *cfg, bool tx,
					      unsigned int rate, struct smdsp_v34_data_config *dc)
{
	if ((unsigned int)cfg->symrate >= SMDSP_V34_SYMRATES ||
	    (cfg->trellis && cfg->trellis != 16 && cfg->trellis != 32 && cfg->trellis != 64))
		return -EINVAL;
	memset(dc, 0, sizeof(*dc));
	dc->symbol_rate = cfg->symrate;
	dc->data_rate = rate < cfg->data_rate ? rate : cfg->data_rate;
	/* the transmitter's code is the far MP's choice (settled at E); the receiver's its own */
	dc->states = !tx && cfg->trellis ? cfg->trellis : 16;
	dc->caller = tx ? cfg->caller : !cfg->caller;
	return 0;
}

#define SMDSP_V34_PE_TAPS 25		/* the pre-emphasis filter, symbol spaced */
#define SMDSP_V34_EQ_TAPS 64		/* the equaliser, T/2 spaced: 32 symbols */
/* comp_acc()'s model: the decisions this many symbols either side of a half-symbol instant */
#define SMDSP_V34_CM_HALF 16
#define SMDSP_V34_EQ_HIST (SMDSP_V34_EQ_TAPS + 8)	/* its inputs kept: 3 symbols more */
#define SMDSP_V34_LV_SNAPS 4		/* the level watch's snapshots: 192-256 symbols back (v34_train_rx.c) */
#define SMDSP_V34_LV_RISE 4		/* the fast blocks a rise is judged over (v34_train_rx.c) */
#define SMDSP_V34_RX_RING 256		/* T/2 outputs kept for finding PP */
#define SMDSP_V34_MP_MAX 200		/* bits of an MP frame kept */
/* 2-wire: the transmitter's samples kept for the canceller (a power of 2), its taps, its longest far delay */
#define SMDSP_V34_HIST 8192
#define SMDSP_V34_EC_NEAR 128
#define SMDSP_V34_EC_FAR 256
#define SMDSP_V34_EC_DELAY 5600

struct smdsp_v34_train_tx {
	struct smdsp_v34_train_config cfg;
	struct smdsp_v34_mod *mod;
	struct smdsp_v34_data_tx *data;
	const struct smdsp_v34_train_rx *rx;
	struct smdsp_v34_scramble scr;
	smdsp_get_bit_fn get_bit;
	void *user;
	smdsp_get_bit_fn aux_get_bit;	/* the auxiliary channel's */
	void *aux_user;
	bool aux;			/* it runs (settled at E) */
	enum smdsp_v34_train_state state;
	uint32_t began[SMDSP_V34_T_FAILED + 1];
	uint32_t symbols;		/* symbols pulled */
	unsigned int count;		/* symbols (or bits) into the current state */
	unsigned int diff;		/* MP and E's differential encoder */
	uint16_t jword;			/* J's pattern being sent */
	uint8_t mp[(SMDSP_V34_MP1_BITS + 7) / 8];
	unsigned int mp_bits, mp_pos;
	bool mp_ack;			/* sending MP' */
	unsigned int rate;		/* settled data rate */
	unsigned int states;		/* the trellis code the far MP asked for (0 before E) */
	unsigned int frames;		/* mapping frames sent (B1 counts) */
	int32_t pts[16];		/* the mapping frame being sent, 1/128 units */
	unsigned int pt;		/* its next 2D symbol */
	uint32_t gain;			/* 1/128 units to PCM, Q16 */
	int32_t pe[SMDSP_V34_PE_TAPS][2];	/* pre-emphasis taps, Q14 complex */
	struct smdsp_cplx pe_hist[SMDSP_V34_PE_TAPS];
	unsigned int pe_pos;
	bool pe_on;
	/* 2-wire */
	unsigned int trn_len;		/* phase 3's TRN, symbols */
	bool phase4;			/* the S, S-bar after the silence (answer modem) */
	unsigned int md_left;		/* phase 3: MD's silent symbols still to send before S */
	int16_t *hist;			/* the samples sent (SMDSP_V34_HIST), NULL on a 4-wire line */
	uint32_t sent;			/* samples sent */
	uint32_t blk;			/* sent at the start of the current process call */
	uint32_t t_s, t_pp, t_j;	/* phase 3's S, PP and J began (blk, samples), valid once has_* */
	bool has_s, has_pp, has_j;
	/* rate renegotiation */
	bool rn_ask;			/* ours, at the next mapping frame */
	unsigned int lift;		/* the most we send when the far MP asks above cfg.data_rate (0: none) */
	bool rn_wait;			/* ours begun: the far MPs count once its S is heard */
	uint32_t rn_seen;		/* the receiver's renegotiations answered */
};

struct smdsp_v34_train_rx {
	struct smdsp_v34_train_config cfg;
	struct smdsp_v34_demod *demod;
	struct smdsp_v34_data_rx *data;
	struct smdsp_v34_scramble dscr;
	struct smdsp_v34_scramble jdscr;	/* J's and MP's: their symbols differentially decoded first */
	smdsp_put_bit_fn put_bit;
	void *user;
	smdsp_put_bit_fn aux_put_bit;	/* the auxiliary channel's */
	void *aux_user;
	uint32_t rx_frames;		/* data: mapping frames decoded (B1's data frame first) */
	enum smdsp_v34_train_state state;
	struct smdsp_v34_train_stats st;
	/* T/2 outputs */
	struct smdsp_cplx ring[SMDSP_V34_RX_RING];
	uint32_t t2;			/* T/2 outputs so far */
	unsigned int s_run;		/* S: symbols with the steady period-2 pattern */
	struct smdsp_cplx savg[4];	/* S: its pattern at each half symbol of two symbols */
	int64_t chist[4];		/* S: the last four samples against it */
	uint32_t rev_t2;		/* the S-bar reversal, T/2 index */
	uint32_t pp_t2;			/* PP's symbol 0, T/2 index */
	uint32_t agc;			/* input scale, Q16 */
	/* the equaliser */
	int32_t c[SMDSP_V34_EQ_TAPS][2];	/* Q20 */
	int32_t x[2 * SMDSP_V34_EQ_HIST][2];	/* its inputs, stored twice */
	unsigned int xpos;
	/*
	 * The data mode's adaptation input: x filtered by 1 + h(z^-2), as x
	 * (v_stale: its newest entries not filtered yet, up to EQ_TAPS)
	 */
	int64_t v[2 * SMDSP_V34_EQ_HIST][2];
	unsigned int v_stale;
	int64_t tacc;			/* the timing error over 8 symbols */
	struct smdsp_cplx oprev, dprev;	/* the last output and decision */
	/* carrier */
	uint32_t phase;
	int32_t freq;
	/* symbols out */
	uint32_t sym;			/* the next symbol's index from PP's start */
	unsigned int count;		/* symbols into the current state */
	uint16_t jreg;			/* descrambled bits, the newest at bit 15 */
	unsigned int jmatch;		/* J patterns 8 symbols apart */
	uint32_t bad_hist;		/* TRN: the last 32 bits' errors */
	uint32_t trn_end_bits, trn_end_bad;	/* the stats' TRN counts at its last 8 ones */
	bool trn16;			/* the far J asks for a 16-point TRN in phase 4 */
	/* phase 4's TRN: 16-point decisions fit better than 4-point (> 0), the fit's mean; the MP count at its start */
	bool p4_16;
	bool p4_trn, p4_end;		/* TRN's ones seen; TRN over (MP's descrambler no more copied from TRN's) */
	int64_t p4fit;
	uint32_t p4_mp0;
	/*
	 * 2-wire: phase 4's TRN error (whitened as the decoder will see it),
	 * counted in blocks, the last one held back (p4_err() in v34_train_rx.c)
	 */
	uint64_t p4e_sum, p4e_blk, p4e_held;
	uint32_t p4e_n;
	unsigned int p4e_bn;
	bool p4e_has_held;
	unsigned int prev_quad;		/* MP and E's differential decoder */
	uint8_t mpbuf[(SMDSP_V34_MP_MAX + 7) / 8];
	unsigned int mp_len;		/* bits in mpbuf (0: looking for sync) */
	unsigned int ones;		/* ones in a row */
	bool mp_ok, mp_ack;		/* an MP taken; one of them an MP' */
	struct smdsp_v34_mp far;
	/* precoding: h Q14 and the noise predictor it comes from */
	int32_t hp[3][2];		/* predictor, Q20 */
	int32_t ehist[3][2];		/* past equaliser errors */
	int16_t h[6];			/* sent in MP, used in the data mode */
	bool trained;
	uint64_t err_acc, sig_acc;	/* the decision error and the signal, for the MSE */
	uint64_t pe_acc, pr_acc;	/* the predictor's input and output power */
	uint64_t pe_avg, pr_avg;	/* the same, 256 times their means over about the last 256 symbols */
	uint32_t pe_n;			/* symbols in them */
	/* TRN, half a symbol between two: sums of the noise's power e, the line's p, e p, p^2 (comp_acc()) */
	uint64_t cm_e, cm_p, cm_pe, cm_pp;
	uint32_t cm_n;
	int32_t cm_w[2 * SMDSP_V34_CM_HALF][2];	/* the decisions' model there: its shape, Q14 */
	int32_t cm_g[2];		/* ... and its gain and turn, Q14 */
	uint64_t cm_o2;			/* the output's power there, 64 times its recent mean */
	struct smdsp_cplx cm_z[SMDSP_V34_CM_HALF - 1];	/* the matched filter's output half a symbol before each */
	struct smdsp_cplx cm_y[SMDSP_V34_CM_HALF + 1];	/* ... and at each symbol's instant, newest first */
	uint64_t cm_q;			/* the last 32 decisions' quadrants, 2 bits each, newest lowest */
	uint8_t cm_fill, cm_pos;
	unsigned int mp_rate;		/* the rate our MP asks for, bit/s */
	uint64_t w_err;			/* data: the whitened error */
	uint32_t dpow;			/* data: the points' nominal power (1/128 units squared) */
	unsigned int w_n;
	unsigned int mse_n;
	/* data mode */
	uint32_t unit;			/* equaliser units to 1/128 units, Q16 */
	int32_t zhist[3][2];		/* past equaliser outputs, 1/128 units */
	struct smdsp_cplx elast[3];	/* the last decision errors, equaliser units */
	int32_t in[16];
	unsigned int nin;
	unsigned int rate;
	uint32_t skip_bits;		/* B1's bits dropped so far */
	/* 2-wire: the echo canceller and its schedule (times in received samples) */
	const struct smdsp_v34_train_tx *tx;
	struct smdsp_echo *ec;		/* NULL on a 4-wire line */
	uint32_t now;			/* samples received */
	uint32_t rtt;			/* the round trip (config) */
	int lat;
	bool planned;			/* the window's times known */
	bool learn;			/* the whitening to learn at ec_learn */
	uint32_t ec_learn, ec_on, ec_off;
	bool off_exact;			/* ec_off from J's start, not from TRN's length */
	unsigned int ec_gear;		/* 0 before the window, 1-3 in it, 4 after */
	enum smdsp_echo_adapt ec_mode;
	uint32_t tx_on;			/* tracking from then: the far window full of what was sent */
	bool deaf;			/* our own training comes back: the far end's signals are not looked for */
	bool s_held;			/* the far MD: no S looked for ... */
	uint32_t s_hold;		/* ... until this input sample */
	int erle_q8;
	/* the far echo sought in the training's residual (v34_train_rx.c) */
	struct smdsp_v34_onset far_seek;
	int far_delay;			/* the far window's bulk delay */
	bool far_sought;
	uint32_t gear_at;		/* the step's gears from then: ec_on, or when the far window moved */
	/* the call modem waiting for the answer modem's S after its own training */
	bool p4wait;
	bool p4;			/* phase 4's S found */
	unsigned int srun, qprev, dprev4;
	int16_t clean[12];		/* a piece of input less the echo */
	struct smdsp_cplx y[16];	/* its T/2 outputs: 12 samples make at most 11 at 3429 baud */
	int32_t tavg;			/* the timing loop's mean move per 8 symbols, Q8 */
	int32_t tfrac;
	/* data: the equaliser output's power over a block, a fast block, the reference (data_level()) */
	uint64_t lv_acc, lv_fast, lv_ref;
	uint64_t lv_nom;		/* the data's expected output power: 2 R^2, the shell mapping's mean weighed in */
	unsigned int lv_n, lv_nf, lv_refn;
	/* the last SMDSP_V34_LV_RISE fast blocks' powers, for a rise (data_level()) */
	uint64_t lv_fp[SMDSP_V34_LV_RISE];
	unsigned int lv_fpn;
	unsigned int lv_frz;		/* symbols left of the loops held after a move, the level measured */
	uint32_t lv_gmove;		/* the move's gain, Q16 (undone if the far end turns out gone) */
	uint32_t agc_pp;		/* the input scale PP set, as the data began */
	/* the equaliser and loops every other fast block at the level, the last SMDSP_V34_LV_SNAPS */
	struct smdsp_v34_lv_snap {
		int32_t c[SMDSP_V34_EQ_TAPS][2];
		uint32_t sym, phase;
		int32_t freq, ticks, tavg;
		bool valid;
	} lv_snap[SMDSP_V34_LV_SNAPS];
	unsigned int lv_si, lv_snapn;
	bool lv_hold;			/* our renegotiation asked: no watch until the data again */
	int32_t cg_ref;			/* the equaliser's centre of gravity as the data began, Q8 taps */
	bool cg_set;
	/* rate renegotiation: the far S heard in the data mode, until our data mode again */
	bool rn;
	uint32_t rn_count;
	/* the tone watched for (a retrain): its phase step (0: none), one block's DFT bin and energy */
	uint32_t tw_step, tw_ph;
	int64_t tw_re, tw_im;
	uint32_t tw_own_step, tw_own_ph;	/* our own tone's, whose echo is not the far end's */
	int64_t tw_own_re, tw_own_im;
	uint64_t tw_e;
	unsigned int tw_n;
	unsigned int tw_ms;		/* heard that long without a break */
};

#endif /* SMDSP_PRIVATE_V34_TRAIN_H */
