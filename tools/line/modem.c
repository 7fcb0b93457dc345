// SPDX-License-Identifier: GPL-2.0
/*
 * smline: one SpanDSP modem (answer tone, V.8, V.21/V.22/V.22bis, V.42,
 * V.42bis through v42bis_far.c), with our V.32bis (v32far.c) and V.34
 * (v34far.c) pumps.
 *
 * SpanDSP 0.0.6 gotchas handled here:
 * - its V.22bis answerer never sends the 2100 Hz answer tone: we send ANS
 *   with modem_connect_tones_tx (or ANSam through V.8) before starting it;
 * - V.42 only starts after v42_restart() following v42_init();
 * - with noise on the line the default carrier cutoff lets noise "train":
 *   we measure the noise floor while the line is quiet and raise the cutoff;
 * - its V.8 answerer echoes the caller's CM as JM: we cut the offered
 *   modulations down to our own in the V8_STATUS_V8_OFFERED report, which
 *   SpanDSP then sends as JM.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spandsp.h>

#include "modem.h"
#include "v32far.h"
#include "v34far.h"

#define ANS_GAP_MS 75		/* V.25: silence between ANS and modulation */
#define FLOOR_BLOCK 160		/* noise floor measurement block */
#define CUTOFF_MIN_DBM0 -43.0	/* SpanDSP's own default region */
/*
 * SpanDSP compares the cutoff with the power after its receive filter:
 * white noise of -30 dBm0 reads about -41 dBm0 there (measured, V.22bis
 * both ways), so 2 dB under the wideband floor is still ~9 dB above the
 * noise it sees, and a weak signal stays above the cutoff.
 */
#define CUTOFF_MARGIN_DB -2.0
/*
 * Marks sent after entering the data phase before the first character: the
 * far receiver may finish training a little later than we do, and a late
 * start would lose the first characters of an async stream.
 */
#define DATA_IDLE_MS 300
#define SML_ERR_MARKS 8		/* errors kept for sml_modem_near_open()'s look back */

struct hdlc_mon {
	hdlc_rx_state_t *rx;
	struct sml_modem *m;
	bool is_tx;
	int next_ns;		/* tx: N(S) of the next new I frame */
	bool seen_any;
	int last_nr;		/* rx: latest N(R) from the far end */
};

struct sml_modem {
	struct sml_modem_cfg cfg;
	const char *who;
	sml_modem_event_fn ev;
	void *ev_user;
	struct sml_fifo *txf, *rxf;

	int64_t now;		/* samples processed */
	int64_t phase_start;
	enum sml_modem_phase phase;
	struct sml_modem_stats st;

	/* noise floor */
	double floor_acc, floor_min;
	int floor_n, floor_blocks;
	double cutoff;

	/* answer tone */
	modem_connect_tones_tx_state_t *ans_tx;
	struct ans_det {
		double q1, q2, energy;
		int n;
		int good, bad;	/* consecutive blocks with / without tone */
	} det;
	bool heard_tone;	/* caller: answer tone detected */
	bool tone_ended;
	bool v8_sent;		/* caller: V.8 sent CM, so it is running */
	int64_t gap_left;	/* silence still to send/wait before modulation */

	/* V.8 */
	v8_state_t *v8;
	v8_parms_t v8p;
	int v8_status;		/* last status reported, -1 none */
	bool v8_lapm;		/* V.8 agreed on LAPM: no V.42 detection phase */
	unsigned int v8_mods;

	/* data pump */
	bool pump_on;
	v22bis_state_t *v22;
	struct sml_v32far *v32;
	struct sml_v34far *v34;
	fsk_tx_state_t *fsk_tx;
	fsk_rx_state_t *fsk_rx;
	bool trained;
	bool carrier;
	int64_t carrier_down_at;

	/* V.42 */
	v42_state_t *v42;
	struct sml_v42bis *bis;	/* SpanDSP's V.42bis as XID agreed (v42bis_far.c) */
	bool link_up;
	bool near_open;		/* the near end's loop open: its carrier gone */
	/* the latest errors counted as the link's, for sml_modem_near_open()'s look back */
	struct { int64_t at; bool fcs; } err[SML_ERR_MARKS];
	unsigned int nerr;
	bool v42_fallback;	/* detection failed: continue without V.42 */
	struct hdlc_mon mon_tx, mon_rx;

	/* async 8N1 framing when V.42 is off */
	int atx_bits;		/* bits left of the current character */
	uint16_t atx_shift;
	int arx_state;		/* -1 hunting for start bit, else bits got */
	uint16_t arx_shift;
	int arx_ones;		/* marks seen since the last character */
	bool arx_synced;	/* seen the idle marks that precede data */
};

static const char *phase_names[] = {
	[SML_PH_IDLE] = "idle",
	[SML_PH_WAIT_ANS] = "wait-answer-tone",
	[SML_PH_BILLING] = "billing-delay",
	[SML_PH_ANS] = "answer-tone",
	[SML_PH_V8] = "v8",
	[SML_PH_TRAINING] = "training",
	[SML_PH_LINK] = "v42-link",
	[SML_PH_DATA] = "data",
	[SML_PH_FAILED] = "failed",
	[SML_PH_CARRIER_LOST] = "carrier-lost",
	[SML_PH_STOPPED] = "stopped",
};

const char *sml_modem_phase_name(enum sml_modem_phase p)
{
	return phase_names[p];
}

const char *sml_mod_name(enum sml_mod m)
{
	switch (m) {
	case SML_MOD_V21:
		return "V.21";
	case SML_MOD_V22:
		return "V.22";
	case SML_MOD_V22BIS:
		return "V.22bis";
	case SML_MOD_V32:
		return "V.32";
	case SML_MOD_V32BIS:
		return "V.32bis";
	case SML_MOD_V34:
		return "V.34";
	}
	return "?";
}

void sml_modem_cfg_default(struct sml_modem_cfg *c)
{
	memset(c, 0, sizeof(*c));
	/* the best both ends run: V.32bis, V.22bis (automode) for a modem without it */
	c->mod = SML_MOD_V32BIS;
	c->ans_delay_ms = 2000;
	c->tx_dbm0 = -13.0;
	c->rx_cutoff_dbm0 = 0.0;
	c->wait_ans_ms = 30000;
	c->train_timeout_ms = 15000;
	c->carrier_loss_ms = 1500;
	/*
	 * V.34's whole range: each receiver chooses what its trained error
	 * carries (doc/v34.md). "v34max=" lowers it.
	 */
	c->v34_max_rate = SML_V34_MAX_RATE;
	sml_v42bis_cfg_default(&c->v42bis);
}

/* V.34's data rates: 2400 to 33600 bit/s in steps of 2400 */
static int parse_max_rate(const char *s, unsigned int *rate)
{
	char *end;
	unsigned long r = strtoul(s, &end, 10);

	if (end == s || *end || r < 2400 || r > 33600 || r % 2400)
		return -1;
	*rate = (unsigned int)r;
	return 0;
}

int sml_modem_cfg_parse_word(struct sml_modem_cfg *c, const char *w)
{
	static const struct {
		const char *word;
		enum sml_mod mod;
	} mods[] = {
		{ "v21", SML_MOD_V21 }, { "v22", SML_MOD_V22 }, { "v22bis", SML_MOD_V22BIS },
		{ "v32", SML_MOD_V32 }, { "v32bis", SML_MOD_V32BIS }, { "v34", SML_MOD_V34 },
	};
	size_t i;

	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		if (!strcmp(w, mods[i].word)) {
			c->mod = mods[i].mod;
			/* V.34 starts only through V.8 (a later "nov8" still turns it off) */
			if (c->mod == SML_MOD_V34)
				c->v8 = true;
			return 0;
		}
	/* v8, v42 and their "no" forms */
	if (!strcmp(w + (strncmp(w, "no", 2) ? 0 : 2), "v8"))
		c->v8 = strncmp(w, "no", 2) != 0;
	else if (!strcmp(w + (strncmp(w, "no", 2) ? 0 : 2), "v42"))
		c->v42 = strncmp(w, "no", 2) != 0;
	else if (!sml_v42bis_cfg_parse_word(&c->v42bis, w))
		return 0;
	else if (!strncmp(w, "ansdelay=", 9))
		c->ans_delay_ms = atoi(w + 9);
	else if (!strncmp(w, "txlevel=", 8))
		c->tx_dbm0 = atof(w + 8);
	else if (!strncmp(w, "cutoff=", 7))
		c->rx_cutoff_dbm0 = atof(w + 7);
	else if (!strncmp(w, "v34max=", 7))
		return parse_max_rate(w + 7, &c->v34_max_rate);
	else
		return -1;
	return 0;
}

/* one --events line, stamped with the line's time and the call */
static bool event_begin(struct sml_modem *m, struct sml_json *j, const char *event)
{
	return m->cfg.event_call &&
	       sml_event_begin(j, m->cfg.event_origin + m->now, m->cfg.event_call,
			       m->who, event);
}

static void set_phase(struct sml_modem *m, enum sml_modem_phase p,
		      const char *detail)
{
	struct sml_json j;

	if (m->phase == p)
		return;
	m->phase = p;
	m->phase_start = m->now;
	sml_log(SML_LOG_DEBUG, m->now, m->who, "phase %s%s%s", phase_names[p],
		detail ? ": " : "", detail ? detail : "");
	if (event_begin(m, &j, "phase")) {
		sml_json_str(&j, "phase", phase_names[p]);
		sml_json_str(&j, "detail", detail);
		if (p == SML_PH_DATA) {
			sml_json_str(&j, "modulation", sml_mod_name(m->st.mod));
			sml_json_int(&j, "rate", m->st.rate);
			sml_json_bool(&j, "v42", m->st.v42);
		}
		sml_event_end(&j);
	}
	if (m->ev)
		m->ev(m->ev_user, m->now, p, detail);
}

static void fail(struct sml_modem *m, const char *why)
{
	snprintf(m->st.fail_reason, sizeof(m->st.fail_reason), "%s", why);
	set_phase(m, SML_PH_FAILED, why);
}

/* a bad frame (fcs) or character: the link's, or the silence's after the near loop opened */
static void count_error(struct sml_modem *m, bool fcs)
{
	if (m->near_open) {
		if (fcs)
			m->st.fcs_errors_open++;
		else
			m->st.framing_errors_open++;
		return;
	}
	if (fcs)
		m->st.fcs_errors++;
	else
		m->st.framing_errors++;
	m->err[m->nerr % SML_ERR_MARKS].at = m->now;
	m->err[m->nerr % SML_ERR_MARKS].fcs = fcs;
	m->nerr++;
}

/* ---- HDLC monitors: count what V.42 does, without its private state ---- */
static void mon_frame(void *user, const uint8_t *pkt, int len, int ok)
{
	/* the octets that say what a frame is: address, control (two for I and S) */
	static const char *const octet[] = { "address", "control", "control2" };
	struct hdlc_mon *h = user;
	struct sml_modem *m = h->m;
	struct sml_json j;
	int k;

	if (len < 0)
		return;		/* status report */
	if (event_begin(m, &j, "frame")) {
		sml_json_str(&j, "dir", h->is_tx ? "tx" : "rx");
		sml_json_int(&j, "len", len);
		sml_json_bool(&j, "fcs_ok", ok);
		for (k = 0; k < 3; k++) {
			if (k < len)
				sml_json_int(&j, octet[k], pkt[k]);
			else
				sml_json_null(&j, octet[k]);
		}
		sml_event_end(&j);
	}
	if (sml_log_level >= SML_LOG_FRAMES)
		sml_log(SML_LOG_FRAMES, m->now, m->who, "%s %s len %d %02x %02x %02x",
			h->is_tx ? "sent" : "got ", ok ? "ok " : "BAD", len,
			len > 0 ? pkt[0] : 0, len > 1 ? pkt[1] : 0,
			len > 2 ? pkt[2] : 0);
	if (!ok) {
		if (!h->is_tx && m->link_up)
			count_error(m, true);
		return;
	}
	if (m->bis)
		sml_v42bis_frame(m->bis, h->is_tx, pkt, len, m->now);
	if (len < 2)
		return;
	if ((pkt[1] & 0x01) == 0) {
		/* I frame, modulo 128: N(S) in octet 2, N(R) in octet 3 */
		int ns = pkt[1] >> 1;

		if (h->is_tx) {
			if (h->seen_any && ns != h->next_ns)
				m->st.retransmissions++;
			else
				h->next_ns = (ns + 1) & 0x7F;
			h->seen_any = true;
		} else if (len >= 3) {
			h->last_nr = pkt[2] >> 1;
		}
	} else if ((pkt[1] & 0x03) == 0x01) {
		/* S frame: RR 0x01, RNR 0x05, REJ 0x09, SREJ 0x0D */
		if (!h->is_tx) {
			if ((pkt[1] & 0x0C) == 0x08 || (pkt[1] & 0x0C) == 0x0C)
				m->st.rej_rx++;
			else if ((pkt[1] & 0x0C) == 0x04)
				m->st.rnr_rx++;
			if (len >= 3)
				h->last_nr = pkt[2] >> 1;
		}
	} else if ((pkt[1] & 0xEF) == 0x6F) {
		/* SABME: the link (re)starts numbering from zero */
		m->mon_tx.seen_any = false;
		m->mon_tx.next_ns = 0;
		m->mon_rx.last_nr = 0;
	}
}

static void mon_init(struct sml_modem *m, struct hdlc_mon *h, bool is_tx)
{
	memset(h, 0, sizeof(*h));
	h->m = m;
	h->is_tx = is_tx;
	h->rx = hdlc_rx_init(NULL, FALSE, TRUE, 2, mon_frame, h);
}

bool sml_modem_tx_busy(const struct sml_modem *m)
{
	if (m->txf->len || (m->bis && sml_v42bis_tx_pending(m->bis)))
		return true;
	if (m->phase == SML_PH_DATA && m->link_up && m->mon_tx.seen_any)
		return m->mon_tx.next_ns != m->mon_rx.last_nr;
	if (m->phase == SML_PH_DATA && !m->st.v42)
		return m->atx_bits > 0;
	return false;
}

/* ---- V.42 frame callbacks ---- */
static int v42_get_frame(void *user, uint8_t *msg, int max_len)
{
	struct sml_modem *m = user;
	size_t n;

	if (m->phase != SML_PH_DATA)
		return 0;
	if (m->bis) {
		int got = sml_v42bis_get(m->bis, msg, max_len, &n);

		m->st.bytes_tx += n;
		m->st.v42bis = *sml_v42bis_stats(m->bis);
		return got;
	}
	n = sml_fifo_get(m->txf, msg, (size_t)max_len);
	m->st.bytes_tx += n;
	return (int)n;
}

static void v42_put_frame(void *user, const uint8_t *msg, int len)
{
	struct sml_modem *m = user;

	if (len < 0 || !msg)
		return;
	if (m->bis) {
		m->st.bytes_rx += sml_v42bis_put(m->bis, msg, len);
		m->st.v42bis = *sml_v42bis_stats(m->bis);
		return;
	}
	if (sml_fifo_put(m->rxf, msg, (size_t)len) < (size_t)len)
		sml_log(SML_LOG_ERR, m->now, m->who, "receive fifo overflow");
	m->st.bytes_rx += (uint64_t)len;
}

static void v42_status(void *user, int status)
{
	struct sml_modem *m = user;
	struct sml_json j;

	sml_log(SML_LOG_DEBUG, m->now, m->who, "v42 status %s",
		signal_status_to_str(status));
	if (event_begin(m, &j, "v42")) {
		/* the link's own reports are negative, LAPM's detection phase's not */
		sml_json_str(&j, "status", status < 0 ? signal_status_to_str(status)
						     : lapm_status_to_str(status));
		sml_event_end(&j);
	}
	if (status == SIG_STATUS_LINK_CONNECTED) {
		m->link_up = true;
		m->st.v42 = true;
		if (m->bis) {
			sml_v42bis_link_up(m->bis, m->now);
			m->st.v42bis = *sml_v42bis_stats(m->bis);
		}
		if (m->phase == SML_PH_LINK || m->phase == SML_PH_TRAINING) {
			m->st.data_sample = m->now;
			set_phase(m, SML_PH_DATA, "LAPM up");
		}
	} else if (status == SIG_STATUS_LINK_DISCONNECTED) {
		m->link_up = false;
	} else if (status >= 0 &&
		   !strcmp(lapm_status_to_str(status), "LAPM_V42_UNSUPPORTED")) {
		/* the far end never answered the detection phase: no V.42 */
		m->v42_fallback = true;
	}
}

/* ---- async 8N1 ---- */
static int async_get_bit(struct sml_modem *m)
{
	int bit;

	if (m->atx_bits == 0) {
		uint8_t c;

		if (m->phase != SML_PH_DATA ||
		    m->now - m->phase_start < SML_MS(DATA_IDLE_MS) ||
		    !sml_fifo_get(m->txf, &c, 1))
			return 1;	/* idle mark */
		m->st.bytes_tx++;
		/* start bit 0, 8 data bits LSB first, stop bit 1 */
		m->atx_shift = (uint16_t)((c << 1) | 0x200);
		m->atx_bits = 10;
	}
	bit = m->atx_shift & 1;
	m->atx_shift >>= 1;
	m->atx_bits--;
	return bit;
}

static void async_put_bit(struct sml_modem *m, int bit)
{
	if (!m->trained)
		return;
	if (m->arx_state < 0) {
		/*
		 * A start bit only counts after a mark; the first one after
		 * training only after a long run of marks, so that the tail of
		 * V.8 (also V.21 FSK) or of the training is not taken as data.
		 */
		if (bit == 0 && m->arx_ones >= (m->arx_synced ? 1 : 20)) {
			m->arx_synced = true;
			m->arx_state = 0;
			m->arx_shift = 0;
		}
		m->arx_ones = bit ? m->arx_ones + 1 : 0;
		return;
	}
	if (m->arx_state < 8) {
		m->arx_shift |= (uint16_t)(bit << m->arx_state);
		m->arx_state++;
		return;
	}
	/* stop bit */
	if (bit) {
		uint8_t c = (uint8_t)m->arx_shift;

		if (!sml_fifo_put(m->rxf, &c, 1))
			sml_log(SML_LOG_ERR, m->now, m->who, "receive fifo overflow");
		m->st.bytes_rx++;
		m->arx_ones = 1;
	} else {
		count_error(m, false);
		m->arx_ones = 0;
	}
	m->arx_state = -1;
}

/* ---- pump callbacks ---- */
static void pump_status(struct sml_modem *m, int status)
{
	struct sml_json j;

	sml_log(SML_LOG_DEBUG, m->now, m->who, "pump status %s",
		signal_status_to_str(status));
	if ((status == SIG_STATUS_CARRIER_UP || status == SIG_STATUS_CARRIER_DOWN) &&
	    event_begin(m, &j, "carrier")) {
		sml_json_bool(&j, "up", status == SIG_STATUS_CARRIER_UP);
		sml_event_end(&j);
	}
	switch (status) {
	case SIG_STATUS_TRAINING_SUCCEEDED:
		if (m->trained && (m->v22 || m->v32)) {
			int rate = m->v22 ? v22bis_get_current_bit_rate(m->v22) :
				   sml_v32far_rate(m->v32);

			m->st.retrains++;
			m->st.rate = rate;
			sml_log(SML_LOG_DEBUG, m->now, m->who, "retrained at %d bit/s", rate);
			if (event_begin(m, &j, "retrain")) {
				sml_json_int(&j, "rate", rate);
				sml_event_end(&j);
			}
		}
		m->trained = true;
		m->carrier = true;
		break;
	case SIG_STATUS_CARRIER_UP:
		/* a drop counts once the carrier is back: the last one is the hang-up */
		if (!m->carrier && m->phase == SML_PH_DATA)
			m->st.carrier_drops++;
		m->carrier = true;
		/* FSK has no training: carrier is the whole start-up */
		if (m->st.mod == SML_MOD_V21)
			m->trained = true;
		break;
	case SIG_STATUS_CARRIER_DOWN:
		m->carrier = false;
		m->carrier_down_at = m->now;
		break;
	case SIG_STATUS_TRAINING_FAILED:
		sml_log(SML_LOG_DEBUG, m->now, m->who, "training failed, retrying");
		break;
	default:
		break;
	}
}

static int pump_get_bit(void *user)
{
	struct sml_modem *m = user;
	int bit;

	if (m->v42) {
		bit = v42_tx_bit(m->v42);
		if (bit < 0)
			bit = 1;
		hdlc_rx_put_bit(m->mon_tx.rx, bit);
		return bit;
	}
	return async_get_bit(m);
}

static void pump_put_bit(void *user, int bit)
{
	struct sml_modem *m = user;

	if (bit < 0) {
		pump_status(m, bit);
		if (m->v42)
			v42_rx_bit(m->v42, bit);
		return;
	}
	if (m->v42) {
		hdlc_rx_put_bit(m->mon_rx.rx, bit);
		v42_rx_bit(m->v42, bit);
		return;
	}
	async_put_bit(m, bit);
}

static void set_cutoff(struct sml_modem *m);

static void pump_status_cb(void *user, int status)
{
	pump_status(user, status);
}

static void start_pump(struct sml_modem *m)
{
	bool caller = !m->cfg.answer;
	float cutoff;

	set_cutoff(m);
	cutoff = (float)m->cutoff;
	/* V.34 starts only where V.8 chose it: a caller without V.8 gets V.32bis's automode */
	if (m->st.mod == SML_MOD_V34 && !(m->st.v8_done && (m->v8_mods & V8_MOD_V34)))
		m->st.mod = SML_MOD_V32BIS;
	m->pump_on = true;
	m->trained = false;
	m->carrier = false;
	if (m->cfg.v42) {
		/*
		 * V.42 8.1: when V.8 has agreed on LAPM there is no detection
		 * phase (ODP/ADP); LAPM starts with SABME at once.
		 */
		m->v42 = v42_init(NULL, caller, !(m->st.v8_done && m->v8_lapm),
				  v42_get_frame, v42_put_frame, m);
		v42_set_status_callback(m->v42, v42_status, m);
		m->bis = sml_v42bis_new(&m->cfg.v42bis, m->v42, caller, m->txf, m->rxf,
					m->who);
		v42_restart(m->v42);
		mon_init(m, &m->mon_tx, true);
		mon_init(m, &m->mon_rx, false);
	}
	m->arx_state = -1;
	m->arx_ones = 0;
	if (m->st.mod == SML_MOD_V21) {
		/* V.21: caller sends on channel 1, answerer on channel 2 */
		m->fsk_tx = fsk_tx_init(NULL, &preset_fsk_specs[caller ? FSK_V21CH1 : FSK_V21CH2],
					pump_get_bit, m);
		fsk_tx_power(m->fsk_tx, (float)m->cfg.tx_dbm0);
		m->fsk_rx = fsk_rx_init(NULL, &preset_fsk_specs[caller ? FSK_V21CH2 : FSK_V21CH1],
					FSK_FRAME_MODE_SYNC, pump_put_bit, m);
		fsk_rx_signal_cutoff(m->fsk_rx, cutoff);
		fsk_rx_set_modem_status_handler(m->fsk_rx, pump_status_cb, m);
	} else if (m->st.mod == SML_MOD_V34) {
		struct sml_v34far_cfg vc = {
			.caller = caller,
			.tx_dbm0 = m->cfg.tx_dbm0,
			.max_rate = m->cfg.v34_max_rate,
			.echo_latency = m->cfg.block,
			.get_bit = pump_get_bit,
			.put_bit = pump_put_bit,
			.user = m,
		};

		m->v34 = sml_v34far_new(&vc);
	} else if (m->st.mod == SML_MOD_V32 || m->st.mod == SML_MOD_V32BIS) {
		struct sml_v32far_cfg vc = {
			.caller = caller,
			.v32 = m->st.mod == SML_MOD_V32,
			/* after V.8 chose V.32 (V.22 then unnamed) or without V.8 */
			.v22_fallback = !m->st.v8_done || (m->v8_mods & V8_MOD_V22),
			.tx_dbm0 = m->cfg.tx_dbm0,
			.cutoff_dbm0 = cutoff,
			.get_bit = pump_get_bit,
			.put_bit = pump_put_bit,
			.user = m,
			.echo_latency = m->cfg.block,
		};

		m->v32 = sml_v32far_new(&vc);
	} else {
		int rate = m->st.mod == SML_MOD_V22BIS ? 2400 : 1200;

		m->v22 = v22bis_init(NULL, rate, 0, caller, pump_get_bit, m,
				     pump_put_bit, m);
		v22bis_tx_power(m->v22, (float)m->cfg.tx_dbm0);
		v22bis_rx_signal_cutoff(m->v22, cutoff);
		v22bis_set_modem_status_handler(m->v22, pump_status_cb, m);
	}
	set_phase(m, SML_PH_TRAINING, sml_mod_name(m->st.mod));
}

/* V.42 and V.42bis gone: at the pump's end, or V.42's detection fallback */
static void v42_drop(struct sml_modem *m)
{
	v42_free(m->v42);
	m->v42 = NULL;
	sml_v42bis_free(m->bis);
	m->bis = NULL;
	hdlc_rx_free(m->mon_tx.rx);
	hdlc_rx_free(m->mon_rx.rx);
	m->mon_tx.rx = NULL;
	m->mon_rx.rx = NULL;
}

static void stop_pump(struct sml_modem *m)
{
	if (m->v22) {
		v22bis_free(m->v22);
		m->v22 = NULL;
	}
	sml_v32far_free(m->v32);
	m->v32 = NULL;
	if (m->v34)
		sml_v34far_info(m->v34, &m->st.v34);
	sml_v34far_free(m->v34);
	m->v34 = NULL;
	if (m->fsk_tx) {
		fsk_tx_free(m->fsk_tx);
		m->fsk_tx = NULL;
	}
	if (m->fsk_rx) {
		fsk_rx_free(m->fsk_rx);
		m->fsk_rx = NULL;
	}
	if (m->v42)
		v42_drop(m);
	m->pump_on = false;
}

/*
 * ---- answer tone detection ----
 * Our own Goertzel detector for 2100 Hz (ANS, ANS/, ANSam): SpanDSP's
 * notch detector needs about 20 dB SNR, a real modem hears ANS at 10 dB.
 * 20 ms blocks put 2100 Hz exactly on bin 42; the tone must hold most of
 * the block's power. Phase reversals (ANS/) spoil single blocks, so a
 * couple of bad blocks are forgiven before the tone counts as ended.
 */
#define ANS_BLOCK 160
#define ANS_ON_BLOCKS 15	/* 300 ms to detect */
#define ANS_OFF_BLOCKS 3	/* 60 ms to call it ended */
#define ANS_MIN_DBM0 -45.0

static void ans_detect(struct sml_modem *m, const int16_t *rx, int n)
{
	struct ans_det *d = &m->det;
	const double coeff = 2.0 * cos(2.0 * M_PI * 2100.0 / SML_RATE);
	int i;

	for (i = 0; i < n; i++) {
		double q0 = coeff * d->q1 - d->q2 + rx[i];
		double p, ratio;
		bool tone;

		d->q2 = d->q1;
		d->q1 = q0;
		d->energy += (double)rx[i] * rx[i];
		if (++d->n < ANS_BLOCK)
			continue;
		p = d->q1 * d->q1 + d->q2 * d->q2 - coeff * d->q1 * d->q2;
		ratio = d->energy > 0 ? 2.0 * p / (ANS_BLOCK * d->energy) : 0;
		tone = ratio > 0.6 &&
		       sml_rms_to_dbm0(sqrt(d->energy / ANS_BLOCK)) > ANS_MIN_DBM0;
		d->q1 = d->q2 = d->energy = 0;
		d->n = 0;
		if (tone) {
			d->good++;
			d->bad = 0;
		} else {
			d->bad++;
			if (d->bad > 2 || !m->heard_tone)
				d->good = 0;
		}
		if (!m->heard_tone && d->good >= ANS_ON_BLOCKS) {
			m->heard_tone = true;
			sml_log(SML_LOG_DEBUG, m->now + i, m->who, "heard answer tone");
			if (m->phase == SML_PH_WAIT_ANS)
				set_phase(m, SML_PH_ANS, "2100 Hz");
		} else if (m->heard_tone && !m->tone_ended &&
			   d->bad >= ANS_OFF_BLOCKS) {
			m->tone_ended = true;
			sml_log(SML_LOG_DEBUG, m->now + i, m->who, "answer tone ended");
		}
	}
}

/* ---- V.8 ---- */
static unsigned int v8_mask(enum sml_mod mod)
{
	if (mod == SML_MOD_V34)
		return V8_MOD_V34 | V8_MOD_V32 | V8_MOD_V22;
	if (mod == SML_MOD_V32 || mod == SML_MOD_V32BIS)
		return V8_MOD_V32 | V8_MOD_V22;
	return mod == SML_MOD_V21 ? V8_MOD_V21 : V8_MOD_V22;
}

static void v8_result(void *user, v8_parms_t *r)
{
	struct sml_modem *m = user;

	m->v8_status = r->status;
	sml_log(SML_LOG_DEBUG, m->now, m->who, "v8 status %d modulations 0x%x protocol %d",
		r->status, r->modulations, r->protocol);
	switch (r->status) {
	case V8_STATUS_V8_OFFERED:
		/* answerer: JM is built from this very structure */
		r->modulations &= m->v8p.modulations;
		r->protocol = m->cfg.v42 ? r->protocol : V8_PROTOCOL_NONE;
		break;
	case V8_STATUS_V8_CALL:
		m->v8_mods = r->modulations & m->v8p.modulations;
		m->v8_lapm = m->cfg.v42 && r->protocol == V8_PROTOCOL_LAPM_V42;
		break;
	default:
		break;
	}
}

static bool v8_finished(const struct sml_modem *m)
{
	return m->v8_status == V8_STATUS_V8_CALL ||
	       m->v8_status == V8_STATUS_FAILED ||
	       m->v8_status == V8_STATUS_NON_V8_CALL;
}

static void start_v8(struct sml_modem *m)
{
	memset(&m->v8p, 0, sizeof(m->v8p));
	m->v8p.modem_connect_tone = MODEM_CONNECT_TONES_ANSAM;
	m->v8p.send_ci = FALSE;
	m->v8p.v92 = -1;
	m->v8p.call_function = V8_CALL_V_SERIES;
	m->v8p.modulations = v8_mask(m->cfg.mod);
	m->v8p.protocol = m->cfg.v42 ? V8_PROTOCOL_LAPM_V42 : V8_PROTOCOL_NONE;
	m->v8p.pstn_access = 0;
	m->v8p.pcm_modem_availability = 0;
	m->v8p.nsf = -1;
	m->v8p.t66 = -1;
	m->v8_status = -1;
	m->v8 = v8_init(NULL, !m->cfg.answer, &m->v8p, v8_result, m);
}

/* ---- life cycle ---- */
struct sml_modem *sml_modem_new(const struct sml_modem_cfg *cfg,
				struct sml_fifo *tx_fifo,
				struct sml_fifo *rx_fifo, const char *who,
				sml_modem_event_fn ev, void *ev_user)
{
	struct sml_modem *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cfg = *cfg;
	m->who = who;
	m->ev = ev;
	m->ev_user = ev_user;
	m->txf = tx_fifo;
	m->rxf = rx_fifo;
	m->st.mod = cfg->mod;
	m->st.data_sample = -1;
	m->phase = SML_PH_IDLE;
	if (cfg->answer) {
		set_phase(m, SML_PH_BILLING, NULL);
	} else {
		if (cfg->v8)
			start_v8(m);
		set_phase(m, SML_PH_WAIT_ANS, NULL);
	}
	return m;
}

void sml_modem_free(struct sml_modem *m)
{
	if (!m)
		return;
	stop_pump(m);
	if (m->ans_tx)
		modem_connect_tones_tx_free(m->ans_tx);
	if (m->v8)
		v8_free(m->v8);
	free(m);
}

void sml_modem_stop(struct sml_modem *m)
{
	if (m->phase != SML_PH_STOPPED)
		set_phase(m, SML_PH_STOPPED, NULL);
}

enum sml_modem_phase sml_modem_phase(const struct sml_modem *m)
{
	return m->phase;
}

const struct sml_modem_stats *sml_modem_stats(const struct sml_modem *m)
{
	return &m->st;
}

int64_t sml_modem_now(const struct sml_modem *m)
{
	return m->now;
}

void sml_modem_near_open(struct sml_modem *m, bool open, int64_t lag)
{
	unsigned int k, n = m->nerr < SML_ERR_MARKS ? m->nerr : SML_ERR_MARKS;

	if (open && !m->near_open) {
		/* what came in since the loop may have opened goes with what follows */
		for (k = 0; k < n; k++) {
			unsigned int i = (m->nerr - 1 - k) % SML_ERR_MARKS;

			if (m->err[i].at < m->now - lag)
				break;
			if (m->err[i].fcs) {
				m->st.fcs_errors--;
				m->st.fcs_errors_open++;
			} else {
				m->st.framing_errors--;
				m->st.framing_errors_open++;
			}
		}
		m->nerr = 0;
	}
	m->near_open = open;
}

/*
 * The noise floor is the quietest 20 ms block heard before training: the
 * line may carry ringback or the answer tone meanwhile, so a mean would
 * overestimate it. White noise varies by well under 1 dB between blocks.
 */
static void measure_floor(struct sml_modem *m, const int16_t *rx, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		m->floor_acc += (double)rx[i] * rx[i];
		if (++m->floor_n == FLOOR_BLOCK) {
			double db = sml_rms_to_dbm0(sqrt(m->floor_acc / FLOOR_BLOCK));

			if (!m->floor_blocks || db < m->floor_min)
				m->floor_min = db;
			m->floor_blocks++;
			m->floor_acc = 0;
			m->floor_n = 0;
		}
	}
}

static void set_cutoff(struct sml_modem *m)
{
	if (m->cfg.rx_cutoff_dbm0) {
		m->cutoff = m->cfg.rx_cutoff_dbm0;
		return;
	}
	m->cutoff = CUTOFF_MIN_DBM0;
	if (m->floor_blocks && m->floor_min + CUTOFF_MARGIN_DB > m->cutoff)
		m->cutoff = m->floor_min + CUTOFF_MARGIN_DB;
	sml_log(SML_LOG_DEBUG, m->now, m->who,
		"noise floor %.1f dBm0 (%d blocks), carrier cutoff %.1f dBm0",
		m->floor_blocks ? m->floor_min : -99.0, m->floor_blocks, m->cutoff);
}

/* choose the modulation V.8 agreed on, or keep ours */
static void pick_v8_modulation(struct sml_modem *m)
{
	bool v34 = m->cfg.mod == SML_MOD_V34;
	bool v32 = v34 || m->cfg.mod == SML_MOD_V32 || m->cfg.mod == SML_MOD_V32BIS;

	if (v34 && (m->v8_mods & V8_MOD_V34))
		m->st.mod = SML_MOD_V34;
	else if (v32 && (m->v8_mods & V8_MOD_V32))
		m->st.mod = v34 ? SML_MOD_V32BIS : m->cfg.mod;
	else if (m->v8_mods & V8_MOD_V22)
		m->st.mod = m->cfg.mod == SML_MOD_V21 || v32 ? SML_MOD_V22BIS : m->cfg.mod;
	else if (m->v8_mods & V8_MOD_V21)
		m->st.mod = SML_MOD_V21;
	m->st.v8_done = true;
}

/*
 * V.34's start-up (phase 2, both trainings, phase 4) gives up by its own
 * timers, which on a long round trip add up past V.32bis's training limit:
 * twice the limit is only the backstop there.
 */
static int train_limit_ms(const struct sml_modem *m)
{
	return m->v34 && m->phase == SML_PH_TRAINING ? 2 * m->cfg.train_timeout_ms :
	       m->cfg.train_timeout_ms;
}

static void run_answerer(struct sml_modem *m, const int16_t *rx, int16_t *tx,
			 int n)
{
	int done;

	switch (m->phase) {
	case SML_PH_BILLING:
		measure_floor(m, rx, n);
		if (m->now - m->phase_start < SML_MS(m->cfg.ans_delay_ms))
			return;
		if (m->cfg.v8) {
			start_v8(m);
			set_phase(m, SML_PH_V8, "ANSam");
		} else {
			m->ans_tx = modem_connect_tones_tx_init(NULL, MODEM_CONNECT_TONES_ANS);
			set_phase(m, SML_PH_ANS, "ANS 2100 Hz");
		}
		return;
	case SML_PH_ANS:
		if (m->ans_tx) {
			done = modem_connect_tones_tx(m->ans_tx, tx, n);
			if (done < n) {
				modem_connect_tones_tx_free(m->ans_tx);
				m->ans_tx = NULL;
				m->gap_left = SML_MS(ANS_GAP_MS);
			}
			return;
		}
		m->gap_left -= n;
		if (m->gap_left <= 0)
			start_pump(m);
		return;
	case SML_PH_V8:
		v8_tx(m->v8, tx, n);
		v8_rx(m->v8, rx, n);
		if (m->v8_status == V8_STATUS_V8_CALL) {
			pick_v8_modulation(m);
			if (!m->v8_mods) {
				fail(m, "V.8: no common modulation");
				return;
			}
			start_pump(m);
		} else if (m->v8_status == V8_STATUS_FAILED ||
			   m->v8_status == V8_STATUS_NON_V8_CALL) {
			/* no CM during ANSam: the caller is not V.8, go on as V.25 */
			sml_log(SML_LOG_DEBUG, m->now, m->who, "no V.8 from caller");
			start_pump(m);
		}
		return;
	default:
		return;
	}
}

static void run_caller(struct sml_modem *m, const int16_t *rx, int16_t *tx,
		       int n)
{
	ans_detect(m, rx, n);
	if (m->v8 && !v8_finished(m)) {
		if (v8_tx(m->v8, tx, n) > 0)
			m->v8_sent = true;
		v8_rx(m->v8, rx, n);
	}
	if (m->phase == SML_PH_WAIT_ANS) {
		measure_floor(m, rx, n);
		if (m->v8_sent)
			set_phase(m, SML_PH_V8, "CM");
		else if (m->now - m->phase_start >= SML_MS(m->cfg.wait_ans_ms))
			fail(m, "no answer tone");
		return;
	}
	if (m->v8_sent && m->phase != SML_PH_V8)
		set_phase(m, SML_PH_V8, "CM");
	/*
	 * An answer tone lasts 2.6-4 s (V.25) and V.8's exchange a few more: a
	 * tone that never ends, or a V.8 that never finishes, is not a modem.
	 * Without this a line that plays 2100 Hz forever held the call until
	 * the other side hung up.
	 */
	if ((m->phase == SML_PH_ANS || m->phase == SML_PH_V8) &&
	    m->now - m->phase_start >= SML_MS(m->cfg.wait_ans_ms)) {
		fail(m, m->phase == SML_PH_V8 ? "V.8 did not finish" :
		     "answer tone did not end");
		return;
	}
	if (m->v8 && m->v8_status == V8_STATUS_V8_CALL) {
		pick_v8_modulation(m);
		if (!m->v8_mods) {
			fail(m, "V.8: no common modulation");
			return;
		}
		start_pump(m);
		return;
	}
	/* V.8 running (it answers ANSam with CM): let it finish */
	if (m->v8_sent && !v8_finished(m))
		return;
	if (m->v8_sent) {
		/* V.8 gave up: start as after plain ANS once the line is quiet */
		if (m->det.bad >= ANS_OFF_BLOCKS)
			start_pump(m);
		return;
	}
	if (m->tone_ended)
		start_pump(m);
}

void sml_modem_process(struct sml_modem *m, const int16_t *rx, int16_t *tx,
		       int n)
{
	int got;

	memset(tx, 0, sizeof(*tx) * (size_t)n);
	switch (m->phase) {
	case SML_PH_STOPPED:
	case SML_PH_FAILED:
	case SML_PH_CARRIER_LOST:
		break;
	case SML_PH_IDLE:
		break;
	case SML_PH_TRAINING:
	case SML_PH_LINK:
	case SML_PH_DATA:
		if (m->v22) {
			v22bis_rx(m->v22, rx, n);
			got = v22bis_tx(m->v22, tx, n);
		} else if (m->v32) {
			sml_v32far_process(m->v32, rx, tx, n);
			if (sml_v32far_is_v22(m->v32))
				m->st.mod = SML_MOD_V22BIS;
		} else if (m->v34) {
			sml_v34far_process(m->v34, rx, tx, n);
			sml_v34far_info(m->v34, &m->st.v34);
			if (m->phase == SML_PH_TRAINING && sml_v34far_failed(m->v34)) {
				fail(m, sml_v34far_failed(m->v34));
				memset(tx, 0, sizeof(*tx) * (size_t)n);
				break;
			}
		} else {
			fsk_rx(m->fsk_rx, rx, n);
			got = fsk_tx(m->fsk_tx, tx, n);
		}
		(void)got;
		if (m->phase == SML_PH_TRAINING && m->trained) {
			if (m->v22)
				m->st.rate = v22bis_get_current_bit_rate(m->v22);
			else if (m->v32)
				m->st.rate = sml_v32far_rate(m->v32);
			else if (m->v34)
				m->st.rate = sml_v34far_rate(m->v34);
			else
				m->st.rate = 300;
			if (m->v42) {
				set_phase(m, SML_PH_LINK, NULL);
			} else {
				m->st.data_sample = m->now + n;
				set_phase(m, SML_PH_DATA, NULL);
			}
		}
		if (m->v42_fallback && m->phase == SML_PH_LINK) {
			/*
			 * V.42 8.2: without an answer to detection, carry on in
			 * normal (async) mode. SpanDSP times this in bits at
			 * its own assumed rate, so it takes ~9 s at 2400 bit/s.
			 */
			v42_drop(m);
			m->v42_fallback = false;
			m->st.data_sample = m->now + n;
			set_phase(m, SML_PH_DATA, "V.42 not supported by the far end");
		}
		if (m->phase != SML_PH_DATA &&
		    m->now - m->phase_start >= SML_MS(train_limit_ms(m))) {
			fail(m, m->phase == SML_PH_LINK ? "V.42 link not established"
							 : "training timed out");
			break;
		}
		if (m->phase == SML_PH_DATA && !m->carrier &&
		    m->now - m->carrier_down_at >= SML_MS(m->cfg.carrier_loss_ms)) {
			m->st.carrier_drops++;
			set_phase(m, SML_PH_CARRIER_LOST, NULL);
			memset(tx, 0, sizeof(*tx) * (size_t)n);
		}
		break;
	default:
		if (m->cfg.answer)
			run_answerer(m, rx, tx, n);
		else
			run_caller(m, rx, tx, n);
		break;
	}
	m->now += n;
}
