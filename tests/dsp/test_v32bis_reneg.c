/*
 * V.32bis's rate renegotiation between our two ends (dsp/v32bis.c): in the
 * data, S, S-bar and R4 from the end that asks, S, S-bar and R5 from the
 * other, then E, B1 and the data at the new rate, without a training.
 * The line: the test line's 2-wire model (a G.168 hybrid and a far echo,
 * the cancellers on), a telephone-band channel (tests/dsp/common/chan.c),
 * 6 dB of loss, and white noise added at one receiver or the other, so
 * that the end which hears the worse (or better) line is the one to ask.
 *
 * Every bit each end's transmitter took is recorded, and every bit its
 * peer delivered; the two streams are aligned afterwards: a bit the data
 * lost in a renegotiation is one sent that never came (a gap in the
 * alignment), one inserted is one delivered that was never sent, an error
 * a bit delivered in place of another. The checks:
 * - a line that worsens mid-call (noise at the caller's receiver, then at
 *   the answerer's): that end asks, the rate goes down, no retrain, every
 *   renegotiation both ends', and the bits lost, inserted and wrong across
 *   it are counted and bounded;
 * - a line that improves (noise at one receiver from the start, taken away
 *   in the data; 4-wire, as a canceller trained in the noise would leave
 *   14400 its residual): that end asks (the other's asking off), the rate
 *   goes up, the same counts;
 * - asked for by the test (smdsp_v32bis_renegotiate()) with a set of
 *   rates: the rate follows what both allow, on either end;
 * - no rate in common (the answerer offers only what the caller's R4 left
 *   out): the cleardown, both ends FAILED and cleared;
 * - a call without the trellis code (the answerer configured as a V.32
 *   modem, B8 = 0): down from the uncoded 9600 to 4800 when asked, and
 *   asked for every rate, back to the uncoded 9600, never a trellis rate;
 * - a far end that never answers (renegotiation with the answerer's
 *   receiver taken off the line): a retrain after SMDSP_V32BIS_RENEG_MS,
 *   then the data again.
 * -v: the modems' state lines at the end; -vv: and at each change of phase.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v32bis.h>
#include "check.h"
#include "line.h"
#include "chan.h"
#include "tutil.h"
#include "v32ep.h"

#define MAXBITS 400000

static int verbose;

struct end {
	struct v32_prbs src;
	uint8_t *sent, *got;
	long nsent, ngot;
};

static int src_cb(void *u)
{
	struct end *e = u;
	int b = v32_prbs_src(&e->src);

	if (e->nsent < MAXBITS)
		e->sent[e->nsent++] = (uint8_t)b;
	return b;
}

static void got_cb(void *u, int b)
{
	struct end *e = u;

	if (e->ngot < MAXBITS)
		e->got[e->ngot++] = (uint8_t)b;
}

/* where the delivered stream goes on in the sent one: 64 bits alike, from sent[from] on; -1 if nowhere */
static long find(const struct end *tx, const struct end *rx, long i, long from, long span)
{
	long o;

	if (from < 0)
		from = 0;
	for (o = from; o + 64 <= tx->nsent && o < from + span; o++)
		if (!memcmp(tx->sent + o, rx->got + i, 64))
			return o;
	return -1;
}

struct acct {
	long matched;	/* bits delivered in their place */
	long lost;	/* sent, never delivered (gaps; the tail still on the line not counted) */
	long inserted;	/* delivered, never sent */
	long errors;	/* delivered in place of another */
};

/*
 * The stream rx delivered against the one tx sent. Leading ones are B1's
 * (the start-up's, delivered as the idle line before the data): not
 * counted. A single wrong bit with the next 32 right is an error; more is a
 * slip, and the stream is found again further on.
 */
static void account(const struct end *tx, const struct end *rx, struct acct *a)
{
	long i = 0, j = -1;

	memset(a, 0, sizeof(*a));
	while (i < rx->ngot && rx->got[i])
		i++;
	while (i + 64 <= rx->ngot) {
		long o = find(tx, rx, i, j < 0 ? 0 : j - 256, j < 0 ? 4096 : 65536);

		if (o < 0) {
			a->inserted++;
			i++;
			continue;
		}
		if (j >= 0 && o > j)
			a->lost += o - j;
		else if (j >= 0 && o < j)
			a->inserted += j - o;
		j = o;
		while (i < rx->ngot && j < tx->nsent) {
			if (rx->got[i] == tx->sent[j]) {
				a->matched++;
				i++;
				j++;
				continue;
			}
			if (i + 33 <= rx->ngot && j + 33 <= tx->nsent &&
			    !memcmp(rx->got + i + 1, tx->sent + j + 1, 32)) {
				a->errors++;
				i++;
				j++;
				continue;
			}
			break;
		}
		if (i + 64 > rx->ngot || j >= tx->nsent)
			break;
	}
}

struct cfg {
	double seconds;
	/* noise (dBm0) at each receiver, [0] the caller's; from noise_on to noise_off (s; 0: always) */
	double noise_dbm0[2];
	double noise_on, noise_off;
	double ask_at;		/* s: smdsp_v32bis_renegotiate(ask_who, ask_rates) */
	int ask_who;
	unsigned int ask_rates;
	unsigned int rates[2];	/* offered (0: all) */
	double deaf_from;	/* s: the answerer hears nothing from then on (0: never) */
	double deaf_to;
	bool auto_off[2];	/* smdsp_v32bis_set_auto_reneg() off at that end */
	bool four_wire;		/* no echo, the cancellers off */
	bool passive[2];	/* neither renegotiates nor retrains by itself: only answers */
};

struct res {
	unsigned int rate[2], first_rate[2];
	bool trellis[2], first_trellis[2];
	unsigned int retrains[2], renegs[2], asked[2], fails[2];
	int phase[2];
	bool cleared[2];
	struct acct acct[2];	/* [0] what the caller received */
	double data_s[2];
};

static void run(const struct cfg *c, struct res *r)
{
	static uint8_t buf[4][MAXBITS];
	static struct end e[2];
	struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -70, .echo_db = -300, .seed = 9, .hybrid = 3,
			       .hybrid_erl_db = 10, .far_echo_db = 15, .far_hybrid = 4, .far_echo_hz = 1.5,
			       .delay = 400, .channel = CHAN_TELEPHONE };
	struct smdsp_v32bis_config cc = { .caller = true, .get_bit = src_cb, .put_bit = got_cb, .user = &e[0],
					  .rates = c->rates[0] };
	struct smdsp_v32bis_config ca = { .caller = false, .get_bit = src_cb, .put_bit = got_cb, .user = &e[1],
					  .rates = c->rates[1] };
	struct smdsp_v32bis *m[2];
	struct line *l;
	int16_t atx[160], arx[160] = { 0 }, btx[160], brx[160] = { 0 };
	long k, n = (long)(c->seconds * 50);
	uint64_t seed = 3;
	int i;

	lc.far_echo_delay = 2 * (lc.delay + 16);
	if (c->four_wire) {
		lc.hybrid = 0;
		lc.far_echo_db = 0;
		cc.four_wire = true;
		ca.four_wire = true;
	}
	l = line_create(&lc);
	memset(e, 0, sizeof(e));
	memset(r, 0, sizeof(*r));
	for (i = 0; i < 2; i++) {
		e[i].sent = buf[2 * i];
		e[i].got = buf[2 * i + 1];
	}
	e[0].src.reg = 0x1234;
	e[1].src.reg = 0x4321;
	m[0] = smdsp_v32bis_create(&cc);
	m[1] = smdsp_v32bis_create(&ca);
	for (i = 0; i < 2; i++) {
		smdsp_v32bis_set_auto_reneg(m[i], !c->auto_off[i] && !c->passive[i]);
		smdsp_v32bis_set_auto_retrain(m[i], !c->passive[i]);
	}
	for (k = 0; k < n; k++) {
		double t = k / 50.0;

		/* ask_who 2: both at once */
		for (i = 0; i < 2 && c->ask_at > 0 && k == (long)(c->ask_at * 50); i++)
			if (c->ask_who == i || c->ask_who == 2)
				CHECK(smdsp_v32bis_renegotiate(m[i], c->ask_rates) == 0,
				      "renegotiate() refused in the data at %.2f s", t);
		smdsp_v32bis_process(m[0], arx, atx, 160);
		smdsp_v32bis_process(m[1], brx, btx, 160);
		line_process(l, atx, arx, btx, brx, 160);
		for (i = 0; i < 2; i++) {
			double rms = 32767.0 * pow(10, (c->noise_dbm0[i] - 3.14) / 20) / sqrt(2);
			int16_t *x = i ? brx : arx;
			int j;

			if (c->noise_dbm0[i] > -200 && t >= c->noise_on && (c->noise_off <= 0 || t < c->noise_off))
				for (j = 0; j < 160; j++)
					x[j] = t_sat16(x[j] + rms * t_gauss(&seed));
		}
		if (c->deaf_from > 0 && t >= c->deaf_from && t < c->deaf_to)
			memset(brx, 0, sizeof(brx));
		for (i = 0; i < 2; i++) {
			static int last[2];
			int ph = smdsp_v32bis_phase(m[i]);

			if (verbose > 1 && (!k || ph != last[i])) {
				char line[240];

				smdsp_v32bis_print(m[i], line, sizeof(line));
				printf("  %.2f %s\n", t, line);
			}
			last[i] = ph;
			if (!r->data_s[i] && smdsp_v32bis_phase(m[i]) == SMDSP_V32BIS_PH_DATA) {
				r->data_s[i] = t;
				r->first_rate[i] = smdsp_v32bis_rate(m[i]);
				r->first_trellis[i] = smdsp_v32bis_trellis(m[i]);
			}
		}
	}
	for (i = 0; i < 2; i++) {
		char line[240];

		r->rate[i] = smdsp_v32bis_rate(m[i]);
		r->trellis[i] = smdsp_v32bis_trellis(m[i]);
		r->retrains[i] = smdsp_v32bis_retrains(m[i]);
		r->renegs[i] = smdsp_v32bis_renegs(m[i]);
		r->asked[i] = smdsp_v32bis_reneg_asked(m[i]);
		r->fails[i] = smdsp_v32bis_reneg_fails(m[i]);
		r->phase[i] = smdsp_v32bis_phase(m[i]);
		r->cleared[i] = smdsp_v32bis_cleared(m[i]);
		if (verbose) {
			smdsp_v32bis_print(m[i], line, sizeof(line));
			printf("  %s\n", line);
		}
		smdsp_v32bis_free(m[i]);
	}
	account(&e[1], &e[0], &r->acct[0]);
	account(&e[0], &e[1], &r->acct[1]);
	CHECK(line_starved(l) == 0, "the test line ran short of samples");
	line_free(l);
}

static void show(const char *what, const struct res *r)
{
	int i;

	printf("%s: rate %u/%u at first, now %u/%u; renegotiations %u/%u (asked %u/%u, failed %u/%u), "
	       "retrains %u/%u\n", what, r->first_rate[0], r->first_rate[1], r->rate[0], r->rate[1], r->renegs[0],
	       r->renegs[1], r->asked[0], r->asked[1], r->fails[0], r->fails[1], r->retrains[0], r->retrains[1]);
	for (i = 0; i < 2; i++)
		printf("  %s received %ld bits in place, %ld lost, %ld inserted, %ld wrong\n",
		       i ? "answerer" : "caller  ", r->acct[i].matched, r->acct[i].lost, r->acct[i].inserted,
		       r->acct[i].errors);
	fflush(stdout);
}

/* both ends in data at one rate, no retrain, n renegotiations, the data kept within the bounds */
static int kept(const struct res *r, unsigned int n, long max_lost)
{
	int i, ok = r->rate[0] == r->rate[1] && r->phase[0] == SMDSP_V32BIS_PH_DATA &&
		    r->phase[1] == SMDSP_V32BIS_PH_DATA;

	for (i = 0; i < 2; i++)
		ok &= !r->retrains[i] && r->renegs[i] == n && !r->fails[i] && r->acct[i].matched > 20000 &&
		      r->acct[i].lost + r->acct[i].inserted + r->acct[i].errors <= max_lost * n;
	return ok;
}

/* signal at about -19 dBm0 at the receivers: -39 dBm0 of noise is an SNR of about 20 dB */
#define NOISY -39

static void worsen(int who)
{
	struct cfg c = { .seconds = 14, .noise_dbm0 = { -300, -300 }, .noise_on = 7 };
	struct res r;
	char what[80];

	c.noise_dbm0[who] = NOISY;
	run(&c, &r);
	snprintf(what, sizeof(what), "the %s's line worsens at 7 s", who ? "answerer" : "caller");
	show(what, &r);
	CHECK(r.first_rate[0] == 14400 && r.rate[0] < 14400 && kept(&r, r.renegs[0], 64) && r.renegs[0] >= 1 &&
	      r.asked[who] == r.renegs[0] && !r.asked[!who],
	      "%s: rate %u -> %u, renegotiations %u asked %u/%u, retrains %u/%u", what, r.first_rate[0], r.rate[0],
	      r.renegs[0], r.asked[0], r.asked[1], r.retrains[0], r.retrains[1]);
}

static void improve(int who)
{
	struct cfg c = { .seconds = 19, .noise_dbm0 = { -300, -300 }, .noise_off = 11 };
	struct res r;
	char what[80];

	c.noise_dbm0[who] = NOISY;
	/*
	 * 4-wire: over the 2-wire line the noisy end's canceller trains in that
	 * noise, and what it leaves keeps 14400 out once the noise is gone (the
	 * raw errors take it back down within seconds)
	 */
	c.four_wire = true;
	/* the other end would ask too, hearing a good line from the start: here it only answers */
	c.auto_off[!who] = true;
	run(&c, &r);
	snprintf(what, sizeof(what), "the %s's line improves at 11 s", who ? "answerer" : "caller");
	show(what, &r);
	CHECK(r.first_rate[0] < 14400 && r.rate[0] == 14400 && r.asked[who] >= 1 && !r.asked[!who] &&
	      kept(&r, r.renegs[0], 64),
	      "%s: rate %u -> %u, renegotiations %u asked %u/%u", what, r.first_rate[0], r.rate[0], r.renegs[0],
	      r.asked[0], r.asked[1]);
}

/* asked for by the test: the rates offered, and what the other end offers */
static void asked(void)
{
	struct cfg c = { .seconds = 10, .noise_dbm0 = { -300, -300 }, .ask_at = 6, .ask_who = 1,
			 .ask_rates = SMDSP_V32BIS_7200 | SMDSP_V32BIS_9600 };
	struct res r;

	run(&c, &r);
	show("the answerer asks for 9600 or 7200", &r);
	CHECK(r.rate[0] == 9600 && kept(&r, 1, 64), "answerer's 9600/7200: rate %u/%u", r.rate[0], r.rate[1]);
	c.ask_who = 0;
	c.ask_rates = SMDSP_V32BIS_4800 | SMDSP_V32BIS_7200 | SMDSP_V32BIS_12000;
	c.rates[1] = SMDSP_V32BIS_4800 | SMDSP_V32BIS_7200 | SMDSP_V32BIS_14400;
	run(&c, &r);
	show("the caller asks for 12000, 7200 or 4800 of an answerer without 12000", &r);
	CHECK(r.first_rate[0] == 14400 && r.rate[0] == 7200 && kept(&r, 1, 64), "caller's 12000/7200/4800: rate %u/%u",
	      r.rate[0], r.rate[1]);
	/* no rate in common: the cleardown */
	c.ask_rates = SMDSP_V32BIS_9600;
	run(&c, &r);
	show("the caller asks for 9600 of an answerer without it", &r);
	CHECK(r.phase[0] == SMDSP_V32BIS_PH_FAILED && r.phase[1] == SMDSP_V32BIS_PH_FAILED && r.cleared[0] &&
	      r.cleared[1] && !r.retrains[0] && !r.retrains[1],
	      "no common rate: phases %d/%d, cleared %d/%d, retrains %u/%u", r.phase[0], r.phase[1], r.cleared[0],
	      r.cleared[1], r.retrains[0], r.retrains[1]);
}

/* a call without the trellis code: the renegotiation keeps to 4800 and the uncoded 9600 */
static void uncoded(void)
{
	struct cfg c = { .seconds = 10, .noise_dbm0 = { -300, -300 }, .ask_at = 6, .ask_who = 0,
			 .ask_rates = SMDSP_V32BIS_4800,
			 .rates = { 0, SMDSP_V32BIS_4800 | SMDSP_V32BIS_9600 | SMDSP_V32BIS_UNCODED } };
	struct res r;

	run(&c, &r);
	show("V.32 answerer (B8 = 0): the caller asks for 4800", &r);
	CHECK(r.first_rate[0] == 9600 && !r.first_trellis[0] && !r.first_trellis[1] && r.rate[0] == 4800 &&
	      kept(&r, 1, 64), "uncoded 9600 to 4800: rate %u -> %u", r.first_rate[0], r.rate[0]);
	c.ask_rates = SMDSP_V32BIS_ALL;
	c.ask_who = 1;
	run(&c, &r);
	show("V.32 answerer (B8 = 0) asks for every rate", &r);
	CHECK(r.first_rate[0] == 9600 && r.rate[0] == 9600 && !r.trellis[0] && !r.trellis[1] && kept(&r, 1, 64),
	      "uncoded 9600, every rate asked: rate %u -> %u, trellis %d/%d", r.first_rate[0], r.rate[0],
	      r.trellis[0], r.trellis[1]);
}

/*
 * the far end deaf through the renegotiation (and left alone by its own
 * watch, which would otherwise start a renegotiation of its own when its data
 * stop): a retrain after SMDSP_V32BIS_RENEG_MS, then data
 */
static void no_answer(void)
{
	struct cfg c = { .seconds = 16, .noise_dbm0 = { -300, -300 }, .ask_at = 6, .ask_who = 0,
			 .ask_rates = SMDSP_V32BIS_9600, .deaf_from = 5.98, .deaf_to = 6.6,
			 .passive = { false, true } };
	struct res r;

	run(&c, &r);
	show("the answerer deaf through the caller's renegotiation", &r);
	CHECK(r.fails[0] == 1 && r.retrains[0] == 1 && r.retrains[1] == 1 && r.phase[0] == SMDSP_V32BIS_PH_DATA &&
	      r.phase[1] == SMDSP_V32BIS_PH_DATA && r.rate[0] == r.rate[1] && r.rate[0] >= 9600,
	      "renegotiation unanswered: failed %u, retrains %u/%u, phases %d/%d, rate %u/%u", r.fails[0],
	      r.retrains[0], r.retrains[1], r.phase[0], r.phase[1], r.rate[0], r.rate[1]);
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "-vv")) {
			verbose = (int)strlen(argv[i]) - 1;
		} else {
			fprintf(stderr, "usage: %s [-v|-vv]\n", argv[0]);
			return 2;
		}
	}
	worsen(0);
	worsen(1);
	improve(0);
	improve(1);
	asked();
	uncoded();
	no_answer();
	return t_report("test_v32bis_reneg");
}
