// SPDX-License-Identifier: GPL-2.0
/*
 * V.8 start-up procedure at the bit level.
 *
 * Messages are V.21 octets framed with a start and a stop bit, behind a
 * preamble of ten ones and a sync octet (0x00 for CI, 0xe0 for CM/JM,
 * 0x55 for V.92). CJ is three framed zero octets without a preamble.
 * A CM or JM counts only when two identical ones arrive in a row.
 *
 * The caller sends CI in bursts (four CI, then 500 ms of silence) until it
 * hears the answer tone, and stops once a 2100 Hz tone is heard, at the end
 * of the CI in progress (as V.25's caller stops its calling tone): whether
 * the tone is ANSam (V.8 follows) or ANS (a V.25 answerer) takes hundreds
 * of milliseconds to tell, and CI sent meanwhile only comes back as echo
 * over the tone, or reaches an answerer that is not listening for it. Should
 * the tone go before it was told apart, the bursts resume after a pause.
 */
#include <smdsp/v8.h>

#define PREAMBLE_BITS	10
#define MAX_MSG		32
#define MAX_TX_BITS	192

#define SYNC_CI		0x00
#define SYNC_CM		0xe0
#define SYNC_V92	0x55

#define TAG_CALL_FUNCTION	0x01
#define TAG_MODULATION		0x05
#define TAG_PROTOCOLS		0x0a
#define PROTOCOL_LAPM		1

#define CI_PER_BURST	4		/* V.8 asks for at least three */
#define CI_OFF_MS	500
#define TE_MS		500		/* V.8 8.1.1: at least 0.5 s after ANSam */
#define CM_TIMEOUT_MS	5000
#define ANSAM_MS	5000
#define JM_TIMEOUT_MS	5000
#define SILENCE_MS	75
/* CJ's three framed zero octets, newest bit in bit 0: each 9 zeros and a stop bit */
#define CJ_MASK		((1u << 30) - 1)
#define CJ_BITS		(1u << 0 | 1u << 10 | 1u << 20)

enum {
	ST_CI_ON,
	ST_CI_OFF,
	ST_CI_HOLD,			/* CI stopped: a tone is being told apart */
	ST_WAIT_TONE,
	ST_TE,
	ST_CM,
	ST_CJ,
	ST_SIGC,
	ST_ANSAM,
	ST_GAP,
	ST_JM,
	ST_SIGA,
	ST_END,
};

enum {
	RX_NONE,
	RX_CI,
	RX_CM_JM,
	RX_V92,
};

struct smdsp_v8 {
	struct smdsp_v8_config cfg;
	int state;
	uint32_t timer;			/* samples left in a timed state */
	uint32_t guard;			/* samples left before giving up */
	unsigned int ci_left;
	int tone_heard;			/* a 2100 Hz tone, not yet ANS or ANSam */

	/* transmitter */
	uint8_t tx[MAX_TX_BITS];
	unsigned int tx_len;
	unsigned int tx_pos;
	uint8_t jm_mod_octets;

	/* receiver */
	uint32_t sr;
	unsigned int ones;
	int rx_type;
	int oct_state;			/* 0 hunting a start bit, 1 in an octet */
	unsigned int oct_n;
	unsigned int oct_acc;
	int msg_bad;
	uint8_t msg[MAX_MSG];
	unsigned int msg_len;
	uint8_t prev[MAX_MSG];
	unsigned int prev_len;
	unsigned int zeros;		/* consecutive zero octets (CJ) */
	uint32_t cj_sr;			/* the last 30 bits, newest in bit 0 (CJ) */
	unsigned int peer_mod_octets;

	struct smdsp_v8_result res;
};

static uint32_t ms_to_samples(const struct smdsp_v8 *s, uint32_t ms)
{
	return ms * (s->cfg.sample_rate / 1000u);
}

unsigned int smdsp_v8_select(unsigned int mods)
{
	/* fastest first; the half-duplex fax modes are no data call */
	static const unsigned int pref[] = {
		SMDSP_V8_MOD_V90, SMDSP_V8_MOD_V34, SMDSP_V8_MOD_V32,
		SMDSP_V8_MOD_V22, SMDSP_V8_MOD_V23, SMDSP_V8_MOD_V21,
	};
	unsigned int i;

	for (i = 0; i < SMDSP_ARRAY_SIZE(pref); i++)
		if (mods & pref[i])
			return pref[i];
	return 0;
}

/* ---- transmitter ---- */

static void tx_clear(struct smdsp_v8 *s)
{
	s->tx_len = 0;
	s->tx_pos = 0;
}

static void tx_preamble(struct smdsp_v8 *s)
{
	unsigned int i;

	for (i = 0; i < PREAMBLE_BITS && s->tx_len < MAX_TX_BITS; i++)
		s->tx[s->tx_len++] = 1;
}

static void tx_octet(struct smdsp_v8 *s, uint8_t o)
{
	unsigned int i;

	if (s->tx_len + 10 > MAX_TX_BITS)
		return;
	s->tx[s->tx_len++] = 0;
	for (i = 0; i < 8; i++)
		s->tx[s->tx_len++] = (o >> i) & 1;
	s->tx[s->tx_len++] = 1;
}

static void tx_ci(struct smdsp_v8 *s)
{
	tx_preamble(s);
	tx_octet(s, SYNC_CI);
	tx_octet(s, (uint8_t)((s->cfg.call_function << 5) | TAG_CALL_FUNCTION));
}

/*
 * The modulation category: an octet with the tag, then up to two extension
 * octets. Which bit of which octet stands for which mode:
 */
#define MOD_OCTETS	3
#define EXT_OCTET	0x10		/* bits 3-5 = 010: an extension octet */

static const struct {
	uint8_t octet;
	uint8_t bit;
	unsigned int mod;
} mod_bits[] = {
	{ 0, 0x20, SMDSP_V8_MOD_V90 },
	{ 0, 0x40, SMDSP_V8_MOD_V34 },
	{ 0, 0x80, SMDSP_V8_MOD_V34HDX },
	{ 1, 0x01, SMDSP_V8_MOD_V32 },
	{ 1, 0x02, SMDSP_V8_MOD_V22 },
	{ 1, 0x04, SMDSP_V8_MOD_V17 },
	{ 1, 0x40, SMDSP_V8_MOD_V29 },
	{ 1, 0x80, SMDSP_V8_MOD_V27TER },
	{ 2, 0x01, SMDSP_V8_MOD_V26TER },
	{ 2, 0x02, SMDSP_V8_MOD_V26BIS },
	{ 2, 0x04, SMDSP_V8_MOD_V23 },
	{ 2, 0x40, SMDSP_V8_MOD_V23HDX },
	{ 2, 0x80, SMDSP_V8_MOD_V21 },
};

static int mod_extension(uint8_t o)
{
	return (o & 0x38) == EXT_OCTET;
}

/* the modes m in the first n octets of the category (at least the first) */
static void tx_modulations(struct smdsp_v8 *s, unsigned int m, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < MOD_OCTETS && (i == 0 || i < n); i++) {
		uint8_t o = i ? EXT_OCTET : TAG_MODULATION;

		for (k = 0; k < SMDSP_ARRAY_SIZE(mod_bits); k++)
			if (mod_bits[k].octet == i && (m & mod_bits[k].mod))
				o |= mod_bits[k].bit;
		tx_octet(s, o);
	}
}

/* CM (calling) or JM (answering) */
static void tx_cm_jm(struct smdsp_v8 *s)
{
	unsigned int mods;
	int lapm;
	int cf;

	if (s->cfg.calling) {
		mods = s->cfg.modulations;
		lapm = s->cfg.lapm;
		cf = s->cfg.call_function;
	} else {
		/* JM: what both can do, with as many modulation octets as the CM had */
		mods = s->res.common;
		lapm = s->res.lapm;
		cf = s->res.call_function;
	}
	tx_preamble(s);
	tx_octet(s, SYNC_CM);
	tx_octet(s, (uint8_t)((cf << 5) | TAG_CALL_FUNCTION));
	tx_modulations(s, mods, s->cfg.calling ? 3 : s->jm_mod_octets);
	if (lapm)
		tx_octet(s, (PROTOCOL_LAPM << 5) | TAG_PROTOCOLS);
}

static void tx_cj(struct smdsp_v8 *s)
{
	unsigned int end = s->tx_pos;

	/*
	 * Ten ones and CJ's first zero octet read as a CI sync, which eats
	 * that octet (SpanDSP's answerer then counts two zero octets, not
	 * three, and never hears CJ). Counting the stop bit before it, a
	 * preamble stopped after at most eight of its ones is safe; from the
	 * ninth on, send the rest of it and its sync octet, so that CJ follows
	 * a sync. Anywhere else, complete the octet in progress (octets start
	 * every 10 bits after the preamble): each holds a zero.
	 */
	if (end < s->tx_len && end >= PREAMBLE_BITS - 1 && end < 2 * PREAMBLE_BITS)
		end = 2 * PREAMBLE_BITS;
	else if (end >= PREAMBLE_BITS && end < s->tx_len && end % 10)
		end += 10 - end % 10;
	if (end > s->tx_len)
		end = s->tx_len;
	s->tx_len = end;
	if (s->tx_pos >= s->tx_len)
		tx_clear(s);
	/* make room at the front if needed */
	if (s->tx_len + 30 > MAX_TX_BITS) {
		unsigned int i, n = s->tx_len - s->tx_pos;

		for (i = 0; i < n; i++)
			s->tx[i] = s->tx[s->tx_pos + i];
		s->tx_pos = 0;
		s->tx_len = n;
	}
	tx_octet(s, 0);
	tx_octet(s, 0);
	tx_octet(s, 0);
}

static void set_state(struct smdsp_v8 *s, int state, uint32_t ms)
{
	s->state = state;
	s->timer = ms_to_samples(s, ms);
}

static void finish(struct smdsp_v8 *s, int status)
{
	s->res.status = status;
	s->state = ST_END;
	tx_clear(s);
}

int smdsp_v8_get_bit(struct smdsp_v8 *s)
{
	if (smdsp_v8_tx_signal(s) != SMDSP_V8_TX_V21)
		return 1;
	if (s->tx_pos >= s->tx_len) {
		tx_clear(s);
		switch (s->state) {
		case ST_CI_ON:
			if (s->tone_heard) {
				s->state = ST_CI_HOLD;
				return 1;
			}
			if (s->ci_left) {
				s->ci_left--;
				tx_ci(s);
			} else {
				set_state(s, ST_CI_OFF, CI_OFF_MS);
				return 1;
			}
			break;
		case ST_CM:
		case ST_JM:
			tx_cm_jm(s);
			break;
		case ST_CJ:
			set_state(s, ST_SIGC, SILENCE_MS);
			return 1;
		default:
			return 1;
		}
	}
	return s->tx[s->tx_pos++];
}

int smdsp_v8_tx_signal(const struct smdsp_v8 *s)
{
	switch (s->state) {
	case ST_CI_ON:
	case ST_CM:
	case ST_CJ:
	case ST_JM:
		return SMDSP_V8_TX_V21;
	case ST_ANSAM:
		return SMDSP_V8_TX_ANSAM;
	default:
		return SMDSP_V8_TX_SILENCE;
	}
}

int smdsp_v8_tx_channel(const struct smdsp_v8 *s)
{
	return s->cfg.calling ? 1 : 2;
}

/* ---- receiver ---- */

/* the category at m[*i], moving *i past it; *noct: its octets */
static unsigned int decode_modulations(const uint8_t *m, unsigned int len,
				       unsigned int *i, unsigned int *noct)
{
	unsigned int k, mods = 0;

	*noct = 0;
	do {
		uint8_t o = m[(*i)++];

		for (k = 0; k < SMDSP_ARRAY_SIZE(mod_bits); k++)
			if (mod_bits[k].octet == *noct && (o & mod_bits[k].bit))
				mods |= mod_bits[k].mod;
		(*noct)++;
	} while (*noct < MOD_OCTETS && *i < len && mod_extension(m[*i]));
	return mods;
}

/* returns 0 unless the message has a call function and modulation category */
static int decode_cm_jm(const uint8_t *m, unsigned int len, unsigned int *mods,
			int *cf, int *lapm, unsigned int *noct)
{
	unsigned int i = 0;
	int have_cf = 0, have_mod = 0;

	*mods = 0;
	*lapm = 0;
	*cf = 0;
	*noct = 0;
	while (i < len) {
		uint8_t o = m[i];

		switch (o & 0x1f) {
		case TAG_CALL_FUNCTION:
			*cf = o >> 5;
			have_cf = 1;
			i++;
			break;
		case TAG_MODULATION:
			*mods = decode_modulations(m, len, &i, noct);
			have_mod = 1;
			break;
		case TAG_PROTOCOLS:
			*lapm = (o >> 5) == PROTOCOL_LAPM;
			i++;
			break;
		default:
			i++;
			break;
		}
		/* extension octets of categories we do not know */
		while (i < len && mod_extension(m[i]))
			i++;
	}
	return have_cf && have_mod;
}

/* a CM (answering) or JM (calling) that came twice: what both ends can run */
static void take_peer(struct smdsp_v8 *s, unsigned int mods, int cf, int lapm)
{
	s->res.peer_modulations = mods;
	s->res.call_function = cf;
	s->res.peer_lapm = lapm;
	/* a JM may echo our CM: only what we offered counts */
	s->res.common = mods & s->cfg.modulations;
	s->res.lapm = lapm && s->cfg.lapm;
	s->res.selected = smdsp_v8_select(s->res.common);
}

static void accept_cm(struct smdsp_v8 *s, unsigned int mods, int cf, int lapm,
		      unsigned int noct)
{
	take_peer(s, mods, cf, lapm);
	s->jm_mod_octets = (uint8_t)(noct ? noct : 1);
	/* stop ANSam, a short silence, then JM until CJ */
	set_state(s, ST_GAP, SILENCE_MS);
	s->guard = ms_to_samples(s, JM_TIMEOUT_MS);
	tx_clear(s);
}

static void accept_jm(struct smdsp_v8 *s, unsigned int mods, int cf, int lapm)
{
	take_peer(s, mods, cf, lapm);
	s->state = ST_CJ;
	tx_cj(s);
}

static void msg_end(struct smdsp_v8 *s)
{
	unsigned int mods, noct;
	int cf, lapm, same;

	if (s->rx_type == RX_CI && !s->msg_bad && s->msg_len >= 1 &&
	    (s->msg[0] & 0x1f) == TAG_CALL_FUNCTION)
		s->res.ci_seen++;
	if (s->rx_type != RX_CM_JM)
		goto out;
	if (s->msg_bad || s->msg_len == 0 ||
	    !decode_cm_jm(s->msg, s->msg_len, &mods, &cf, &lapm, &noct)) {
		s->prev_len = 0;
		goto out;
	}
	s->res.cm_seen++;
	same = s->prev_len == s->msg_len &&
	       !memcmp(s->prev, s->msg, s->msg_len);
	memcpy(s->prev, s->msg, s->msg_len);
	s->prev_len = s->msg_len;
	if (!same)
		goto out;
	if (!s->cfg.calling && s->state == ST_ANSAM)
		accept_cm(s, mods, cf, lapm, noct);
	else if (s->cfg.calling && s->state == ST_CM)
		accept_jm(s, mods, cf, lapm);
out:
	s->msg_len = 0;
	s->msg_bad = 0;
}

/* CJ: stop JM, a short silence, then the modulation */
static void got_cj(struct smdsp_v8 *s)
{
	tx_clear(s);
	set_state(s, ST_SIGA, SILENCE_MS);
}

static void got_octet(struct smdsp_v8 *s, uint8_t o)
{
	if (o == 0) {
		if (++s->zeros >= 3 && s->state == ST_JM)
			got_cj(s);
	} else {
		s->zeros = 0;
	}
	if (s->msg_len < MAX_MSG)
		s->msg[s->msg_len++] = o;
	else
		s->msg_bad = 1;
}

void smdsp_v8_put_bit(struct smdsp_v8 *s, int bit)
{
	uint32_t sync;

	bit = bit ? 1 : 0;
	if (s->state == ST_END)
		return;
	/*
	 * CJ whatever the octet framing: a caller that hears JM may cut its
	 * CM anywhere (SpanDSP flushes it mid-octet) and start CJ at once,
	 * without a preamble. The octet framer then takes a CJ zero for the
	 * start bit, and as CJ repeats every 10 bits it stays off by the
	 * same bits for good: no zero octet, no CJ, and V.8 timed out behind
	 * some round trips. Three framed zero octets (start, 8 zeros, stop)
	 * in the raw bits are CJ; CM and JM hold no zero octet, so nothing
	 * in them has 9 zeros in a row.
	 */
	s->cj_sr = (s->cj_sr << 1 | (uint32_t)bit) & CJ_MASK;
	if (s->state == ST_JM && s->cj_sr == CJ_BITS) {
		got_cj(s);
		return;
	}
	/* newest bit on top: a sync reads 10 ones, start, octet, stop */
	s->sr = (s->sr >> 1) | ((uint32_t)bit << 19);
	sync = s->sr & 0xfffff;
	if ((sync & 0x803ff) == 0x803ff && !(sync & (1u << 10))) {
		uint8_t o = (uint8_t)(sync >> 11);
		int type = o == SYNC_CI ? RX_CI : o == SYNC_CM ? RX_CM_JM :
			   o == SYNC_V92 ? RX_V92 : RX_NONE;

		if (type == RX_CI && s->state == ST_JM) {
			/*
			 * CJ right after a CM's preamble: marks and a zero
			 * octet, like a CI sync. A caller sends no CI now.
			 */
			s->oct_state = 0;
			got_octet(s, 0);
			return;
		}
		if (type != RX_NONE) {
			if (s->rx_type != RX_NONE)
				msg_end(s);
			s->rx_type = type;
			s->msg_len = 0;
			s->msg_bad = 0;
			s->oct_state = 0;
			s->ones = 0;
			return;
		}
	}
	if (bit) {
		/* ten ones: a preamble, so whatever came before is complete */
		if (++s->ones == PREAMBLE_BITS && s->rx_type != RX_NONE) {
			msg_end(s);
			s->rx_type = RX_NONE;
		}
	} else {
		s->ones = 0;
	}
	/* while sending JM, octets count even after marks: CJ has no preamble */
	if (s->rx_type == RX_NONE && s->state != ST_JM) {
		s->oct_state = 0;
		return;
	}
	if (s->oct_state == 0) {
		if (!bit) {
			s->oct_state = 1;
			s->oct_n = 0;
			s->oct_acc = 0;
		}
		return;
	}
	if (s->oct_n < 8) {
		s->oct_acc |= (unsigned int)bit << s->oct_n;
		s->oct_n++;
		return;
	}
	s->oct_state = 0;
	if (bit)
		got_octet(s, (uint8_t)s->oct_acc);
	else
		s->msg_bad = 1;
}

/* ---- time and events ---- */

static int tick(uint32_t *t, unsigned int n)
{
	if (*t > n) {
		*t -= n;
		return 0;
	}
	*t = 0;
	return 1;
}

void smdsp_v8_advance(struct smdsp_v8 *s, unsigned int samples)
{
	switch (s->state) {
	case ST_CI_OFF:
		if (tick(&s->timer, samples)) {
			s->ci_left = CI_PER_BURST;
			s->state = ST_CI_ON;
		}
		break;
	case ST_TE:
		if (tick(&s->timer, samples)) {
			s->state = ST_CM;
			s->guard = ms_to_samples(s, CM_TIMEOUT_MS);
			tx_clear(s);
		}
		break;
	case ST_CM:
		if (tick(&s->guard, samples))
			finish(s, SMDSP_V8_FAILED);
		break;
	case ST_SIGC:
	case ST_SIGA:
		if (tick(&s->timer, samples))
			finish(s, SMDSP_V8_DONE);
		break;
	case ST_ANSAM:
		/* no CM while ANSam lasted: the caller does not do V.8 */
		if (tick(&s->timer, samples))
			finish(s, SMDSP_V8_NON_V8);
		break;
	case ST_GAP:
		if (tick(&s->timer, samples)) {
			s->state = ST_JM;
			tx_clear(s);
		}
		break;
	case ST_JM:
		if (tick(&s->guard, samples))
			finish(s, SMDSP_V8_FAILED);
		break;
	default:
		break;
	}
}

void smdsp_v8_answer_tone(struct smdsp_v8 *s, int tone)
{
	if (!s->cfg.calling)
		return;
	if (s->state != ST_CI_ON && s->state != ST_CI_OFF &&
	    s->state != ST_CI_HOLD && s->state != ST_WAIT_TONE)
		return;
	if (tone == SMDSP_V8_TONE_HEARD) {
		/* the CI in progress ends first (smdsp_v8_get_bit()) */
		s->tone_heard = 1;
		if (s->state == ST_CI_OFF)
			s->state = ST_CI_HOLD;
		return;
	}
	s->tone_heard = 0;
	if (tone == SMDSP_V8_TONE_NONE) {
		/* gone before it was told apart: a full pause, then CI again */
		if (s->state == ST_CI_HOLD)
			set_state(s, ST_CI_OFF, CI_OFF_MS);
		return;
	}
	if (tone == SMDSP_V8_TONE_ANSAM) {
		tx_clear(s);
		set_state(s, ST_TE, TE_MS);
	} else if (tone == SMDSP_V8_TONE_ANS) {
		finish(s, SMDSP_V8_NON_V8);
	}
}

int smdsp_v8_status(const struct smdsp_v8 *s)
{
	return s->res.status;
}

void smdsp_v8_get_result(const struct smdsp_v8 *s, struct smdsp_v8_result *r)
{
	*r = s->res;
}

int smdsp_v8_reset(struct smdsp_v8 *s, const struct smdsp_v8_config *cfg)
{
	uint32_t rate;

	if (!s || !cfg)
		return -EINVAL;
	rate = cfg->sample_rate ? cfg->sample_rate : 8000;
	if (rate < 1000 || rate > 192000)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->cfg.sample_rate = rate;
	if (!s->cfg.call_function)
		s->cfg.call_function = SMDSP_V8_CALL_V_SERIES;
	s->cfg.call_function &= 7;
	s->res.status = SMDSP_V8_IN_PROGRESS;
	if (s->cfg.calling) {
		if (s->cfg.send_ci) {
			s->state = ST_CI_ON;
			s->ci_left = CI_PER_BURST;
		} else {
			s->state = ST_WAIT_TONE;
		}
	} else {
		set_state(s, ST_ANSAM, ANSAM_MS);
	}
	return 0;
}

struct smdsp_v8 *smdsp_v8_create(const struct smdsp_v8_config *cfg)
{
	struct smdsp_v8 *s;

	if (!cfg)
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (!s)
		return NULL;
	if (smdsp_v8_reset(s, cfg)) {
		smdsp_free(s);
		return NULL;
	}
	return s;
}

void smdsp_v8_free(struct smdsp_v8 *s)
{
	smdsp_free(s);
}

int smdsp_v8_print(const struct smdsp_v8 *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v8 state=%d status=%d timer=%u rx_type=%d",
			s->state, smdsp_v8_status(s), s->timer, s->rx_type);
}
