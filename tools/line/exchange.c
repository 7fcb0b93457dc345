// SPDX-License-Identifier: GPL-2.0
/*
 * smline: the exchange (call progress, routing, ringing, far modem, records).
 *
 * Tones follow the North American precise tone plan (ITU-T E.180 lists it):
 * dial 350+440 Hz continuous, ringback 440+480 Hz 2 s on / 4 s off, busy
 * 480+620 Hz 0.5 / 0.5 s, reorder 480+620 Hz 0.25 / 0.25 s. The ring signal
 * is 20 Hz, 2 s on / 4 s off, on the modem's receive path (see README).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spandsp.h>

#include "exchange.h"
#include "hook.h"

#define PULSE_MIN_MS 20		/* shorter breaks are noise */
#define PULSE_MAX_MS 150	/* longer breaks are a flash or a hang-up */
#define PULSE_DIGIT_GAP_MS 300	/* make this long ends a pulse digit */
#define OFFHOOK_MS 30		/* loop closed this long = off-hook */
#define MAX_EVENTS 256

enum xstate {
	X_IDLE,
	X_DEAD,			/* off-hook on an unplugged line */
	X_DIALTONE,
	X_DIALING,
	X_RINGBACK,
	X_BUSY,
	X_REORDER,
	X_CONNECTED,
	X_CLEARED,		/* far end hung up */
	X_RINGING_IN,
};

static const char *xstate_names[] = {
	[X_IDLE] = "idle", [X_DEAD] = "no-dialtone", [X_DIALTONE] = "dialtone",
	[X_DIALING] = "dialing", [X_RINGBACK] = "ringback", [X_BUSY] = "busy",
	[X_REORDER] = "reorder", [X_CONNECTED] = "connected",
	[X_CLEARED] = "cleared", [X_RINGING_IN] = "ringing",
};

struct event {
	int64_t t;
	char what[48];
};

struct call {
	int id;
	bool incoming;
	char number[32];
	const struct sml_route *route;
	struct sml_party party;
	const char *result;
	const char *end;
	int64_t start, answer, end_t, done_t;
	int rings;
	struct sml_modem *peer;
	struct sml_fax *fax;	/* instead of peer and svc on fax calls */
	struct sml_service *svc;
	struct sml_fifo to_modem, from_modem;
	bool peer_gone;
	int64_t worsened_at;	/* the line worsened (worsen=), -1: not (yet) */
	struct sml_modem_stats worse_st;	/* the far modem's figures then */
	struct event ev[MAX_EVENTS];
	int nev;
	/* kept after the peer is freed */
	struct sml_modem_stats pst;
	struct sml_service_stats sst;
	struct sml_fax_stats fst;
};

struct sml_exchange {
	struct sml_exchange_cfg cfg;
	int64_t now;
	enum xstate st;
	int64_t st_since;
	/* hook */
	bool raw, off;
	int64_t raw_since;
	int force;
	int pulses;
	int64_t last_make;
	/* digits */
	dtmf_rx_state_t *dtmf;
	char digits[32];
	int ndigits;
	int64_t last_digit;
	/* ringback answer time, or -1 */
	int64_t answer_at;
	const struct sml_route *pending;
	/* incoming */
	bool inc_used[SML_MAX_INCOMING];
	struct sml_incoming ring_req;
	bool ring_req_pending;
	const struct sml_incoming *ringing;
	/* current call */
	struct call *call;
	int ncalls;
};

/* ---- configuration ---- */
void sml_exchange_cfg_default(struct sml_exchange_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->dialtone_timeout_ms = 20000;
	c->interdigit_ms = 5000;
	c->hangup_ms = 300;
	c->ring_hz = 20.0;
	c->ring_dbm0 = 0.0;
	c->ring_on_ms = 2000;
	c->ring_off_ms = 4000;
	c->clear_ms = 2000;
	c->json = stdout;
}

#define WORSEN_MAX_S 86400	/* a day of line time */
#define WORSEN_NOISE_MIN -90
#define WORSEN_NOISE_MAX 6	/* SML_DBM0_FULLSCALE, rounded: full-scale noise */
#define WORSEN_LOSS_MAX 60

/* 0 taken, 1 not a worsen word, -2 bad (the reason printed in one line) */
static int worsen_word(struct sml_worsen *v, const char *w)
{
	if (!strncmp(w, "worsen=", 7)) {
		if (!sml_number_in(w + 7, 0, true, WORSEN_MAX_S, &v->at_s)) {
			fprintf(stderr,
				"smline: %s: the line worsens 0 to %d s into the data phase\n",
				w, WORSEN_MAX_S);
			return -2;
		}
		v->on = true;
	} else if (!strncmp(w, "worsen_noise=", 13)) {
		if (!sml_number_in(w + 13, WORSEN_NOISE_MIN, true, WORSEN_NOISE_MAX, &v->noise_dbm0)) {
			fprintf(stderr, "smline: %s: the noise added is %d to %d dBm0\n", w,
				WORSEN_NOISE_MIN, WORSEN_NOISE_MAX);
			return -2;
		}
		v->noise = true;
	} else if (!strncmp(w, "worsen_loss=", 12)) {
		if (!sml_number_in(w + 12, 0, false, WORSEN_LOSS_MAX, &v->loss_db)) {
			fprintf(stderr, "smline: %s: the loss added is 0 to %d dB (not 0)\n", w,
				WORSEN_LOSS_MAX);
			return -2;
		}
	} else {
		return 1;
	}
	return 0;
}

/* the worsen words make sense together: a time and something to worsen, a data call */
static int worsen_check(const struct sml_party *p)
{
	const struct sml_worsen *v = &p->worsen;
	bool what = v->noise || v->loss_db > 0;

	if (!v->on && what) {
		fprintf(stderr, "smline: worsen_noise= and worsen_loss= need worsen=SECONDS\n");
		return -2;
	}
	if (v->on && !what) {
		fprintf(stderr, "smline: worsen=%g needs worsen_noise=DBM0 or worsen_loss=DB\n",
			v->at_s);
		return -2;
	}
	if (v->on && p->fax.on) {
		fprintf(stderr, "smline: worsen= is for data calls (a fax has no data phase)\n");
		return -2;
	}
	return 0;
}

int sml_party_parse(struct sml_party *p, const char *words, char *from,
		    size_t fromlen)
{
	char buf[1024], *save = NULL, *w;

	snprintf(buf, sizeof(buf), "%s", words);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int r;

		r = worsen_word(&p->worsen, w);
		if (r <= 0) {
			if (r < 0)
				return r;
			continue;
		}
		if (!strncmp(w, "rings=", 6)) {
			p->rings = atoi(w + 6);
			continue;
		}
		if (from && !strncmp(w, "from=", 5)) {
			snprintf(from, fromlen, "%s", w + 5);
			continue;
		}
		if (!sml_modem_cfg_parse_word(&p->modem, w))
			continue;
		r = sml_fax_cfg_parse_word(&p->fax, w);
		if (r == 0)
			continue;
		if (r < 0) {
			fprintf(stderr, "smline: bad fax word '%s'\n", w);
			return -1;
		}
		r = sml_service_cfg_parse_word(&p->service, w);
		if (r == 0)
			continue;
		fprintf(stderr, "smline: unknown word '%s'\n", w);
		return -1;
	}
	if (sml_fax_cfg_check(&p->fax, buf, sizeof(buf))) {
		fprintf(stderr, "smline: %s\n", buf);
		return -2;
	}
	return worsen_check(p);
}

int sml_route_parse(struct sml_route *r, const char *spec)
{
	const char *eq = strchr(spec, '='), *type;
	size_t len;

	memset(r, 0, sizeof(*r));
	sml_modem_cfg_default(&r->party.modem);
	sml_fax_cfg_default(&r->party.fax);
	r->party.modem.answer = true;
	r->party.fax.answer = true;
	r->party.rings = 1;
	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(r->number))
		return -1;
	memcpy(r->number, spec, (size_t)(eq - spec));
	type = eq + 1;
	len = strcspn(type, ":");
	if (!strncmp(type, "answer", len) && len == 6)
		r->type = SML_R_ANSWER;
	else if (!strncmp(type, "busy", len) && len == 4)
		r->type = SML_R_BUSY;
	else if (!strncmp(type, "noanswer", len) && len == 8)
		r->type = SML_R_NOANSWER;
	else if (!strncmp(type, "unobtainable", len) && len == 12)
		r->type = SML_R_UNOBTAINABLE;
	else
		return -1;
	if (type[len] == ':')
		return sml_party_parse(&r->party, type + len + 1, NULL, 0);
	return 0;
}

int sml_incoming_parse(struct sml_incoming *in, const char *spec)
{
	const char *eq = strchr(spec, '=');
	char *end;
	double at;

	memset(in, 0, sizeof(*in));
	sml_modem_cfg_default(&in->party.modem);
	sml_fax_cfg_default(&in->party.fax);
	in->party.modem.answer = false;
	in->party.rings = 10;
	snprintf(in->from, sizeof(in->from), "unknown");
	at = strtod(spec, &end);
	if (end == spec || (eq && end != eq) || at < 0)
		return -1;
	in->at = (int64_t)llround(at * SML_RATE);
	if (eq)
		return sml_party_parse(&in->party, eq + 1, in->from, sizeof(in->from));
	return 0;
}

/* ---- tones ---- */
static double tone2(int64_t t, double f1, double f2, double dbm0_each)
{
	double a = sml_dbm0_to_rms(dbm0_each) * M_SQRT2;

	return a * (sin(2.0 * M_PI * f1 * (double)t / SML_RATE) +
		    sin(2.0 * M_PI * f2 * (double)t / SML_RATE));
}

static bool cadence_on(int64_t t, int on_ms, int off_ms)
{
	int64_t period = SML_MS(on_ms + off_ms);

	return off_ms == 0 || t % period < SML_MS(on_ms);
}

static void gen_tones(struct sml_exchange *x, int16_t *tx, int m)
{
	int i;

	for (i = 0; i < m; i++) {
		int64_t t = x->now + i - x->st_since;
		double v = 0.0;

		switch (x->st) {
		case X_DIALTONE:
			v = tone2(t, 350, 440, -13);
			break;
		case X_RINGBACK:
			if (cadence_on(t, 2000, 4000))
				v = tone2(t, 440, 480, -19);
			break;
		case X_BUSY:
			if (cadence_on(t, 500, 500))
				v = tone2(t, 480, 620, -24);
			break;
		case X_REORDER:
			if (cadence_on(t, 250, 250))
				v = tone2(t, 480, 620, -24);
			break;
		case X_CLEARED:
			if (t >= SML_MS(x->cfg.clear_ms) &&
			    cadence_on(t - SML_MS(x->cfg.clear_ms), 500, 500))
				v = tone2(t, 480, 620, -24);
			break;
		case X_RINGING_IN:
			if (cadence_on(t, x->cfg.ring_on_ms, x->cfg.ring_off_ms))
				v = sml_dbm0_to_rms(x->cfg.ring_dbm0) * M_SQRT2 *
				    sin(2.0 * M_PI * x->cfg.ring_hz * (double)t / SML_RATE);
			break;
		default:
			break;
		}
		if (v != 0.0)
			tx[i] = (int16_t)lrint(v);
	}
}

/* ---- call records ---- */
static void call_event(struct sml_exchange *x, int64_t t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void call_event(struct sml_exchange *x, int64_t t, const char *fmt, ...)
{
	struct call *c = x->call;
	char buf[48];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	sml_log(SML_LOG_INFO, t, "exchange", "%s", buf);
	if (c && c->nev < MAX_EVENTS) {
		c->ev[c->nev].t = t;
		snprintf(c->ev[c->nev].what, sizeof(c->ev[c->nev].what), "%s", buf);
		c->nev++;
	}
}

/* one --events line of the current call (false: no events file) */
static bool event_begin(struct sml_exchange *x, struct sml_json *j, int64_t t,
			const char *event)
{
	return sml_event_begin(j, t, x->call ? x->call->id : 0, "exchange", event);
}

/* an event with at most one field, a string (key NULL: none) */
static void event(struct sml_exchange *x, int64_t t, const char *name, const char *key,
		  const char *val)
{
	struct sml_json j;

	if (!event_begin(x, &j, t, name))
		return;
	if (key)
		sml_json_str(&j, key, val);
	sml_event_end(&j);
}

static void set_state(struct sml_exchange *x, enum xstate s)
{
	x->st = s;
	x->st_since = x->now;
	sml_log(SML_LOG_DEBUG, x->now, "exchange", "state %s", xstate_names[s]);
	event(x, x->now, "state", "state", xstate_names[s]);
}

static struct call *call_new(struct sml_exchange *x, bool incoming)
{
	struct call *c = calloc(1, sizeof(*c));

	if (!c)
		abort();
	c->id = ++x->ncalls;
	c->incoming = incoming;
	c->start = x->now;
	c->answer = c->done_t = -1;
	c->worsened_at = -1;
	c->result = "abandoned";
	c->pst.data_sample = -1;
	x->call = c;
	return c;
}

static void peer_event(void *user, int64_t sample, enum sml_modem_phase ph,
		       const char *detail)
{
	struct sml_exchange *x = user;
	struct call *c = x->call;
	int64_t t = c->answer + sample;

	if (ph == SML_PH_DATA) {
		const struct sml_modem_stats *s = sml_modem_stats(c->peer);

		call_event(x, t, "far modem: data %s %d%s", sml_mod_name(s->mod),
			   s->rate, s->v42 ? " V.42" : "");
	} else {
		call_event(x, t, "far modem: %s%s%s", sml_modem_phase_name(ph),
			   detail ? " " : "", detail ? detail : "");
	}
}

static void start_peer(struct sml_exchange *x, const struct sml_party *p)
{
	struct call *c = x->call;
	struct sml_modem_cfg mc = p->modem;

	c->party = *p;
	c->answer = x->now;
	c->result = "failed";
	if (p->fax.on) {
		struct sml_fax_cfg fc = p->fax;

		fc.event_call = c->id;
		fc.event_origin = c->answer;
		c->fax = sml_fax_new(&fc, "far");
		if (!c->fax)
			sml_log(SML_LOG_ERR, x->now, "exchange", "fax terminal failed to start");
		call_event(x, x->now, "far fax: %s", fc.answer ? "CED" : "CNG");
		set_state(x, X_CONNECTED);
		return;
	}
	mc.event_call = c->id;
	mc.event_origin = c->answer;
	mc.block = x->cfg.block;
	sml_fifo_init(&c->to_modem, 512);
	sml_fifo_init(&c->from_modem, 65536);
	c->svc = sml_service_new(&p->service, &c->to_modem, &c->from_modem);
	if (!c->svc)
		sml_log(SML_LOG_ERR, x->now, "exchange", "data service failed to start");
	c->peer = sml_modem_new(&mc, &c->to_modem, &c->from_modem, "far",
				peer_event, x);
	set_state(x, X_CONNECTED);
}

static void stop_peer(struct call *c)
{
	if (c->fax) {
		sml_fax_stop(c->fax);
		c->fst = *sml_fax_stats(c->fax);
		/* the image transfer stands for a data modem's data phase */
		c->pst.data_sample = c->fst.dcs_sample;
		if (c->done_t < 0 && c->fst.end_sample >= 0)
			c->done_t = c->answer + c->fst.end_sample;
		if (c->fst.completion != T30_ERR_OK)
			snprintf(c->pst.fail_reason, sizeof(c->pst.fail_reason), "%s",
				 c->fst.completion_text);
		sml_fax_free(c->fax);
		c->fax = NULL;
	}
	if (c->peer) {
		c->pst = *sml_modem_stats(c->peer);
		sml_modem_free(c->peer);
		c->peer = NULL;
	}
	if (c->svc) {
		c->sst = *sml_service_stats(c->svc);
		sml_service_free(c->svc);
		c->svc = NULL;
		sml_fifo_free(&c->to_modem);
		sml_fifo_free(&c->from_modem);
	}
}

static const char *route_name(const struct call *c)
{
	if (c->incoming)
		return "incoming";
	if (!c->route)
		return NULL;
	switch (c->route->type) {
	case SML_R_ANSWER:
		return "answer";
	case SML_R_BUSY:
		return "busy";
	case SML_R_NOANSWER:
		return "noanswer";
	case SML_R_UNOBTAINABLE:
		return "unobtainable";
	}
	return NULL;
}

/*
 * V.34's two directions may differ: the rates and symbol rates each way
 * (tx: the far modem to the guest's modem), phase 2's round trip, the far
 * modem's canceller and receiver; null where the start-up did not get there.
 */
static void v34_json(struct sml_json *j, const struct sml_v34far_info *v)
{
	bool p2 = v->rtd_samples >= 0;

	sml_json_obj_begin(j, "v34");
	sml_json_int(j, "rate_tx", v->rate_tx);
	sml_json_int(j, "rate_rx", v->rate_rx);
	if (p2) {
		sml_json_int(j, "symbol_rate_tx", v->baud_tx);
		sml_json_int(j, "symbol_rate_rx", v->baud_rx);
		sml_json_bool(j, "high_carrier_tx", v->high_tx);
		sml_json_bool(j, "high_carrier_rx", v->high_rx);
		sml_json_num(j, "rtd_ms", v->rtd_samples / 8.0);
	} else {
		sml_json_null(j, "symbol_rate_tx");
		sml_json_null(j, "symbol_rate_rx");
		sml_json_null(j, "high_carrier_tx");
		sml_json_null(j, "high_carrier_rx");
		sml_json_null(j, "rtd_ms");
	}
	sml_json_num(j, "erle_db", v->erle_db10 / 10.0);
	sml_json_num(j, "rx_mse_db", v->mse_db10 / 10.0);
	sml_json_int(j, "rate_tx_start", v->rate_tx_start);
	sml_json_int(j, "rate_rx_start", v->rate_rx_start);
	sml_json_int(j, "renegs", v->renegs);
	sml_json_int(j, "retrains", v->retrains);
	sml_json_bool(j, "nonlinear_tx", v->nonlinear_tx);
	sml_json_bool(j, "nonlinear_rx", v->nonlinear_rx);
	sml_json_bool(j, "expanded_tx", v->expanded_tx);
	sml_json_bool(j, "expanded_rx", v->expanded_rx);
	sml_json_obj_end(j);
}

/* what worsen= asked for, and when the line worsened (null: the call ended before) */
static void worsen_json(struct sml_json *j, const struct call *c)
{
	const struct sml_worsen *v = &c->party.worsen;

	sml_json_obj_begin(j, "worsen");
	sml_json_num(j, "at_s", v->at_s);
	if (v->noise)
		sml_json_num(j, "noise_dbm0", v->noise_dbm0);
	else
		sml_json_null(j, "noise_dbm0");
	sml_json_num(j, "loss_db", v->loss_db);
	if (c->worsened_at >= 0) {
		const struct sml_modem_stats *st = &c->worse_st;
		bool v34 = st->mod == SML_MOD_V34;

		/* the rates each way as the line worsened, to compare with the call's last */
		sml_json_int(j, "sample", c->worsened_at);
		sml_json_int(j, "rate_tx", v34 ? (int64_t)st->v34.rate_tx : st->rate);
		sml_json_int(j, "rate_rx", v34 ? (int64_t)st->v34.rate_rx : st->rate);
		sml_json_int(j, "v34_renegs", v34 ? (int64_t)st->v34.renegs : 0);
		sml_json_int(j, "v34_retrains", v34 ? (int64_t)st->v34.retrains : 0);
		/* where the data stood: mid-transfer or not */
		sml_json_int(j, "bytes_to_modem", (int64_t)st->bytes_tx);
		sml_json_int(j, "bytes_from_modem", (int64_t)st->bytes_rx);
	} else {
		sml_json_null(j, "sample");
	}
	sml_json_obj_end(j);
}

static void write_record(struct sml_exchange *x, struct call *c)
{
	struct sml_json j;
	bool answered = c->answer >= 0;
	int i;

	sml_json_init(&j);
	sml_json_obj_begin(&j, NULL);
	sml_json_int(&j, "call", c->id);
	sml_json_str(&j, "direction", c->incoming ? "incoming" : "outgoing");
	sml_json_str(&j, "number", c->number[0] ? c->number : NULL);
	sml_json_str(&j, "route", route_name(c));
	sml_json_str(&j, "result", c->result);
	sml_json_str(&j, "end", c->end);
	if (answered && c->party.fax.on) {
		sml_json_str(&j, "modulation", c->fst.modem);
		sml_json_int(&j, "rate", c->fst.bit_rate);
		sml_json_bool(&j, "v8", false);
		sml_json_bool(&j, "v42", false);
		sml_fax_json(&c->fst, c->answer, &j);
		if (c->pst.fail_reason[0])
			sml_json_str(&j, "failure", c->pst.fail_reason);
	} else if (answered) {
		sml_json_str(&j, "modulation", c->pst.data_sample >= 0 ?
			     sml_mod_name(c->pst.mod) : NULL);
		sml_json_int(&j, "rate", c->pst.rate);
		sml_json_bool(&j, "v8", c->pst.v8_done);
		sml_json_bool(&j, "v42", c->pst.v42);
		if (c->pst.mod == SML_MOD_V34)
			v34_json(&j, &c->pst.v34);
		sml_json_obj_begin(&j, "v42bis");
		sml_json_bool(&j, "tx", c->pst.v42bis.tx);
		sml_json_bool(&j, "rx", c->pst.v42bis.rx);
		sml_json_int(&j, "p1", c->pst.v42bis.p1);
		sml_json_int(&j, "p2", c->pst.v42bis.p2);
		sml_json_int(&j, "tx_in", (int64_t)c->pst.v42bis.tx_in);
		sml_json_int(&j, "tx_out", (int64_t)c->pst.v42bis.tx_out);
		sml_json_int(&j, "rx_in", (int64_t)c->pst.v42bis.rx_in);
		sml_json_int(&j, "rx_out", (int64_t)c->pst.v42bis.rx_out);
		sml_json_obj_end(&j);
		sml_json_int(&j, "bytes_to_modem", (int64_t)c->pst.bytes_tx);
		sml_json_int(&j, "bytes_from_modem", (int64_t)c->pst.bytes_rx);
		sml_json_hex32(&j, "crc32_to_modem", c->sst.crc_sent);
		sml_json_hex32(&j, "crc32_from_modem", c->sst.crc_received);
		if (c->sst.expect_total)
			sml_json_bool(&j, "expect_ok", c->sst.expect_ok);
		else
			sml_json_null(&j, "expect_ok");
		sml_json_obj_begin(&j, "errors");
		sml_json_int(&j, "fcs", (int64_t)c->pst.fcs_errors);
		sml_json_int(&j, "framing", (int64_t)c->pst.framing_errors);
		sml_json_int(&j, "mismatched_bytes", (int64_t)c->sst.mismatches);
		sml_json_int(&j, "extra_bytes", (int64_t)c->sst.extra);
		sml_json_int(&j, "carrier_drops", (int64_t)c->pst.carrier_drops);
		sml_json_int(&j, "retrains", (int64_t)c->pst.retrains);
		/* the far receiver on the silence after the modem's loop opened: not the link's */
		sml_json_int(&j, "fcs_loop_open", (int64_t)c->pst.fcs_errors_open);
		sml_json_int(&j, "framing_loop_open", (int64_t)c->pst.framing_errors_open);
		sml_json_obj_end(&j);
		sml_json_int(&j, "retransmissions", (int64_t)c->pst.retransmissions);
		sml_json_int(&j, "rej_received", (int64_t)c->pst.rej_rx);
		sml_json_int(&j, "rnr_received", (int64_t)c->pst.rnr_rx);
		if (c->pst.fail_reason[0])
			sml_json_str(&j, "failure", c->pst.fail_reason);
	}
	sml_json_int(&j, "start_sample", c->start);
	sml_json_int(&j, "end_sample", c->end_t);
	sml_json_int(&j, "duration_samples", c->end_t - c->start);
	sml_json_num(&j, "duration_s", (double)(c->end_t - c->start) / SML_RATE);
	if (answered)
		sml_json_int(&j, "answer_sample", c->answer);
	if (answered && c->pst.data_sample >= 0) {
		int64_t data_t = c->answer + c->pst.data_sample;

		sml_json_int(&j, "data_sample", data_t);
		sml_json_num(&j, "setup_s", (double)(data_t - c->start) / SML_RATE);
		if (c->done_t >= 0)
			sml_json_num(&j, "transfer_s", (double)(c->done_t - data_t) / SML_RATE);
	}
	if (c->incoming)
		sml_json_int(&j, "rings", c->rings);
	if (c->party.worsen.on)
		worsen_json(&j, c);
	if (x->cfg.wire)
		sml_wire_json(x->cfg.wire, &j);
	if (x->cfg.transport)
		sml_json_str(&j, "transport", x->cfg.transport);
	sml_json_arr_begin(&j, "events");
	for (i = 0; i < c->nev; i++) {
		sml_json_obj_begin(&j, NULL);
		sml_json_int(&j, "t", c->ev[i].t);
		sml_json_str(&j, "event", c->ev[i].what);
		sml_json_obj_end(&j);
	}
	sml_json_arr_end(&j);
	sml_json_obj_end(&j);
	if (x->cfg.json) {
		fprintf(x->cfg.json, "%s\n", j.buf);
		fflush(x->cfg.json);
	}
	sml_json_free(&j);
}

static void end_call(struct sml_exchange *x, const char *end, int64_t t)
{
	struct call *c = x->call;
	struct sml_json j;

	if (!c)
		return;
	c->end = end;
	c->end_t = t;
	stop_peer(c);
	/* the next call finds the line as configured */
	if (c->worsened_at >= 0)
		sml_wire_restore(x->cfg.line);
	if (c->pst.data_sample >= 0)
		c->result = "connected";
	call_event(x, t, "call %d ends: %s (%s)", c->id, c->result, end);
	if (event_begin(x, &j, t, "call-end")) {
		sml_json_str(&j, "result", c->result);
		sml_json_str(&j, "end", end);
		sml_event_end(&j);
	}
	write_record(x, c);
	free(c);
	x->call = NULL;
	x->ndigits = 0;
	x->digits[0] = '\0';
	x->pulses = 0;
	x->ringing = NULL;
	set_state(x, X_IDLE);
}

/* ---- routing ---- */
static void route_call(struct sml_exchange *x, const struct sml_route *r)
{
	struct call *c = x->call;
	struct sml_json j;

	snprintf(c->number, sizeof(c->number), "%s", x->digits);
	c->route = r;
	if (!r) {
		c->result = "unobtainable";
		call_event(x, x->now, "number %s unobtainable", x->digits);
		event(x, x->now, "unobtainable", "number", x->digits);
		set_state(x, X_REORDER);
		return;
	}
	call_event(x, x->now, "number %s routed: %s", x->digits, route_name(c));
	if (event_begin(x, &j, x->now, "dialled")) {
		sml_json_str(&j, "number", x->digits);
		sml_json_str(&j, "route", route_name(c));
		sml_event_end(&j);
	}
	switch (r->type) {
	case SML_R_ANSWER:
		c->result = "noanswer";
		x->answer_at = x->now + SML_MS(2000) +
			       SML_MS(6000) * (r->party.rings > 0 ? r->party.rings - 1 : 0);
		set_state(x, X_RINGBACK);
		break;
	case SML_R_NOANSWER:
		c->result = "noanswer";
		x->answer_at = -1;
		set_state(x, X_RINGBACK);
		break;
	case SML_R_BUSY:
		c->result = "busy";
		set_state(x, X_BUSY);
		break;
	case SML_R_UNOBTAINABLE:
		c->result = "unobtainable";
		set_state(x, X_REORDER);
		break;
	}
}

/* exact match, and whether a longer number could still follow */
static const struct sml_route *match(struct sml_exchange *x, bool *longer)
{
	const struct sml_route *exact = NULL;
	int i;

	*longer = false;
	for (i = 0; i < x->cfg.nroutes; i++) {
		const struct sml_route *r = &x->cfg.routes[i];

		if (!strcmp(r->number, x->digits))
			exact = r;
		else if (!strncmp(r->number, x->digits, (size_t)x->ndigits))
			*longer = true;
	}
	return exact;
}

static void on_digit(struct sml_exchange *x, char d, const char *how)
{
	const struct sml_route *r;
	struct sml_json j;
	bool longer;

	if (x->st != X_DIALTONE && x->st != X_DIALING)
		return;
	if (x->ndigits < (int)sizeof(x->digits) - 1) {
		x->digits[x->ndigits++] = d;
		x->digits[x->ndigits] = '\0';
	}
	x->last_digit = x->now;
	sml_log(SML_LOG_DEBUG, x->now, "exchange", "%s digit %c", how, d);
	if (event_begin(x, &j, x->now, "digit")) {
		char digit[2] = { d, '\0' };

		sml_json_str(&j, "digit", digit);
		sml_json_str(&j, "how", how);
		sml_event_end(&j);
	}
	if (x->st == X_DIALTONE) {
		call_event(x, x->now, "first digit (%s)", how);
		set_state(x, X_DIALING);
	}
	r = match(x, &longer);
	if (r && !longer)
		route_call(x, r);
	else if (!r && !longer)
		route_call(x, NULL);
}

static void dtmf_cb(void *user, const char *digits, int len)
{
	struct sml_exchange *x = user;
	int i;

	for (i = 0; i < len; i++)
		on_digit(x, digits[i], "DTMF");
}

/* ---- hook ---- */
static bool unplugged_call(const struct sml_exchange *x, int id)
{
	int i;

	for (i = 0; i < x->cfg.nunplugged; i++)
		if (x->cfg.unplugged[i] == id)
			return true;
	return false;
}

static void on_offhook(struct sml_exchange *x, int64_t t)
{
	struct sml_json j;
	struct call *c;

	switch (x->st) {
	case X_IDLE:
		c = call_new(x, false);
		c->start = t;
		call_event(x, t, "call %d: off-hook", c->id);
		event(x, t, "off-hook", NULL, NULL);
		if (x->cfg.no_dialtone || unplugged_call(x, c->id)) {
			c->result = "nodialtone";
			set_state(x, X_DEAD);
		} else {
			set_state(x, X_DIALTONE);
		}
		break;
	case X_RINGING_IN:
		call_event(x, t, "answered after %d ring%s", x->call->rings,
			   x->call->rings == 1 ? "" : "s");
		if (event_begin(x, &j, t, "answered")) {
			sml_json_str(&j, "by", "modem");
			sml_json_int(&j, "rings", x->call->rings);
			sml_event_end(&j);
		}
		start_peer(x, &x->ringing->party);
		break;
	default:
		break;
	}
}

static void on_onhook(struct sml_exchange *x, int64_t t)
{
	struct call *c = x->call;

	if (!c || x->st == X_RINGING_IN)
		return;
	call_event(x, t, "on-hook");
	event(x, t, "hang-up", "by", "modem");
	end_call(x, c->peer_gone ? "remote-hangup" : "local-hangup", t);
}

static void hook_update(struct sml_exchange *x, bool closed)
{
	if (x->force >= 0)
		closed = x->force;
	if (closed != x->raw) {
		if (closed && x->off) {
			/* a break that ended before the hang-up time: a pulse? */
			int64_t len = x->now - x->raw_since;

			if (len >= SML_MS(PULSE_MIN_MS) && len < SML_MS(PULSE_MAX_MS) &&
			    (x->st == X_DIALTONE || x->st == X_DIALING)) {
				x->pulses++;
				x->last_make = x->now;
			}
		}
		x->raw = closed;
		x->raw_since = x->now;
	}
	if (!x->off && x->raw && x->now - x->raw_since >= SML_MS(OFFHOOK_MS)) {
		x->off = true;
		on_offhook(x, x->raw_since);
	} else if (x->off && !x->raw &&
		   x->now - x->raw_since >= SML_MS(x->cfg.hangup_ms)) {
		x->off = false;
		x->pulses = 0;
		on_onhook(x, x->raw_since);
	}
	if (x->pulses && x->raw &&
	    x->now - x->last_make >= SML_MS(PULSE_DIGIT_GAP_MS)) {
		int p = x->pulses;

		x->pulses = 0;
		on_digit(x, p == 10 ? '0' : (char)('0' + p % 10), "pulse");
	}
}

/* ---- main entry ---- */
static bool worsens(const struct sml_exchange_cfg *cfg)
{
	int i;

	for (i = 0; i < cfg->nroutes; i++)
		if (cfg->routes[i].party.worsen.on)
			return true;
	for (i = 0; i < cfg->nincoming; i++)
		if (cfg->incoming[i].party.worsen.on)
			return true;
	return false;
}

struct sml_exchange *sml_exchange_new(const struct sml_exchange_cfg *cfg)
{
	struct sml_exchange *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	if (!cfg->line && worsens(cfg)) {
		fprintf(stderr, "smline: worsen= needs the line's wire\n");
		free(x);
		return NULL;
	}
	x->cfg = *cfg;
	x->force = -1;
	x->dtmf = dtmf_rx_init(NULL, dtmf_cb, x);
	x->answer_at = -1;
	set_state(x, X_IDLE);
	return x;
}

void sml_exchange_free(struct sml_exchange *x)
{
	if (!x)
		return;
	if (x->call) {
		stop_peer(x->call);
		free(x->call);
	}
	dtmf_rx_free(x->dtmf);
	free(x);
}

static void start_ringing(struct sml_exchange *x, const struct sml_incoming *in)
{
	struct call *c = call_new(x, true);

	snprintf(c->number, sizeof(c->number), "%s", in->from);
	c->result = "unanswered";
	x->ringing = in;
	call_event(x, x->now, "call %d: incoming from %s, ringing", c->id, in->from);
	event(x, x->now, "incoming", "from", in->from);
	set_state(x, X_RINGING_IN);
}

static void check_incoming(struct sml_exchange *x)
{
	int i;

	if (x->st != X_IDLE || x->off)
		return;
	if (x->ring_req_pending) {
		x->ring_req_pending = false;
		start_ringing(x, &x->ring_req);
		return;
	}
	for (i = 0; i < x->cfg.nincoming; i++) {
		if (!x->inc_used[i] && x->cfg.incoming[i].at <= x->now) {
			x->inc_used[i] = true;
			start_ringing(x, &x->cfg.incoming[i]);
			return;
		}
	}
}

/* the far end hangs up: the modem hears silence, then busy tone */
static void far_hangs_up(struct sml_exchange *x)
{
	struct call *c = x->call;

	c->peer_gone = true;
	call_event(x, x->now, "far end hangs up");
	event(x, x->now, "hang-up", "by", "far");
	stop_peer(c);
	set_state(x, X_CLEARED);
}

/* a fax call: T.30 runs to phase E, then the far end hangs up (after DCN) */
static void run_fax(struct sml_exchange *x, const int16_t *rx, int16_t *tx, int m)
{
	struct call *c = x->call;
	const struct sml_fax_stats *s;

	if (c->done_t >= 0 && x->now >= c->done_t) {
		far_hangs_up(x);
		return;
	}
	sml_fax_process(c->fax, rx, tx, m);
	if (!sml_fax_done(c->fax) || c->done_t >= 0)
		return;
	s = sml_fax_stats(c->fax);
	c->done_t = c->answer + s->end_sample;
	call_event(x, c->done_t, "far fax: %s, %d sent, %d received", s->completion_text,
		   s->pages_tx, s->pages_rx);
	event(x, c->done_t, "service-done", NULL, NULL);
}

/* the line worsens as the call's words say, until the call ends */
static void worsen(struct sml_exchange *x)
{
	struct call *c = x->call;
	const struct sml_worsen *v = &c->party.worsen;
	double noise = v->noise ? v->noise_dbm0 : -99.0;
	struct sml_json j;

	c->worsened_at = x->now;
	c->worse_st = *sml_modem_stats(c->peer);
	sml_wire_worsen(x->cfg.line, noise, v->loss_db);
	if (v->noise)
		call_event(x, x->now, "line worsens: noise %.1f dBm0, loss +%.1f dB", noise,
			   v->loss_db);
	else
		call_event(x, x->now, "line worsens: loss +%.1f dB", v->loss_db);
	if (event_begin(x, &j, x->now, "worsened")) {
		if (v->noise)
			sml_json_num(&j, "noise_dbm0", noise);
		else
			sml_json_null(&j, "noise_dbm0");
		sml_json_num(&j, "loss_db", v->loss_db);
		sml_event_end(&j);
	}
}

static void run_call(struct sml_exchange *x, const int16_t *rx, int16_t *tx,
		     int m)
{
	struct call *c = x->call;
	enum sml_modem_phase ph;
	bool hang = false;

	if (c->fax) {
		run_fax(x, rx, tx, m);
		return;
	}
	sml_modem_process(c->peer, rx, tx, m);
	if (c->svc)
		sml_service_poll(c->svc);
	ph = sml_modem_phase(c->peer);
	if (ph == SML_PH_DATA && c->svc && c->done_t < 0 &&
	    sml_service_done(c->svc) && !sml_modem_tx_busy(c->peer)) {
		c->done_t = x->now + m;
		call_event(x, c->done_t, "data service done");
		event(x, c->done_t, "service-done", NULL, NULL);
	}
	if (ph == SML_PH_DATA && c->party.worsen.on && c->worsened_at < 0 &&
	    x->now - (c->answer + sml_modem_stats(c->peer)->data_sample) >=
	    (int64_t)llround(c->party.worsen.at_s * SML_RATE))
		worsen(x);
	if (ph == SML_PH_FAILED || ph == SML_PH_CARRIER_LOST)
		hang = true;
	if (ph == SML_PH_DATA && c->party.service.hangup_done && c->done_t >= 0 &&
	    x->now - c->done_t >= SML_MS(1000))
		hang = true;
	if (ph == SML_PH_DATA && c->party.service.hangup_s > 0 &&
	    x->now - (c->answer + sml_modem_stats(c->peer)->data_sample) >=
	    (int64_t)llround(c->party.service.hangup_s * SML_RATE))
		hang = true;
	if (hang)
		far_hangs_up(x);
}

void sml_exchange_process(struct sml_exchange *x, const int16_t *rx,
			  int16_t *tx, int m, bool loop_closed)
{
	struct sml_json j;

	memset(tx, 0, sizeof(*tx) * (size_t)m);
	hook_update(x, loop_closed);
	check_incoming(x);

	switch (x->st) {
	case X_DIALTONE:
	case X_DIALING:
		dtmf_rx(x->dtmf, rx, m);
		if (x->st == X_DIALTONE &&
		    x->now - x->st_since >= SML_MS(x->cfg.dialtone_timeout_ms)) {
			call_event(x, x->now, "no digits: permanent signal");
			event(x, x->now, "permanent-signal", NULL, NULL);
			set_state(x, X_REORDER);
		} else if (x->st == X_DIALING &&
			   x->now - x->last_digit >= SML_MS(x->cfg.interdigit_ms)) {
			bool longer;

			route_call(x, match(x, &longer));
		}
		break;
	case X_RINGBACK:
		if (x->answer_at >= 0 && x->now >= x->answer_at) {
			call_event(x, x->now, "far end answers");
			event(x, x->now, "answered", "by", "far");
			x->answer_at = -1;
			start_peer(x, &x->call->route->party);
		}
		break;
	case X_RINGING_IN: {
		int64_t t = x->now - x->st_since;
		int64_t period = SML_MS(x->cfg.ring_on_ms + x->cfg.ring_off_ms);
		int64_t k0 = t == 0 ? -1 : (t - 1) / period;

		if (t >= period * x->ringing->party.rings) {
			call_event(x, x->now, "caller gives up after %d rings",
				   x->call->rings);
			if (event_begin(x, &j, x->now, "unanswered")) {
				sml_json_int(&j, "rings", x->call->rings);
				sml_event_end(&j);
			}
			end_call(x, "remote-hangup", x->now);
			break;
		}
		/* a burst starts at every multiple of the period */
		if ((t + m - 1) / period > k0) {
			x->call->rings++;
			sml_log(SML_LOG_DEBUG, x->now, "exchange", "ring %d",
				x->call->rings);
			if (event_begin(x, &j, x->now, "ring")) {
				sml_json_int(&j, "ring", x->call->rings);
				sml_event_end(&j);
			}
		}
		break;
	}
	default:
		break;
	}
	if (x->st == X_CONNECTED && x->call && (x->call->peer || x->call->fax)) {
		/* an open loop carries nothing to the far end */
		if (x->call->peer)
			sml_modem_near_open(x->call->peer, !x->raw, SML_HOOK_WINDOW);
		if (!x->raw) {
			int16_t quiet[m];

			memset(quiet, 0, sizeof(quiet));
			run_call(x, quiet, tx, m);
		} else {
			run_call(x, rx, tx, m);
		}
	}
	else
		gen_tones(x, tx, m);
	x->now += m;
}

void sml_exchange_ring_now(struct sml_exchange *x, const struct sml_incoming *in)
{
	x->ring_req = *in;
	x->ring_req_pending = true;
}

void sml_exchange_set_unplugged(struct sml_exchange *x, bool unplugged)
{
	struct sml_json j;

	x->cfg.no_dialtone = unplugged;
	sml_log(SML_LOG_INFO, x->now, "exchange", "line %s",
		unplugged ? "unplugged" : "plugged in");
	if (event_begin(x, &j, x->now, "line")) {
		sml_json_bool(&j, "plugged", !unplugged);
		sml_event_end(&j);
	}
}

void sml_exchange_force_hook(struct sml_exchange *x, int state)
{
	x->force = state;
}

int sml_exchange_calls(const struct sml_exchange *x)
{
	return x->ncalls - (x->call ? 1 : 0);
}

bool sml_exchange_idle(const struct sml_exchange *x)
{
	return x->st == X_IDLE && !x->call;
}

int64_t sml_exchange_now(const struct sml_exchange *x)
{
	return x->now;
}

void sml_exchange_shutdown(struct sml_exchange *x)
{
	if (x->call)
		end_call(x, "shutdown", x->now);
}
