/*
 * V.8 at the bit level: our V.8 block, carried by a SpanDSP V.21 modem pair
 * and SpanDSP's ANSam generator/detector, against SpanDSP's own V.8 (audio
 * API) in both roles, selecting V.22bis. Also ours against ours, a plain
 * ANS answerer (no V.8), a silent caller, and random bits.
 *
 * Every run prints one "RESULT" line (parsed by tests/dsp/test_v42_v8.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <inttypes.h>
#define SPANDSP_EXPOSE_INTERNAL_STRUCTURES
#include <spandsp.h>
#include <smdsp/v8.h>
#include "tutil.h"

#define BLOCK		40		/* 5 ms: our tx signal is chosen per block */
#define MAX_SAMPLES	(8000 * 30)

struct span_side {
	v8_state_t *v8;
	int status;
	int reports;
	int offered;
	v8_parms_t res;
};

struct our_side {
	struct smdsp_v8 *v8;
	fsk_tx_state_t *ftx;
	fsk_rx_state_t *frx;
	modem_connect_tones_tx_state_t *ans_tx;
	modem_connect_tones_rx_state_t *ans_rx;
	int tone_type;		/* what our answerer sends as ANSam (SpanDSP tone id) */
	int last_signal;
	int tone_reported;
	long done_at;
	long v21_bits_rx;
};

static void span_result(void *user, v8_parms_t *r)
{
	struct span_side *s = user;

	s->reports++;
	s->status = r->status;
	if (r->status == V8_STATUS_V8_OFFERED)
		s->offered = 1;
	s->res = *r;
}

static int our_get_bit(void *user)
{
	struct our_side *o = user;

	return smdsp_v8_get_bit(o->v8);
}

static void our_put_bit(void *user, int bit)
{
	struct our_side *o = user;

	if (bit < 0)
		return;		/* carrier up/down reports */
	o->v21_bits_rx++;
	smdsp_v8_put_bit(o->v8, bit);
}

static unsigned int span_to_ours(unsigned int m)
{
	unsigned int r = 0;

	if (m & V8_MOD_V17)
		r |= SMDSP_V8_MOD_V17;
	if (m & V8_MOD_V21)
		r |= SMDSP_V8_MOD_V21;
	if (m & V8_MOD_V22)
		r |= SMDSP_V8_MOD_V22;
	if (m & V8_MOD_V23HDX)
		r |= SMDSP_V8_MOD_V23HDX;
	if (m & V8_MOD_V23)
		r |= SMDSP_V8_MOD_V23;
	if (m & V8_MOD_V26BIS)
		r |= SMDSP_V8_MOD_V26BIS;
	if (m & V8_MOD_V26TER)
		r |= SMDSP_V8_MOD_V26TER;
	if (m & V8_MOD_V27TER)
		r |= SMDSP_V8_MOD_V27TER;
	if (m & V8_MOD_V29)
		r |= SMDSP_V8_MOD_V29;
	if (m & V8_MOD_V32)
		r |= SMDSP_V8_MOD_V32;
	if (m & V8_MOD_V34HDX)
		r |= SMDSP_V8_MOD_V34HDX;
	if (m & V8_MOD_V34)
		r |= SMDSP_V8_MOD_V34;
	if (m & V8_MOD_V90)
		r |= SMDSP_V8_MOD_V90;
	return r;
}

static void our_init(struct our_side *o, const struct smdsp_v8_config *c)
{
	memset(o, 0, sizeof(*o));
	o->v8 = smdsp_v8_create(c);
	o->ftx = fsk_tx_init(NULL, &preset_fsk_specs[c->calling ? FSK_V21CH1 : FSK_V21CH2],
			     our_get_bit, o);
	o->frx = fsk_rx_init(NULL, &preset_fsk_specs[c->calling ? FSK_V21CH2 : FSK_V21CH1],
			     FSK_FRAME_MODE_ASYNC, our_put_bit, o);
	o->tone_type = MODEM_CONNECT_TONES_ANSAM_PR;
	o->ans_rx = modem_connect_tones_rx_init(NULL, MODEM_CONNECT_TONES_ANS_PR, NULL, NULL);
	o->last_signal = -1;
	o->done_at = -1;
}

static void our_free(struct our_side *o)
{
	smdsp_v8_free(o->v8);
	fsk_tx_free(o->ftx);
	fsk_rx_free(o->frx);
	if (o->ans_tx)
		modem_connect_tones_tx_free(o->ans_tx);
	modem_connect_tones_rx_free(o->ans_rx);
}

/* what our modem puts on the line this block */
static void our_tx(struct our_side *o, int16_t *amp, int n)
{
	int sig = smdsp_v8_tx_signal(o->v8);

	memset(amp, 0, (size_t)n * sizeof(*amp));
	if (sig == SMDSP_V8_TX_ANSAM) {
		if (!o->ans_tx)
			o->ans_tx = modem_connect_tones_tx_init(NULL, o->tone_type);
		modem_connect_tones_tx(o->ans_tx, amp, n);
	} else if (sig == SMDSP_V8_TX_V21) {
		if (o->last_signal != SMDSP_V8_TX_V21)
			fsk_tx_restart(o->ftx, &preset_fsk_specs[smdsp_v8_tx_channel(o->v8) == 1 ?
								 FSK_V21CH1 : FSK_V21CH2]);
		fsk_tx(o->ftx, amp, n);
	}
	o->last_signal = sig;
}

static void our_rx(struct our_side *o, const int16_t *amp, int n, long t)
{
	int tone;

	fsk_rx(o->frx, amp, n);
	modem_connect_tones_rx(o->ans_rx, amp, n);
	tone = modem_connect_tones_rx_get(o->ans_rx);
	if (tone != MODEM_CONNECT_TONES_NONE && !o->tone_reported) {
		o->tone_reported = tone;
		smdsp_v8_answer_tone(o->v8, (tone == MODEM_CONNECT_TONES_ANSAM ||
					     tone == MODEM_CONNECT_TONES_ANSAM_PR) ?
					    SMDSP_V8_TONE_ANSAM : SMDSP_V8_TONE_ANS);
	}
	smdsp_v8_advance(o->v8, (unsigned int)n);
	if (o->done_at < 0 && smdsp_v8_status(o->v8) != SMDSP_V8_IN_PROGRESS)
		o->done_at = t;
}

static void span_parms(v8_parms_t *p, int tone, unsigned int mods, int v92)
{
	memset(p, 0, sizeof(*p));
	p->modem_connect_tone = tone;
	p->send_ci = 1;
	p->v92 = v92;
	p->call_function = V8_CALL_V_SERIES;
	p->modulations = mods;
	p->protocol = V8_PROTOCOL_LAPM_V42;
	p->pstn_access = 0;
	p->pcm_modem_availability = 0;
	p->nsf = -1;
	p->t66 = -1;
}

static struct smdsp_v8_config our_cfg(int calling)
{
	struct smdsp_v8_config c;

	memset(&c, 0, sizeof(c));
	c.calling = calling;
	c.modulations = SMDSP_V8_MOD_V22 | SMDSP_V8_MOD_V21;
	c.lapm = 1;
	c.send_ci = 1;
	return c;
}

/* ours against SpanDSP's V.8 */
/* a line of d samples each way (d < DELAY_MAX) between the two ends */
#define DELAY_MAX	4096
struct delay_line {
	int16_t buf[DELAY_MAX];
	int d, pos;
};

static void line_pass(struct delay_line *l, int16_t *x, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		int16_t in = x[i];

		x[i] = l->buf[l->pos];
		l->buf[l->pos] = in;
		l->pos = l->pos + 1 >= l->d ? 0 : l->pos + 1;
	}
}

static int t_span_line(int ours_calling, int v92, unsigned int span_mods, int delay_ms,
		       int line_samples, const char *name);

static void t_span(int ours_calling, int v92, unsigned int span_mods, int delay_ms,
		   const char *name)
{
	t_span_line(ours_calling, v92, span_mods, delay_ms, 0, name);
}

static int t_span_line(int ours_calling, int v92, unsigned int span_mods, int delay_ms,
		       int line_samples, const char *name)
{
	static struct delay_line up, down;
	struct smdsp_v8_config c = our_cfg(ours_calling);
	struct our_side o;
	struct span_side sp;
	struct smdsp_v8_result r;
	v8_parms_t parms;
	int16_t to_ours[BLOCK], to_span[BLOCK];
	long t;
	int ok;

	memset(&sp, 0, sizeof(sp));
	memset(&up, 0, sizeof(up));
	memset(&down, 0, sizeof(down));
	up.d = down.d = line_samples;
	our_init(&o, &c);
	span_parms(&parms, MODEM_CONNECT_TONES_ANSAM_PR, span_mods, v92);
	sp.v8 = v8_init(NULL, !ours_calling, &parms, span_result, &sp);
	for (t = 0; t < MAX_SAMPLES; t += BLOCK) {
		int n = v8_tx(sp.v8, to_ours, BLOCK);

		if (n < BLOCK)
			memset(to_ours + n, 0, (size_t)(BLOCK - n) * sizeof(int16_t));
		/* a late answerer: the line is silent until it picks up */
		if (t < delay_ms * 8L) {
			memset(to_span, 0, sizeof(to_span));
			v8_rx(sp.v8, to_span, BLOCK);
			continue;
		}
		our_tx(&o, to_span, BLOCK);
		if (line_samples) {
			line_pass(&up, to_span, BLOCK);
			line_pass(&down, to_ours, BLOCK);
		}
		v8_rx(sp.v8, to_span, BLOCK);
		our_rx(&o, to_ours, BLOCK, t);
		if (o.done_at >= 0 && (sp.status == V8_STATUS_V8_CALL ||
				       sp.status == V8_STATUS_FAILED ||
				       sp.status == V8_STATUS_NON_V8_CALL) &&
		    t > o.done_at + 4000)
			break;
	}
	smdsp_v8_get_result(o.v8, &r);
	ok = r.status == SMDSP_V8_DONE && r.selected == SMDSP_V8_MOD_V22 &&
	     sp.status == V8_STATUS_V8_CALL && r.lapm;
	printf("RESULT name=%s ok=%d ours=%s status=%d selected=%#x common=%#x peer=%#x lapm=%d "
	       "cm_seen=%u ci_seen=%u done_ms=%ld span_status=%d span_mods=%#x span_offered=%d "
	       "span_protocol=%d tone=%d\n",
	       name, ok, ours_calling ? "calling" : "answering", r.status, r.selected, r.common,
	       r.peer_modulations, r.lapm, r.cm_seen, r.ci_seen, o.done_at / 8, sp.status,
	       sp.res.modulations, sp.offered, sp.res.protocol, o.tone_reported);
	CHECK(r.status == SMDSP_V8_DONE, "%s: our status %d", name, r.status);
	CHECK(r.selected == SMDSP_V8_MOD_V22, "%s: selected %#x", name, r.selected);
	CHECK(r.lapm, "%s: LAPM not agreed", name);
	CHECK(sp.status == V8_STATUS_V8_CALL, "%s: SpanDSP status %d", name, sp.status);
	if (ours_calling) {
		/* SpanDSP's answerer echoes our CM as its JM */
		CHECK(span_to_ours(sp.res.modulations) == c.modulations,
		      "%s: SpanDSP saw %#x in our CM", name, sp.res.modulations);
		CHECK(o.tone_reported == MODEM_CONNECT_TONES_ANSAM_PR ||
		      o.tone_reported == MODEM_CONNECT_TONES_ANSAM, "%s: ANSam not heard", name);
	} else {
		/* our JM lists only the common modes; SpanDSP reports what the JM said */
		CHECK(span_to_ours(sp.res.modulations) == (c.modulations & span_to_ours(span_mods)),
		      "%s: SpanDSP got JM modes %#x", name, sp.res.modulations);
		CHECK(r.peer_modulations == span_to_ours(span_mods), "%s: CM modes %#x", name,
		      r.peer_modulations);
	}
	our_free(&o);
	v8_free(sp.v8);
	return ok;
}

/* ours against ours, through the same SpanDSP V.21 modems */
static void t_ours_ours(unsigned int mods_a, unsigned int mods_b, unsigned int want,
			const char *name)
{
	struct smdsp_v8_config ca = our_cfg(1), cb = our_cfg(0);
	struct our_side a, b;
	struct smdsp_v8_result ra, rb;
	int16_t ab[BLOCK], ba[BLOCK];
	long t;
	int ok;

	ca.modulations = mods_a;
	cb.modulations = mods_b;
	our_init(&a, &ca);
	our_init(&b, &cb);
	for (t = 0; t < MAX_SAMPLES; t += BLOCK) {
		our_tx(&a, ab, BLOCK);
		our_tx(&b, ba, BLOCK);
		our_rx(&a, ba, BLOCK, t);
		our_rx(&b, ab, BLOCK, t);
		if (a.done_at >= 0 && b.done_at >= 0)
			break;
	}
	smdsp_v8_get_result(a.v8, &ra);
	smdsp_v8_get_result(b.v8, &rb);
	ok = ra.status == SMDSP_V8_DONE && rb.status == SMDSP_V8_DONE &&
	     ra.selected == want && rb.selected == want && ra.common == rb.common;
	printf("RESULT name=%s ok=%d selected=%#x/%#x common=%#x/%#x done_ms=%ld/%ld ci_seen=%u\n",
	       name, ok, ra.selected, rb.selected, ra.common, rb.common, a.done_at / 8,
	       b.done_at / 8, rb.ci_seen);
	CHECK(rb.ci_seen > 0, "%s: our answerer saw no CI", name);
	CHECK(ok, "%s: status %d/%d selected %#x/%#x", name, ra.status, rb.status, ra.selected,
	      rb.selected);
	our_free(&a);
	our_free(&b);
}

/* a V.25 answerer (plain ANS, no V.8): our caller must say NON_V8 */
static void t_plain_ans(void)
{
	struct smdsp_v8_config c = our_cfg(1);
	struct our_side o;
	modem_connect_tones_tx_state_t *ans = modem_connect_tones_tx_init(NULL,
									  MODEM_CONNECT_TONES_ANS_PR);
	int16_t buf[BLOCK], out[BLOCK];
	long t;

	our_init(&o, &c);
	for (t = 0; t < 8000 * 6 && o.done_at < 0; t += BLOCK) {
		memset(buf, 0, sizeof(buf));
		modem_connect_tones_tx(ans, buf, BLOCK);
		our_tx(&o, out, BLOCK);
		our_rx(&o, buf, BLOCK, t);
	}
	printf("RESULT name=plain_ans ok=%d status=%d tone=%d\n",
	       smdsp_v8_status(o.v8) == SMDSP_V8_NON_V8, smdsp_v8_status(o.v8), o.tone_reported);
	CHECK(smdsp_v8_status(o.v8) == SMDSP_V8_NON_V8, "plain ANS: status %d",
	      smdsp_v8_status(o.v8));
	our_free(&o);
	modem_connect_tones_tx_free(ans);
}

/*
 * Bits (at 300 bit/s, 80 samples in 3) until tx_signal() leaves V.21 or
 * max bits have gone; returns the get_bit() calls made, the last of them
 * the one that found the CI over and stopped.
 */
static int ci_bits_until_quiet(struct smdsp_v8 *s, int max)
{
	int n = 0;

	while (n < max && smdsp_v8_tx_signal(s) == SMDSP_V8_TX_V21) {
		smdsp_v8_get_bit(s);
		n++;
		smdsp_v8_advance(s, n % 3 ? 27 : 26);
	}
	return n;
}

/* samples of silence passed in 5 ms steps until CI comes back, up to max */
static int quiet_samples(struct smdsp_v8 *s, int max)
{
	int t = 0;

	while (t < max && smdsp_v8_tx_signal(s) != SMDSP_V8_TX_V21) {
		smdsp_v8_get_bit(s);
		smdsp_v8_advance(s, 40);
		t += 40;
	}
	return t;
}

/*
 * A 2100 Hz tone heard while CI goes out: the CI in progress ends (30 bits:
 * ten ones, two framed octets), then silence for as long as the tone lasts;
 * gone before it was told apart, CI's 500 ms pause and then CI again; told
 * apart, ANS ends V.8 (NON_V8) and ANSam leads to CM after Te.
 */
static void t_ci_pause(void)
{
	struct smdsp_v8_config c = our_cfg(1);
	struct smdsp_v8 *s = smdsp_v8_create(&c);
	int sent, quiet, k, ok;

	/* 12 bits into the first CI */
	for (k = 0; k < 12; k++)
		smdsp_v8_get_bit(s);
	smdsp_v8_answer_tone(s, SMDSP_V8_TONE_HEARD);
	sent = ci_bits_until_quiet(s, 400);
	/* a tone that lasts 3 s: CI stays quiet */
	for (k = 0; k < 600; k++) {
		smdsp_v8_answer_tone(s, SMDSP_V8_TONE_HEARD);
		if (quiet_samples(s, 40) < 40)
			break;
	}
	quiet = k;
	smdsp_v8_answer_tone(s, SMDSP_V8_TONE_NONE);
	k = quiet_samples(s, 8000);
	ok = sent == 30 - 12 + 1 && quiet == 600 && k >= 3960 && k <= 4040 &&
	     smdsp_v8_status(s) == SMDSP_V8_IN_PROGRESS;
	printf("RESULT name=ci_pause ok=%d rest_of_ci=%d quiet_blocks=%d resumed_after=%d\n", ok, sent,
	       quiet, k);
	CHECK(sent == 30 - 12 + 1, "CI went on for %d bits after the tone was heard", sent - 1);
	CHECK(quiet == 600, "CI came back after %d of 600 blocks of tone", quiet);
	CHECK(k >= 3960 && k <= 4040, "CI resumed %d samples after the tone went", k);
	/* heard again, then plain ANS: V.8 gives way to V.25 */
	smdsp_v8_answer_tone(s, SMDSP_V8_TONE_HEARD);
	ci_bits_until_quiet(s, 400);
	smdsp_v8_answer_tone(s, SMDSP_V8_TONE_ANS);
	CHECK(smdsp_v8_status(s) == SMDSP_V8_NON_V8, "ANS after a pause: status %d",
	      smdsp_v8_status(s));
	/* and ANSam after a pause: CM follows Te */
	smdsp_v8_reset(s, &c);
	smdsp_v8_answer_tone(s, SMDSP_V8_TONE_HEARD);
	ci_bits_until_quiet(s, 400);
	smdsp_v8_answer_tone(s, SMDSP_V8_TONE_ANSAM);
	k = quiet_samples(s, 8000);
	printf("RESULT name=ci_pause_ansam ok=%d cm_after=%d\n", k >= 3960 && k <= 4040, k);
	CHECK(k >= 3960 && k <= 4040 && smdsp_v8_status(s) == SMDSP_V8_IN_PROGRESS,
	      "CM %d samples after ANSam", k);
	smdsp_v8_free(s);
}

/* a caller that never sends CM: our answerer gives up ANSam and says NON_V8 */
static void t_silent_caller(void)
{
	struct smdsp_v8_config c = our_cfg(0);
	struct smdsp_v8 *s = smdsp_v8_create(&c);
	long t;
	int ansam_ms = 0;

	for (t = 0; t < 8000 * 8; t += BLOCK) {
		if (smdsp_v8_tx_signal(s) == SMDSP_V8_TX_ANSAM)
			ansam_ms += BLOCK / 8;
		smdsp_v8_put_bit(s, 1);
		smdsp_v8_advance(s, BLOCK);
	}
	printf("RESULT name=silent_caller ok=%d status=%d ansam_ms=%d\n",
	       smdsp_v8_status(s) == SMDSP_V8_NON_V8, smdsp_v8_status(s), ansam_ms);
	CHECK(smdsp_v8_status(s) == SMDSP_V8_NON_V8, "silent caller: status %d",
	      smdsp_v8_status(s));
	CHECK(ansam_ms >= 4900 && ansam_ms <= 5100, "ANSam lasted %d ms", ansam_ms);
	smdsp_v8_free(s);
}

/* random bits in every state: no crash, no false completion */
static void t_random(void)
{
	uint64_t rng = 3;
	int role, completed = 0;

	for (role = 0; role < 2; role++) {
		struct smdsp_v8_config c = our_cfg(role);
		struct smdsp_v8 *s = smdsp_v8_create(&c);
		long i;

		if (role)
			smdsp_v8_answer_tone(s, SMDSP_V8_TONE_ANSAM);
		for (i = 0; i < 3000000; i++) {
			smdsp_v8_put_bit(s, (int)(t_rand64(&rng) & 1));
			smdsp_v8_get_bit(s);
			if ((i & 31) == 0)
				smdsp_v8_advance(s, 27);
		}
		if (smdsp_v8_status(s) == SMDSP_V8_DONE)
			completed++;
		smdsp_v8_free(s);
	}
	printf("RESULT name=v8_random ok=%d completed=%d\n", completed == 0, completed);
	CHECK(completed == 0, "random bits completed V.8");
}

int main(void)
{
	t_span(1, -1, V8_MOD_V22 | V8_MOD_V32 | V8_MOD_V34 | V8_MOD_V21, 0, "ours_calls_span");
	t_span(0, -1, V8_MOD_V22 | V8_MOD_V32 | V8_MOD_V34 | V8_MOD_V21 | V8_MOD_V17, 0,
	       "span_calls_ours");
	/*
	 * A late answer. (SpanDSP 0.0.6's caller never sends CI: v8_restart()
	 * takes send_ci from its zeroed result, not from the parameters. Our
	 * answerer's CI parsing is covered by ours_ours_*.)
	 */
	t_span(0, -1, V8_MOD_V22 | V8_MOD_V21, 2500, "span_calls_ours_late");
	t_span(0, 0, V8_MOD_V22 | V8_MOD_V90 | V8_MOD_V23, 0, "span_calls_ours_v92_msgs");
	/* SpanDSP's JM echoes our CM (V.21 too), though it was set up for V.22 only */
	t_span(1, 0, V8_MOD_V22, 0, "ours_calls_span_v22_only");
	/*
	 * JM reaches our caller at every point of its CM (about 90 bits of 26.7
	 * samples) across line delays: our CJ must follow whatever bit it
	 * interrupts and SpanDSP's answerer hear it. Before CJ finished the
	 * preamble's ninth and tenth ones, 2 of 65 delays failed here.
	 */
	{
		int d, good = 0, n = 0;

		for (d = 1; d < 2400; d += 13, n++)
			good += t_span_line(1, -1, V8_MOD_V22 | V8_MOD_V32 | V8_MOD_V21, 0, d,
					    "ours_calls_span_line");
		printf("RESULT name=ours_calls_span_sweep ok=%d good=%d of=%d\n",
		       good == n, good, n);
		CHECK(good == n, "CJ heard by SpanDSP at %d of %d line delays", good, n);
	}
	t_ours_ours(SMDSP_V8_MOD_V22 | SMDSP_V8_MOD_V21, SMDSP_V8_MOD_V22 | SMDSP_V8_MOD_V21,
		    SMDSP_V8_MOD_V22, "ours_ours_v22bis");
	t_ours_ours(SMDSP_V8_MOD_V22 | SMDSP_V8_MOD_V21, SMDSP_V8_MOD_V21, SMDSP_V8_MOD_V21,
		    "ours_ours_v21_only");
	t_plain_ans();
	t_ci_pause();
	t_silent_caller();
	t_random();
	return t_report("test_v8");
}
