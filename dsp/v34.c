// SPDX-License-Identifier: GPL-2.0
/*
 * One V.34 end from the silence after phase 1 to the data mode: phase 2,
 * the hand-over, phases 3 and 4, data both ways, on a 4-wire line or a
 * 2-wire one (two_wire).
 *
 * Phase 2 (v34_phase2.c, embedded) runs first, a sample at a time. When it
 * ends, both ends hold the same parameters for both directions: the symbol
 * rate and carrier, the transmitter's pre-emphasis filter and power
 * reduction, and the data rate the receiving end's probing allows. They
 * become the configurations of this end's training transmitter (our
 * direction) and receiver (the far end's direction), v34_train_tx.c and
 * v34_train_rx.c; each direction's data rate is at most the least of phase
 * 2's and our max_rate (until a line better since lifts it in the data
 * mode: data_watch()), and our receiver puts in our MP the highest rate
 * within that which the error it measured at the end of TRN supports
 * (11: each receiver states the rates it can receive), so that the MPs
 * settle on it. Our MP also asks the far transmitter for the trellis code
 * our receiver decodes (the configuration's trellis: 16, 32 or 64 states)
 * and offers the auxiliary channel (aux), which runs both ways when the
 * far MP offers it too; our transmitter codes as the far MP asks.
 *
 * Who goes when (11.3, 11.4, as we read them; the recommendation's order of
 * the two ends, on v34_train's signals):
 * - The answer modem's phase 2 ends with INFO1a; its S follows on the line
 *   at once: S's first symbol starts where INFO1a's last DPSK symbol ends
 *   (the last one's pulse centre, 40 samples after it was taken, plus half a
 *   600 baud symbol, less S's own pulse delay of 9.5 of its symbols), over
 *   the tail of that pulse. S, S-bar, PP, TRN, then J until our receiver
 *   has the far end's J (v34_train's J ends on its own receiver), J', TRN,
 *   MP, MP', E, B1, data.
 * - The call modem's phase 2 ends when INFO1a is taken; it is silent and
 *   its receiver looks for S. The receiver is fed the last 32 ms it heard
 *   too: INFO1a's CRC is decided about when the far S arrives, and at 3429
 *   baud S lasts 37 ms. With the far end's J heard (our receiver trained),
 *   our S starts on the next sample, then S-bar, PP, TRN and J; our J goes
 *   on until the far end's J' (its phase 4) is heard, as the recommendation
 *   has the call modem send J until the answer modem's phase 4 begins; then
 *   J', TRN, MP, MP', E, B1, data.
 * v34_train's transmitter ends J when its attached receiver has trained;
 * the call modem's receiver trains before its transmitter starts, so it is
 * attached only once the far J' is heard (a single J could not train the
 * far receiver, which needs two in a row).
 *
 * Where v34_train differs from the recommendation (4-wire): the answer
 * modem keeps sending J while the call modem trains it rather than falling
 * silent (v34_train's receiver holds its loops on decisions, which silence
 * would send astray), and its phase 4 starts with J' and TRN rather than S,
 * S-bar and TRN. Each end's MD (as long as its INFO1 says; ours silence,
 * v34_train_tx.c) comes before its phase 3 S: see far_md() below.
 *
 * On a 2-wire line (two_wire) v34_train keeps the duplex order itself, each
 * end training its canceller on its own training while the far end is
 * silent (v34_train.h): both train ends are created 2-wire, attached to
 * each other both ways at the hand-over, and our transmitter runs from
 * then on, the call modem's silent until its receiver has trained. The
 * answer modem's S starts where it does 4-wire; its J ends when it hears
 * the call modem's S, and its phase 4 is S, S-bar, TRN after a silence.
 * The canceller needs its line of what we sent aligned with what we hear:
 * the transmitter's stream starts at tx_from, the receiver's at the
 * hand-over (the call modem's 32 ms of history before it), so its latency
 * is ours plus that difference: the user's echo_latency, or where phase 2
 * heard our first signal's echo begin when that is further back (an audio
 * path nobody on this side knows: near_watch() below). Its far window is at
 * phase 2's round trip less that latency (phase 2 heard it through the same
 * path), until the training finds the far echo elsewhere (v34_train_rx.c).
 *
 * Failures: phase 2's, with its reason; after it, phases 3 and 4 must reach
 * the data mode both ways within 6 s and two round trips (at 2400 baud the
 * two trainings and phase 4 take about 3 s and two round trips; 2-wire four
 * round trips, the trainings one after the other and longer), else the
 * object fails with where our receiver got to (no S, no J, no MP); a rate
 * the data mode refuses fails at once. A failed object sends silence until
 * reset. In the data mode, a far end gone (our receiver's decision error
 * within 8 dB of its points for a second, where the data needs 20 dB and
 * more, and the level gone) fails the object too; the data mode's
 * renegotiations, cleardown and retrains are this file's second part.
 * Our decoder falling out of step with the far end's frames (a symbol
 * slipped: its decisions still on the lattice, its bits garbage), which
 * v34_data's superframe sync check sees in two superframes (0.56 s), is a
 * retrain (FAILED, lost, with no_auto).
 *
 * Decisions are taken on a grid of 8 samples (1 ms) counted from create,
 * not at the ends of the caller's blocks, so that a call is the same
 * whatever the block length. The training's output is scaled to our level
 * less phase 2's power reduction.
 *
 * v34_train's create allocates, and nothing may after ours: so our create
 * makes a transmitter and a receiver for 2400 baud, and the hand-over makes
 * them over for phase 2's parameters in place
 * (smdsp_v34_train_tx_configure(), smdsp_v34_train_rx_configure()).
 */
#include <smdsp/private/v34.h>
#include <smdsp/private/v34_mod.h>
#include <smdsp/private/v34_train.h>
#include <smdsp/v34_probe.h>
#include <smdsp/v34_frame.h>

#define MS(ms) ((uint32_t)(ms) * 8u)
#define T_TRAIN MS(6000)	/* phase 2's end to data both ways, plus two round trips */
#define DPSK_TAIL 100		/* samples of phase 2's last pulse after its symbol was taken */
#define T_LOST MS(1000)		/* the data's decisions that long as bad as noise's: the far end is gone */
#define LOST_DB10 80		/* their error within 8 dB of the signal (the data needs over 20) */
#define LIFT_NONE (-1000)	/* no reference for data_watch()'s lifted climb (yet) */

/*
 * The near echo where the loop's latency misses it. echo_latency is the
 * soonest our echo can be back; an audio path beyond the caller's loop (a
 * sound server's buffers, a virtual machine's: 1500-2600 samples more in
 * the lab's QEMU) delays it by an amount nobody on this side knows, and a
 * near window at the latency given cancels nothing. Phase 2 starts with our
 * INFO0 out of silence, in our own band (the call modem's carrier at 1200
 * Hz, the answer modem's at 2400 Hz: V.34 10.1.2), while the far end's
 * signals are in the other. So our first samples are the template of an
 * onset search (private/v34_onset.h: a normalised correlation that neither
 * the far end's signal, its reversals included, nor the noise rises in),
 * at every lag from a little before echo_latency to the longest latency
 * the canceller takes; the lags whose window ends before echo_latency are
 * the floor. Found past the near window's middle (part of the echo would
 * fall past its end), the canceller's latency moves NEAR_BACK samples ahead
 * of the onset, and the far window's round trip shrinks by as much: phase 2
 * measured the round trip through the same path (two_wire_config()).
 *
 * The far end's signal does not correlate, but it is in the windows'
 * energy, which normalises the correlation: where it is louder than our
 * echo (a line with little loss behind a hybrid at ERL 12 dB: the far end
 * 12 dB above it) our echo's peak stayed under the threshold, and the
 * answer modem, which hears the call modem's INFO0 and tone B all through
 * its own echo, did not find it; its near echo fell in the canceller's far
 * window, whose phase loop, under a far signal that much louder, left a
 * residue 30 dB under it (the receiver needs 40 at 33,600: the data
 * retrained or renegotiated on most of the lab's paths, and on some V.42
 * never came up). So what we send and what we hear go through the same
 * band stop first, a double zero at the far carrier, (1 - 2 cos w z^-1 +
 * z^-2)^2 / 8: linear phase, its delay the same on both sides (the lags
 * are unchanged), 28-31 dB less of the far DPSK than of ours and nothing
 * of the far tone.
 *
 * A line without noise brings its own trap: windows of silence with only
 * the start of a signal at their end (ours after V.8's 75 ms of silence,
 * or the far end's) are normalised by an energy that small (and truncated
 * to a few units) that their rho jumped to 0.2 and more, hundreds of lags
 * before our echo, whose peak then fell past the span searched. Their
 * energy counts as at least the template's NEAR_EX_SHIFT down (an echo
 * that faint is none to move the canceller for), and the search starts at
 * NEAR_RHO_ON: our echo alone in its window peaks at 1.0 and more, a
 * window's start of a signal after silence at twice its share of the
 * window, which for a start under 80 samples (the only ones whose lags are
 * more than the span before the echo's peak) is under 0.32.
 */
#define NEAR_RISE 4
#define NEAR_BACK 24
/* the template from INFO0's sync on (its fill's reversals before have two lines, not a band), within it */
#define NEAR_T0 80
#define NEAR_K 512
#define NEAR_EX_SHIFT 13	/* 39 dB */
#define NEAR_RHO_ON 2048	/* 0.5 in Q12 */
/* the band stop's taps 1 and 3 (C1) and 2 (C2), Q14 (taps 0 and 4: 1.0): -2a and 2 + a^2, a = 2 cos w */
#define NEAR_C1_1200 (-38521)
#define NEAR_C2_1200 55410
#define NEAR_C1_2400 20252
#define NEAR_C2_2400 39026

/* x through the band stop at the far carrier (h: its last four inputs) */
static int16_t near_filter(const struct smdsp_v34 *s, int16_t *h, int16_t x)
{
	int32_t c1 = s->cfg.calling ? NEAR_C1_2400 : NEAR_C1_1200;
	int32_t c2 = s->cfg.calling ? NEAR_C2_2400 : NEAR_C2_1200;
	int64_t acc = ((int64_t)x + h[3]) * (1 << 14) + (int64_t)c1 * (h[0] + h[2]) + (int64_t)c2 * h[1];

	h[3] = h[2];
	h[2] = h[1];
	h[1] = h[0];
	h[0] = x;
	return smdsp_sat16((int32_t)((acc + (1 << 16)) >> 17));
}

static void near_reset(struct smdsp_v34 *s)
{
	uint32_t lat = (uint32_t)s->cfg.echo_latency + NEAR_T0, k = NEAR_K;

	memset(s->near_tf, 0, sizeof(s->near_tf));
	memset(s->near_rf, 0, sizeof(s->near_rf));
	/* a quarter of the carrier's period: 1.67 samples at 1200 Hz, 0.83 at 2400 Hz */
	smdsp_v34_onset_start(&s->near, k, 1, k, s->cfg.calling ? 2 : 1, lat > k + 64 ? lat - k - 64 : 0,
			      SMDSP_V34_LATENCY_MAX + NEAR_BACK + NEAR_T0, lat >= k ? lat - k + 1 : 0, NEAR_RISE);
	s->near.ex_shift = NEAR_EX_SHIFT;
	s->near.rho_on = NEAR_RHO_ON;
	s->near.on = s->cfg.two_wire && !s->cfg.no_near_search;
	s->near_lat = s->cfg.echo_latency;
}

/* phase 2's samples: the template from what we send first, the lags from what we hear */
static smdsp_noinline void near_watch(struct smdsp_v34 *s, const int16_t *rx, const int16_t *tx, unsigned int n)
{
	unsigned int i;
	int32_t at;

	for (i = 0; i < n; i++) {
		int16_t t = near_filter(s, s->near_tf, tx[i]);

		if (s->now + i >= NEAR_T0)
			smdsp_v34_onset_tpl(&s->near, t);
		if (!smdsp_v34_onset_push(&s->near, near_filter(s, s->near_rf, rx[i])))
			break;
	}
	if (s->near.on || s->near.found < NEAR_T0)
		return;
	s->st.near_latency = s->near.found - NEAR_T0;
	at = s->st.near_latency - NEAR_BACK;
	if (at >= s->cfg.echo_latency + SMDSP_V34_EC_NEAR / 2 && at <= SMDSP_V34_LATENCY_MAX)
		s->near_lat = at;
}

static void phase2_config(const struct smdsp_v34_config *c, struct smdsp_v34_phase2_config *p)
{
	memset(p, 0, sizeof(*p));
	p->calling = c->calling;
	p->level_dbm0_10 = c->level_dbm0_10;
	p->far_level_dbm0_10 = c->far_level_dbm0_10;
	p->info0 = c->info0;
	p->md_len = (uint8_t)c->md_len;
}

/* the train ends' configuration before phase 2 says better: any valid one */
static void initial_train_config(const struct smdsp_v34_config *c, struct smdsp_v34_train_config *tc)
{
	memset(tc, 0, sizeof(*tc));
	tc->symrate = SMDSP_V34_S2400;
	tc->data_rate = 2400;
	tc->caller = c->calling;
	/* 2-wire: the canceller and the transmitter's history, allocated now */
	tc->two_wire = c->two_wire;
}

/* both train ends for phase 2's parameters, in place (see the top); -EINVAL if refused */
static int train_setup(struct smdsp_v34 *s, const struct smdsp_v34_train_config *tc,
		       const struct smdsp_v34_train_config *rc)
{
	if (smdsp_v34_train_tx_configure(s->ttx, tc) || smdsp_v34_train_rx_configure(s->trx, rc))
		return -EINVAL;
	return 0;
}

static bool config_ok(const struct smdsp_v34_config *c)
{
	struct smdsp_v34_info info = { .kind = SMDSP_V34_INFO0 };
	uint8_t frame[SMDSP_V34_INFO_BYTES];

	info.i0 = c->info0;
	return smdsp_v34_info_pack(&info, frame) > 0 && c->max_rate % 2400 == 0 && c->max_rate <= 33600 &&
	       c->level_dbm0_10 >= -430 && c->level_dbm0_10 <= -90 && c->far_level_dbm0_10 >= -430 &&
	       c->far_level_dbm0_10 <= -90 &&
	       (!c->trn_symbols || (c->trn_symbols >= 512 && c->trn_symbols <= 8192)) &&
	       c->echo_latency >= 0 && c->echo_latency <= SMDSP_V34_LATENCY_MAX &&
	       (!c->trellis || c->trellis == 16 || c->trellis == 32 || c->trellis == 64) && c->md_len <= 127 &&
	       c->nonlinear <= SMDSP_V34_ASK_YES && c->shaping <= SMDSP_V34_ASK_YES;
}

/* the user's bits, counted (B1's ones are the transmitter's own) */
static int get_bit(void *user)
{
	struct smdsp_v34 *s = user;

	s->st.bits_sent++;
	return s->cfg.get_bit ? s->cfg.get_bit(s->cfg.get_user) : 1;
}

static void put_bit(void *user, int bit)
{
	struct smdsp_v34 *s = user;

	/* our retrain's tone out: what the receiver still decodes is not the far end's data */
	if (s->state == SMDSP_V34_RETRAIN)
		return;
	s->st.bits_received++;
	if (s->cfg.put_bit)
		s->cfg.put_bit(s->cfg.put_user, bit);
}

/* the auxiliary channel's, counted likewise */
static int aux_get_bit(void *user)
{
	struct smdsp_v34 *s = user;

	s->st.aux_sent++;
	return s->cfg.aux_get_bit ? s->cfg.aux_get_bit(s->cfg.aux_get_user) : 0;
}

static void aux_put_bit(void *user, int bit)
{
	struct smdsp_v34 *s = user;

	s->st.aux_received++;
	if (s->cfg.aux_put_bit)
		s->cfg.aux_put_bit(s->cfg.aux_put_user, bit);
}

struct smdsp_v34 *smdsp_v34_create(const struct smdsp_v34_config *cfg)
{
	struct smdsp_v34_train_config tc;
	struct smdsp_v34_config dflt;
	struct smdsp_v34 *s;

	if (!cfg) {
		struct smdsp_v34_phase2_config p;

		smdsp_v34_phase2_default_config(&p);
		memset(&dflt, 0, sizeof(dflt));
		dflt.level_dbm0_10 = p.level_dbm0_10;
		dflt.far_level_dbm0_10 = p.far_level_dbm0_10;
		dflt.info0 = p.info0;
		cfg = &dflt;
	}
	if (!config_ok(cfg))
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = *cfg;
	if (!s->cfg.max_rate)
		s->cfg.max_rate = 33600;
	s->made_two_wire = cfg->two_wire;
	if (!s->cfg.trellis)
		s->cfg.trellis = SMDSP_V34_TRELLIS_DEFAULT;
	initial_train_config(&s->cfg, &tc);
	s->ttx = smdsp_v34_train_tx_create(&tc, get_bit, s);
	s->trx = smdsp_v34_train_rx_create(&tc, put_bit, s);
	if (!s->ttx || !s->trx) {
		smdsp_v34_free(s);
		return NULL;
	}
	smdsp_v34_train_tx_set_aux(s->ttx, aux_get_bit, s);
	smdsp_v34_train_rx_set_aux(s->trx, aux_put_bit, s);
	smdsp_v34_reset(s);
	return s;
}

/*
 * Another call on the same object: the train ends made at create are kept
 * (a 2-wire configuration needs them made 2-wire: their canceller and
 * history are allocated there), so nothing is allocated here.
 */
int smdsp_v34_configure(struct smdsp_v34 *s, const struct smdsp_v34_config *cfg)
{
	if (!s || !cfg || !config_ok(cfg) || (cfg->two_wire && !s->made_two_wire))
		return -EINVAL;
	s->cfg = *cfg;
	if (!s->cfg.max_rate)
		s->cfg.max_rate = 33600;
	smdsp_v34_reset(s);
	return 0;
}

void smdsp_v34_free(struct smdsp_v34 *s)
{
	if (!s)
		return;
	smdsp_v34_train_tx_free(s->ttx);
	smdsp_v34_train_rx_free(s->trx);
	smdsp_free(s);
}

/* phase 2 as it is, the train ends reset and silent (the answer modem's phase 3 left: far_back()) */
static void phase2_again(struct smdsp_v34 *s)
{
	smdsp_v34_train_tx_reset(s->ttx);
	smdsp_v34_train_rx_reset(s->trx);
	smdsp_v34_train_tx_attach(s->ttx, NULL);
	smdsp_v34_train_rx_attach(s->trx, NULL);
	smdsp_v34_train_rx_watch_tone(s->trx, 0, 0);
	s->state = SMDSP_V34_PHASE2;
	s->p2_listen = false;
	s->p2_end = 0;
	s->tail_until = s->now;
	s->tx_from = 0;
	s->tx_on = false;
	s->rx_on = false;
	s->attached = false;
	s->deadline = 0;
	s->bad_since = 0;
	s->gain = 1 << 12;
	memset(s->hist, 0, sizeof(s->hist));
	s->hist_pos = 0;
	s->hist_due = false;
	s->rxn = 0;
	s->rn_deadline = 0;
	s->rn_hold = 0;
	s->poor_since = 0;
	s->good_since = 0;
	s->step_live = false;
	s->up_wait = 0;
	s->up_done = 0;
	s->top_due = true;
	s->rn_up = false;
	s->rn_lift = false;
	s->lift_off = false;
	s->lift_due = true;
	s->lift_ref = LIFT_NONE;
	s->lift_since = 0;
	s->lift_max = s->cfg.max_rate;
	s->mute = false;
	s->md_hold_due = false;
	s->lvl_acc = 0;
	s->lvl = 0;
	s->lvl_data = 0;
	s->lvl_n = 0;
	s->rt_ours = false;
	s->st.phase3_at = 0;
	s->st.tx_data_at = 0;
	s->st.rx_data_at = 0;
	memset(&s->st.tx, 0, sizeof(s->st.tx));
	memset(&s->st.rx, 0, sizeof(s->st.rx));
}

/* phase 2 from its start on this sample (create, reset, a retrain), the user's counts kept */
static void restart(struct smdsp_v34 *s)
{
	struct smdsp_v34_phase2_config pc;

	phase2_config(&s->cfg, &pc);
	smdsp_v34_phase2_init(&s->p2, &pc);
	s->p2_base = s->now;
	phase2_again(s);
}

void smdsp_v34_reset(struct smdsp_v34 *s)
{
	s->now = 0;
	restart(s);
	s->fail = SMDSP_V34_OK;
	memset(&s->st, 0, sizeof(s->st));
	s->st.rtd = -1;
	s->st.near_latency = -1;
	near_reset(s);
}

const char *smdsp_v34_state_name(enum smdsp_v34_state st)
{
	static const char *const names[SMDSP_V34_STATES] = {
		"phase2", "phase3", "phase4", "data", "failed", "reneg", "retrain", "cleared"
	};

	return (unsigned int)st < SMDSP_V34_STATES ? names[st] : "?";
}

const char *smdsp_v34_fail_name(enum smdsp_v34_fail f)
{
	static const char *const names[SMDSP_V34_FAILS] = {
		"ok", "phase2", "no_s", "no_j", "no_mp", "no_data", "rate", "lost", "reneg", "retrain"
	};

	return (unsigned int)f < SMDSP_V34_FAILS ? names[f] : "?";
}

int smdsp_v34_print(const struct smdsp_v34 *s, char *buf, size_t len)
{
	return snprintf(buf, len,
			"v34 %s %s fail=%s t=%u p3=%u tx=%u/%u baud %u bit/s rx=%u/%u baud %u bit/s bits=%u/%u train=%d/%d renegs=%u retrains=%u",
			s->cfg.calling ? "call" : "answer", smdsp_v34_state_name(s->state),
			smdsp_v34_fail_name(s->fail), s->now, s->st.phase3_at,
			(smdsp_v34_symrate_mbaud(s->st.tx.symrate) + 500) / 1000, s->st.tx.high, s->st.tx.rate,
			(smdsp_v34_symrate_mbaud(s->st.rx.symrate) + 500) / 1000, s->st.rx.high, s->st.rx.rate,
			s->st.bits_sent, s->st.bits_received, smdsp_v34_train_tx_state(s->ttx),
			smdsp_v34_train_rx_state(s->trx), s->st.renegs, s->st.retrains);
}

enum smdsp_v34_state smdsp_v34_state(const struct smdsp_v34 *s)
{
	return s->state;
}

enum smdsp_v34_fail smdsp_v34_fail(const struct smdsp_v34 *s)
{
	return s->fail;
}

void smdsp_v34_get_stats(const struct smdsp_v34 *s, struct smdsp_v34_stats *st)
{
	struct smdsp_v34_train_stats ts;

	*st = s->st;
	st->now = s->now;
	smdsp_v34_train_rx_get_stats(s->trx, &ts);
	st->mse_db10 = s->state > SMDSP_V34_PHASE2 ? ts.mse_db10 : 0;
	st->wmse_db10 = s->state > SMDSP_V34_PHASE2 ? ts.wmse_db10 : 0;
	st->erle_db10 = s->state > SMDSP_V34_PHASE2 ? ts.erle_db10 : 0;
	st->far_delay = s->state > SMDSP_V34_PHASE2 ? ts.far_delay : -1;
	st->sync_checks = ts.sync_checks;
	st->sync_misses = ts.sync_misses;
	st->bad_superframes = ts.bad_superframes;
	st->sync_lost = ts.sync_lost;
	st->level_steps = ts.level_steps;
}

bool smdsp_v34_get_phase2(const struct smdsp_v34 *s, struct smdsp_v34_phase2_result *r)
{
	return smdsp_v34_phase2_result(&s->p2, r);
}

static void fail(struct smdsp_v34 *s, enum smdsp_v34_fail why)
{
	s->fail = why;
	s->state = SMDSP_V34_FAILED;
	s->st.failed_at = s->now;
	s->tx_on = false;
	s->rx_on = false;
}

static void dir_from(struct smdsp_v34_dir *d, const struct smdsp_v34_phase2_dir *p, unsigned int max_rate)
{
	d->symrate = (enum smdsp_v34_symrate)p->symrate;
	d->high = p->high_carrier;
	d->preemph = p->preemph;
	d->max_rate = p->max_rate < max_rate ? p->max_rate : max_rate;
	d->rate = 0;
	d->states = 0;
}

/* the training's output at our level less the power reduction the far receiver asked for */
static uint16_t train_gain(int level_dbm0_10)
{
	/* the 4-point training's mean square is SMDSP_V34_TRAIN_AMP^2 */
	uint64_t want = smdsp_dbm0_to_power(level_dbm0_10);
	uint64_t have = (uint64_t)SMDSP_V34_TRAIN_AMP * SMDSP_V34_TRAIN_AMP;

	return (uint16_t)smdsp_isqrt64(smdsp_div_u64(want << 24, (uint32_t)have));
}

/*
 * 2-wire: both train ends 2-wire, our transmitter's stream from tx_from and
 * our receiver's from the next sample (the call modem's less the history it
 * is given first); the canceller's latency is ours (near_lat) plus that
 * difference, its round trip phase 2's less our latency (see the top)
 */
static void two_wire_config(const struct smdsp_v34 *s, const struct smdsp_v34_phase2_result *r,
			    struct smdsp_v34_train_config *tc, struct smdsp_v34_train_config *rc)
{
	int32_t rt = r->rtd - s->near_lat;

	tc->two_wire = true;
	tc->round_trip = rt > 0 ? rt : 0;
	rc->two_wire = true;
	rc->round_trip = tc->round_trip;
	rc->echo_latency = s->near_lat + (int32_t)(s->tx_from - s->now) +
			   (s->cfg.calling ? SMDSP_V34_RXHIST : 0);
}

/*
 * Phase 3's MD (V.34's manufacturer-defined signal) before each end's S, as
 * long as its INFO1 says (35 ms units). Ours is silence (v34_train_tx.c).
 * The far end's may be anything, which our receiver must let pass: the
 * answer modem's starts where INFO1a ends, so the call modem's receiver
 * hears zeros instead until MD_EARLY before its end (the far S may begin
 * up to SMDSP_V34_RXHIST samples before we decided INFO1a: that is why the
 * history is given, which an MD makes MD's, so zeros too). The call
 * modem's MD starts when it has trained on the answer modem's J: the
 * answer modem looks for no S from its J's start until a round trip and
 * the MD's length later (md_hold()), keeping its J going meanwhile. Both
 * MDs lengthen the time phases 3 and 4 may take.
 */
#define MD_SAMPLES MS(35)
#define MD_EARLY (SMDSP_V34_RXHIST + 64)

static unsigned int md_symbols(unsigned int md_len, enum smdsp_v34_symrate symrate)
{
	return (unsigned int)smdsp_div_u64((uint64_t)md_len * 35 * smdsp_v34_symrate_mbaud(symrate) + 500000,
					   1000000);
}

static void far_md(struct smdsp_v34 *s, uint32_t end)
{
	uint32_t md = MD_SAMPLES * s->st.far_md_len;

	if (!md)
		return;
	memset(s->hist, 0, sizeof(s->hist));
	if (md > MD_EARLY) {
		s->mute = true;
		s->mute_until = end + md - MD_EARLY;
	}
}

/*
 * The answer modem, its J begun: the call modem sends its MD once it has
 * trained on that J (11.3), so nothing before J's start, a round trip and
 * the MD's length (less MD_EARLY: the same margin as the call modem's) is
 * its S. Our receiver looks for no S until then; what it hears still
 * reaches its canceller (2-wire: zeros there would untrain it).
 */
static void md_hold(struct smdsp_v34 *s, unsigned int n)
{
	uint32_t sent = smdsp_v34_train_tx_symbols(s->ttx) - smdsp_v34_train_tx_began(s->ttx, SMDSP_V34_T_J);
	uint32_t mbaud = smdsp_v34_symrate_mbaud(s->st.tx.symrate);
	uint32_t j_at = s->now + n - (uint32_t)smdsp_div_u64((uint64_t)sent * 8000000, mbaud);
	uint32_t rtd = s->st.rtd > 0 ? (uint32_t)s->st.rtd : 0;
	uint32_t until = j_at + rtd + MD_SAMPLES * s->st.far_md_len - MD_EARLY;
	uint32_t next = s->now - s->rxn;

	s->md_hold_due = false;
	if ((int32_t)(until - next) > 0)
		smdsp_v34_train_rx_hold_s(s->trx, until - next);
}

/*
 * Phase 2 ended well on sample 'end': set up the trainings. Not inlined:
 * its configurations stay off the stack under the receiver's processing.
 */
static smdsp_noinline void hand_over(struct smdsp_v34 *s, const struct smdsp_v34_phase2_result *r, uint32_t end)
{
	const struct smdsp_v34_phase2_dir *ptx = s->cfg.calling ? &r->c_to_a : &r->a_to_c;
	const struct smdsp_v34_phase2_dir *prx = s->cfg.calling ? &r->a_to_c : &r->c_to_a;
	/* in our state, not on the stack: its callees run deep (the pre-emphasis design) */
	struct smdsp_v34_train_config *tc = &s->ho_tc, *rc = &s->ho_rc;
	uint32_t rtd = r->rtd > 0 ? (uint32_t)r->rtd : 0;
	unsigned int k;

	dir_from(&s->st.tx, ptx, s->cfg.max_rate);
	dir_from(&s->st.rx, prx, s->cfg.max_rate);
	s->st.rtd = r->rtd;
	memset(tc, 0, sizeof(*tc));
	tc->symrate = s->st.tx.symrate;
	tc->high = s->st.tx.high;
	tc->data_rate = s->st.tx.max_rate;
	tc->preemph = s->st.tx.preemph;
	tc->caller = s->cfg.calling;
	tc->trn16 = s->cfg.trn16;
	tc->trn_symbols = s->cfg.trn_symbols;
	tc->md_symbols = md_symbols(s->cfg.md_len, tc->symrate);
	*rc = *tc;
	rc->md_symbols = 0;
	rc->symrate = s->st.rx.symrate;
	rc->high = s->st.rx.high;
	rc->data_rate = s->st.rx.max_rate;
	rc->preemph = 0;
	rc->trellis = s->cfg.trellis;
	rc->nonlinear = s->cfg.nonlinear;
	rc->shaping = s->cfg.shaping;
	tc->aux = s->cfg.aux;
	rc->aux = s->cfg.aux;
	/*
	 * The answer modem's S: its first symbol where INFO1a's last ends on
	 * the line: that one's centre 40 samples after it was taken and half
	 * of its 40/3 samples, less S's first pulse centre, 9.5 of its symbols
	 * after its start (ticks: 17920 a symbol, ticks_per_sample a sample),
	 * rounded up; 15-25 samples after phase 2's end, never before this
	 * step's end. The call modem's 2-wire transmitter runs silent from
	 * now on (4-wire it starts when its receiver has trained).
	 */
	k = smdsp_v34_ticks_per_sample(tc->symrate);
	s->tx_from = s->cfg.calling ? s->now : end + (140 * k - 3 * 170240 + 3 * k - 1) / (3 * k);
	if (s->cfg.two_wire)
		two_wire_config(s, r, tc, rc);
	s->p2_end = end;
	s->tail_until = end + DPSK_TAIL;
	s->st.md_len = s->cfg.calling ? r->info1c.md_len : r->info1a.md_len;
	s->st.far_md_len = s->cfg.calling ? r->info1a.md_len : r->info1c.md_len;
	/* 2-wire, two more round trips: each end's training waits for the other's reaction; both MDs */
	s->deadline = end + T_TRAIN + (s->cfg.two_wire ? 4 : 2) * rtd + MD_SAMPLES * (s->st.md_len + s->st.far_md_len);
	s->gain = train_gain(s->cfg.level_dbm0_10 - 10 * ptx->power_red);
	s->state = SMDSP_V34_PHASE3;
	if (train_setup(s, tc, rc)) {
		fail(s, SMDSP_V34_FAIL_RATE);
		return;
	}
	s->tx_lim = tc->data_rate;
	s->rx_lim = rc->data_rate;
	/* the far end's retrain tone: A from the answer modem, B from the call modem */
	smdsp_v34_train_rx_watch_tone(s->trx, s->cfg.calling ? 2400 : 1200, s->cfg.calling ? 1200 : 2400);
	s->rx_on = true;
	/* the call modem's: what we heard lately, the far S may have begun before INFO1a was decided */
	s->hist_due = s->cfg.calling;
	if (s->cfg.calling)
		far_md(s, end);
	else
		s->md_hold_due = MD_SAMPLES * s->st.far_md_len > MD_EARLY;
	/* the call modem may have missed our INFO1a: phase 2 still hears it (far_back()) */
	s->p2_listen = !s->cfg.calling;
	if (s->cfg.two_wire) {
		/* v34_train keeps the duplex order: each end asks the other */
		smdsp_v34_train_rx_attach(s->trx, s->ttx);
	} else if (s->cfg.calling) {
		/* 4-wire, the call modem's transmitter starts when its receiver has trained (decide()) */
		s->tx_from = 0;
		return;
	}
	s->tx_on = true;
	smdsp_v34_train_tx_attach(s->ttx, s->trx);
	s->attached = true;
}

/* where our receiver got to, when time is up */
static enum smdsp_v34_fail why_late(const struct smdsp_v34 *s)
{
	enum smdsp_v34_train_state r = smdsp_v34_train_rx_state(s->trx);

	if (r == SMDSP_V34_T_IDLE)
		return SMDSP_V34_FAIL_NO_S;
	if (r < SMDSP_V34_T_J)
		return SMDSP_V34_FAIL_NO_J;
	if (r < SMDSP_V34_T_DATA)
		return SMDSP_V34_FAIL_NO_MP;
	return SMDSP_V34_FAIL_NO_DATA;
}

/* phase 2's end, if it came (not inlined: its result stays off the receiver's stack) */
static smdsp_noinline void phase2_end(struct smdsp_v34 *s)
{
	struct smdsp_v34_phase2_result res;
	enum smdsp_v34_phase2_state p = smdsp_v34_phase2_state(&s->p2);

	if (p == SMDSP_V34P2_FAILED) {
		fail(s, SMDSP_V34_FAIL_PHASE2);
	} else if (p == SMDSP_V34P2_DONE) {
		smdsp_v34_phase2_result(&s->p2, &res);
		hand_over(s, &res, s->p2_base + res.done_at);
	}
}

/*
 * ---- The data mode: rate renegotiation, cleardown, retrain ----
 *
 * Rate renegotiation (11.6 as we read it; v34_train does the signals): an
 * end asks with its transmitter's S, S-bar, phase 4's TRN and MP carrying
 * its new limits, its receiver's for the far direction (tx_lim, rx_lim);
 * the far receiver finds S in its data and its transmitter answers the
 * same way; MP', E and B1 follow and each direction runs at the lower of
 * the two MPs' rates for it, the equalisers, loops and cancellers as they
 * were. RENEG from either end's signal leaving the data until both are back
 * (T_RENEG and two round trips, else FAILED: a far end gone). The bits in
 * the far decoder's delay when S begins are lost (8 mapping frames at most).
 *
 * Ours automatically: the error the decoder gets (the whitened decisions'
 * MSE against the data's nominal power) more than DOWN_DB10 under what the
 * rate needs for T_POOR (the need the receiver chose its MP rate by: the
 * code's 1e-5 with a dB of margin, smdsp_v34_rate_need_db10(); DOWN_DB10
 * under it the code's errors begin) asks the far end for the highest rate
 * that needs TARGET_DB10 less than that error. The error is measured
 * against the nearest point of the lattice, which a noise near its spacing
 * makes look smaller than it is (1-3 dB, more at the highest rates): hence
 * the target's margin, and a second step down when the first rate's error,
 * then measured right, is still past the margin. None lower at this symbol
 * rate: a retrain.
 *
 * And back up: the error UP_DB10 above a higher rate's need for T_UP asks
 * for the highest such rate, never above rn_top (the rate the training, or
 * a renegotiation our user asked for, settled: what the line was found to
 * carry; the data's error on some lines ends 2-5 dB above TRN's, and
 * climbing past the training's choice on a steady line would be a
 * renegotiation for nothing the line changed), nor above the far end's MP
 * (its transmitter's limit and its rates), Table 7 at the symbol rate,
 * phase 2's and our max_rate. The figures, so that a steady line never
 * swings between two rates: down is 1 dB under the need, up 2 dB over it,
 * a band of 3 dB, ten times the spread of one 256-symbol measurement (0.27
 * dB: 512 squared Gaussian terms) and more than a rate step (2.1-2.2 dB),
 * so a climb is undone only by an error worse by over a step; and the
 * error the lattice's nearest point gives looks better, not worse, at the
 * higher rate. T_UP is 2 s (25-27 measurements in a row, none under) where
 * down takes T_POOR: errors cost at once, a rate too low only rate, and a
 * renegotiation loses about a second of data, not worth a noise that comes
 * and goes. A climb undone within T_UNDONE doubles T_UP for the next (to
 * T_UP_MAX): a line that does swing is not chased.
 *
 * Above that ceiling only when the line has changed for the better: the
 * data's own error, its most over T_REF once the training's data has held
 * T_HOLD (lift_ref; none if a renegotiation came first: no lift until a
 * retrain), is the line the training found; our error LIFT_DB10
 * over it for T_UP (lift_since, the climb's own T_UP too) lifts the ceiling
 * to our user's max_rate (lift_max), Table 7 at the symbol rate and the far
 * MP's rates field still applying. Against the data's own error, not TRN's,
 * the 2-5 dB between them is not in it; 5 dB is over three times what a
 * steady line's error rose above that reference (0.4-1.5 dB in a minute of
 * the telephone, bass-cut and 2-wire lines, and in 30 s at -45 dBm0 of
 * noise 4- and 2-wire), eighteen times the spread of one measurement, and
 * less than what a line that trained in noise gains when it goes (7-16 dB
 * at -45 and -50 dBm0, a 2-wire line's dipping to 4.5). Phase 2's
 * projection and the far MP's rate for us were the noise's too: our MP
 * asks past TRN's choice (smdsp_v34_train_rx_lift_rate()) and the far
 * transmitter, asked for more than its limit, offers and sends up to its
 * own max_rate (smdsp_v34_train_tx_set_lift(), from its training's data
 * on); a far end that does not (or whose user limited it since) settles
 * where it was: that climb won nothing, and there are no more lifted ones
 * (lift_off). Undone soon, it doubles T_UP as any climb.
 *
 * The cleardown is a renegotiation to no rate: MP's rates both 0; after E
 * both ends are CLEARED and silent.
 *
 * A retrain: ours sends our phase 2 tone (B from the call modem, A from the
 * answer modem) until the far one is heard (T_RT_WAIT and a round trip at
 * most, else FAILED), then phase 2 from its start; the far end, its data
 * mode's receiver hearing our tone for T_RT_HEAR, sends its own for
 * T_RT_ANSWER (what ours needs to hear it) and starts phase 2 too. Phase 2's
 * own recovery (INFO0 again after 2 s) covers an INFO0 one end started to
 * hear late. Ours when asked, or when our receiver's decisions are as bad
 * as noise's for T_LOST (the error within 8 dB of the points, or within
 * FLOOR_DB10 of what decisions on any other signal at this level give: an
 * error uniform in the lattice's cells) while the level is still within 10
 * dB of the data's start (or of where our receiver last followed it down:
 * a line that lost that much and was followed is not a far end gone): sync
 * lost, or a line too noisy for any rate to be judged from here, the far
 * end still there; phase 2 probes it again. Its level gone too: FAILED,
 * lost. Decisions merely poor are a rate's matter: a renegotiation down,
 * not judged for T_HOLD after our receiver followed a level that fell (its
 * loops held while it measured it).
 *
 * A level that fell with the noise rising leaves the rate's decisions at
 * the lattice's floor (as bad as noise's, the sync lost soon after): a
 * retrain by the rule above, where the level step was clear and only the
 * rate no longer fits. So after a step (step_live, until the rate is found
 * to fit) the error is judged on the first whole measurement after the move
 * (STEP_SYMS; the sync and the floor not judged before), and decisions at
 * the floor renegotiate down at once, STEP_FLOOR_DB10 lower than the target
 * rule on the first (the floor only bounds the line's error); the data
 * mode after it is judged so again. The far end's renegotiation meanwhile
 * carries our lower limit too (step_join()). The sync lost before the move
 * was measured is a slip (a retrain, as before), and a level collapsing is
 * still a far end gone.
 */
#define T_RENEG MS(4000)	/* S to data: about 1 s at 2400 baud (TRN 512, MPs, B1), and margin */
#define T_HOLD MS(1000)		/* after a renegotiation, its error settled before we judge it */
#define T_RECHOOSE MS(2000)	/* after a level step and T_HOLD, the rate held to the training's need */
#define T_POOR MS(300)		/* a few of the receiver's 256-symbol measurements */
#define STEP_SYMS 512		/* after a level step, symbols before its error is judged: a whole measurement */
#define STEP_FLOOR_DB10 30	/* ... at the lattice's floor, the line's worse by an unknown amount: a rate lower */
#define DOWN_DB10 10
#define TARGET_DB10 10
#define UP_DB10 20
#define T_UP MS(2000)
#define T_UNDONE MS(30000)
#define T_UP_MAX MS(64000)
#define LIFT_DB10 50		/* the data's error this much better than the training's data's: the line changed */
#define T_REF MS(500)		/* ... measured as its most over this, after T_HOLD */
#define T_RT_HEAR 40		/* ms of the far tone that make a retrain */
#define T_RT_ANSWER MS(70)
#define T_RT_WAIT MS(3000)
#define FLOOR_DB10 10
#define LVL_BLOCK 1024		/* the level's measurement, samples */
#define T_CLEAR_TAIL MS(40)	/* the pulse's and the pre-emphasis filter's spans, and more */

static bool after(uint32_t now, uint32_t t)
{
	return (int32_t)(now - t) >= 0;
}

/* the highest rate within lim Table 7 allows at the symbol rate (0: none) */
static unsigned int rate_within(unsigned int lim, enum smdsp_v34_symrate symrate)
{
	unsigned int r;

	for (r = lim - lim % 2400; r >= 2400; r -= 2400)
		if (smdsp_v34_frame_rate_ok(symrate, r))
			return r;
	return 0;
}

/* our renegotiation with these limits (0, 0: the cleardown) */
static void reneg_start(struct smdsp_v34 *s, unsigned int tx_lim, unsigned int rx_lim)
{
	s->tx_lim = tx_lim;
	s->rx_lim = rx_lim;
	smdsp_v34_train_rx_set_rate(s->trx, rx_lim);
	smdsp_v34_train_tx_renegotiate(s->ttx, tx_lim);
	s->st.reneg_asked++;
	s->poor_since = 0;
	s->rn_hold = s->now + T_HOLD;
}

int smdsp_v34_renegotiate(struct smdsp_v34 *s, unsigned int max_rate)
{
	unsigned int tl, rl;

	if (s->state != SMDSP_V34_DATA)
		return -EBUSY;
	if (max_rate % 2400 || max_rate > 33600)
		return -EINVAL;
	if (!max_rate)
		max_rate = s->cfg.max_rate;
	/* our climbs' ceiling: what this one settles; a lifted one's and the far end's, what was asked */
	s->top_due = true;
	s->lift_max = max_rate < s->cfg.max_rate ? max_rate : s->cfg.max_rate;
	smdsp_v34_train_tx_set_lift(s->ttx, rate_within(s->lift_max, s->st.tx.symrate));
	tl = rate_within(max_rate < s->st.tx.max_rate ? max_rate : s->st.tx.max_rate, s->st.tx.symrate);
	rl = rate_within(max_rate < s->st.rx.max_rate ? max_rate : s->st.rx.max_rate, s->st.rx.symrate);
	if (!tl || !rl)
		return -EINVAL;
	reneg_start(s, tl, rl);
	return 0;
}

int smdsp_v34_cleardown(struct smdsp_v34 *s)
{
	if (s->state != SMDSP_V34_DATA)
		return -EBUSY;
	reneg_start(s, 0, 0);
	return 0;
}

static void retrain_start(struct smdsp_v34 *s, bool ours)
{
	s->state = SMDSP_V34_RETRAIN;
	s->rt_ours = ours;
	s->tx_on = false;
	s->rt_until = s->now + (ours ? T_RT_WAIT + (s->st.rtd > 0 ? (uint32_t)s->st.rtd : 0) : T_RT_ANSWER);
	s->tone_ph = 0;
	s->tone_step = smdsp_phase_rate(s->cfg.calling ? 1200000 : 2400000, 8000);
	s->tone_amp = (int16_t)smdsp_dbm0_to_amp(s->cfg.level_dbm0_10);
	s->st.retrains++;
	s->st.retrain_at = s->now;
	if (ours)
		s->st.retrain_asked++;
}

int smdsp_v34_retrain(struct smdsp_v34 *s)
{
	if (s->state != SMDSP_V34_DATA && s->state != SMDSP_V34_RENEG)
		return -EBUSY;
	retrain_start(s, true);
	return 0;
}

static smdsp_noinline void retrain_tone(struct smdsp_v34 *s, int16_t *tx, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		tx[i] = (int16_t)(((int32_t)smdsp_sin(s->tone_ph) * s->tone_amp) >> 15);
		s->tone_ph += s->tone_step;
	}
}

/* the received level, for telling a lost sync from a far end gone */
static smdsp_noinline void level(struct smdsp_v34 *s, const int16_t *rx, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		s->lvl_acc += (uint64_t)((int32_t)rx[i] * rx[i]);
	s->lvl_n += n;
	if (s->lvl_n >= LVL_BLOCK) {
		s->lvl = (uint32_t)smdsp_div_u64(s->lvl_acc, s->lvl_n);
		s->lvl_acc = 0;
		s->lvl_n = 0;
	}
}

/* our tone until the far one (ours) or for T_RT_ANSWER (theirs), then phase 2 */
static smdsp_noinline void retraining(struct smdsp_v34 *s)
{
	if (s->rt_ours && smdsp_v34_train_rx_tone_ms(s->trx) >= T_RT_HEAR) {
		restart(s);
		return;
	}
	if (!after(s->now, s->rt_until))
		return;
	if (s->rt_ours)
		fail(s, SMDSP_V34_FAIL_RETRAIN);
	else
		restart(s);
}

static void data_begins(struct smdsp_v34 *s)
{
	/* a climb that won nothing (the far end's limit came down meanwhile): no more of them */
	if (s->rn_up) {
		s->up_done = s->now;
		if (s->st.rx.rate <= s->up_from) {
			s->rn_top = s->st.rx.rate;
			s->lift_off |= s->rn_lift;
		}
		s->rn_up = false;
		s->rn_lift = false;
	}
	/*
	 * The training's data: its error early on is what a better line is
	 * measured against; our transmitter sends the far end's lifted climbs
	 * up to our max_rate from now on
	 */
	if (s->lift_due) {
		s->lift_due = false;
		smdsp_v34_train_tx_set_lift(s->ttx, rate_within(s->lift_max, s->st.tx.symrate));
		s->lift_ref = LIFT_NONE;
		s->lift_ref_end = s->now + T_HOLD + T_REF;
	}
	s->lift_since = 0;
	if (s->top_due) {
		s->rn_top = s->st.rx.rate;
		s->top_due = false;
	}
	s->good_since = 0;
	s->state = SMDSP_V34_DATA;
	s->st.run_at = s->now;
	s->st.run_bits_sent = s->st.bits_sent;
	s->st.run_bits_received = s->st.bits_received;
	s->rn_hold = s->now + T_HOLD;
	s->poor_since = 0;
	s->bad_since = 0;
	s->lvl_data = s->lvl;
	s->level_steps = 0;
	s->rechoose_until = s->now;
	/* a renegotiation in a level step's wake: the new rate judged as the step's was */
	if (s->step_live) {
		s->rechoose_until = s->now + T_HOLD + T_RECHOOSE;
		s->step_sym = 0;
		s->step_first = false;
	}
}

/*
 * The highest rate above ours whose need our error clears by UP_DB10,
 * within both ends' limits (0: none); *lifted when it is above them (the
 * line better than it trained): then within our user's only, the far end's
 * answer bounding it (its MP offers more than its limit when asked:
 * v34_train_tx.c's offer())
 */
static unsigned int rate_up(const struct smdsp_v34 *s, int wmse_db10, bool *lifted)
{
	unsigned int top = s->rn_top < s->st.rx.max_rate ? s->rn_top : s->st.rx.max_rate, lim, r, best = 0;
	struct smdsp_v34_mp far;
	bool ack;

	*lifted = false;
	if (!smdsp_v34_train_rx_far_mp(s->trx, &far, &ack))
		return 0;
	r = 2400 * (s->cfg.calling ? far.rate_a_to_c : far.rate_c_to_a);
	if (r < top)
		top = r;
	lim = s->lift_since && !s->lift_off ? s->lift_max : top;
	for (r = s->st.rx.rate + 2400; r <= lim; r += 2400) {
		if (!smdsp_v34_frame_rate_ok(s->st.rx.symrate, r) || !(far.rates & (1u << (r / 2400 - 1))))
			continue;
		if (smdsp_v34_rate_need_db10(s->trx, s->st.rx.symrate, r) + UP_DB10 > wmse_db10)
			break;
		best = r;
	}
	*lifted = best > top;
	return best;
}

/* our error has stayed a margin above a higher rate's need: ask for it */
static void climb(struct smdsp_v34 *s, int wmse_db10)
{
	uint32_t wait = s->up_wait ? s->up_wait : T_UP;
	bool lifted;
	unsigned int r = rate_up(s, wmse_db10, &lifted);

	if (!r) {
		s->good_since = 0;
		return;
	}
	if (!s->good_since) {
		s->good_since = s->now;
		return;
	}
	/* above the training's ceiling: the line better for as long too */
	if (s->now - s->good_since < wait || (lifted && s->now - s->lift_since < wait))
		return;
	s->st.reneg_auto++;
	s->st.reneg_up++;
	s->rn_up = true;
	s->rn_lift = lifted;
	s->up_from = s->st.rx.rate;
	if (lifted)
		smdsp_v34_train_rx_lift_rate(s->trx, r);
	reneg_start(s, s->tx_lim, r);
}

/* the training's data's error, its most for T_REF; then whether ours is LIFT_DB10 better than it */
static void lift_watch(struct smdsp_v34 *s, int wmse_db10)
{
	if (!after(s->now, s->lift_ref_end)) {
		if (wmse_db10 > s->lift_ref)
			s->lift_ref = wmse_db10;
	} else if (s->lift_ref == LIFT_NONE || wmse_db10 < s->lift_ref + LIFT_DB10) {
		s->lift_since = 0;
	} else if (!s->lift_since) {
		s->lift_since = s->now;
	}
}

/*
 * The received level 10 dB or more under the data's (or none measured yet):
 * the far end gone, not a lost sync or a line that stepped
 */
static bool level_gone(const struct smdsp_v34 *s)
{
	return !s->lvl_data || 10ULL * s->lvl < s->lvl_data;
}

/*
 * A far end gone leaves our receiver deciding on noise: its error as
 * large as its points; a signal it has lost, or one buried in noise,
 * an error spread evenly over the lattice's cells: within FLOOR_DB10
 * of what that gives at this rate
 */
static int lost_db10(const struct smdsp_v34_train_stats *ts)
{
	return ts->mse_floor_db10 + FLOOR_DB10 > LOST_DB10 ? ts->mse_floor_db10 + FLOOR_DB10 : LOST_DB10;
}

/* the highest rate whose need is TARGET_DB10 under the error wmse (0: none at this symbol rate) */
static unsigned int rate_down(const struct smdsp_v34 *s, int wmse_db10)
{
	unsigned int r = s->st.rx.rate - 2400;

	while (r >= 2400 && smdsp_v34_rate_need_db10(s->trx, s->st.rx.symrate, r) > wmse_db10 - TARGET_DB10)
		r -= 2400;
	return r >= 2400 ? rate_within(r, s->st.rx.symrate) : 0;
}

/*
 * A level step followed, or the renegotiation down after one: true when
 * the rate is renegotiated down for it, or its error not measured yet
 * (the sync and the decisions not judged meanwhile)
 */
static bool step_judge(struct smdsp_v34 *s, const struct smdsp_v34_train_stats *ts, int lost)
{
	int need = smdsp_v34_rate_need_db10(s->trx, s->st.rx.symrate, s->st.rx.rate);
	unsigned int r;

	if (s->cfg.no_auto || !s->st.rx.rate || level_gone(s)) {
		s->step_live = false;
		return false;
	}
	if (!s->step_sym)
		s->step_sym = (ts->symbols + STEP_SYMS) | 1;
	if ((int32_t)(ts->symbols - s->step_sym) < 0)
		return true;
	/* the rate fits the line since the step: judged as any from now on */
	if (ts->wmse_db10 >= need) {
		s->step_live = false;
		return false;
	}
	if (ts->mse_db10 >= lost)
		return false;
	r = rate_down(s, ts->wmse_db10 - (s->step_first ? STEP_FLOOR_DB10 : 0));
	if (!r) {
		s->step_live = false;
		return false;
	}
	s->st.reneg_auto++;
	reneg_start(s, s->tx_lim, r);
	return true;
}

/*
 * The far end's renegotiation in a level step's wake, our rate not fitting
 * the line since either: our MP asks less too, as ours would have
 */
static void step_join(struct smdsp_v34 *s)
{
	struct smdsp_v34_train_stats ts;
	unsigned int r;

	smdsp_v34_train_rx_get_stats(s->trx, &ts);
	if (ts.level_hold || !s->st.rx.rate || level_gone(s) ||
	    ts.wmse_db10 >= smdsp_v34_rate_need_db10(s->trx, s->st.rx.symrate, s->st.rx.rate))
		return;
	r = rate_down(s, ts.wmse_db10 - (s->step_first && ts.mse_db10 < lost_db10(&ts) ? STEP_FLOOR_DB10 : 0));
	if (r && r < s->rx_lim) {
		s->rx_lim = r;
		smdsp_v34_train_rx_set_rate(s->trx, r);
	}
}

/* in the data mode: lost, lost sync, our error past the rate's margin (or above a higher one's) */
static void data_watch(struct smdsp_v34 *s)
{
	struct smdsp_v34_train_stats ts;
	int need, lost;

	smdsp_v34_train_rx_get_stats(s->trx, &ts);
	/*
	 * Our receiver follows a level that fell (a line's loss, v34_train_rx.c's
	 * level watch): its error judged once settled, as after a renegotiation,
	 * and the level it followed the far end's from then on
	 */
	if (ts.level_steps != s->level_steps) {
		/* held long enough that the last level block is all after the fall */
		s->level_steps = ts.level_steps;
		/* a fall of 10 dB or more, or the sync lost before it was measured: not for step_judge() */
		s->step_live = !ts.sync_lost && !level_gone(s);
		s->lvl_data = s->lvl;
		s->rechoose_until = s->now + T_HOLD + T_RECHOOSE;
		s->step_sym = 0;
		s->step_first = true;
		ts.level_hold = true;
	}
	if (ts.level_hold) {
		s->rn_hold = s->now + T_HOLD;
		s->poor_since = 0;
		s->bad_since = 0;
		s->good_since = 0;
		s->lift_since = 0;
		/* its decisions meanwhile are at a level still being measured: not judged */
		return;
	}
	lost = lost_db10(&ts);
	if (s->step_live && step_judge(s, &ts, lost))
		return;
	/* our decoder out of step with the far frames: its bits are garbage, train again */
	if (ts.sync_lost) {
		/* as below: the far end gone (its level too), or no retrain of ours, is lost */
		if (s->cfg.no_auto || level_gone(s))
			fail(s, SMDSP_V34_FAIL_LOST);
		else
			retrain_start(s, true);
		return;
	}
	/* decisions as bad as noise's (lost_db10()) for T_LOST */
	if (ts.mse_db10 >= lost) {
		s->bad_since = 0;
	} else if (!s->bad_since) {
		s->bad_since = s->now;
	} else if (s->now - s->bad_since >= T_LOST) {
		/* the level within 10 dB of the data's: the far end is there, its sync lost */
		if (level_gone(s))
			fail(s, SMDSP_V34_FAIL_LOST);
		else if (!s->cfg.no_auto)
			retrain_start(s, true);
		else
			s->bad_since = 0;
		return;
	}
	/* decisions as bad as noise's are the far end lost or its sync: not a rate's */
	if (s->cfg.no_auto || !after(s->now, s->rn_hold) || !s->st.rx.rate || s->bad_since)
		return;
	lift_watch(s, ts.wmse_db10);
	need = smdsp_v34_rate_need_db10(s->trx, s->st.rx.symrate, s->st.rx.rate);
	/*
	 * After a level step the line is another: its rate chosen again as the
	 * training would (the need itself, not DOWN_DB10 under it), for a while
	 */
	if (ts.wmse_db10 >= need - (after(s->now, s->rechoose_until) ? DOWN_DB10 : 0)) {
		s->poor_since = 0;
		climb(s, ts.wmse_db10);
	} else if (!s->poor_since) {
		s->poor_since = s->now;
		s->good_since = 0;
	} else if (s->now - s->poor_since >= T_POOR) {
		unsigned int r = rate_down(s, ts.wmse_db10);

		/* our last climb undone soon: the next waits twice as long */
		if (s->up_done && s->now - s->up_done < T_UNDONE) {
			s->up_wait = s->up_wait ? s->up_wait : T_UP;
			if (s->up_wait < T_UP_MAX)
				s->up_wait *= 2;
		}

		s->st.reneg_auto++;
		if (r)
			reneg_start(s, s->tx_lim, r);
		else
			retrain_start(s, true);
	}
}

/* the data mode and its renegotiations (not inlined: off the receiver's stack) */
static smdsp_noinline void in_data(struct smdsp_v34 *s, enum smdsp_v34_train_state t,
				   enum smdsp_v34_train_state r)
{
	uint32_t rtd = s->st.rtd > 0 ? (uint32_t)s->st.rtd : 0;

	if (t == SMDSP_V34_T_CLEARED && r == SMDSP_V34_T_CLEARED) {
		/* silent once E's last symbols have left the transmitter's filters */
		s->state = SMDSP_V34_CLEARED;
		s->st.cleared_at = s->now + T_CLEAR_TAIL;
		return;
	}
	if (smdsp_v34_train_rx_tone_ms(s->trx) >= T_RT_HEAR) {
		retrain_start(s, false);
		return;
	}
	if (t == SMDSP_V34_T_DATA && r == SMDSP_V34_T_DATA) {
		if (s->state == SMDSP_V34_RENEG) {
			s->st.renegs++;
			s->st.tx.rate = smdsp_v34_train_tx_rate(s->ttx);
			s->st.rx.rate = smdsp_v34_train_rx_rate(s->trx);
			data_begins(s);
		}
		data_watch(s);
		return;
	}
	if (s->state == SMDSP_V34_DATA) {
		if (s->step_live)
			step_join(s);
		s->state = SMDSP_V34_RENEG;
		s->st.reneg_at = s->now;
		s->rn_deadline = s->now + T_RENEG + 2 * rtd;
	} else if (after(s->now, s->rn_deadline) || t == SMDSP_V34_T_FAILED || r == SMDSP_V34_T_FAILED) {
		fail(s, SMDSP_V34_FAIL_RENEG);
	}
}

/* what our transmitter does: the far MP's asks (v34_train_tx.c's settle()) */
static smdsp_noinline void tx_asked(struct smdsp_v34 *s)
{
	struct smdsp_v34_mp far;
	bool ack;

	if (smdsp_v34_train_rx_far_mp(s->trx, &far, &ack)) {
		s->st.tx.nonlinear = far.nonlinear;
		s->st.tx.expanded = far.expanded;
	}
}

/* what our receiver asked for and undoes */
static smdsp_noinline void rx_asked(struct smdsp_v34 *s)
{
	struct smdsp_v34_mp ours;

	if (smdsp_v34_train_rx_our_mp(s->trx, &ours)) {
		s->st.rx.nonlinear = ours.nonlinear;
		s->st.rx.expanded = ours.expanded;
	}
}

/*
 * The answer modem in phase 3, its INFO1a sent. A call modem that missed
 * it (lost, or its CRC bad) goes back in phase 2 (v34_phase2.c's restart:
 * its tone B, then INFO0c with the ack bit a round trip and 103 ms later)
 * while we train, and would never be heard. So until our receiver finds
 * the far S (the call modem took INFO1a), and within phase 2's window for
 * it, phase 2 is still fed what we hear: an INFO0c takes it back to the
 * reversals (its reopen), and us with it. On a 2-wire line our training's
 * echo fills the DPSK receiver's band (at ERL 6 dB it is above the far
 * end's signal), but tone B is heard in our receiver's tone watch after its
 * canceller (T_RT_HEAR, as a retrain's tone), if only once the canceller
 * has converged, after the INFO0c: phase 2 goes back on the tone as on the
 * INFO0c (its tone A, its reversal once the INFO0c is heard or due:
 * smdsp_v34_phase2_reopen_tone()). The call modem is silent in
 * phase 3 until our J has trained it, so that window holds nothing else of
 * its own. The train ends are reset, and set up again at phase 2's end;
 * phase 2's own timeouts bound the rest.
 */
static smdsp_noinline bool far_back(struct smdsp_v34 *s)
{
	/* phase 2 still done: not reopened by an INFO0c, perhaps by the tone */
	if (smdsp_v34_phase2_state(&s->p2) == SMDSP_V34P2_DONE) {
		if (s->state != SMDSP_V34_PHASE3 || smdsp_v34_train_rx_state(s->trx) != SMDSP_V34_T_IDLE ||
		    !smdsp_v34_phase2_reopenable(&s->p2)) {
			s->p2_listen = false;
			return false;
		}
		if (smdsp_v34_train_rx_tone_ms(s->trx) < T_RT_HEAR || !smdsp_v34_phase2_reopen_tone(&s->p2))
			return false;
	}
	s->st.p3_left++;
	phase2_again(s);
	return true;
}

/* the decisions, on the grid (not inlined: off the receiver's stack too) */
static smdsp_noinline void decide(struct smdsp_v34 *s)
{
	enum smdsp_v34_train_state t, r;

	if (s->state == SMDSP_V34_PHASE2) {
		phase2_end(s);
		return;
	}
	if (s->p2_listen && far_back(s))
		return;
	if (s->state == SMDSP_V34_FAILED)
		return;
	if (s->state == SMDSP_V34_CLEARED) {
		if (after(s->now, s->st.cleared_at)) {
			s->tx_on = false;
			s->rx_on = false;
		}
		return;
	}
	if (s->state == SMDSP_V34_RETRAIN) {
		retraining(s);
		return;
	}
	t = smdsp_v34_train_tx_state(s->ttx);
	r = smdsp_v34_train_rx_state(s->trx);
	if (s->state == SMDSP_V34_DATA || s->state == SMDSP_V34_RENEG) {
		in_data(s, t, r);
		return;
	}
	if (t == SMDSP_V34_T_FAILED || r == SMDSP_V34_T_FAILED) {
		fail(s, SMDSP_V34_FAIL_RATE);
		return;
	}
	/* the call modem: the far J heard, our S next */
	if (!s->tx_on && smdsp_v34_train_rx_trained(s->trx)) {
		s->tx_on = true;
		s->tx_from = s->now;
	}
	/* ... and our J until the far end's phase 4 (its J') */
	if (!s->attached && r >= SMDSP_V34_T_TRN4) {
		smdsp_v34_train_tx_attach(s->ttx, s->trx);
		s->attached = true;
	}
	/* 2-wire, the answer modem's phase 4 has no J': its TRN, as the call modem's after J' */
	if (s->state == SMDSP_V34_PHASE3 && t >= (s->cfg.two_wire ? SMDSP_V34_T_TRN4 : SMDSP_V34_T_JP))
		s->state = SMDSP_V34_PHASE4;
	if (t == SMDSP_V34_T_DATA && !s->st.tx_data_at) {
		s->st.tx_data_at = s->now;
		s->st.tx.rate = smdsp_v34_train_tx_rate(s->ttx);
		s->st.tx.states = smdsp_v34_train_tx_states(s->ttx);
		s->st.aux = smdsp_v34_train_tx_aux(s->ttx);
		tx_asked(s);
	}
	if (!s->st.rx.mp_rate && smdsp_v34_train_rx_trained(s->trx)) {
		struct smdsp_v34_train_stats ts;

		/* our receiver's own choice from its trained error (v34_train_rx.c), in our MP */
		smdsp_v34_train_rx_get_stats(s->trx, &ts);
		s->st.rx.mp_rate = ts.mp_rate;
		s->st.rx.trn_mse_db10 = ts.trn_mse_db10;
	}
	if (r == SMDSP_V34_T_DATA && !s->st.rx_data_at) {
		struct smdsp_v34_train_stats ts;
		struct smdsp_v34_mp far;
		bool ack;

		s->st.rx_data_at = s->now;
		/* 2-wire, phase 4's TRN error may have lowered the rate our last MPs asked for */
		smdsp_v34_train_rx_get_stats(s->trx, &ts);
		s->st.rx.mp_rate = ts.mp_rate;
		s->st.rx.trn4_mse_db10 = ts.trn4_mse_db10;
		if (smdsp_v34_train_rx_far_mp(s->trx, &far, &ack)) {
			unsigned int ours = s->st.rx.mp_rate / 2400;
			unsigned int theirs = s->cfg.calling ? far.rate_a_to_c : far.rate_c_to_a;

			s->st.rx.rate = 2400 * (theirs < ours ? theirs : ours);
		}
		s->st.rx.states = s->cfg.trellis;
		rx_asked(s);
	}
	if (s->state == SMDSP_V34_PHASE4 && s->st.tx_data_at && s->st.rx_data_at) {
		data_begins(s);
		return;
	}
	if ((int32_t)(s->now - s->deadline) >= 0)
		fail(s, why_late(s));
}

/* our training's output, at our level */
static void run_train_tx(struct smdsp_v34 *s, int16_t *tx, unsigned int n)
{
	int16_t buf[SMDSP_V34_STEP];
	unsigned int i;

	smdsp_v34_train_tx_process(s->ttx, buf, n);
	for (i = 0; i < n; i++)
		tx[i] = smdsp_sat16((int32_t)tx[i] + (((int32_t)buf[i] * s->gain + (1 << 11)) >> 12));
}

/* one step of at most SMDSP_V34_STEP samples, ending on the grid or before it */
static void step(struct smdsp_v34 *s, const int16_t *rx, int16_t *tx, unsigned int n)
{
	unsigned int i;

	if (s->state == SMDSP_V34_PHASE2 || s->p2_listen || (int32_t)(s->now - s->tail_until) < 0)
		smdsp_v34_phase2_process(&s->p2, rx, tx, n);
	else if (s->state == SMDSP_V34_RETRAIN)
		retrain_tone(s, tx, n);
	else
		memset(tx, 0, n * sizeof(*tx));
	if (s->rx_on)
		level(s, rx, n);
	if (s->state == SMDSP_V34_PHASE2) {
		if (s->near.on)
			near_watch(s, rx, tx, n);
		for (i = 0; i < n; i++) {
			s->hist[s->hist_pos] = rx[i];
			s->hist_pos = (s->hist_pos + 1) % SMDSP_V34_RXHIST;
		}
	}
	if (s->tx_on && (int32_t)(s->now + n - s->tx_from) > 0) {
		unsigned int skip = (int32_t)(s->tx_from - s->now) > 0 ? s->tx_from - s->now : 0;

		run_train_tx(s, tx + skip, n - skip);
		/* 2-wire, the call modem's transmitter runs silent until its S: that starts phase 3 */
		if (!s->st.phase3_at && smdsp_v34_train_tx_state(s->ttx) != SMDSP_V34_T_IDLE)
			s->st.phase3_at = s->now + skip;
		if (s->md_hold_due && smdsp_v34_train_tx_state(s->ttx) == SMDSP_V34_T_J)
			md_hold(s, n);
	}
	if (s->rx_on) {
		/* a flag, not the time alone: a call of days would wrap it */
		if (s->mute && (int32_t)(s->now - s->mute_until) >= 0)
			s->mute = false;
		if (s->mute)
			memset(s->rxbuf + s->rxn, 0, n * sizeof(*rx));
		else
			memcpy(s->rxbuf + s->rxn, rx, n * sizeof(*rx));
		s->rxn += n;
	}
	s->now += n;
	if (s->now % SMDSP_V34_STEP)
		return;
	/*
	 * The receiver a whole step at a time: its timing loop moves the
	 * instants between its chunks, and our transmitter asks it for J's end
	 * and MP as it pulls symbols, so both must see it at the same samples
	 * whatever the caller's blocks
	 */
	if (s->rxn)
		smdsp_v34_train_rx_process(s->trx, s->rxbuf, s->rxn);
	s->rxn = 0;
	decide(s);
	if (s->hist_due) {
		s->hist_due = false;
		for (i = 0; i < SMDSP_V34_RXHIST; i++)
			smdsp_v34_train_rx_process(s->trx, &s->hist[(s->hist_pos + i) % SMDSP_V34_RXHIST], 1);
	}
}

/*
 * The output ran ahead of the input (an I/O loop's lead grew): the
 * training's signal goes on with nothing received, as a hole in it would
 * slip the far receiver's symbols and mapping frames for good. The
 * canceller reads what we sent by its index, which the line keeps (the
 * output and the input each continuous), so its latency stays right.
 * Phase 2 and the silent hand-over send silence (and the tail of phase
 * 2's last pulse under S's start is left out): its tones and 600 bit/s
 * frames are timed against what we hear, and a frame missed is sent again.
 */
void smdsp_v34_fill(struct smdsp_v34 *s, int16_t *tx, unsigned int n)
{
	memset(tx, 0, n * sizeof(*tx));
	if (s->state == SMDSP_V34_FAILED || s->state == SMDSP_V34_PHASE2 || !s->tx_on ||
	    (int32_t)(s->now - s->tx_from) < 0)
		return;
	while (n) {
		unsigned int m = n < SMDSP_V34_STEP ? n : SMDSP_V34_STEP;

		run_train_tx(s, tx, m);
		tx += m;
		n -= m;
	}
}

void smdsp_v34_process(struct smdsp_v34 *s, const int16_t *rx, int16_t *tx, unsigned int n)
{
	while (n) {
		unsigned int m = SMDSP_V34_STEP - s->now % SMDSP_V34_STEP;

		if (m > n)
			m = n;
		if (s->state == SMDSP_V34_FAILED || (s->state == SMDSP_V34_CLEARED && !s->tx_on)) {
			memset(tx, 0, m * sizeof(*tx));
			s->now += m;
		} else {
			step(s, rx, tx, m);
		}
		rx += m;
		tx += m;
		n -= m;
	}
}
