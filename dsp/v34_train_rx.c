// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 phases 3 and 4 and the data mode, receive side (10.1.3; 11.3, 11.4).
 *
 * v34_demod gives the far end's signal at T/2 (two matched-filter outputs a
 * symbol, at instants the timing loop moves). Then:
 *
 * - S: outputs two symbols apart agree (S repeats every two symbols
 *   whatever the sampling phase), 32 symbols in a row at a useful level.
 *   Then each output is held against S's own pattern (averaged at each of
 *   the four half-symbol phases of its period): the reversal to S-bar turns
 *   the last two symbols' sum negative, which times PP's start to within a
 *   symbol or so (16 symbols of S-bar later). (The product of outputs two
 *   symbols apart would see the reversal only for two symbols, blurred by
 *   the pulse: too weak a mark.)
 * - PP: one period (48 symbols) is correlated against the known sequence
 *   at every half-symbol lag within 6 symbols of that estimate; PP's
 *   periodic autocorrelation is zero off lag 0, so the peak lag is where
 *   PP's symbols sit and its value the channel's gain and phase. That sets
 *   the input scale and the equaliser's centre tap (its other taps at 0),
 *   and the rest of PP trains it by LMS against the known symbols.
 * - TRN: decision-directed on the 4-point constellation (its absolute
 *   phase is known from PP); the decided dibits, descrambled with the far
 *   end's polynomial, should be ones (counted). The equaliser's error also
 *   trains a 3-tap noise predictor: its coefficients are the precoding
 *   coefficients h(1)-h(3) we send in MP, so that the far transmitter's
 *   precoder takes the predictable part of our noise (9.6.2's intent: the
 *   feedback part of a decision-feedback equaliser moved to the
 *   transmitter). At the training's end the rate for our MP: the highest
 *   within the configuration (phase 2's projection, the user's limit)
 *   whose need for a BER of 1e-5 (smdsp_v34_rate_need_db10(): the rate's
 *   constellation power, the 16-state code, a margin) TRN's error over its
 *   last 256 symbols meets, the predictor's output's when precoding is
 *   asked for: what the decoder will see, against the same power. Also
 *   how much of the noise grows with the line's power (half a symbol
 *   between two symbols, comp_acc()), a codec's companding rather than
 *   white noise: with the error, it decides whether our MP asks for the
 *   nonlinear encoder (comp_pct()).
 * - J (differentially encoded: its own descrambler on the decisions'
 *   steps), twice in a row on a symbol boundary, ends our training; the far
 *   J asks for the TRN we send in phase 4 (4 or 16 points), ours for the
 *   one we receive. J' starts phase 4's TRN, of any length (trn4_symbol()),
 *   ended by the first MP frame taken (differential, scrambled: sync of 17
 *   ones, start bits, CRC checked by v34_mp); MP frames until an MP' and
 *   E's 20 ones. The symbol after E starts B1 and the first
 *   mapping frame of a superframe: that is the superframe's timing, which
 *   v34_data's framer then follows.
 * - Data: the equaliser output z (scaled to v34_data's 1/128 units) is
 *   whitened, r(n) = z(n) + sum h(i) z(n - i), which is the precoder's y(n)
 *   plus noise, and goes to v34_data's Viterbi decoder; B1's data frame is
 *   dropped. The loops and the adaptation then work on r against the
 *   nearest odd-integer point (a tentative y): the equaliser's gradient is
 *   the whitened error times its inputs filtered by 1 + sum h(i) z^-i, so
 *   that equaliser and predictor together keep minimising what the decoder
 *   sees, and no recursion through h can spread a wrong tentative decision.
 *   The code decoded is the one our MP asked for (the configuration's
 *   trellis), the auxiliary channel's bits are delivered when both MPs
 *   offered it, and v34_data's superframe sync check says (the stats'
 *   sync_lost) when the decoder is out of step with the far frames. A
 *   received level that falls (a line's loss) is followed: data_level().
 *
 * Carrier: a second-order loop on the angle between output and decision
 * (the product scaled to full precision first: the inner points of 33,600's
 * constellation are a thousandth of its outer ones in power). The
 * equaliser's LMS steps are rounded, not truncated: at the data's high
 * SNRs a truncation's half unit a tap a symbol outweighed the gradient and
 * held the data mode's error near 31-34 dB.
 * Timing: Mueller and Mueller's detector on the output and the decisions
 * (the pulse's slope one symbol either side) moves the demodulator's
 * instants (smdsp_v34_demod_adjust()) from TRN's 256th symbol on, so that a
 * 32-symbol equaliser holds at +-100 ppm for any length of call: the
 * equaliser alone would have to follow 1.8 ticks a symbol, and with a
 * roll-off of 1/8 a twentieth of a symbol off costs 20 dB of MSE.
 * Precoding is asked for only when the predictor gains more than 1 dB.
 *
 * On a 2-wire line (two_wire) the receiver hears its own transmitter back:
 * the near echo through the local hybrid and the far echo a round trip
 * later, shifted in frequency. An echo canceller (dsp/echo.c, near 128 and
 * far 256 taps, the far window at the configured round trip, or where the
 * training finds the far echo: far_seek_start()) takes what the attached
 * transmitter sent, echo_latency samples back, off the input before the
 * demodulator. It trains (TRAIN) only while the far end is
 * silent, in the duplex sequence's windows (v34_train_tx.c):
 * - the answer modem's: from its PP (the whitening learnt on PP, whose
 *   flat spectrum TRN shares; S is three lines) to its J's start plus the
 *   round trip, the soonest the call modem's S can be back;
 * - the call modem's: from its S plus the round trip and the answer
 *   modem's reaction to that S (SILENT_MARGIN symbols: S found, J's word
 *   ended, the pulse's tail), or its PP if later, to its J plus the round
 *   trip, the soonest the answer modem's second S can be back.
 * The step and the far echo's phase loop narrow as the window goes (as in
 * the V.32bis modem); after it the canceller tracks slowly while this end
 * sends and is frozen while it is silent. From this end's S coming back to
 * the window's end the receiver is deaf: the answer modem's does not look
 * for S (it would find its own), the call modem's, already trained, holds
 * its equaliser and loops; then it waits for the answer modem's second S
 * with them held, the carrier turning at the frequency learnt and the
 * sampling instants moving at the timing loop's mean rate (100 ppm is 1.8
 * ticks a symbol: a third of a symbol over the two seconds of the wait),
 * finds S by its decisions alternating a quarter turn (any rotation), its
 * reversal by the step repeating, rights the constellation by where S-bar
 * falls, and takes phase 4's TRN from 16 symbols later.
 */
#include <smdsp/private/v34_train.h>
#include <smdsp/private/v34_mod.h>
#include <smdsp/v34_precode.h>

#define R_AMP 4096		/* the equaliser's 4-point constellation: (+-R, +-R) */
#define CTR (SMDSP_V34_EQ_TAPS / 2)
#define CM_HALF SMDSP_V34_CM_HALF
#define CM_SHAPE_SHIFT 8	/* comp_acc()'s model: its shape's step, 2^-8 a tap */
#define CM_GAMMA 137		/* comp_acc()'s p: the line's power half a symbol either side, Q8 */
#define S_RUN 32
#define PP_SEARCH 12		/* half symbols each side */
#define SHIFT_TRAIN 14
#define SHIFT_TRACK 16
#define SHIFT_DATA 17
#define TIMING_FROM (SMDSP_V34_PP_SYMS + 256)
/* the answer modem's reaction to our S, symbols: 32 of S found, a J word, pulses, demodulator */
#define SILENT_MARGIN 128
/*
 * The canceller's step while it tracks in the data mode, Q16: 1/65536, so
 * that the coefficient noise the far modem's signal leaves in its taps
 * (mu / 2 of that signal's power at most, dsp/echo.c) stays near -51 dB,
 * 10 dB under the receiver's own error at 33,600 bit/s; the echo path does
 * not move during a call (the far echo's frequency is the phase loop's).
 */
#define EC_TRACK_MU 1
/*
 * and its far echo's phase loop in the data (mHz): the far signal is that
 * loop's noise, 20-30 dB over our far echo, so its jitter grows with its
 * bandwidth; at 0.2 Hz (V.32bis's, whose far echo is 6-15 dB down) the
 * phase wandered 10-15 degrees and the decoder's error swung 29-37 dB with
 * it on a 2-wire line whose noise had gone; at 0.05 Hz (its detector
 * linear: echo.c) it holds 33-37 dB and still pulls in the 0.01-0.02 Hz a
 * noisy TRAIN leaves (test_v34_reneg's lift, six noises: 0.1 Hz failed five,
 * 0.025 Hz five, 0.05 Hz none)
 */
#define EC_TRACK_PLL_MHZ 50
/*
 * That is for a weak far echo. The loop's jitter leaves a residue of the
 * far signal's power times its bandwidth, whatever the echo's level; what
 * it lags behind (the frequency TRAIN left wrong by 0.01-0.02 Hz, the
 * phase a frozen wait rolled on it) a residue of the echo's power over its
 * bandwidth squared: the best bandwidth goes as the cube root of the far
 * echo over the far signal. So the loop widens by 2^(1/3) for each
 * doubling of that ratio over EC_TRACK_REF_Q12 (-18 dB: the weak echoes
 * 0.05 Hz was chosen for), up to 0.2 Hz at 0 dB. Measured in the data,
 * where the canceller's output is the far signal: its far estimate's share
 * (echo.c). A far echo 4 dB under the far signal at 2400 baud (2 lines of
 * 60 within 10 dB) lost 980-5295 bits at 0.05 Hz, none at 0.1-0.2 Hz.
 */
#define EC_TRACK_REF_Q12 65u
static const uint8_t ec_track_pll[] = { 50, 63, 79, 100, 126, 159, 200 };
/* the equaliser's re-centring: 1/2^RECENTRE_SHIFT of its slide every 8 symbols */
#define RECENTRE_SHIFT 7
#define P4_S_RUN 24			/* phase 4's S: symbols alternating a quarter turn */
/* the canceller's schedule in its window: <smdsp/echo.h>'s SMDSP_ECHO_MODEM_*, as V.32bis's */

static void set_state(struct smdsp_v34_train_rx *s, enum smdsp_v34_train_state st)
{
	s->state = st;
	s->count = 0;
}

static void cmul_conj(const struct smdsp_cplx *a, const struct smdsp_cplx *b, int64_t *re, int64_t *im)
{
	*re = (int64_t)a->re * b->re + (int64_t)a->im * b->im;
	*im = (int64_t)a->im * b->re - (int64_t)a->re * b->im;
}

static void rotate(struct smdsp_cplx *v, uint32_t ph)
{
	int32_t c = smdsp_cos(ph), sn = smdsp_sin(ph);
	int64_t re = (int64_t)v->re * c - (int64_t)v->im * sn;
	int64_t im = (int64_t)v->re * sn + (int64_t)v->im * c;

	v->re = (int32_t)(re >> 15);
	v->im = (int32_t)(im >> 15);
}

static void eq_push(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *y)
{
	int32_t re = (int32_t)(((int64_t)y->re * s->agc) >> 16);
	int32_t im = (int32_t)(((int64_t)y->im * s->agc) >> 16);

	s->xpos = (s->xpos + 1) % SMDSP_V34_EQ_HIST;
	s->x[s->xpos][0] = re;
	s->x[s->xpos][1] = im;
	s->x[s->xpos + SMDSP_V34_EQ_HIST][0] = re;
	s->x[s->xpos + SMDSP_V34_EQ_HIST][1] = im;
	if (s->v_stale < SMDSP_V34_EQ_TAPS)
		s->v_stale++;
}

/* x or h changed other than by eq_push(): every v filtered again at the next whitened update */
static void eq_v_stale(struct smdsp_v34_train_rx *s)
{
	s->v_stale = SMDSP_V34_EQ_TAPS;
}

/* tap i weighs the input i T/2 older than the newest */
static void eq_out(const struct smdsp_v34_train_rx *s, struct smdsp_cplx *o)
{
	const int32_t(*x)[2] = &s->x[s->xpos + SMDSP_V34_EQ_HIST];
	int64_t re = 0, im = 0;
	int i;

	for (i = 0; i < SMDSP_V34_EQ_TAPS; i++) {
		re += (int64_t)s->c[i][0] * x[-i][0] - (int64_t)s->c[i][1] * x[-i][1];
		im += (int64_t)s->c[i][0] * x[-i][1] + (int64_t)s->c[i][1] * x[-i][0];
	}
	o->re = smdsp_sat32(re >> 20);
	o->im = smdsp_sat32(im >> 20);
}

/*
 * The inputs filtered by g = 1, h(1), h(2), h(3) (Q14) over the last
 * symbols, for the entries pushed since the last call: an input's v depends
 * on it and older ones only, and h holds still through the data mode, so
 * each is filtered once rather than at every tap it passes (3 complex
 * products a tap a symbol).
 */
static void eq_filter(struct smdsp_v34_train_rx *s)
{
	const int32_t(*x)[2] = &s->x[s->xpos + SMDSP_V34_EQ_HIST];
	const int16_t *h = s->h;
	unsigned int i, j, r;

	for (i = 0; i < s->v_stale; i++) {
		int64_t vr = x[-(int)i][0], vi = x[-(int)i][1];

		vr *= 1 << 14;
		vi *= 1 << 14;
		for (j = 1; j <= 3; j++) {
			int64_t hr = h[2 * j - 2], hi = h[2 * j - 1];
			int64_t ar = x[-(int)(i + 2 * j)][0], ai = x[-(int)(i + 2 * j)][1];

			vr += hr * ar - hi * ai;
			vi += hr * ai + hi * ar;
		}
		r = (s->xpos + SMDSP_V34_EQ_HIST - i) % SMDSP_V34_EQ_HIST;
		s->v[r][0] = vr >> 14;
		s->v[r][1] = vi >> 14;
		s->v[r + SMDSP_V34_EQ_HIST][0] = vr >> 14;
		s->v[r + SMDSP_V34_EQ_HIST][1] = vi >> 14;
	}
	s->v_stale = 0;
}

/*
 * c -= e conj(v) >> shift, rounded: a truncating shift adds half a unit to
 * every tap at every step, a drift the data's small errors cannot hold back
 */
static inline void eq_tap(int32_t c[2], const struct smdsp_cplx *e, int64_t vr, int64_t vi, int shift)
{
	int64_t re = (int64_t)e->re * vr + (int64_t)e->im * vi;
	int64_t im = (int64_t)e->im * vr - (int64_t)e->re * vi;

	c[0] -= (int32_t)((re + (1LL << (shift - 1))) >> shift);
	c[1] -= (int32_t)((im + (1LL << (shift - 1))) >> shift);
}

/*
 * The taps' step, e in the equaliser's input frame, v the inputs filtered
 * by 1 + h(z^-2) (eq_filter()): the gradient of the whitened error (white
 * false: the plain error, v = x).
 */
static void eq_update(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *e, int shift, bool white)
{
	int i;

	if (white) {
		const int64_t(*v)[2] = &s->v[s->xpos + SMDSP_V34_EQ_HIST];

		eq_filter(s);
		for (i = 0; i < SMDSP_V34_EQ_TAPS; i++)
			eq_tap(s->c[i], e, v[-i][0], v[-i][1], shift);
	} else {
		const int32_t(*x)[2] = &s->x[s->xpos + SMDSP_V34_EQ_HIST];

		for (i = 0; i < SMDSP_V34_EQ_TAPS; i++)
			eq_tap(s->c[i], e, x[-i][0], x[-i][1], shift);
	}
}

/*
 * The angle of o conj(d): the product scaled to 30 bits whatever its size,
 * so that the inner points of a large constellation (products a
 * thousandth of the outer ones') are measured as finely as the outer ones
 */
static int32_t angle_err(const struct smdsp_cplx *o, const struct smdsp_cplx *d)
{
	int64_t pr, pi;
	uint64_t m;
	int sh = 0;

	cmul_conj(o, d, &pr, &pi);
	m = (uint64_t)(pr < 0 ? -pr : pr) | (uint64_t)(pi < 0 ? -pi : pi);
	while ((m >> sh) >= (1ULL << 30))
		sh++;
	return (int32_t)smdsp_atan2((int32_t)(pi >> sh), (int32_t)(pr >> sh));
}

/* num / den for 64-bit values, den > 0 */
static int64_t div_norm(int64_t num, int64_t den)
{
	while (den > 0x3fffffff) {
		den >>= 1;
		num >>= 1;
	}
	return smdsp_div_s64(num, (int32_t)den + 1);
}

/*
 * The equaliser's centre of gravity (its taps' energy over their index),
 * Q8 taps.
 */
static int32_t eq_gravity(const struct smdsp_v34_train_rx *s)
{
	int64_t num = 0, den = 0;
	int i;

	for (i = 0; i < SMDSP_V34_EQ_TAPS; i++) {
		int64_t p = ((int64_t)s->c[i][0] * s->c[i][0] + (int64_t)s->c[i][1] * s->c[i][1]) >> 20;

		num += (i - CTR) * p;
		den += p;
	}
	return den ? (int32_t)div_norm(num * 256, den) : 0;
}

/*
 * The timing loop's help in the data mode, ticks: where the clocks differ,
 * the equaliser takes up part of the drift the decision-directed detector
 * leaves (it measures the equaliser's output, which the equaliser itself
 * keeps on time), so its taps slide toward an end of their span, by the
 * offset's rate for as long as the call lasts, and the error grows as the
 * pulse leaves the span (at 50 ppm its edge taps' energy grew 30 times in
 * 100 s, and the error fell 5 dB). A tap of T/2 is SMDSP_V34_TICKS / 2
 * ticks; the instants move by 1/128 of the slide every 8 symbols (a time
 * constant of 1024 symbols, 0.3 s), so the taps stay where the data found
 * them.
 */
static int32_t eq_recentre(struct smdsp_v34_train_rx *s)
{
	int32_t g = eq_gravity(s);

	if (!s->cg_set) {
		s->cg_ref = g;
		s->cg_set = true;
		return 0;
	}
	return (int32_t)(((int64_t)(g - s->cg_ref) * (SMDSP_V34_TICKS / 2)) >> (8 + RECENTRE_SHIFT));
}

static void quad_decide(const struct smdsp_cplx *o, struct smdsp_cplx *d, unsigned int *q)
{
	/* quadrants in smdsp_v34_train_point4's order: 45, 315, 225, 135 degrees */
	if (o->re >= 0)
		*q = o->im >= 0 ? 0 : 1;
	else
		*q = o->im >= 0 ? 3 : 2;
	smdsp_v34_train_point4(*q, R_AMP, d);
}

static void quad16_decide(const struct smdsp_cplx *o, struct smdsp_cplx *d, unsigned int *q)
{
	const int32_t u2 = 2 * (int32_t)(((int64_t)R_AMP * 29309) >> 16);

	quad_decide(o, d, q);
	if (smdsp_abs32(o->re) > u2)
		*q |= 4;
	if (smdsp_abs32(o->im) > u2)
		*q |= 8;
	smdsp_v34_train_point16(*q, R_AMP, d);
}

static uint64_t dist2(const struct smdsp_cplx *a, const struct smdsp_cplx *b)
{
	int64_t re = (int64_t)a->re - b->re, im = (int64_t)a->im - b->im;

	return (uint64_t)(re * re + im * im);
}

/*
 * Phase 4's TRN: each symbol decided on both constellations, the one that
 * fits the recent symbols better decides (p4fit: about 8 times the mean of
 * the 4-point error less the 16-point one; a symbol of the wrong kind
 * costs a fifth to two fifths of the training's power 2 R^2, noise at 20
 * dB a hundredth). It starts as our J asked and follows what the far end
 * sends; at a 16-point TRN's end MP's 4-point symbols turn it back within
 * a few symbols, before the equaliser has learnt a wrong scale.
 */
static void trn4_decide(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *o, struct smdsp_cplx *d,
			unsigned int *q)
{
	struct smdsp_cplx d4, d16;
	unsigned int q4, q16;

	quad_decide(o, &d4, &q4);
	quad16_decide(o, &d16, &q16);
	s->p4fit += (int64_t)dist2(o, &d4) - (int64_t)dist2(o, &d16) - s->p4fit / 8;
	s->p4_16 = s->p4fit > 0;
	*d = s->p4_16 ? d16 : d4;
	*q = s->p4_16 ? q16 : q4;
}

static void mse_acc(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *e, const struct smdsp_cplx *d)
{
	s->err_acc += (uint64_t)((int64_t)e->re * e->re + (int64_t)e->im * e->im);
	s->sig_acc += (uint64_t)((int64_t)d->re * d->re + (int64_t)d->im * d->im);
	if (++s->mse_n == 256) {
		s->st.mse_db10 = smdsp_power_to_dbm0(s->sig_acc >> 8) - smdsp_power_to_dbm0((s->err_acc >> 8) + 1);
		s->err_acc = 0;
		s->sig_acc = 0;
		s->mse_n = 0;
	}
}

/* the noise predictor: r = e + sum hp(i) e(n - i), NLMS on |r|^2 */
static void predictor(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *e)
{
	int64_t rr = e->re, ri = e->im, pw = 1;
	int i;

	for (i = 0; i < 3; i++) {
		rr += ((int64_t)s->hp[i][0] * s->ehist[i][0] - (int64_t)s->hp[i][1] * s->ehist[i][1]) >> 20;
		ri += ((int64_t)s->hp[i][0] * s->ehist[i][1] + (int64_t)s->hp[i][1] * s->ehist[i][0]) >> 20;
		pw += (int64_t)s->ehist[i][0] * s->ehist[i][0] + (int64_t)s->ehist[i][1] * s->ehist[i][1];
	}
	s->pe_acc += (uint64_t)((int64_t)e->re * e->re + (int64_t)e->im * e->im) >> 4;
	s->pr_acc += (uint64_t)(rr * rr + ri * ri) >> 4;
	/* the same over about the last 256 symbols, the trained equaliser's and predictor's */
	s->pe_avg += (uint64_t)((int64_t)e->re * e->re + (int64_t)e->im * e->im) - (s->pe_avg >> 8);
	s->pr_avg += (uint64_t)(rr * rr + ri * ri) - (s->pr_avg >> 8);
	s->pe_n++;
	for (i = 0; i < 3; i++) {
		int64_t gr = rr * s->ehist[i][0] + ri * s->ehist[i][1];
		int64_t gi = ri * s->ehist[i][0] - rr * s->ehist[i][1];

		/* a step of 2^-9 of the normalised gradient */
		s->hp[i][0] -= (int32_t)div_norm(gr * (1 << 11), pw);
		s->hp[i][1] -= (int32_t)div_norm(gi * (1 << 11), pw);
	}
	s->ehist[2][0] = s->ehist[1][0];
	s->ehist[2][1] = s->ehist[1][1];
	s->ehist[1][0] = s->ehist[0][0];
	s->ehist[1][1] = s->ehist[0][1];
	s->ehist[0][0] = e->re;
	s->ehist[0][1] = e->im;
}

/* |v|^2 in 2^-14, under 2^20: a line value's power for comp_acc()'s p */
static uint64_t cm_pow(const struct smdsp_cplx *v)
{
	uint64_t m = (uint64_t)((int64_t)v->re * v->re + (int64_t)v->im * v->im) >> 14;

	return m < 1 << 20 ? m : 1 << 20;
}

/*
 * TRN: the noise's power against the line's power at the same instant,
 * for comp_pct(). A codec's companding error on each line sample has a
 * variance about proportional to that sample's power, independent from
 * sample to sample, so after the matched filter g the noise's power at an
 * instant t is sum_n g(t - n)^2 |s(n)|^2, s the line as the codec saw it
 * (any channel before it included); white noise and a cancelled echo do
 * not follow it. At TRN's symbol instants that power hardly moves (its
 * four points have one power); half a symbol between two symbols it moves
 * most (twice a point between equal neighbours, nothing between opposite
 * ones). So the matched filter's output half a symbol before each symbol
 * is kept and, CM_HALF - 1 symbols later, all the decisions around it
 * known, what they put there is taken off: the rest is the noise, its
 * power e.
 *
 * The line's p. g^2 is a bump about a symbol wide (g(T/2)^2 = 0.375
 * g(0)^2, g(T)^2 = 0.001) and g^2 and |s|^2 are both band-limited to
 * (1 + beta)/T, so the sum over samples is, but for their band edges'
 * aliasing, the sum at T/2 steps: |s(t)|^2 + gamma (|s(t - T/2)|^2 +
 * |s(t + T/2)|^2). The matched filter's outputs are s filtered once more
 * by the pulse's spectrum, flat but for its roll-off, so they stand for
 * s: at t the model's (noise-free), either side the received outputs at
 * the symbol instants (their noise, 0.63 correlated with e's at +-T/2,
 * adds about 0.05 % to a share at 33 dB). The weights over the
 * decisions' products are then the line's own, whatever the channel;
 * fixed ones (the flat pulse's) were right on a flat line only. gamma =
 * 137/256 rather than 0.375 makes up for the outputs' extra smoothing:
 * the least-squares fit to the exact sum on a flat line. Computed so
 * (dsp/tools/comp_share.py, 2400-3429 baud), this p measures 96-108 % of
 * a pure codec's share on the flat, telephone, bass-cut and long-loop
 * channels, correlated 0.79-0.98 with its noise's power; the flat pulse's
 * weights measured 97-113 % on the first three (0.70-0.89) and 64-74 % on
 * the long loop (0.28-0.39).
 *
 * The model. What the decisions put at t moves during TRN: the output is
 * scaled and turned by the equaliser's centre tap and the carrier loop,
 * which trade the constellation's rotation as they go. One NLMS model
 * fast enough to follow that (2^-5 a tap over all its taps) carried
 * about 0.6 of the noise's power of its own (its misadjustment, most of
 * e on a codec's line: shares of 33..54 % on flat lines, and on the
 * telephone channel at 3429 baud, where it fitted the pulse worse,
 * 10..57); one slower (2^-8) lagged, an error growing with the signal on
 * every line. So the model is a shape, 2 CM_HALF taps at 2^-8 a tap
 * (about 6 % of misadjustment), through a complex gain, one coefficient
 * at 2^-5 normalised by the output's recent power, which follows the
 * scale and the turn: a codec's line now reads 41..79 % on flat,
 * telephone and bass-cut channels, the others at most 29 %.
 */
static void comp_acc(struct smdsp_v34_train_rx *s, unsigned int q, bool count)
{
	struct smdsp_cplx o, d, r, u, y;
	int64_t sr = 0, si = 0, gr, gi;
	uint64_t ee, o2, p;
	int j;

	/* the output kept CM_HALF - 1 symbols ago: between the decisions CM_HALF - 1 and CM_HALF back */
	s->cm_q = (s->cm_q << 2) | (q & 3);
	o = s->cm_z[s->cm_pos];
	/* the line at this symbol's instant and half a symbol before it, scaled and turned as the decisions */
	{
		const int32_t *xs = s->x[s->xpos + SMDSP_V34_EQ_HIST - CTR];
		const int32_t *xh = s->x[s->xpos + SMDSP_V34_EQ_HIST - CTR - 1];
		const int32_t *cc = s->c[CTR];

		y.re = (int32_t)(((int64_t)cc[0] * xs[0] - (int64_t)cc[1] * xs[1]) >> 20);
		y.im = (int32_t)(((int64_t)cc[0] * xs[1] + (int64_t)cc[1] * xs[0]) >> 20);
		s->cm_z[s->cm_pos].re = (int32_t)(((int64_t)cc[0] * xh[0] - (int64_t)cc[1] * xh[1]) >> 20);
		s->cm_z[s->cm_pos].im = (int32_t)(((int64_t)cc[0] * xh[1] + (int64_t)cc[1] * xh[0]) >> 20);
	}
	rotate(&s->cm_z[s->cm_pos], (uint32_t)-s->phase);
	rotate(&y, (uint32_t)-s->phase);
	s->cm_pos = (s->cm_pos + 1) % (CM_HALF - 1);
	memmove(&s->cm_y[1], &s->cm_y[0], CM_HALF * sizeof(s->cm_y[0]));
	s->cm_y[0] = y;
	if (s->cm_fill < 2 * CM_HALF) {
		s->cm_fill++;
		return;
	}
	for (j = 0; j < 2 * CM_HALF; j++) {
		smdsp_v34_train_point4((unsigned int)(s->cm_q >> 2 * j), R_AMP, &d);
		sr += (int64_t)s->cm_w[j][0] * d.re - (int64_t)s->cm_w[j][1] * d.im;
		si += (int64_t)s->cm_w[j][0] * d.im + (int64_t)s->cm_w[j][1] * d.re;
	}
	u.re = (int32_t)(sr >> 14);
	u.im = (int32_t)(si >> 14);
	/* the line there: the shape's output through the gain */
	y.re = (int32_t)(((int64_t)s->cm_g[0] * u.re - (int64_t)s->cm_g[1] * u.im) >> 14);
	y.im = (int32_t)(((int64_t)s->cm_g[0] * u.im + (int64_t)s->cm_g[1] * u.re) >> 14);
	r.re = o.re - y.re;
	r.im = o.im - y.im;
	/* the gain: NLMS at 2^-5 on the line's recent power there */
	o2 = (uint64_t)((int64_t)o.re * o.re + (int64_t)o.im * o.im);
	s->cm_o2 += o2 - (s->cm_o2 >> 6);
	if (s->cm_o2 >> 6) {
		gr = (int64_t)r.re * u.re + (int64_t)r.im * u.im;
		gi = (int64_t)r.im * u.re - (int64_t)r.re * u.im;
		s->cm_g[0] += (int32_t)div_norm(gr * (1 << 9), (int64_t)(s->cm_o2 >> 6));
		s->cm_g[1] += (int32_t)div_norm(gi * (1 << 9), (int64_t)(s->cm_o2 >> 6));
	}
	/* the shape: the error turned back by the gain, a step of 2^-CM_SHAPE_SHIFT a tap normalised by |d|^2 */
	{
		struct smdsp_cplx rb;

		rb.re = (int32_t)(((int64_t)r.re * s->cm_g[0] + (int64_t)r.im * s->cm_g[1]) >> 14);
		rb.im = (int32_t)(((int64_t)r.im * s->cm_g[0] - (int64_t)r.re * s->cm_g[1]) >> 14);
		for (j = 0; j < 2 * CM_HALF; j++) {
			smdsp_v34_train_point4((unsigned int)(s->cm_q >> 2 * j), R_AMP, &d);
			eq_tap(s->cm_w[j], &rb, -(int64_t)d.re, -(int64_t)d.im, 11 + CM_SHAPE_SHIFT);
		}
	}
	if (!count)
		return;
	/* the line's power half a symbol either side: the decisions CM_HALF - 1 and CM_HALF back */
	p = (cm_pow(&y) * 256 + CM_GAMMA * (cm_pow(&s->cm_y[CM_HALF - 1]) + cm_pow(&s->cm_y[CM_HALF]))) >> 8;
	if (p > 1 << 15)
		p = 1 << 15;
	ee = (uint64_t)((int64_t)r.re * r.re + (int64_t)r.im * r.im);
	/* e under 2^20 at any useful SNR, p under 2^14: 2^16 symbols of p e and p^2 fit */
	if (ee > 1 << 20 || s->cm_n >= 1 << 16)
		return;
	s->cm_e += ee;
	s->cm_p += p;
	s->cm_pe += p * ee;
	s->cm_pp += p * p;
	s->cm_n++;
}

/*
 * The share of TRN's noise that grows with the line's power, percent: the
 * regression of the noise's power e on the line's p, cov(p, e) / var(p)
 * E[p] / E[e]. Were e = a p + n (companding plus white noise),
 * 100 a E[p] / (a E[p] + n); a G.711 codec's lines give 41-79,
 * white noise, a codec under more white noise and cancelled echoes
 * -27..+29 (test_v34_shaping's lines on flat, telephone and bass-cut
 * channels, 1500-3800 symbols of TRN counted).
 */
static int32_t comp_pct(const struct smdsp_v34_train_rx *s)
{
	uint32_t n = s->cm_n;
	int64_t me, mp, cov, var, r;

	if (n < 256)
		return 0;
	me = (int64_t)smdsp_div_u64(s->cm_e, n) + 1;
	mp = (int64_t)smdsp_div_u64(s->cm_p, n) + 1;
	cov = (int64_t)smdsp_div_u64(s->cm_pe, n) - me * mp;
	var = (int64_t)smdsp_div_u64(s->cm_pp, n) - mp * mp;
	if (var <= 0)
		return 0;
	r = div_norm(div_norm(cov * (1 << 16), me) * 100, div_norm(var * (1 << 16), mp));
	return (int32_t)(r > 1000 ? 1000 : r < -1000 ? -1000 : r);
}

int smdsp_v34_rate_need_db10(const struct smdsp_v34_train_rx *s, enum smdsp_v34_symrate symrate,
			     unsigned int data_rate)
{
	uint32_t p = smdsp_v34_data_rate_power(s->data, symrate, data_rate);

	if (!p)
		return 1000;
	/* P 30 / 8 in 1/128 units: against 8 * 128^2 */
	return smdsp_power_to_dbm0((uint64_t)p * 30) - smdsp_power_to_dbm0(8 * 16384) + SMDSP_V34_RATE_MARGIN_DB10;
}

/* the highest rate up to top whose need an error of db10 meets (2400 at least) */
static unsigned int rate_for(const struct smdsp_v34_train_rx *s, int32_t db10, unsigned int top)
{
	unsigned int r;

	for (r = top; r > 2400; r -= 2400)
		if (db10 >= smdsp_v34_rate_need_db10(s, s->cfg.symrate, r))
			break;
	return r;
}

/*
 * The rate for our MP: the highest within the configuration's (phase 2's
 * projection, the user's limit) whose need the error measured on TRN
 * meets; TRN's 4-point error relative to the same power as the data's
 * (both are sent at the training's power), so it carries over
 */
static void choose_rate(struct smdsp_v34_train_rx *s, bool precoding)
{
	uint64_t err = precoding ? s->pr_avg : s->pe_avg;

	/* the mean per symbol (256 of it) against the training's 2 R^2, once the average has filled */
	if (s->pe_n < 768) {
		s->st.mp_rate = s->mp_rate;
		return;
	}
	err >>= 8;
	s->st.trn_mse_db10 = smdsp_power_to_dbm0(2ULL * R_AMP * R_AMP) - smdsp_power_to_dbm0(err + 1);
	if (!s->cfg.fixed_rate)
		s->mp_rate = rate_for(s, s->st.trn_mse_db10, s->cfg.data_rate);
	s->st.mp_rate = s->mp_rate;
}

static void finish_training(struct smdsp_v34_train_rx *s)
{
	bool precoding = !(4 * s->pe_acc < 5 * s->pr_acc || s->cfg.no_precoding);
	int i, k;

	/*
	 * Precoding only for a prediction gain above 1 dB (5/4 in power): below
	 * that the noise is white enough, and a tentative decision's error
	 * would cost more in the receiver's recursion than the gain.
	 */
	if (!precoding)
		memset(s->hp, 0, sizeof(s->hp));
	s->st.pred_gain_db10 = smdsp_power_to_dbm0(s->pe_acc >> 8) - smdsp_power_to_dbm0((s->pr_acc >> 8) + 1);

	for (i = 0; i < 3; i++)
		for (k = 0; k < 2; k++) {
			int32_t v = s->hp[i][k] >> 6;

			/* inside Q2.14, and a precoder that cannot run away */
			if (v > 24576)
				v = 24576;
			if (v < -24576)
				v = -24576;
			s->h[2 * i + k] = (int16_t)v;
		}
	eq_v_stale(s);
	choose_rate(s, precoding);
	s->st.trn_comp_pct = comp_pct(s);
	s->trained = true;
}

static uint32_t ones32(uint32_t v)
{
	uint32_t n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

static unsigned int descr(struct smdsp_v34_train_rx *s, unsigned int bit)
{
	return smdsp_v34_descramble_bit(&s->dscr, bit);
}

static void mp_bit(struct smdsp_v34_train_rx *s, unsigned int bit)
{
	unsigned int need;

	if (!s->mp_len) {
		if (bit) {
			s->ones++;
			return;
		}
		if (s->ones >= 17) {
			memset(s->mpbuf, 0, sizeof(s->mpbuf));
			s->mpbuf[0] = 0xff;
			s->mpbuf[1] = 0xff;
			s->mpbuf[2] = 0x01;
			s->mp_len = 18;
		}
		s->ones = 0;
		return;
	}
	if (bit)
		s->mpbuf[s->mp_len / 8] |= (uint8_t)(1u << (s->mp_len % 8));
	s->mp_len++;
	need = smdsp_v34_mp_bits(smdsp_v34_info_bit(s->mpbuf, 18));
	if (s->mp_len < 19 || s->mp_len < need)
		return;
	{
		struct smdsp_v34_mp mp;

		if (smdsp_v34_mp_unpack(s->mpbuf, need, &mp) == SMDSP_V34_MP_OK) {
			s->far = mp;
			s->mp_ok = true;
			s->mp_ack |= mp.ack;
			s->st.mp_good++;
		} else {
			s->st.mp_bad++;
		}
	}
	s->mp_len = 0;
	s->ones = 0;
}

/*
 * 2-wire: the rate for our MP from phase 4's TRN too. Phase 3's TRN error
 * is measured while this end is silent, so it lacks what the data mode
 * hears besides the far signal: the canceller's residue of our own
 * transmitter's echo. Phase 4 is duplex (both ends' TRN, then MP): its TRN
 * reaches us with our transmitter on and the canceller tracking, as in the
 * data. So its decision error, whitened by the precoding coefficients we
 * ask for (the decoder's view, as phase 3's predictor output is), is
 * counted from P4_SKIP symbols in (the loops back on the far signal after
 * the call modem's wait or the answer modem's silence) to TRN's end, and
 * our MP then asks for the rate the worse of the two errors carries (never
 * more than phase 3's: phase 4's equaliser, tracking, is not better off
 * than phase 3's, and the worse of two is the cautious reading of either
 * one's noise).
 *
 * In time for MP: every MP frame our transmitter builds asks what
 * our_rate() says then, and it sends MP' (the acknowledgement) only once
 * the far MP has arrived, which follows the far TRN: so each MP' carries
 * the rate phase 4 chose. The MPs sent before may ask for more: they are
 * repetitions sent until the far end's MP is detected, after which a modem
 * "shall complete sending the current MP sequence, and then send MP'
 * sequences" (phase 4's procedure as V.90's 9.4.1.3 words it after V.34's;
 * the acknowledgement is what settles); the far end settles its rate at E,
 * after our MP', on the last MP it took (v34_train_tx.c's settle()). A far
 * TRN as short as the recommendation's least, 512 symbols, leaves about
 * 400 to count: at least P4_MIN, or phase 3's choice stands.
 */
#define P4_SKIP 64
#define P4_BLK 32		/* counted in blocks; TRN's end decided on the wrong points is the last one's */
#define P4_MIN 256

static void p4_err(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *e)
{
	int64_t rr = e->re, ri = e->im;
	int i;

	if (!s->cfg.two_wire || s->rn || s->p4_end || s->count < P4_SKIP)
		return;
	/* r = e + sum h(i) e(n - i), h Q14: the past errors before this one joins them */
	for (i = 0; i < 3; i++) {
		rr += ((int64_t)s->h[2 * i] * s->elast[i].re - (int64_t)s->h[2 * i + 1] * s->elast[i].im) >> 14;
		ri += ((int64_t)s->h[2 * i] * s->elast[i].im + (int64_t)s->h[2 * i + 1] * s->elast[i].re) >> 14;
	}
	s->p4e_blk += (uint64_t)(rr * rr + ri * ri);
	if (++s->p4e_bn < P4_BLK)
		return;
	/* the block before this one was still TRN's: it counts */
	if (s->p4e_has_held) {
		s->p4e_sum += s->p4e_held;
		s->p4e_n += P4_BLK;
	}
	s->p4e_held = s->p4e_blk;
	s->p4e_has_held = true;
	s->p4e_blk = 0;
	s->p4e_bn = 0;
}

/* phase 4's TRN over (the first far MP taken): its error, and the rate our MP asks for */
static void p4_choose(struct smdsp_v34_train_rx *s)
{
	int32_t db;

	if (!s->cfg.two_wire || s->rn || s->p4e_n < P4_MIN)
		return;
	s->st.trn4_mse_db10 = smdsp_power_to_dbm0(2ULL * R_AMP * R_AMP) -
			      smdsp_power_to_dbm0(smdsp_div_u64(s->p4e_sum, s->p4e_n) + 1);
	if (s->cfg.fixed_rate || !s->st.trn_mse_db10)
		return;
	db = s->st.trn4_mse_db10 < s->st.trn_mse_db10 ? s->st.trn4_mse_db10 : s->st.trn_mse_db10;
	s->mp_rate = rate_for(s, db, s->mp_rate);
	s->st.mp_rate = s->mp_rate;
}

/* phase 4's TRN begins: decided as our J asked at first, MP's sync looked for */
static void start_trn4(struct smdsp_v34_train_rx *s)
{
	set_state(s, SMDSP_V34_T_TRN4);
	s->p4_16 = s->cfg.trn16;
	s->p4fit = (s->p4_16 ? 1 : -1) * (int64_t)R_AMP * R_AMP;
	s->p4_mp0 = s->st.mp_good;
	s->p4_trn = false;
	s->p4_end = false;
	s->bad_hist = ~0u;
	s->mp_len = 0;
	s->ones = 0;
	s->st.trn4_syms = 0;
	s->st.trn4_bits = 0;
	s->st.trn4_bad = 0;
	s->p4e_sum = 0;
	s->p4e_blk = 0;
	s->p4e_held = 0;
	s->p4e_n = 0;
	s->p4e_bn = 0;
	s->p4e_has_held = false;
}

/*
 * Phase 4's TRN lasts as long as the far transmitter likes: the
 * recommendation sets only its least, 512 symbols, and real modems sent
 * 5900-7400 (doc/v34.md, "What the recordings show"); MP follows with no
 * mark but its own sync. So TRN's bits are descrambled (and counted) as
 * they come, and alongside, the decisions' steps between quadrants go
 * through MP's descrambler (a copy of TRN's while TRN's last 8 bits are
 * ones, as J's is: the scrambler runs on from TRN into MP) into MP's frame
 * search; the first frame taken (sync, start bits, CRC) ends TRN. A TRN
 * whose bits are not ones to us (a real 16-point one: its mapping is not
 * ours) leaves MP's descrambler to find its own step in MP's first 23 bits:
 * the first frame may go, the next (MP repeats) is taken. MP's
 * differential decoding goes on from TRN's last quadrant, as J's does.
 */
static void trn4_symbol(struct smdsp_v34_train_rx *s, unsigned int q)
{
	unsigned int b, n = s->p4_16 ? 4 : 2, dq;

	/* TRN's bits counted from the descrambler's filling to TRN's end (below) */
	for (b = 0; b < n; b++) {
		unsigned int bit = descr(s, (q >> b) & 1);

		s->bad_hist = (s->bad_hist << 1) | (bit ? 0u : 1u);
		if (s->count >= 16 && !s->p4_end) {
			s->st.trn4_bits++;
			s->st.trn4_bad += !bit;
		}
	}
	if (!s->p4_end)
		s->st.trn4_16 = s->p4_16;
	dq = (q - s->prev_quad) & 3;
	s->prev_quad = q & 3;
	mp_bit(s, smdsp_v34_descramble_bit(&s->jdscr, dq & 1));
	mp_bit(s, smdsp_v34_descramble_bit(&s->jdscr, dq >> 1));
	/*
	 * still TRN: MP would start from its line bits (after this symbol's
	 * steps went through, as J's); MP's first symbols taken for TRN by
	 * chance (their line bits descrambling to ones as its sync's do) are
	 * their steps too, from quadrant 0: the same bits. Once TRN has gone
	 * (16 ones in a row seen, then 4 of the last 16 bits not ones) no
	 * more: MP's line bits after its sync descramble to 8 ones in a row
	 * once in 256 symbols, which had cost a third of the first frames
	 */
	if (!(s->bad_hist & 0xffff))
		s->p4_trn = true;
	else if (s->p4_trn && ones32(s->bad_hist & 0xffff) >= 4)
		s->p4_end = true;
	if (!s->p4_end && !(s->bad_hist & 0xff))
		s->jdscr = s->dscr;
	if (s->st.mp_good != s->p4_mp0) {
		/* to the frame's first symbol */
		s->st.trn4_syms = s->count + 1 - smdsp_v34_mp_bits(s->far.type) / 2;
		p4_choose(s);
		set_state(s, SMDSP_V34_T_MP);
	} else if (++s->count > SMDSP_V34_TRN4_MAX) {
		s->st.trn4_long = true;
		set_state(s, SMDSP_V34_T_FAILED);
	}
}

/*
 * What our MP asks of the far transmitter besides the rate: the nonlinear
 * encoder, expanded shaping (the configuration's, or the rule in
 * v34_train.h from TRN's error and how much of it grows with the signal,
 * both fixed at the training's end); the same answer every time (our MPs
 * and the decoder agree)
 */
static void our_asks(const struct smdsp_v34_train_rx *s, unsigned int rate, bool *nl, bool *ex)
{
	struct smdsp_v34_frame_params p;

	if (s->cfg.nonlinear == SMDSP_V34_ASK_AUTO)
		*nl = s->st.trn_mse_db10 >= SMDSP_V34_NL_SNR_DB10 && s->st.trn_comp_pct >= SMDSP_V34_NL_COMP_PCT;
	else
		*nl = s->cfg.nonlinear == SMDSP_V34_ASK_YES;
	if (s->cfg.shaping == SMDSP_V34_ASK_AUTO)
		*ex = !smdsp_v34_frame_params(s->cfg.symrate, rate, false, true, &p) && p.k;
	else
		*ex = s->cfg.shaping == SMDSP_V34_ASK_YES;
}

/*
 * The rate our MP asks for the direction we receive: what the trained
 * error carries, within the limit a renegotiation set since
 */
static unsigned int our_rate(const struct smdsp_v34_train_rx *s)
{
	return s->mp_rate < s->cfg.data_rate ? s->mp_rate : s->cfg.data_rate;
}

/* after E: DATA, CLEARED for no rate (the cleardown), FAILED if v34_data refuses the rate */
static enum smdsp_v34_train_state start_data(struct smdsp_v34_train_rx *s)
{
	struct smdsp_v34_data_config dc;
	unsigned int far_rate = 2400 * (s->cfg.caller ? s->far.rate_a_to_c : s->far.rate_c_to_a);
	uint32_t p;
	bool nl;
	int i;

	/* the equaliser's centre as the data begins: eq_recentre() holds it there */
	s->cg_set = false;
	s->lv_acc = 0;
	s->lv_fast = 0;
	s->lv_n = 0;
	s->lv_nf = 0;
	s->lv_fpn = 0;
	s->lv_ref = 0;
	s->lv_refn = 0;
	s->lv_frz = 0;
	s->st.level_hold = false;
	for (i = 0; i < SMDSP_V34_LV_SNAPS; i++)
		s->lv_snap[i].valid = false;
	s->lv_snapn = 0;
	s->lv_hold = false;
	s->rn = false;
	/* the S watch from scratch: phase 4's S (2-wire, the call modem) left its count up */
	s->srun = 0;
	/* the far transmitter's limit, within what our MP asked */
	smdsp_v34_train_data_config(&s->cfg, false, far_rate < our_rate(s) ? far_rate : our_rate(s), &dc);
	if (!dc.data_rate)
		return SMDSP_V34_T_CLEARED;
	memcpy(dc.h, s->h, sizeof(dc.h));
	/* the auxiliary channel when both MPs offer it, as the far transmitter decides too */
	dc.aux = s->cfg.aux && s->far.aux;
	our_asks(s, our_rate(s), &nl, &dc.expanded);
	dc.theta = nl ? SMDSP_V34_THETA : 0;
	if (smdsp_v34_data_rx_configure(s->data, &dc))
		return SMDSP_V34_T_FAILED;
	s->st.aux = dc.aux;
	s->st.nonlinear = nl;
	s->st.expanded = dc.expanded;
	s->rx_frames = 0;
	s->rate = dc.data_rate;
	/* the data points' mean power against the 4-point training's 2 R^2 */
	p = smdsp_v34_data_rx_power(s->data);
	s->dpow = p;
	/*
	 * The points are scaled by their mean as if equally likely, but the
	 * shell mapper sends the inner rings more: the equaliser's output
	 * arrives that much under the training's 2 R^2 (0-4 dB: 4800 bit/s at
	 * 3000 baud the most), the level watch's expectation
	 */
	s->lv_nom = smdsp_div_u64(2ULL * R_AMP * R_AMP * smdsp_v34_data_rx_shaped_power(s->data), p ? p : 1);
	s->unit = smdsp_isqrt64(smdsp_div_u64((uint64_t)p << 32, 2u * R_AMP * R_AMP));
	/* an error uniform in the cells of the odd-integer lattice (128 a unit): 2/3 of 128^2 a 2D symbol */
	s->st.mse_floor_db10 = smdsp_power_to_dbm0((uint64_t)p * 3) - smdsp_power_to_dbm0(2ULL * 128 * 128);
	s->skip_bits = 0;
	s->nin = 0;
	/*
	 * The whitening's history: the far precoder starts from none (its
	 * past x zero), so the past symbols' signal must not be in it, but
	 * their noise must, or the first three symbols reach the decoder
	 * unwhitened (the predictor's gain worse: on a band cut at its edge,
	 * 6 dB, decisions lost in B1 and the first data frame): the last three
	 * decision errors, in the data's units
	 */
	for (i = 0; i < 3; i++) {
		s->zhist[i][0] = (int32_t)(((int64_t)s->elast[i].re * s->unit) >> 16);
		s->zhist[i][1] = (int32_t)(((int64_t)s->elast[i].im * s->unit) >> 16);
	}
	return SMDSP_V34_T_DATA;
}

/* a mapping frame decoded: its aux bit, if the pattern of W gave it one, B1's left out */
static void data_aux(struct smdsp_v34_train_rx *s, const struct smdsp_v34_frame_params *p, unsigned int aux)
{
	uint32_t k = s->rx_frames++;

	if (k < p->p || !smdsp_v34_frame_has_aux(p, k % p->p))
		return;
	s->st.aux_bits++;
	if (s->aux_put_bit)
		s->aux_put_bit(s->aux_user, (int)(aux & 1));
}

/* nearest odd integer to v / 128 */
static int odd_near(int32_t v)
{
	int32_t q = v >= 0 ? v / 256 : -((-v + 255) / 256);

	return 2 * q + 1;
}

/*
 * Data: o (the equaliser's output, turned) whitened to r, which goes to the
 * Viterbi decoder; back in *w (r in equaliser units) and *d (the nearest
 * odd-integer point, the tentative y) for the loops and the adaptation.
 */
static void data_symbol(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *o, struct smdsp_cplx *w,
			struct smdsp_cplx *d)
{
	int64_t zr = ((int64_t)o->re * s->unit) >> 16, zi = ((int64_t)o->im * s->unit) >> 16;
	int64_t rr, ri;
	int yr, yi, i;

	if (s->st.nonlinear) {
		/* the far nonlinear encoder undone first: the precoder's x, its noise shrunk where x' was stretched */
		int32_t v[2] = { smdsp_sat32(zr), smdsp_sat32(zi) };

		smdsp_v34_nonlinear_inverse(v, SMDSP_V34_THETA, s->dpow);
		zr = v[0];
		zi = v[1];
	}
	rr = zr;
	ri = zi;

	for (i = 0; i < 3; i++) {
		rr += ((int64_t)s->h[2 * i] * s->zhist[i][0] - (int64_t)s->h[2 * i + 1] * s->zhist[i][1]) >> 14;
		ri += ((int64_t)s->h[2 * i] * s->zhist[i][1] + (int64_t)s->h[2 * i + 1] * s->zhist[i][0]) >> 14;
	}
	for (i = 2; i > 0; i--) {
		s->zhist[i][0] = s->zhist[i - 1][0];
		s->zhist[i][1] = s->zhist[i - 1][1];
	}
	s->zhist[0][0] = (int32_t)zr;
	s->zhist[0][1] = (int32_t)zi;
	s->in[s->nin++] = smdsp_sat32(rr);
	s->in[s->nin++] = smdsp_sat32(ri);
	yr = odd_near(smdsp_sat32(rr));
	yi = odd_near(smdsp_sat32(ri));
	s->w_err += (uint64_t)((rr - 128LL * yr) * (rr - 128LL * yr) + (ri - 128LL * yi) * (ri - 128LL * yi));
	if (++s->w_n == 256) {
		/*
		 * against the data's nominal power, as the training's error and
		 * the rate's need are: the precoded y's own power is more
		 */
		s->st.wmse_db10 = smdsp_power_to_dbm0(s->dpow) - smdsp_power_to_dbm0((s->w_err >> 8) + 1);
		s->w_err = 0;
		s->w_n = 0;
	}
	/* back to equaliser units */
	w->re = (int32_t)smdsp_div_s64(rr * 65536, (int32_t)s->unit);
	w->im = (int32_t)smdsp_div_s64(ri * 65536, (int32_t)s->unit);
	d->re = (int32_t)smdsp_div_s64(128LL * 65536 * yr, (int32_t)s->unit);
	d->im = (int32_t)smdsp_div_s64(128LL * 65536 * yi, (int32_t)s->unit);
	if (s->nin == 16) {
		uint8_t bits[SMDSP_V34_MAX_B], aux;
		const struct smdsp_v34_frame_params *p;
		unsigned int n = smdsp_v34_data_rx_frame(s->data, s->in, bits, &aux), t;
		struct smdsp_v34_data_stats ds;

		s->nin = 0;
		p = smdsp_v34_data_rx_params(s->data);
		if (n)
			data_aux(s, p, aux);
		for (t = 0; t < n; t++) {
			/* B1's data frame first */
			if (s->skip_bits < p->n - p->w) {
				s->skip_bits++;
				continue;
			}
			s->st.data_bits++;
			if (s->put_bit)
				s->put_bit(s->user, bits[t]);
		}
		smdsp_v34_data_rx_get_stats(s->data, &ds);
		s->st.bad_points = ds.bad_points;
		s->st.bad_shell = ds.bad_shell;
		s->st.sync_checks = ds.sync_checks;
		s->st.sync_misses = ds.sync_misses;
		s->st.bad_superframes = ds.bad_superframes;
		s->st.sync_lost = ds.sync_lost;
	}
}

/*
 * Symbol k with the loops held: the carrier turning at its frequency, the
 * sampling instants moving at the timing loop's mean rate (every 8th symbol)
 */
static void coast(struct smdsp_v34_train_rx *s, uint32_t k)
{
	s->phase += (uint32_t)s->freq;
	if (!(k & 7)) {
		int32_t acc = s->tfrac + s->tavg, a = acc / 256;

		s->tfrac = acc - a * 256;
		smdsp_v34_demod_adjust(s->demod, a);
		s->st.timing_ticks += a;
	}
}

/*
 * The call modem on a 2-wire line, from its own S coming back to phase 4's
 * TRN: the equaliser and loops held (the far end silent, then S whose line
 * spectrum would mistrain the equaliser), the carrier turning and the
 * instants moving as they were; S found and S-bar timed on the decisions.
 */
static smdsp_noinline void p4_symbol(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *o, uint32_t k)
{
	struct smdsp_cplx d;
	unsigned int q, dq;
	bool strong;

	coast(s, k);
	if (s->deaf)
		return;
	quad_decide(o, &d, &q);
	/*
	 * above an eighth of the training's power 2 R^2: S's lines at the
	 * carrier +- S/2 are the band's edges, which a channel cutting the top
	 * (3429 baud) leaves the equaliser's output of S half its power and
	 * uneven; the silence's residue is 30 dB under it
	 */
	strong = (int64_t)o->re * o->re + (int64_t)o->im * o->im > (int64_t)R_AMP * R_AMP / 4;
	dq = (q - s->qprev) & 3;
	switch (s->state) {
	case SMDSP_V34_T_J:
		/* S alternates between two points a quarter turn apart */
		if (strong && (dq == 1 || dq == 3) && dq != s->dprev4)
			s->srun++;
		else
			s->srun = 0;
		if (s->srun >= P4_S_RUN) {
			set_state(s, SMDSP_V34_T_S);
			s->p4 = true;
		}
		break;
	case SMDSP_V34_T_S:
	case SMDSP_V34_T_SBAR:
		if (strong) {
			int32_t dphi;

			dphi = angle_err(o, &d);
			s->freq += dphi >> 12;
			s->phase += (uint32_t)(dphi >> 5);
		}
		if (s->state == SMDSP_V34_T_SBAR) {
			if (++s->count == SMDSP_V34_SBAR_SYMS) {
				start_trn4(s);
				s->p4wait = false;
			}
		} else if (strong && dq == 3 && s->dprev4 == 3) {
			/* S-bar's first symbol (0, 3, then 2): point 2, whatever the wait turned */
			s->phase += (uint32_t)((2 - q) & 3) << 30;
			set_state(s, SMDSP_V34_T_SBAR);
			s->count = 1;
		} else if (!strong || !(dq & 1)) {
			if (++s->count > 4) {
				set_state(s, SMDSP_V34_T_J);
				s->srun = 0;
				s->p4 = false;
			}
		}
		break;
	default:
		break;
	}
	s->qprev = q;
	s->dprev4 = dq;
}

/*
 * The data mode: the far end's S (a rate renegotiation) in the equaliser's
 * output before whitening (S is not precoded): decisions alternating a
 * quarter turn each way at the training's level in RN_S_OK of the last 32
 * symbols and the last 4 (S's lines are at the band's edges, where the
 * equaliser leaves it noisier than the data), which data does about once
 * in 10^12 symbols (a quarter of its symbols do it by chance). Its MPs
 * start afresh; the decoder's last frames (in its delay) are lost.
 */
#define RN_S_OK 28

static void rn_watch(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *o)
{
	struct smdsp_cplx d;
	unsigned int q, dq;
	bool strong = (int64_t)o->re * o->re + (int64_t)o->im * o->im > (int64_t)R_AMP * R_AMP / 4;

	quad_decide(o, &d, &q);
	dq = (q - s->qprev) & 3;
	/* srun: the last 32 symbols, a 1 for each that did */
	s->srun = (s->srun << 1) | (strong && (dq == 1 || dq == 3) && dq != s->dprev4);
	s->qprev = q;
	s->dprev4 = dq;
	if ((s->srun & 15) != 15 || ones32(s->srun) < RN_S_OK)
		return;
	s->srun = 0;
	s->rn = true;
	s->rn_count++;
	s->mp_ok = false;
	s->mp_ack = false;
	set_state(s, SMDSP_V34_T_S);
}

/*
 * A renegotiation's S and S-bar: the equaliser and the timing held (S's
 * lines would mistrain them), the carrier loop on the decisions; S-bar's
 * first symbol is the step of a quarter turn repeated (0, 3, then 2), and
 * phase 4's TRN starts 16 symbols later.
 */
static void rn_symbol(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *o)
{
	struct smdsp_cplx d;
	unsigned int q, dq;
	int64_t pr, pi;
	int32_t dphi;

	quad_decide(o, &d, &q);
	dq = (q - s->qprev) & 3;
	cmul_conj(o, &d, &pr, &pi);
	dphi = (int32_t)smdsp_atan2((int32_t)(pi >> 16), (int32_t)(pr >> 16));
	s->freq += dphi >> 12;
	s->phase += (uint32_t)((dphi >> 5) + s->freq);
	if (s->state == SMDSP_V34_T_SBAR) {
		if (++s->count == SMDSP_V34_SBAR_SYMS)
			start_trn4(s);
	} else if (dq == 3 && s->dprev4 == 3) {
		s->phase += (uint32_t)((2 - q) & 3) << 30;
		set_state(s, SMDSP_V34_T_SBAR);
		s->count = 1;
	} else if (++s->count > SMDSP_V34_S_SYMS) {
		/* S-bar missed: TRN next all the same, MP's sync finds the frames */
		start_trn4(s);
	}
	s->qprev = q;
	s->dprev4 = dq;
}

/*
 * The data mode's level watch. PP set the input scale once (find_pp()),
 * and the data's equaliser adapts with a step small enough for 33,600's
 * dense lattice (SHIFT_DATA). A line that loses 3 dB or more in the call
 * (the far signal weaker; the noise and, 2-wire, the near echo as they
 * were) shrank every output towards the lattice's centre: the decisions
 * went wrong together, the decision-directed equaliser and loops followed
 * them astray within a few dozen symbols (measured: the error at the
 * lattice's floor, 31 dB at 33,600, with nothing left of the 43 dB the
 * line still allowed), the decoder lost its sync and the call retrained,
 * and did so again at the next step.
 *
 * So the equaliser output's power is watched against a reference, the mean
 * of the data mode's first LV_REF_BLOCKS blocks of LV_SYMS symbols (within
 * LV_REF_DB10 of what the data should bring, else that: the training's
 * 2 R^2 times the shell mapping's mean over the points' nominal power,
 * lv_nom; against 2 R^2 alone the rates whose mean is 2-4 dB under it
 * took their own level for a fall and rescaled every call's data into
 * errors). A power fallen past
 * LV_TRIG_FAST over LV_FAST symbols (4 dB; on steady lines such blocks
 * spread +-2.1 dB), or past LV_TRIG over LV_SYMS (2 dB), rescales the input
 * and the equaliser's history by the square root of the ratio, and puts
 * the taps, the carrier loop and the sampling instants back where they
 * were 192-256 symbols before (a snapshot every LV_SNAP_EVERY fast blocks
 * at the level: ahead of any decision taken at the wrong level, as a block
 * may hold the step's start unseen), the phase and the instants moved on
 * since at the rates the snapshot held. Then LV_HOLD symbols with the
 * equaliser and loops held (the carrier turning at its frequency, the
 * instants at the timing loop's mean rate: level_held()) while the level
 * is measured again, within a tenth of a dB, and set (a fast block's
 * estimate is good to half a dB, which 33,600's outer points do not
 * forgive); only that counts a step (the stats' level_steps). The mean
 * rate is the instants' whole move, the equaliser's re-centring with the
 * detector's: seconds into the data the re-centring carries a quarter of
 * the clocks' drift, and the decisions after a step (wrong) had pulled the
 * detector's own mean further off; a hold at that rate, or instants put
 * back 256 symbols' drift early, left them a seventieth of a symbol off
 * by its end, where 33,600's lattice keeps no decision right (measured on
 * a second step at 30 ppm: the call modem's error at the lattice's floor
 * after the hold as during it, its sync lost, a retrain).
 *
 * A level that rises (less loss) pushes every point outwards as far past
 * its boundaries: the same move, the input down, once the last LV_RISE
 * fast blocks' mean is LV_TRIG or more over the reference and each of them
 * LV_RISE_EACH or more (an impulse lifts one block, not four), and under
 * LV_GONE over it. Noise cannot be what rose: to lift the power 2 dB it
 * would be within 2.3 dB of the signal, no line for the data mode. Smaller
 * steps are the equaliser's. A
 * block more than LV_GONE (16 dB) under the reference moves nothing, and a
 * measurement that finds the level that far down after a move undoes it:
 * the far end silent or gone, our echo's residue and the noise left, so
 * that v34.c's level rule still sees a far end gone (a step that large is
 * a line fault). The scale stays within LV_MAX of PP's, and our own
 * renegotiation holds the watch until the next data mode (the far S and
 * TRN to come are not the data's level).
 */
#define LV_SYMS 128
#define LV_FAST 32
#define LV_REF_BLOCKS 8
#define LV_SNAP_EVERY 2		/* fast blocks */
#define LV_REF_DB10 20
#define LV_TRIG 1623		/* 10^(2/10) in Q10 */
#define LV_TRIG_FAST 2572	/* 4 dB */
#define LV_GONE 40		/* 16 dB */
#define LV_MAX 16		/* 24 dB more gain than PP's */
#define LV_HOLD 1024		/* symbols held after a move, measured */
#define LV_RISE SMDSP_V34_LV_RISE	/* fast blocks a rise is judged over */
#define LV_RISE_EACH 1289	/* 1 dB: each of them */

/* the input and the equaliser's history (and the whitening's) times g (Q16) */
static void level_scale(struct smdsp_v34_train_rx *s, uint32_t g)
{
	unsigned int i;

	s->agc = (uint32_t)(((uint64_t)s->agc * g) >> 16);
	for (i = 0; i < 2 * SMDSP_V34_EQ_HIST; i++) {
		s->x[i][0] = (int32_t)(((int64_t)s->x[i][0] * g) >> 16);
		s->x[i][1] = (int32_t)(((int64_t)s->x[i][1] * g) >> 16);
	}
	eq_v_stale(s);
	for (i = 0; i < 3; i++) {
		s->zhist[i][0] = (int32_t)(((int64_t)s->zhist[i][0] * g) >> 16);
		s->zhist[i][1] = (int32_t)(((int64_t)s->zhist[i][1] * g) >> 16);
	}
}

/* the gain (Q16) that brings power p to the reference */
static uint32_t level_gain(const struct smdsp_v34_train_rx *s, uint64_t p)
{
	return (uint32_t)smdsp_isqrt64(smdsp_div_u64(s->lv_ref << 32, (uint32_t)(p >> 8) + 1) >> 8);
}

/* the input scaled by g (Q16), then the loops held while the level is measured */
static void level_start(struct smdsp_v34_train_rx *s, uint32_t g)
{
	level_scale(s, g);
	s->lv_gmove = g;
	s->lv_acc = 0;
	s->lv_n = 0;
	s->lv_fpn = 0;
	s->lv_frz = LV_HOLD;
	s->st.level_hold = true;
}

/* a gain that keeps the input's scale within LV_MAX of PP's either way */
static bool level_gain_ok(const struct smdsp_v34_train_rx *s, uint32_t g)
{
	uint64_t a = ((uint64_t)s->agc * g) >> 16;

	return a <= (uint64_t)LV_MAX * s->agc_pp && a * LV_MAX >= s->agc_pp;
}

/* a power p fallen from the reference by more than trig (Q10): the input up, then a measurement held */
static bool level_move(struct smdsp_v34_train_rx *s, uint64_t p, uint32_t trig)
{
	uint32_t g;

	if (s->rn || p * LV_GONE < s->lv_ref || p * trig >= s->lv_ref * 1024)
		return false;
	g = level_gain(s, p);
	if (!level_gain_ok(s, g))
		return false;
	level_start(s, g);
	return true;
}

/*
 * A fast block's power p, for a level that rose: the last LV_RISE blocks'
 * mean LV_TRIG or more over the reference and each LV_RISE_EACH or more
 * (not an impulse's one block), under LV_GONE: the input down, held.
 */
static bool level_rise(struct smdsp_v34_train_rx *s, uint64_t p)
{
	uint64_t sum = 0, lo = p;
	unsigned int i;
	uint32_t g;

	s->lv_fp[s->lv_fpn % LV_RISE] = p;
	if (++s->lv_fpn < LV_RISE || s->rn)
		return false;
	s->lv_fpn = LV_RISE + s->lv_fpn % LV_RISE;
	for (i = 0; i < LV_RISE; i++) {
		sum += s->lv_fp[i];
		if (s->lv_fp[i] < lo)
			lo = s->lv_fp[i];
	}
	sum >>= 2;	/* LV_RISE */
	if (lo * 1024 < s->lv_ref * LV_RISE_EACH || sum * 1024 < s->lv_ref * LV_TRIG ||
	    sum >= s->lv_ref * LV_GONE)
		return false;
	g = level_gain(s, sum);
	if (!level_gain_ok(s, g))
		return false;
	level_start(s, g);
	return true;
}

/* every LV_SNAP_EVERY fast blocks at the level: a snapshot over the oldest */
static void level_snap(struct smdsp_v34_train_rx *s)
{
	struct smdsp_v34_lv_snap *n;

	if (++s->lv_snapn < LV_SNAP_EVERY)
		return;
	s->lv_snapn = 0;
	n = &s->lv_snap[s->lv_si];
	s->lv_si = (s->lv_si + 1) % SMDSP_V34_LV_SNAPS;
	n->valid = true;
	n->sym = s->sym;
	n->freq = s->freq;
	n->phase = s->phase;
	n->ticks = s->st.timing_ticks;
	n->tavg = s->tavg;
	memcpy(n->c, s->c, sizeof(s->c));
}

/*
 * the equaliser and the loops at the oldest snapshot: the carrier on at its
 * frequency since, the instants at their mean rate
 */
static void level_restore(struct smdsp_v34_train_rx *s)
{
	struct smdsp_v34_lv_snap *o = &s->lv_snap[s->lv_si];
	unsigned int i;
	int32_t ticks;

	if (o->valid) {
		memcpy(s->c, o->c, sizeof(s->c));
		s->freq = o->freq;
		s->phase = o->phase + (uint32_t)o->freq * (s->sym - o->sym);
		ticks = o->ticks + (int32_t)smdsp_div_s64((int64_t)o->tavg * (int32_t)(s->sym - o->sym), 8 * 256);
		smdsp_v34_demod_adjust(s->demod, ticks - s->st.timing_ticks);
		s->st.timing_ticks = ticks;
		s->tavg = o->tavg;
	}
	for (i = 0; i < SMDSP_V34_LV_SNAPS; i++)
		s->lv_snap[i].valid = false;
}

/*
 * A symbol while the level is measured after a move: the equaliser held,
 * the carrier turning at its frequency, the instants moving at the timing
 * loop's mean rate (as p4_symbol())
 */
static smdsp_noinline void level_held(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *o,
				      const struct smdsp_cplx *d, uint32_t k)
{
	coast(s, k);
	if (!(k & 7))
		s->tacc = 0;
	s->oprev = *o;
	s->dprev = *d;
}

static smdsp_noinline void data_level(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *o)
{
	uint64_t e = (uint64_t)((int64_t)o->re * o->re + (int64_t)o->im * o->im), nom = s->lv_nom;

	if (s->lv_hold)
		return;
	s->lv_acc += e;
	if (s->lv_frz) {
		uint32_t g;

		/* the loops held: the level measured over LV_HOLD symbols, set within a tenth of a dB */
		if (--s->lv_frz)
			return;
		s->st.level_hold = false;
		e = s->lv_acc >> 10;	/* LV_HOLD */
		s->lv_acc = 0;
		s->lv_n = 0;
		s->lv_fast = 0;
		s->lv_nf = 0;
		/* the far end gone after all (its fall began the move): the move undone */
		if (e * LV_GONE < s->lv_ref) {
			level_scale(s, (uint32_t)smdsp_div_u64(1ULL << 32, s->lv_gmove));
			return;
		}
		/* the rest of the step (a fast block that held the step moved part of it), or what it overshot */
		g = level_gain(s, e);
		if (!level_gain_ok(s, g))
			g = 1 << 16;
		level_scale(s, g);
		s->st.level_steps++;
		return;
	}
	s->lv_fast += e;
	if (++s->lv_nf == LV_FAST) {
		uint64_t p = s->lv_fast >> 5;	/* LV_FAST */

		s->lv_fast = 0;
		s->lv_nf = 0;
		if (s->lv_refn == LV_REF_BLOCKS && (level_move(s, p, LV_TRIG_FAST) || level_rise(s, p))) {
			level_restore(s);
			return;
		}
		level_snap(s);
	}
	if (++s->lv_n < LV_SYMS)
		return;
	e = s->lv_acc >> 7;	/* LV_SYMS */
	s->lv_acc = 0;
	s->lv_n = 0;
	if (s->lv_refn < LV_REF_BLOCKS) {
		int d;

		s->lv_ref += e;
		if (++s->lv_refn < LV_REF_BLOCKS)
			return;
		s->lv_ref >>= 3;	/* LV_REF_BLOCKS */
		d = smdsp_power_to_dbm0(s->lv_ref + 1) - smdsp_power_to_dbm0(nom);
		if (d > LV_REF_DB10 || d < -LV_REF_DB10)
			s->lv_ref = nom;
		s->agc_pp = s->agc;
		return;
	}
	if (level_move(s, e, LV_TRIG))
		level_restore(s);
}

/* one equaliser output for symbol s->sym (its index from PP's first symbol) */
static void symbol(struct smdsp_v34_train_rx *s)
{
	struct smdsp_cplx o, d, e, eb, w;
	bool white = false;
	unsigned int q = 0, b, dq;
	int32_t dphi;
	int shift = SHIFT_TRACK;
	uint32_t k = s->sym++;

	eq_out(s, &o);
	rotate(&o, (uint32_t)-s->phase);
	s->st.symbols++;
	if (s->p4wait) {
		p4_symbol(s, &o, k);
		return;
	}
	if (s->rn && (s->state == SMDSP_V34_T_S || s->state == SMDSP_V34_T_SBAR)) {
		rn_symbol(s, &o);
		return;
	}
	if (k < SMDSP_V34_PP_SYMS) {
		smdsp_v34_train_pp(k, R_AMP, &d);
		shift = SHIFT_TRAIN;
	} else if (s->state == SMDSP_V34_T_DATA) {
		/* the loops and the adaptation on the whitened signal */
		data_level(s, &o);
		data_symbol(s, &o, &w, &d);
		rn_watch(s, &o);
		o = w;
		shift = SHIFT_DATA;
		white = true;
	} else if (s->state == SMDSP_V34_T_TRN4) {
		trn4_decide(s, &o, &d, &q);
	} else {
		quad_decide(&o, &d, &q);
		if (k < SMDSP_V34_PP_SYMS + 512)
			shift = SHIFT_TRAIN;
	}
	e.re = o.re - d.re;
	e.im = o.im - d.im;
	mse_acc(s, &e, &d);
	if (s->state == SMDSP_V34_T_TRN4)
		p4_err(s, &e);
	/* the last three errors before the data (start_data()) */
	s->elast[2] = s->elast[1];
	s->elast[1] = s->elast[0];
	s->elast[0] = e;
	/* the carrier loop, once the equaliser has a first shape (held while the level is measured) */
	if (s->lv_frz && s->state == SMDSP_V34_T_DATA) {
		level_held(s, &o, &d, k);
		return;
	}
	if (k >= 96) {
		dphi = angle_err(&o, &d);
		s->freq += dphi >> 12;
		s->phase += (uint32_t)((dphi >> 5) + s->freq);
	}
	eb = e;
	rotate(&eb, s->phase);
	eq_update(s, &eb, shift, white);
	/*
	 * The timing loop (Mueller and Mueller): o(k) conj(d(k-1)) - o(k-1)
	 * conj(d(k)) is about -2 P tau / T for a sampling tau late (the pulse's
	 * slope one symbol out); every 8 symbols a quarter of the estimate.
	 */
	if (k >= TIMING_FROM) {
		int64_t a, b, c2, d2;

		cmul_conj(&o, &s->dprev, &a, &b);
		cmul_conj(&s->oprev, &d, &c2, &d2);
		s->tacc += (a - c2) >> 8;
		if (!(k & 7)) {
			int32_t adj = (int32_t)div_norm(s->tacc * 280, (2LL * R_AMP * R_AMP) >> 8);

			if (s->state == SMDSP_V34_T_DATA)
				adj += eq_recentre(s);
			/* the mean move (the clocks' offset), for a wait without the far signal or a level's hold */
			s->tavg += (adj * 256 - s->tavg) / 64;
			smdsp_v34_demod_adjust(s->demod, adj);
			s->st.timing_ticks += adj;
			s->tacc = 0;
		}
	}
	s->oprev = o;
	s->dprev = d;
	if (k < SMDSP_V34_PP_SYMS)
		return;

	if (s->state == SMDSP_V34_T_PP)
		set_state(s, SMDSP_V34_T_TRN);
	switch (s->state) {
	case SMDSP_V34_T_TRN:
	case SMDSP_V34_T_J:
		if (s->state == SMDSP_V34_T_TRN && k >= SMDSP_V34_PP_SYMS + 512)
			predictor(s, &e);
		/* counted from the equaliser's training step's end: its misadjustment grows with the signal too */
		if (s->state == SMDSP_V34_T_TRN)
			comp_acc(s, q, k >= SMDSP_V34_PP_SYMS + 512);
		/* J differentially encoded as MP is, TRN not: each through its own descrambler */
		dq = (q - s->prev_quad) & 3;
		s->prev_quad = q;
		for (b = 0; b < 2; b++) {
			unsigned int bit = descr(s, (q >> b) & 1);

			s->jreg = (uint16_t)((s->jreg >> 1) | (smdsp_v34_descramble_bit(&s->jdscr, (dq >> b) & 1) << 15));
			/* TRN's bits once the descrambler has filled: ones */
			if (s->state == SMDSP_V34_T_TRN && k >= SMDSP_V34_PP_SYMS + 32) {
				s->st.trn_bits++;
				s->st.trn_bad += !bit;
				s->bad_hist = (s->bad_hist << 1) | (bit ? 0u : 1u);
			}
		}
		/* still TRN (its last 8 bits ones): J's scrambler goes on from TRN's line bits, not their steps */
		if (s->state == SMDSP_V34_T_TRN && k >= SMDSP_V34_PP_SYMS + 32 && !(s->bad_hist & 0xff)) {
			s->jdscr = s->dscr;
			s->trn_end_bits = s->st.trn_bits;
			s->trn_end_bad = s->st.trn_bad;
		}
		s->count++;
		if (s->jreg == SMDSP_V34_J4 || s->jreg == SMDSP_V34_J16) {
			bool t16 = s->jreg == SMDSP_V34_J16;

			if (s->jmatch && s->count == 8 && t16 == s->trn16)
				s->jmatch++;
			else
				s->jmatch = 1;
			s->trn16 = t16;
			s->count = 0;
			s->st.j_seen++;
			if (s->jmatch >= 2 && s->state == SMDSP_V34_T_TRN) {
				/* the bits since TRN's last ones were J's */
				s->st.trn_bits = s->trn_end_bits;
				s->st.trn_bad = s->trn_end_bad;
				finish_training(s);
				set_state(s, SMDSP_V34_T_J);
			}
		} else if (s->jreg == SMDSP_V34_JP && s->state == SMDSP_V34_T_J &&
			   !(s->cfg.two_wire && s->cfg.caller)) {
			start_trn4(s);
		}
		break;
	case SMDSP_V34_T_TRN4:
		trn4_symbol(s, q);
		break;
	case SMDSP_V34_T_MP:
		b = (q - s->prev_quad) & 3;
		s->prev_quad = q;
		mp_bit(s, smdsp_v34_descramble_bit(&s->jdscr, b & 1));
		mp_bit(s, smdsp_v34_descramble_bit(&s->jdscr, b >> 1));
		if (s->mp_ack && !s->mp_len && s->ones >= 20)
			set_state(s, start_data(s));
		break;
	default:
		break;
	}
}

/* PP's position: the half-symbol lag of the best correlation with one period */
static void find_pp(struct smdsp_v34_train_rx *s)
{
	int64_t best = -1, bre = 0, bim = 0;
	int l, bl = 0;
	unsigned int k, i;
	uint32_t base = s->rev_t2 + 2 * SMDSP_V34_SBAR_SYMS;

	for (l = -PP_SEARCH; l <= PP_SEARCH; l++) {
		int64_t re = 0, im = 0, m;

		for (k = 0; k < SMDSP_V34_PP_PERIOD; k++) {
			const struct smdsp_cplx *y = &s->ring[(base + l + 2 * k) % SMDSP_V34_RX_RING];
			struct smdsp_cplx p;
			int64_t a, b;

			smdsp_v34_train_pp(k, R_AMP, &p);
			cmul_conj(y, &p, &a, &b);
			re += a >> 8;
			im += b >> 8;
		}
		re >>= 8;
		im >>= 8;
		m = re * re + im * im;
		if (m > best) {
			best = m;
			bl = l;
			bre = re;
			bim = im;
		}
	}
	s->st.pp_lag = bl;
	s->pp_t2 = base + bl;
	{
		/* |C| (scaled by 2^-16) = 48 G 2 R^2: the input scale that makes G 1 */
		uint32_t mag = smdsp_isqrt64((uint64_t)best);

		if (!mag)
			mag = 1;
		s->agc = (uint32_t)smdsp_div_u64((uint64_t)SMDSP_V34_PP_PERIOD * 2 * R_AMP * R_AMP, mag);
		memset(s->c, 0, sizeof(s->c));
		s->c[CTR][0] = (int32_t)smdsp_div_s64(bre * (1 << 20), (int32_t)mag);
		s->c[CTR][1] = (int32_t)-smdsp_div_s64(bim * (1 << 20), (int32_t)mag);
	}
	/* the equaliser's history from the ring, scaled */
	for (i = SMDSP_V34_EQ_TAPS; i > 0; i--)
		eq_push(s, &s->ring[(s->t2 - i) % SMDSP_V34_RX_RING]);
	s->phase = 0;
	s->freq = 0;
	set_state(s, SMDSP_V34_T_PP);
}

static void t2_output(struct smdsp_v34_train_rx *s, const struct smdsp_cplx *y)
{
	uint32_t i = s->t2++;

	s->ring[i % SMDSP_V34_RX_RING] = *y;
	if (s->state == SMDSP_V34_T_FAILED)
		return;
	/* phase 4's S and S-bar (the 2-wire call modem) go through the trained equaliser too */
	if (s->p4wait || s->rn || (s->state != SMDSP_V34_T_IDLE && s->state != SMDSP_V34_T_S &&
				   s->state != SMDSP_V34_T_SBAR)) {
		eq_push(s, y);
		if (i >= s->pp_t2 + CTR && !((i - s->pp_t2 - CTR) & 1)) {
			s->sym = (i - s->pp_t2 - CTR) / 2;
			symbol(s);
		}
		return;
	}
	if (i < 4)
		return;
	if (s->s_held && (int32_t)(s->now - s->s_hold) >= 0)
		s->s_held = false;
	if (s->state == SMDSP_V34_T_IDLE && (s->deaf || s->s_held)) {
		/* our own S coming back is not the far end's, nor is anything in its MD */
		s->s_run = 0;
	} else if (s->state == SMDSP_V34_T_IDLE) {
		const struct smdsp_cplx *o = &s->ring[(i - 4) % SMDSP_V34_RX_RING];
		int64_t re, im, p = ((int64_t)y->re * y->re + (int64_t)y->im * y->im) >> 8;
		int64_t po = ((int64_t)o->re * o->re + (int64_t)o->im * o->im) >> 8;

		/* a level worth training on (about -50 dBm0) repeating every two symbols */
		cmul_conj(y, o, &re, &im);
		re >>= 8;
		if (p > 1000 && po > 1000 && 2 * re > (p + po) / 2 && re > 0)
			s->s_run++;
		else
			s->s_run = 0;
		if (s->s_run >= 2 * S_RUN) {
			unsigned int j;

			for (j = 0; j < 4; j++) {
				s->savg[(i - j) % 4] = s->ring[(i - j) % SMDSP_V34_RX_RING];
				s->chist[j] = 0;
			}
			set_state(s, SMDSP_V34_T_S);
		}
	} else if (s->state == SMDSP_V34_T_S) {
		struct smdsp_cplx *a = &s->savg[i % 4];
		int64_t re, im, e = 0, sum = 0;
		unsigned int j;

		/* against S's own two-symbol pattern: the reversal turns it negative */
		cmul_conj(y, a, &re, &im);
		s->chist[i % 4] = re >> 8;
		for (j = 0; j < 4; j++) {
			sum += s->chist[j];
			e += ((int64_t)s->savg[j].re * s->savg[j].re + (int64_t)s->savg[j].im * s->savg[j].im) >> 8;
		}
		if (re > 0) {
			a->re += (y->re - a->re) / 16;
			a->im += (y->im - a->im) / 16;
		}
		if (sum < -e / 2) {
			s->rev_t2 = i - 2;
			set_state(s, SMDSP_V34_T_SBAR);
		} else if (sum < e / 8 && sum > -e / 8 && ++s->count > 8) {
			/* neither S nor its reversal for long: not S after all */
			s->s_run = 0;
			set_state(s, SMDSP_V34_T_IDLE);
		} else if (sum >= e / 8) {
			s->count = 0;
		}
	} else if (i >= s->rev_t2 + 2 * SMDSP_V34_SBAR_SYMS + PP_SEARCH + 2 * SMDSP_V34_PP_PERIOD + 2) {
		find_pp(s);
	}
}

struct smdsp_v34_train_rx *smdsp_v34_train_rx_create(const struct smdsp_v34_train_config *cfg,
						     smdsp_put_bit_fn put_bit, void *user)
{
	struct smdsp_v34_data_config dc;
	struct smdsp_v34_train_rx *s;

	if (smdsp_v34_train_data_config(cfg, false, cfg->data_rate, &dc))
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (!s)
		return NULL;
	s->put_bit = put_bit;
	s->user = user;
	s->cfg = *cfg;
	s->demod = smdsp_v34_demod_create(cfg->symrate, cfg->high, 2);
	s->data = smdsp_v34_data_rx_create(&dc);
	if (cfg->two_wire && !cfg->no_echo_cancel) {
		struct smdsp_echo_config ecc = { .near_taps = SMDSP_V34_EC_NEAR, .far_taps = SMDSP_V34_EC_FAR,
						 .far_delay_max = SMDSP_V34_EC_DELAY };

		s->ec = smdsp_echo_create(&ecc);
		/* a weak far echo: whitened, its band edges' taps chased its rotation (the image) */
		if (s->ec)
			smdsp_echo_set_far_raw(s->ec, true);
	}
	if (!s->demod || !s->data || (cfg->two_wire && !cfg->no_echo_cancel && !s->ec)) {
		smdsp_v34_train_rx_free(s);
		return NULL;
	}
	smdsp_v34_train_rx_reset(s);
	return s;
}

int smdsp_v34_train_rx_configure(struct smdsp_v34_train_rx *s, const struct smdsp_v34_train_config *cfg)
{
	struct smdsp_v34_data_config dc;

	if ((cfg->two_wire && !cfg->no_echo_cancel && !s->ec) ||
	    smdsp_v34_train_data_config(cfg, false, cfg->data_rate, &dc) ||
	    smdsp_v34_data_rx_configure(s->data, &dc))
		return -EINVAL;
	smdsp_v34_demod_set_rate(s->demod, cfg->symrate, cfg->high);
	s->cfg = *cfg;
	smdsp_v34_train_rx_reset(s);
	return 0;
}

void smdsp_v34_train_rx_free(struct smdsp_v34_train_rx *s)
{
	if (!s)
		return;
	smdsp_v34_demod_free(s->demod);
	smdsp_v34_data_rx_free(s->data);
	smdsp_echo_free(s->ec);
	smdsp_free(s);
}

void smdsp_v34_train_rx_reset(struct smdsp_v34_train_rx *s)
{
	smdsp_v34_demod_reset(s->demod);
	smdsp_v34_scramble_init(&s->dscr, !s->cfg.caller);
	smdsp_v34_scramble_init(&s->jdscr, !s->cfg.caller);
	memset(&s->st, 0, sizeof(s->st));
	memset(s->ring, 0, sizeof(s->ring));
	memset(s->c, 0, sizeof(s->c));
	memset(s->x, 0, sizeof(s->x));
	memset(s->hp, 0, sizeof(s->hp));
	memset(s->ehist, 0, sizeof(s->ehist));
	memset(s->h, 0, sizeof(s->h));
	eq_v_stale(s);
	memset(s->elast, 0, sizeof(s->elast));
	memset(&s->far, 0, sizeof(s->far));
	s->t2 = 0;
	s->s_run = 0;
	s->agc = 1 << 16;
	s->xpos = 0;
	s->phase = 0;
	s->freq = 0;
	s->tacc = 0;
	s->cg_set = false;
	s->sym = 0;
	s->jreg = 0;
	s->jmatch = 0;
	s->bad_hist = 0;
	s->trn_end_bits = 0;
	s->trn_end_bad = 0;
	s->trn16 = false;
	s->p4_16 = false;
	s->p4_trn = false;
	s->p4_end = false;
	s->p4fit = 0;
	s->p4_mp0 = 0;
	s->mp_len = 0;
	s->ones = 0;
	s->mp_ok = false;
	s->mp_ack = false;
	s->trained = false;
	s->err_acc = 0;
	s->sig_acc = 0;
	s->mse_n = 0;
	s->pe_acc = 0;
	s->pr_acc = 0;
	s->pe_n = 0;
	s->pe_avg = 0;
	s->pr_avg = 0;
	s->cm_e = 0;
	s->cm_p = 0;
	s->cm_pe = 0;
	s->cm_pp = 0;
	s->cm_n = 0;
	s->cm_q = 0;
	s->cm_fill = 0;
	s->cm_pos = 0;
	memset(s->cm_w, 0, sizeof(s->cm_w));
	s->cm_g[0] = 1 << 14;
	s->cm_g[1] = 0;
	s->cm_o2 = 0;
	memset(s->cm_y, 0, sizeof(s->cm_y));
	s->mp_rate = s->cfg.data_rate;
	s->w_err = 0;
	s->w_n = 0;
	s->rate = 0;
	s->now = 0;
	s->lat = s->cfg.echo_latency < 0 ? 0 : s->cfg.echo_latency;
	if (s->lat > SMDSP_V34_MAX_LATENCY)
		s->lat = SMDSP_V34_MAX_LATENCY;
	s->rtt = s->cfg.round_trip > 0 ? (uint32_t)s->cfg.round_trip : 0;
	s->planned = false;
	s->tx_on = 0;
	s->learn = false;
	s->off_exact = false;
	s->ec_learn = 0;
	s->ec_on = 0;
	s->ec_off = 0;
	s->ec_gear = 0;
	s->deaf = false;
	s->s_held = false;
	s->erle_q8 = 0;
	s->p4wait = false;
	s->p4 = false;
	s->srun = 0;
	s->qprev = 0;
	s->dprev4 = 0;
	s->tavg = 0;
	s->tfrac = 0;
	s->rn = false;
	s->rn_count = 0;
	s->tw_re = 0;
	s->tw_im = 0;
	s->tw_own_re = 0;
	s->tw_own_im = 0;
	s->tw_e = 0;
	s->tw_n = 0;
	s->tw_ms = 0;
	s->st.echo_latency = s->ec ? s->lat : -1;
	s->far_seek.on = false;
	s->far_sought = false;
	s->gear_at = 0;
	s->far_delay = -1;
	s->st.far_delay = -1;
	if (s->ec) {
		int d = (int)s->rtt - 96;

		smdsp_echo_reset(s->ec);
		/* the far window from 12 ms before the round trip: the far hybrid's response and the line's */
		s->far_delay = d < 0 ? 0 : d > SMDSP_V34_EC_DELAY ? SMDSP_V34_EC_DELAY : d;
		s->st.far_delay = s->far_delay;
		smdsp_echo_set_far_delay(s->ec, s->far_delay);
		smdsp_echo_set_adapt(s->ec, SMDSP_ECHO_FREEZE);
	}
	s->ec_mode = SMDSP_ECHO_FREEZE;
	set_state(s, SMDSP_V34_T_IDLE);
}

static const char *const state_names[] = {
	"idle", "S", "S-bar", "PP", "TRN", "J", "J'", "TRN4", "MP", "MP'", "E", "B1", "data", "cleared", "failed"
};

int smdsp_v34_train_rx_print(const struct smdsp_v34_train_rx *s, char *buf, size_t len)
{
	return snprintf(buf, len,
			"v34_train_rx %s symbols=%u mse=%d.%d dB wmse=%d.%d dB pgain=%d.%d dB rate=%u trn_bad=%u/%u mp=%u/%u bits=%u timing=%d h=%d,%d %d,%d %d,%d",
			state_names[s->state], s->st.symbols, s->st.mse_db10 / 10, smdsp_abs32(s->st.mse_db10 % 10),
			s->st.wmse_db10 / 10, smdsp_abs32(s->st.wmse_db10 % 10), s->st.pred_gain_db10 / 10,
			smdsp_abs32(s->st.pred_gain_db10 % 10),
			s->rate, s->st.trn_bad, s->st.trn_bits, s->st.mp_good, s->st.mp_bad, s->st.data_bits,
			s->st.timing_ticks, s->h[0], s->h[1], s->h[2], s->h[3], s->h[4], s->h[5]);
}

static bool after(uint32_t now, uint32_t t)
{
	return (int32_t)(now - t) >= 0;
}

static uint32_t syms_to_samples(const struct smdsp_v34_train_rx *s, uint32_t n)
{
	return (uint32_t)smdsp_div_u64((uint64_t)n * 8000000, smdsp_v34_symrate_mbaud(s->cfg.symrate));
}

/* TRACK's loop (mHz) for the far echo's level under the far signal */
static int ec_track_loop(const struct smdsp_v34_train_rx *s)
{
	unsigned int share = smdsp_echo_far_share_q12(s->ec), k = 0;

	while (k + 1 < SMDSP_ARRAY_SIZE(ec_track_pll) && share >= EC_TRACK_REF_Q12 << (k + 1))
		k++;
	return ec_track_pll[k];
}

static void ec_adapt(struct smdsp_v34_train_rx *s, enum smdsp_echo_adapt mode)
{
	if (!s->ec || (s->ec_mode == mode && mode != SMDSP_ECHO_TRAIN))
		return;
	s->ec_mode = mode;
	smdsp_echo_set_adapt(s->ec, mode);
	if (mode == SMDSP_ECHO_TRACK) {
		smdsp_echo_set_step(s->ec, EC_TRACK_MU);
		smdsp_echo_set_loop(s->ec, ec_track_loop(s));
	}
}

static void ec_step(struct smdsp_v34_train_rx *s, int mu, int pll)
{
	if (!s->ec)
		return;
	smdsp_echo_set_step(s->ec, mu);
	if (pll)
		smdsp_echo_set_loop(s->ec, pll);
}

/*
 * The far echo where the round trip does not say. The far window sits at
 * phase 2's round trip less our latency: right when the far end's own
 * latency is short, but an audio path at the far end (a virtual machine's,
 * v34.c) lengthens the round trip and not the far echo, which comes back
 * from the far hybrid, on the line's side of that path; one here lengthens
 * both our latency and the far echo. So, in the training window, once the
 * near taps have had FAR_SETTLE samples, what we send (the canceller's
 * line: TRN, random) is the template of an onset search
 * (private/v34_onset.h) in the canceller's residual, the far end silent,
 * over every lag from the near window's end to the round trip: the near
 * echo is gone from the residual, and a far echo the far window already
 * cancels is mostly gone too. An echo found outside that window moves it
 * there (SMDSP_V34_ONSET_FAR_BACK ahead of the onset, its taps cleared),
 * and the step's gears start over in what is left of the window (on a long
 * round trip the search ends late in it).
 */
#define FAR_SETTLE 1024

static void far_seek_start(struct smdsp_v34_train_rx *s)
{
	uint32_t to = s->rtt + SMDSP_V34_EC_FAR;

	s->far_sought = true;
	if (to > SMDSP_V34_EC_DELAY)
		to = SMDSP_V34_EC_DELAY;
	smdsp_v34_onset_far_start(&s->far_seek, SMDSP_V34_ONSET_K, SMDSP_V34_EC_NEAR, to);
}

static void far_seek_end(struct smdsp_v34_train_rx *s)
{
	int32_t at = s->far_seek.found;

	if (at < SMDSP_V34_EC_NEAR || s->ec_gear > 3)
		return;
	/* already there: the far window's own taps are cancelling it */
	if (at + 16 >= s->far_delay && at < s->far_delay + SMDSP_V34_EC_FAR / 2)
		return;
	/*
	 * One bulk delay: a far window that already cancels more of the
	 * residual than the echo found would take out (rho, its share of the
	 * residual's power) keeps it. A strong far echo (4-10 dB under the far
	 * signal) coming back in the middle of the search, its taps still
	 * learning it, set off a false one at 0.055 a round trip ahead of it,
	 * the window holding a share of 0.29: the far echo was lost and the
	 * call never reached the data (3429 baud, 404-504 ms). The empty
	 * windows of test_v34_path's lines (the far echo behind an audio path
	 * elsewhere) held 0-0.08, their echoes found at 0.1 and more.
	 */
	if (smdsp_echo_far_share_q12(s->ec) >= s->far_seek.peak)
		return;
	at -= SMDSP_V34_ONSET_FAR_BACK;
	s->far_delay = at > SMDSP_V34_EC_DELAY ? SMDSP_V34_EC_DELAY : at;
	s->st.far_delay = s->far_delay;
	smdsp_echo_set_far_delay(s->ec, s->far_delay);
	/* its taps start from nothing: the gears over again, in what is left of the window */
	s->gear_at = s->now;
	s->ec_gear = 0;
}

/*
 * The training window and the deafness from the transmitter's times (per
 * block of input). Not inlined, nor is the cancelling: the receiver's
 * deepest stack is the data mode's decoding under rx_process().
 */
static smdsp_noinline void ec_schedule(struct smdsp_v34_train_rx *s)
{
	const struct smdsp_v34_train_tx *tx = s->tx;
	uint32_t lat = (uint32_t)s->lat, w;

	if (!tx)
		return;
	if (tx->has_s && !s->deaf && s->ec_gear < 4 && after(s->now, tx->t_s + lat)) {
		s->deaf = true;
		s->p4wait = s->cfg.caller && s->trained;
	}
	if (!s->planned && tx->has_pp) {
		s->ec_learn = tx->t_pp + lat + syms_to_samples(s, 16);
		/* training once the whitening is learnt (on its first 1024 samples) */
		s->ec_on = s->ec_learn + 1024;
		if (s->cfg.caller && !after(s->ec_on, tx->t_s + lat + s->rtt + syms_to_samples(s, SILENT_MARGIN)))
			s->ec_on = tx->t_s + lat + s->rtt + syms_to_samples(s, SILENT_MARGIN);
		s->ec_off = tx->t_pp + lat + syms_to_samples(s, SMDSP_V34_PP_SYMS + tx->trn_len) + s->rtt;
		s->planned = true;
		s->learn = true;
	}
	if (!s->planned)
		return;
	/* the whitening from PP on the canceller's line (past the pulse's delay), not from S's lines */
	if (s->learn && after(s->now, s->ec_learn)) {
		s->learn = false;
		if (s->ec)
			smdsp_echo_learn_spectrum(s->ec);
	}
	if (tx->has_j && !s->off_exact) {
		s->ec_off = tx->t_j + lat + s->rtt;
		s->off_exact = true;
	}
	if (s->ec_gear >= 4) {
		/*
		 * After the window: tracking while this end sends, frozen while
		 * it is silent and until what it sends again fills the far
		 * window: the far echo's phase loop, finding no far echo there,
		 * would let the frequency it learnt leak away (at 7 Hz a
		 * frequency lost is a far echo back at full strength).
		 */
		if (tx->state == SMDSP_V34_T_IDLE)
			s->tx_on = s->now + lat + s->rtt + SMDSP_V34_EC_FAR;
		ec_adapt(s, after(s->now, s->tx_on) ? SMDSP_ECHO_TRACK : SMDSP_ECHO_FREEZE);
		if (s->ec && s->ec_mode == SMDSP_ECHO_TRACK)
			smdsp_echo_set_loop(s->ec, ec_track_loop(s));
		return;
	}
	if (!after(s->now, s->ec_on))
		return;
	if (!s->gear_at)
		s->gear_at = s->ec_on;
	w = after(s->ec_off, s->gear_at) ? s->ec_off - s->gear_at : 0;
	if (s->ec_gear == 0) {
		ec_adapt(s, SMDSP_ECHO_TRAIN);
		ec_step(s, SMDSP_ECHO_MODEM_MU1, 0);
		s->ec_gear = 1;
	}
	if (!s->far_sought && s->ec && s->now - s->ec_on >= FAR_SETTLE)
		far_seek_start(s);
	if (s->ec_gear == 1 && s->now - s->gear_at >= w - w * 2 / 5) {
		ec_step(s, SMDSP_ECHO_MODEM_MU2, SMDSP_ECHO_MODEM_PLL2);
		s->ec_gear = 2;
	}
	if (s->ec_gear == 2 && s->now - s->gear_at >= w - w / 6) {
		ec_step(s, SMDSP_ECHO_MODEM_MU3, SMDSP_ECHO_MODEM_PLL3);
		s->ec_gear = 3;
	}
	if (s->off_exact && after(s->now, s->ec_off)) {
		if (s->ec) {
			s->erle_q8 = smdsp_echo_erle_db_q8(s->ec);
			s->st.erle_db10 = s->erle_q8 * 10 / 256;
		}
		ec_adapt(s, SMDSP_ECHO_TRACK);
		s->ec_gear = 4;
		s->deaf = false;
		s->far_seek.on = false;
	}
}

/* x less the echo of what the transmitter sent lat samples and more before */
static smdsp_noinline const int16_t *ec_cancel(struct smdsp_v34_train_rx *s, const int16_t *x, unsigned int m)
{
	int16_t *out = s->clean;
	const struct smdsp_v34_train_tx *tx = s->tx;
	unsigned int i;

	if (!s->ec || !tx || !tx->hist)
		return x;
	for (i = 0; i < m; i++) {
		uint32_t j = s->now + i - (uint32_t)s->lat;
		int16_t v = 0;

		/* nothing before the start, nor what is not sent yet or no longer kept */
		if (s->now + i >= (uint32_t)s->lat && (int32_t)(j - tx->sent) < 0 &&
		    tx->sent - j <= SMDSP_V34_HIST)
			v = tx->hist[j & (SMDSP_V34_HIST - 1)];
		out[i] = smdsp_echo_process(s->ec, v, x[i]);
		if (s->far_seek.on) {
			smdsp_v34_onset_tpl(&s->far_seek, v);
			if (!smdsp_v34_onset_push(&s->far_seek, out[i]))
				far_seek_end(s);
		}
	}
	return out;
}

#define TW_BLOCK 40			/* the tone watch's block: 5 ms, a bin 200 Hz wide */

/*
 * The tone watch: a block whose bin at the tone holds most of its energy
 * (|X|^2 / (N E) is 1/2 for a tone alone, 1/N for white noise, about 1/30
 * for the data's band) and above -50 dBm0 or so is the tone's
 */
static smdsp_noinline void tone_watch(struct smdsp_v34_train_rx *s, const int16_t *x, unsigned int m)
{
	unsigned int i;

	for (i = 0; i < m; i++) {
		s->tw_re += (int64_t)x[i] * smdsp_cos(s->tw_ph);
		s->tw_im += (int64_t)x[i] * smdsp_sin(s->tw_ph);
		s->tw_e += (uint64_t)((int32_t)x[i] * x[i]);
		s->tw_ph += s->tw_step;
		s->tw_own_re += (int64_t)x[i] * smdsp_cos(s->tw_own_ph);
		s->tw_own_im += (int64_t)x[i] * smdsp_sin(s->tw_own_ph);
		s->tw_own_ph += s->tw_own_step;
		if (++s->tw_n < TW_BLOCK)
			continue;
		{
			int64_t re = s->tw_re >> 15, im = s->tw_im >> 15;
			int64_t ore = s->tw_own_re >> 15, oim = s->tw_own_im >> 15;
			uint64_t bin = (uint64_t)(re * re + im * im);
			/* our own tone's energy is 2 |X|^2 / N of the block's */
			uint64_t own = s->tw_own_step ? 2 * (uint64_t)(ore * ore + oim * oim) / TW_BLOCK : 0;
			uint64_t e = s->tw_e > own ? s->tw_e - own : 0;

			if (10 * bin > 3ULL * TW_BLOCK * e && e > 100ULL * TW_BLOCK)
				s->tw_ms += TW_BLOCK / 8;
			else
				s->tw_ms = 0;
		}
		s->tw_re = 0;
		s->tw_im = 0;
		s->tw_own_re = 0;
		s->tw_own_im = 0;
		s->tw_e = 0;
		s->tw_n = 0;
	}
}

void smdsp_v34_train_rx_watch_tone(struct smdsp_v34_train_rx *s, unsigned int hz, unsigned int own_hz)
{
	s->tw_step = hz ? smdsp_phase_rate((int32_t)hz * 1000, 8000) : 0;
	s->tw_own_step = own_hz ? smdsp_phase_rate((int32_t)own_hz * 1000, 8000) : 0;
	s->tw_ms = 0;
}

unsigned int smdsp_v34_train_rx_tone_ms(const struct smdsp_v34_train_rx *s)
{
	return s->tw_ms;
}

void smdsp_v34_train_rx_process(struct smdsp_v34_train_rx *s, const int16_t *x, unsigned int n)
{
	/* the demodulator's outputs in the state, off the stack under the data mode's decoder */
	struct smdsp_cplx *y = s->y;

	while (n) {
		unsigned int m = n > 12 ? 12 : n, got, i;
		const int16_t *in = x;

		if (s->cfg.two_wire) {
			ec_schedule(s);
			in = ec_cancel(s, x, m);
		}
		if (s->tw_step)
			tone_watch(s, in, m);
		got = smdsp_v34_demod_process(s->demod, in, m, y, SMDSP_ARRAY_SIZE(s->y));
		for (i = 0; i < got; i++)
			t2_output(s, &y[i]);
		s->now += m;
		x += m;
		n -= m;
	}
}

void smdsp_v34_train_rx_attach(struct smdsp_v34_train_rx *s, const struct smdsp_v34_train_tx *tx)
{
	s->tx = tx;
}

int smdsp_v34_train_rx_echo_erle_db_q8(const struct smdsp_v34_train_rx *s)
{
	return s->erle_q8;
}

int smdsp_v34_train_rx_echo_print(const struct smdsp_v34_train_rx *s, char *buf, size_t len)
{
	if (!s->ec)
		return snprintf(buf, len, "v34_train echo: none%s", s->cfg.two_wire ? "" : " (4-wire)");
	return smdsp_echo_print(s->ec, buf, len);
}

enum smdsp_v34_train_state smdsp_v34_train_rx_state(const struct smdsp_v34_train_rx *s)
{
	return s->state;
}

void smdsp_v34_train_rx_get_stats(const struct smdsp_v34_train_rx *s, struct smdsp_v34_train_stats *st)
{
	*st = s->st;
	st->far_freq_mhz = s->ec ? smdsp_echo_far_freq_mhz(s->ec) : 0;
}

void smdsp_v34_train_rx_hold_s(struct smdsp_v34_train_rx *s, uint32_t samples)
{
	s->s_held = samples > 0;
	s->s_hold = s->now + samples;
}

bool smdsp_v34_train_rx_trained(const struct smdsp_v34_train_rx *s)
{
	return s->trained;
}

bool smdsp_v34_train_rx_our_mp(const struct smdsp_v34_train_rx *s, struct smdsp_v34_mp *mp)
{
	if (!s->trained)
		return false;
	memset(mp, 0, sizeof(*mp));
	mp->type = 1;
	if (s->cfg.caller)
		mp->rate_a_to_c = our_rate(s) / 2400;
	else
		mp->rate_c_to_a = our_rate(s) / 2400;
	mp->aux = s->cfg.aux;
	memcpy(mp->h, s->h, sizeof(mp->h));
	/* the code we decode, asked of the far transmitter: 0 16, 1 32, 2 64 states */
	mp->trellis = s->cfg.trellis == 64 ? 2 : s->cfg.trellis == 32 ? 1 : 0;
	our_asks(s, our_rate(s), &mp->nonlinear, &mp->expanded);
	return true;
}

bool smdsp_v34_train_rx_far_mp(const struct smdsp_v34_train_rx *s, struct smdsp_v34_mp *mp, bool *ack)
{
	if (!s->mp_ok)
		return false;
	*mp = s->far;
	*ack = s->mp_ack;
	return true;
}

bool smdsp_v34_train_rx_far_trn16(const struct smdsp_v34_train_rx *s)
{
	return s->trn16;
}

void smdsp_v34_train_rx_set_rate(struct smdsp_v34_train_rx *s, unsigned int data_rate)
{
	s->cfg.data_rate = data_rate;
	/* our renegotiation: the far S and TRN to come are not the data's level */
	s->lv_ref = 0;
	s->lv_hold = true;
}

/*
 * Past TRN's choice too (our_rate() holds to it otherwise): the data's
 * error, better than when the training measured the line, carries it
 */
void smdsp_v34_train_rx_lift_rate(struct smdsp_v34_train_rx *s, unsigned int data_rate)
{
	s->mp_rate = data_rate;
	smdsp_v34_train_rx_set_rate(s, data_rate);
}

unsigned int smdsp_v34_train_rx_rate(const struct smdsp_v34_train_rx *s)
{
	return s->state == SMDSP_V34_T_DATA ? s->rate : 0;
}

uint32_t smdsp_v34_train_rx_renegs(const struct smdsp_v34_train_rx *s)
{
	return s->rn_count;
}

void smdsp_v34_train_rx_set_aux(struct smdsp_v34_train_rx *s, smdsp_put_bit_fn put_bit, void *user)
{
	s->aux_put_bit = put_bit;
	s->aux_user = user;
}
