// SPDX-License-Identifier: GPL-2.0
/*
 * testmodem: a stand-in for the guest's modem, on the other end of smline's
 * pipe transport. It does what the guest will do, with its own detectors:
 * goes off-hook (DC on its transmit), waits for dial tone, dials DTMF or
 * pulses, follows call progress (ringback, busy, reorder cadences), lets a
 * SpanDSP modem (tools/line/modem.c, caller role) hear the answer tone and
 * train, transfers data, hangs up; or, on-hook, measures the ring cadence
 * and answers after N rings as the answering modem. Prints one JSON object.
 *
 * Options: usage[] below (testmodem --help).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>

#include <spandsp.h>

#include "fax.h"
#include "modem.h"

static const char usage[] =
	"usage: testmodem --fd N (--dial NUMBER... | --answer RINGS) [options]\n"
	"  --dial may be repeated: the calls follow each other, 1 s on-hook apart,\n"
	"  one JSON line each\n"
	"  --mod WORDS        modem words: v21|v22|v22bis,v8,v42,ansdelay=MS\n"
	"  --send SPEC --expect SPEC   random:N:SEED (tests/line/test_line.py: payload)\n"
	"  --pulse            dial with loop breaks instead of DTMF\n"
	"  --blind            do not wait for dial tone\n"
	"  --dc N             loop-current offset while off-hook (default 4096)\n"
	"  --noanswer-s S     give up on ringback (default 40)\n"
	"  --hold-s S         stay connected this long after the transfer (0.5)\n"
	"  --max-s S          give up entirely (line time, default 180)\n"
	"  --record PATH      write every received sample (S16LE 8 kHz) to PATH\n"
	"  --fax WORDS        a SpanDSP fax terminal instead of the modem (the\n"
	"                     route words of tools/line/fax.h: faxsend=PATH,\n"
	"                     faxrecv=PATH, faxmodems=..., ecm, ident=...); it\n"
	"                     hangs up at T.30's phase E; the JSON gains \"fax\"\n"
	"  --hostile SIGNAL[:SECONDS]  instead of a modem, send SIGNAL for SECONDS\n"
	"                     (default 40) once off-hook, then hang up (\"HOSTILE\"):\n"
	"                     noise (full scale), dc (a +28000 offset), square[=HZ]\n"
	"                     (full scale, 1200 Hz), tone=HZ (-10 dBm0), ansam\n"
	"                     (2100 Hz, 15 Hz AM, reversals every 450 ms); the far\n"
	"                     modem must survive it and the line stay in step\n"
	"  --hostile-calls N  the first N calls are hostile (default: all)\n"
	"  --help             this text\n";

#define BLOCK 80
#define CP_BLOCK 400		/* 50 ms: 20 Hz bins keep 440 and 480 apart */

enum tstate { T_START, T_WAIT_DT, T_DIAL, T_PROGRESS, T_MODEM, T_HOSTILE,
	      T_HANGUP, T_RING_WAIT, T_DONE };

enum hostile { H_NONE, H_NOISE, H_DC, H_SQUARE, H_TONE, H_ANSAM };

struct burst_log {
	double on[64], off[64];
	int n;
	bool in_burst;
	int64_t since;
};

struct tm_ {
	int fd;
	int64_t now;
	enum tstate st;
	int64_t st_since;
	/* options */
	const char *dial;
	const char *dials[16];
	int ndials, next_dial;
	int answer_rings;
	bool pulse, blind;
	int dc;
	double noanswer_s, hold_s, max_s;
	struct sml_modem_cfg mcfg;
	struct sml_fax_cfg fcfg;
	const char *send_spec, *expect_spec;
	enum hostile hostile;
	double hostile_hz, hostile_s;
	int hostile_calls, call_no;
	uint32_t hrng;
	double hphase;
	/* hook and dialing */
	bool offhook;
	dtmf_tx_state_t *dtmf;
	int pulse_left;
	int64_t pulse_t;
	const char *pulse_next;
	/* detectors */
	double cp_q[5][2];
	double cp_energy;
	int cp_n;
	int dt_blocks;
	struct burst_log ringback, busy, ring;
	const char *cp_class;
	/* results */
	const char *result;
	double dialtone_s, dial_end_s, answer_tone_s, data_s, hangup_s;
	/* modem */
	struct sml_modem *m;
	struct sml_fax *fax;
	struct sml_fax_stats fst;	/* kept from the last fax call */
	bool fax_used;
	struct sml_fifo txf, rxf;
	uint64_t send_total, send_seed, sent;
	uint64_t expect_total, expect_seed, received, mismatches, extra;
	uint32_t crc_sent, crc_received;
	int64_t done_at;
};

static const double cp_freqs[5] = { 350, 440, 480, 620, 20 };

static double secs(int64_t s)
{
	return (double)s / SML_RATE;
}

static void set_state(struct tm_ *t, enum tstate s)
{
	t->st = s;
	t->st_since = t->now;
}

static int spec_parse(const char *spec, uint64_t *total, uint64_t *seed)
{
	char *end;

	if (!spec)
		return 0;
	if (strncmp(spec, "random:", 7))
		return -1;
	*total = strtoull(spec + 7, &end, 0);
	*seed = *end == ':' ? strtoull(end + 1, NULL, 0) : 1;
	return 0;
}

/* ---- call progress (50 ms blocks) ---- */
static void burst_update(struct tm_ *t, struct burst_log *b, bool on)
{
	if (on && !b->in_burst) {
		if (b->n > 0 && b->n <= 64)
			b->off[b->n - 1] = secs(t->now - b->since);
		b->in_burst = true;
		b->since = t->now;
	} else if (!on && b->in_burst) {
		if (b->n < 64) {
			b->on[b->n] = secs(t->now - b->since);
			b->off[b->n] = -1;
		}
		b->n++;
		b->in_burst = false;
		b->since = t->now;
	}
}

static void cp_block(struct tm_ *t)
{
	double r[5], total = t->cp_energy, level;
	int i;

	level = sml_rms_to_dbm0(sqrt(total / CP_BLOCK));
	for (i = 0; i < 5; i++) {
		double c = 2.0 * cos(2.0 * M_PI * cp_freqs[i] / SML_RATE);
		double q1 = t->cp_q[i][0], q2 = t->cp_q[i][1];
		double p = q1 * q1 + q2 * q2 - c * q1 * q2;

		r[i] = total > 0 ? 2.0 * p / (CP_BLOCK * total) : 0;
		t->cp_q[i][0] = t->cp_q[i][1] = 0;
	}
	t->cp_energy = 0;
	t->cp_n = 0;
	t->cp_class = "silence";
	if (level < -45)
		t->cp_class = "silence";
	else if (r[0] > 0.3 && r[1] > 0.3)
		t->cp_class = "dialtone";
	else if (r[1] > 0.3 && r[2] > 0.3)
		t->cp_class = "ringback";
	else if (r[2] > 0.3 && r[3] > 0.3)
		t->cp_class = "busy";
	else if (r[4] > 0.5 && level > -20)
		t->cp_class = "ring";
	else
		t->cp_class = "other";
	if (!t->offhook) {
		burst_update(t, &t->ring, !strcmp(t->cp_class, "ring"));
		return;
	}
	burst_update(t, &t->ringback, !strcmp(t->cp_class, "ringback"));
	burst_update(t, &t->busy, !strcmp(t->cp_class, "busy"));
	if (!strcmp(t->cp_class, "dialtone"))
		t->dt_blocks++;
	else
		t->dt_blocks = 0;
}

static void cp_feed(struct tm_ *t, const int16_t *rx, int n)
{
	int i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < 5; k++) {
			double c = 2.0 * cos(2.0 * M_PI * cp_freqs[k] / SML_RATE);
			double q0 = c * t->cp_q[k][0] - t->cp_q[k][1] + rx[i];

			t->cp_q[k][1] = t->cp_q[k][0];
			t->cp_q[k][0] = q0;
		}
		t->cp_energy += (double)rx[i] * rx[i];
		if (++t->cp_n == CP_BLOCK)
			cp_block(t);
	}
}

/* ---- a hostile line: what a broken or malicious modem might send ---- */
static int hostile_parse(struct tm_ *t, const char *v)
{
	char name[32];
	const char *colon = strchr(v, ':');
	size_t n = colon ? (size_t)(colon - v) : strlen(v);
	char *end;

	if (n >= sizeof(name))
		return -1;
	memcpy(name, v, n);
	name[n] = 0;
	t->hostile_s = colon ? strtod(colon + 1, &end) : 40;
	if (colon && (*end || t->hostile_s <= 0))
		return -1;
	t->hostile_hz = 1200;
	if (!strcmp(name, "noise")) {
		t->hostile = H_NOISE;
	} else if (!strcmp(name, "dc")) {
		t->hostile = H_DC;
	} else if (!strcmp(name, "ansam")) {
		t->hostile = H_ANSAM;
	} else if (!strncmp(name, "square", 6) || !strncmp(name, "tone=", 5)) {
		t->hostile = name[0] == 's' ? H_SQUARE : H_TONE;
		if (name[0] == 's' && !name[6])
			return 0;
		if (name[0] == 's' && name[6] != '=')
			return -1;
		t->hostile_hz = strtod(strchr(name, '=') + 1, &end);
		if (*end || t->hostile_hz <= 0 || t->hostile_hz >= SML_RATE / 2)
			return -1;
	} else {
		return -1;
	}
	return 0;
}

static bool call_is_hostile(const struct tm_ *t)
{
	return t->hostile != H_NONE &&
	       (t->hostile_calls < 0 || t->call_no < t->hostile_calls);
}

static void hostile_block(struct tm_ *t, int16_t *tx)
{
	double amp = sml_dbm0_to_rms(-10) * sqrt(2.0);
	int i;

	for (i = 0; i < BLOCK; i++) {
		double c = sin(t->hphase);
		int64_t k = t->now + i - t->st_since;

		switch (t->hostile) {
		case H_NOISE:
			t->hrng ^= t->hrng << 13;
			t->hrng ^= t->hrng >> 17;
			t->hrng ^= t->hrng << 5;
			tx[i] = (int16_t)(t->hrng >> 16);
			break;
		case H_DC:
			tx[i] = 28000;
			break;
		case H_SQUARE:
			tx[i] = c >= 0 ? 32767 : -32768;
			break;
		case H_TONE:
			tx[i] = (int16_t)lrint(amp * c);
			break;
		case H_ANSAM:
			/* V.8's ANSam: 15 Hz AM at 20 %, a reversal each 450 ms */
			tx[i] = (int16_t)lrint(amp / 1.2 * (1.0 + 0.2 * sin(2.0 * M_PI * 15.0 * k / SML_RATE)) *
					       (k / SML_MS(450) % 2 ? -c : c));
			break;
		case H_NONE:
			break;
		}
		t->hphase = fmod(t->hphase + 2.0 * M_PI * (t->hostile == H_ANSAM ? 2100.0 : t->hostile_hz) /
				 SML_RATE, 2.0 * M_PI);
	}
}

/* ---- modem and data ---- */
static void start_modem(struct tm_ *t, bool answer)
{
	struct sml_modem_cfg c = t->mcfg;

	if (call_is_hostile(t)) {
		set_state(t, T_HOSTILE);
		return;
	}
	if (t->fcfg.on) {
		struct sml_fax_cfg fc = t->fcfg;

		/* T.30 hears ringback or busy as anything else: no progress phase */
		fc.answer = answer;
		t->fax = sml_fax_new(&fc, "testmodem");
		t->fax_used = true;
		if (!t->fax)
			abort();
		set_state(t, T_MODEM);
		return;
	}
	c.answer = answer;
	sml_fifo_init(&t->txf, 512);
	sml_fifo_init(&t->rxf, 65536);
	t->m = sml_modem_new(&c, &t->txf, &t->rxf, "testmodem", NULL, NULL);
	set_state(t, answer ? T_MODEM : T_PROGRESS);
}

static void data_poll(struct tm_ *t)
{
	uint8_t buf[512], want[512];
	size_t n, i;

	while ((n = sml_fifo_get(&t->rxf, buf, sizeof(buf))) > 0) {
		t->crc_received = sml_crc32(t->crc_received, buf, n);
		if (t->expect_total) {
			size_t k = n;

			if (t->received + k > t->expect_total)
				k = t->expect_total > t->received ?
				    (size_t)(t->expect_total - t->received) : 0;
			sml_payload_fill(t->expect_seed, t->received, want, k);
			for (i = 0; i < k; i++)
				t->mismatches += buf[i] != want[i];
			t->extra += n - k;
		}
		t->received += n;
	}
	if (sml_modem_phase(t->m) != SML_PH_DATA)
		return;
	while (t->sent < t->send_total && sml_fifo_space(&t->txf)) {
		n = sizeof(buf);
		if (n > sml_fifo_space(&t->txf))
			n = sml_fifo_space(&t->txf);
		if (n > t->send_total - t->sent)
			n = (size_t)(t->send_total - t->sent);
		sml_payload_fill(t->send_seed, t->sent, buf, n);
		sml_fifo_put(&t->txf, buf, n);
		t->crc_sent = sml_crc32(t->crc_sent, buf, n);
		t->sent += n;
	}
}

static void hang_up(struct tm_ *t, const char *result)
{
	if (result && !t->result)
		t->result = result;
	if (t->m)
		sml_modem_stop(t->m);
	if (t->fax) {
		sml_fax_stop(t->fax);
		t->fst = *sml_fax_stats(t->fax);
		sml_fax_free(t->fax);
		t->fax = NULL;
	}
	t->offhook = false;
	t->hangup_s = secs(t->now);
	set_state(t, T_HANGUP);
}

/* ---- one block ---- */
static void step(struct tm_ *t, const int16_t *rx, int16_t *tx)
{
	int i;

	memset(tx, 0, sizeof(int16_t) * BLOCK);
	cp_feed(t, rx, BLOCK);

	switch (t->st) {
	case T_START:
		if (t->now - t->st_since >= SML_MS(200)) {
			t->offhook = true;
			set_state(t, t->blind ? T_DIAL : T_WAIT_DT);
		}
		break;
	case T_WAIT_DT:
		if (t->dt_blocks >= 10) {	/* 0.5 s of dial tone */
			t->dialtone_s = secs(t->now);
			set_state(t, T_DIAL);
		} else if (t->now - t->st_since >= SML_MS(5000)) {
			hang_up(t, "NO DIALTONE");
		}
		break;
	case T_DIAL:
		if (t->now - t->st_since < SML_MS(200))
			break;
		if (!t->pulse) {
			if (!t->dtmf) {
				t->dtmf = dtmf_tx_init(NULL);
				dtmf_tx_put(t->dtmf, t->dial, -1);
			}
			if (dtmf_tx(t->dtmf, tx, BLOCK) == 0) {
				t->dial_end_s = secs(t->now);
				start_modem(t, false);
			}
		} else {
			/*
			 * 10 pulses/s: each pulse 60 ms break + 40 ms make,
			 * 700 ms of make between digits.
			 */
			if (!t->pulse_next)
				t->pulse_next = t->dial;
			if (t->pulse_left == 0 && t->now >= t->pulse_t) {
				if (!*t->pulse_next) {
					t->dial_end_s = secs(t->now);
					start_modem(t, false);
					break;
				}
				t->pulse_left = *t->pulse_next == '0' ? 10 : *t->pulse_next - '0';
				t->pulse_next++;
				t->pulse_t = t->now;
			}
			if (t->pulse_left > 0) {
				int64_t rel = t->now - t->pulse_t;

				if (rel < SML_MS(100) * t->pulse_left) {
					t->offhook = rel % SML_MS(100) >= SML_MS(60);
				} else {
					t->offhook = true;
					t->pulse_t += SML_MS(100) * t->pulse_left + SML_MS(700);
					t->pulse_left = 0;
				}
			}
		}
		break;
	case T_PROGRESS:
		sml_modem_process(t->m, rx, tx, BLOCK);
		if (sml_modem_phase(t->m) != SML_PH_WAIT_ANS) {
			t->answer_tone_s = secs(t->now);
			set_state(t, T_MODEM);
			break;
		}
		if (t->busy.n >= 2) {
			double on = t->busy.on[1];

			hang_up(t, on < 0.375 ? "REORDER" : "BUSY");
		} else if (t->ringback.n + t->ringback.in_burst > 0 &&
			   t->now - t->st_since >= (int64_t)(t->noanswer_s * SML_RATE)) {
			hang_up(t, "NO ANSWER");
		} else if (t->now - t->st_since >= (int64_t)(t->noanswer_s * SML_RATE)) {
			hang_up(t, "NO ANSWER");
		}
		break;
	case T_MODEM: {
		enum sml_modem_phase ph;

		if (t->fax) {
			sml_fax_process(t->fax, rx, tx, BLOCK);
			if (sml_fax_done(t->fax))
				hang_up(t, sml_fax_stats(t->fax)->completion == T30_ERR_OK ?
					"FAX OK" : "FAX FAILED");
			break;
		}
		sml_modem_process(t->m, rx, tx, BLOCK);
		data_poll(t);
		ph = sml_modem_phase(t->m);
		if (ph == SML_PH_DATA && t->data_s == 0)
			t->data_s = secs(t->now);
		if (ph == SML_PH_FAILED || ph == SML_PH_CARRIER_LOST) {
			hang_up(t, "NO CARRIER");
			break;
		}
		if (ph == SML_PH_DATA && t->done_at < 0 && t->sent >= t->send_total &&
		    t->received >= t->expect_total && !sml_modem_tx_busy(t->m))
			t->done_at = t->now;
		if (t->done_at >= 0 && t->now - t->done_at >= (int64_t)(t->hold_s * SML_RATE))
			hang_up(t, "CONNECT");
		break;
	}
	case T_HOSTILE:
		hostile_block(t, tx);
		if (t->now - t->st_since >= (int64_t)(t->hostile_s * SML_RATE))
			hang_up(t, "HOSTILE");
		break;
	case T_HANGUP:
		if (t->now - t->st_since >= SML_MS(1000))
			set_state(t, T_DONE);
		break;
	case T_RING_WAIT:
		/* answer in the silence after the Nth ring */
		if (t->ring.n >= t->answer_rings && !t->ring.in_burst &&
		    t->now - t->ring.since >= SML_MS(500)) {
			t->offhook = true;
			start_modem(t, true);
		}
		break;
	case T_DONE:
		break;
	}
	if (t->offhook)
		for (i = 0; i < BLOCK; i++) {
			int v = tx[i] + t->dc;

			tx[i] = (int16_t)(v > 32767 ? 32767 : v);
		}
	t->now += BLOCK;
}

static int xfer(int fd, void *buf, size_t len, bool wr)
{
	char *p = buf;

	while (len) {
		ssize_t r = wr ? write(fd, p, len) : read(fd, p, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

static void print_bursts(const char *name, const struct burst_log *b)
{
	int i;

	printf(", \"%s\": [", name);
	for (i = 0; i < b->n && i < 64; i++)
		printf("%s[%.3f, %.3f]", i ? ", " : "", b->on[i], b->off[i]);
	printf("]");
}

static void report(struct tm_ *t, bool eof)
{
	const struct sml_modem_stats *ms = t->m ? sml_modem_stats(t->m) : NULL;

	if (!t->result)
		t->result = eof ? "LINE GONE" : t->st == T_DONE ? "DONE" : "TIMEOUT";
	printf("{\"result\": \"%s\", \"number\": \"%s\", \"end_s\": %.3f, \"eof\": %s",
	       t->result, t->dial ? t->dial : "", secs(t->now), eof ? "true" : "false");
	printf(", \"dialtone_s\": %.3f, \"dial_end_s\": %.3f, \"answer_tone_s\": %.3f"
	       ", \"data_s\": %.3f, \"hangup_s\": %.3f",
	       t->dialtone_s, t->dial_end_s, t->answer_tone_s, t->data_s, t->hangup_s);
	print_bursts("ringback", &t->ringback);
	print_bursts("busy", &t->busy);
	print_bursts("rings", &t->ring);
	if (t->fax_used) {
		struct sml_json j;

		if (t->fax) {
			sml_fax_stop(t->fax);
			t->fst = *sml_fax_stats(t->fax);
		}
		sml_json_init(&j);
		sml_fax_json(&t->fst, 0, &j);
		printf(", %s", j.buf);
		sml_json_free(&j);
	}
	if (ms)
		printf(", \"mod\": \"%s\", \"rate\": %d, \"v8\": %s, \"v42\": %s"
		       ", \"retransmissions\": %llu, \"fcs_errors\": %llu",
		       sml_mod_name(ms->mod), ms->rate, ms->v8_done ? "true" : "false",
		       ms->v42 ? "true" : "false",
		       (unsigned long long)ms->retransmissions,
		       (unsigned long long)ms->fcs_errors);
	printf(", \"sent\": %llu, \"received\": %llu, \"crc_sent\": \"%08x\""
	       ", \"crc_received\": \"%08x\", \"mismatches\": %llu, \"extra\": %llu"
	       ", \"expect_ok\": %s}\n",
	       (unsigned long long)t->sent, (unsigned long long)t->received,
	       t->crc_sent, t->crc_received, (unsigned long long)t->mismatches,
	       (unsigned long long)t->extra,
	       t->expect_total && t->received >= t->expect_total && !t->mismatches ?
	       "true" : "false");
	fflush(stdout);
}

/* forget everything about the last call, keep the options */
static void reset_call(struct tm_ *t)
{
	if (t->m) {
		sml_modem_free(t->m);
		sml_fifo_free(&t->txf);
		sml_fifo_free(&t->rxf);
		t->m = NULL;
	}
	if (t->fax) {
		sml_fax_free(t->fax);
		t->fax = NULL;
	}
	t->fax_used = false;
	if (t->dtmf) {
		dtmf_tx_free(t->dtmf);
		t->dtmf = NULL;
	}
	t->offhook = false;
	t->pulse_left = 0;
	t->pulse_t = 0;
	t->pulse_next = NULL;
	t->dt_blocks = 0;
	memset(&t->ringback, 0, sizeof(t->ringback));
	memset(&t->busy, 0, sizeof(t->busy));
	memset(&t->ring, 0, sizeof(t->ring));
	t->result = NULL;
	t->dialtone_s = t->dial_end_s = t->answer_tone_s = t->data_s = t->hangup_s = 0;
	t->sent = t->received = t->mismatches = t->extra = 0;
	t->crc_sent = t->crc_received = 0;
	t->done_at = -1;
}

static int modem_word(void *cfg, const char *w)
{
	return sml_modem_cfg_parse_word(cfg, w);
}

static int fax_word(void *cfg, const char *w)
{
	return sml_fax_cfg_parse_word(cfg, w);
}

/* a comma-separated list of words into cfg; 0, or -1 on a bad word (said) */
static int parse_words(const char *list, int (*word)(void *cfg, const char *w),
		       void *cfg, const char *what)
{
	char buf[1024], *save = NULL, *w;

	snprintf(buf, sizeof(buf), "%s", list);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		if (word(cfg, w)) {
			fprintf(stderr, "testmodem: bad %s word %s\n", what, w);
			return -1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	struct tm_ t = { 0 };
	int i;
	bool eof = false;
	FILE *rec = NULL;

	sml_log_prog = "testmodem";
	t.fd = -1;
	t.dc = 4096;
	t.noanswer_s = 40;
	t.hold_s = 0.5;
	t.max_s = 180;
	t.done_at = -1;
	t.hostile_calls = -1;
	t.hrng = 0x2545f491;
	sml_modem_cfg_default(&t.mcfg);
	sml_fax_cfg_default(&t.fcfg);
	for (i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--fd") && v) {
			t.fd = atoi(v);
			i++;
		} else if (!strcmp(o, "--dial") && v) {
			if (t.ndials < 16)
				t.dials[t.ndials++] = v;
			i++;
		} else if (!strcmp(o, "--answer") && v) {
			t.answer_rings = atoi(v);
			i++;
		} else if (!strcmp(o, "--mod") && v) {
			if (parse_words(v, modem_word, &t.mcfg, "modem"))
				return 2;
			i++;
		} else if (!strcmp(o, "--fax") && v) {
			char buf[1024];

			t.fcfg.on = true;
			if (parse_words(v, fax_word, &t.fcfg, "fax"))
				return 2;
			if (sml_fax_cfg_check(&t.fcfg, buf, sizeof(buf))) {
				fprintf(stderr, "testmodem: %s\n", buf);
				return 2;
			}
			i++;
		} else if (!strcmp(o, "--send") && v) {
			t.send_spec = v;
			i++;
		} else if (!strcmp(o, "--expect") && v) {
			t.expect_spec = v;
			i++;
		} else if (!strcmp(o, "--pulse")) {
			t.pulse = true;
		} else if (!strcmp(o, "--blind")) {
			t.blind = true;
		} else if (!strcmp(o, "--dc") && v) {
			t.dc = atoi(v);
			i++;
		} else if (!strcmp(o, "--noanswer-s") && v) {
			t.noanswer_s = atof(v);
			i++;
		} else if (!strcmp(o, "--hold-s") && v) {
			t.hold_s = atof(v);
			i++;
		} else if (!strcmp(o, "--max-s") && v) {
			t.max_s = atof(v);
			i++;
		} else if (!strcmp(o, "--record") && v) {
			rec = fopen(v, "wb");
			if (!rec) {
				perror(v);
				return 2;
			}
			i++;
		} else if (!strcmp(o, "--hostile") && v) {
			if (hostile_parse(&t, v)) {
				fprintf(stderr, "testmodem: bad hostile signal %s\n", v);
				return 2;
			}
			i++;
		} else if (!strcmp(o, "--hostile-calls") && v) {
			t.hostile_calls = atoi(v);
			i++;
		} else if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else if (!strcmp(o, "-v")) {
			sml_log_level = SML_LOG_DEBUG;
		} else {
			fprintf(stderr, "testmodem: bad option %s (--help)\n", o);
			return 2;
		}
	}
	if (t.fd < 0 || (!t.ndials && !t.answer_rings) ||
	    spec_parse(t.send_spec, &t.send_total, &t.send_seed) ||
	    spec_parse(t.expect_spec, &t.expect_total, &t.expect_seed)) {
		fprintf(stderr, "testmodem: need --fd and --dial or --answer (see source)\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (t.ndials)
		t.dial = t.dials[t.next_dial++];
	set_state(&t, t.dial ? T_START : T_RING_WAIT);

	while (t.now < (int64_t)(t.max_s * SML_RATE)) {
		int16_t tx[BLOCK], rx[BLOCK];

		/* like a sound card: this period's output, then this period's input */
		step(&t, t.now ? rx : (int16_t[BLOCK]){ 0 }, tx);
		if (xfer(t.fd, tx, sizeof(tx), true) || xfer(t.fd, rx, sizeof(rx), false)) {
			eof = true;
			break;
		}
		if (rec)
			fwrite(rx, sizeof(rx), 1, rec);
		if (t.st == T_DONE) {
			if (t.next_dial >= t.ndials)
				break;
			report(&t, false);
			reset_call(&t);
			t.call_no++;
			t.dial = t.dials[t.next_dial++];
			set_state(&t, T_START);
		}
	}
	report(&t, eof);
	reset_call(&t);
	if (rec)
		fclose(rec);
	return 0;
}
