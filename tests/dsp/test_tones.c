/*
 * NCO, Goertzel, DTMF and answer tones: ours against SpanDSP (both directions),
 * against liquid-dsp's NCO, and against impairments.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "refs.h"
#include <smdsp/tone.h>
#include <smdsp/goertzel.h>
#include <smdsp/dtmf.h>
#include <smdsp/anstone.h>
#include <smdsp/fsk.h>
#include "tutil.h"

static void test_nco_vs_liquid(void)
{
	struct smdsp_tone_nco o;
	nco_crcf q = nco_crcf_create(LIQUID_VCO);
	double maxerr = 0, maxexact = 0, maxlq = 0;
	int i;

	smdsp_tone_nco_init(&o, 1234567);	/* 1234.567 Hz */
	nco_crcf_set_frequency(q, 2 * M_PI * 1234.567 / 8000.0);
	for (i = 0; i < 80000; i++) {
		int16_t re, im;
		float complex z;
		double ph = 2 * M_PI * fmod(1234.567 * i / 8000.0, 1.0);
		double e, ex, el;

		smdsp_tone_nco_step_cplx(&o, &re, &im);
		nco_crcf_cexpf(q, &z);
		nco_crcf_step(q);
		e = fmax(fabs(re / 32767.0 - crealf(z)), fabs(im / 32767.0 - cimagf(z)));
		ex = fmax(fabs(re / 32767.0 - cos(ph)), fabs(im / 32767.0 - sin(ph)));
		el = fmax(fabs(crealf(z) - cos(ph)), fabs(cimagf(z) - sin(ph)));
		maxerr = fmax(maxerr, e);
		maxexact = fmax(maxexact, ex);
		maxlq = fmax(maxlq, el);
	}
	nco_crcf_destroy(q);
	/*
	 * liquid's float phase accumulator drifts by a few 1e-3 over 10 s, so the
	 * comparison with it is loose; against the exact value ours must be within
	 * 1e-4 (interpolated 1024-entry table, 32-bit phase).
	 */
	printf("nco 1234.567 Hz, 10 s: ours-liquid max %.2e (tol 1.5e-2), ours-exact %.2e (tol 1e-4), "
	       "liquid-exact %.2e\n", maxerr, maxexact, maxlq);
	CHECK(maxerr < 1.5e-2, "nco vs liquid %g", maxerr);
	CHECK(maxexact < 1e-4, "nco vs exact %g", maxexact);
}

static void test_fixmath(void)
{
	int l;

	for (l = -600; l <= 30; l += 50) {
		int32_t a = smdsp_dbm0_to_amp(l);
		double want = 32767.0 * pow(10, (l / 10.0 - 3.14) / 20.0);
		int back = smdsp_power_to_dbm0(smdsp_dbm0_to_power(l));

		CHECK(fabs(a - want) <= want * 0.006 + 1, "amp %d: %d vs %f", l, a, want);
		CHECK(abs(back - l) <= 1, "power roundtrip %d -> %d", l, back);
	}
	for (l = 0; l < 3600; l += 7) {
		double ang = l * M_PI / 1800.0;
		int32_t x = (int32_t)(100000 * cos(ang)), y = (int32_t)(100000 * sin(ang));
		double got = (double)smdsp_atan2(y, x) * 2 * M_PI / 4294967296.0;
		double d = remainder(got - ang, 2 * M_PI);

		CHECK(fabs(d) < 1e-4, "atan2 %f -> %f", ang, got);
	}
	CHECK(smdsp_isqrt64(1000000000000ULL) == 1000000, "isqrt");
	CHECK(smdsp_isqrt64(99) == 9, "isqrt 99");
}

static void test_goertzel(void)
{
	struct smdsp_goertzel *g = smdsp_goertzel_create(1000000);
	int16_t x[205];
	double e, sumsq = 0, frac;
	int i;

	for (i = 0; i < 205; i++) {
		x[i] = (int16_t)lrint(10000 * sin(2 * M_PI * 1000 * i / 8000.0 + 0.3));
		sumsq += (double)x[i] * x[i];
	}
	smdsp_goertzel_process(g, x, 205);
	e = (double)smdsp_goertzel_result(g);
	frac = e / (sumsq * 205 / 2);
	printf("goertzel: in-bin fraction %.4f\n", frac);
	CHECK(fabs(frac - 1) < 0.01, "fraction %f", frac);
	smdsp_goertzel_free(g);
	g = smdsp_goertzel_create(1300000);
	smdsp_goertzel_process(g, x, 205);
	frac = (double)smdsp_goertzel_result(g) / (sumsq * 205 / 2);
	CHECK(frac < 0.01, "300 Hz off: fraction %f", frac);
	smdsp_goertzel_free(g);
}

/* ---- DTMF ---- */
static char sp_digits[64];
static int sp_ndigits;

static void sp_digit_cb(void *user, const char *d, int len)
{
	(void)user;
	while (len-- > 0 && sp_ndigits < 63)
		sp_digits[sp_ndigits++] = *d++;
	sp_digits[sp_ndigits] = 0;
}

static void test_dtmf(void)
{
	const char *all = "123A456B789C*0#D";
	struct smdsp_dtmf_tx *tx = smdsp_dtmf_tx_create();
	struct smdsp_dtmf_rx *rx = smdsp_dtmf_rx_create();
	dtmf_rx_state_t *srx = dtmf_rx_init(NULL, sp_digit_cb, NULL);
	dtmf_tx_state_t *stx = dtmf_tx_init(NULL);
	int16_t buf[160];
	char got[64];
	int i, n;
	uint64_t seed = 1;

	/* ours -> SpanDSP and ours -> ours */
	smdsp_dtmf_tx_put(tx, all);
	for (i = 0; i < 300; i++) {
		smdsp_dtmf_tx_process(tx, buf, 160);
		dtmf_rx(srx, buf, 160);
		smdsp_dtmf_rx_process(rx, buf, 160);
	}
	n = smdsp_dtmf_rx_get(rx, got, sizeof(got));
	printf("dtmf ours->SpanDSP: '%s', ours->ours: '%s'\n", sp_digits, got);
	CHECK(!strcmp(sp_digits, all), "SpanDSP got '%s'", sp_digits);
	CHECK(n == 16 && !strcmp(got, all), "ours got '%s'", got);

	/* SpanDSP -> ours, with noise at -40 dBm0 and 40 ms tones at -25 dBm0 */
	dtmf_tx_set_level(stx, -25, 0);
	dtmf_tx_set_timing(stx, 40, 40);
	dtmf_tx_put(stx, all, -1);
	smdsp_dtmf_rx_reset(rx);
	for (i = 0; i < 200; i++) {
		int k, m = dtmf_tx(stx, buf, 160);

		for (k = m; k < 160; k++)
			buf[k] = 0;
		for (k = 0; k < 160; k++)
			buf[k] = t_sat16(buf[k] + t_gauss(&seed) * 32767 * pow(10, (-40 - 3.14) / 20) / sqrt(2));
		smdsp_dtmf_rx_process(rx, buf, 160);
	}
	n = smdsp_dtmf_rx_get(rx, got, sizeof(got));
	printf("dtmf SpanDSP(40 ms, -25 dBm0, noise -40 dBm0)->ours: '%s'\n", got);
	CHECK(!strcmp(got, all), "ours got '%s'", got);

	/* a 20 ms burst must be rejected */
	smdsp_dtmf_rx_reset(rx);
	smdsp_dtmf_tx_set_timing(tx, 20, 70);
	smdsp_dtmf_tx_put(tx, "5");
	for (i = 0; i < 20; i++) {
		smdsp_dtmf_tx_process(tx, buf, 160);
		smdsp_dtmf_rx_process(rx, buf, 160);
	}
	n = smdsp_dtmf_rx_get(rx, got, sizeof(got));
	CHECK(n == 0, "20 ms tone accepted: '%s'", got);

	/* white noise alone: no digits */
	smdsp_dtmf_rx_reset(rx);
	for (i = 0; i < 500; i++) {
		int k;

		for (k = 0; k < 160; k++)
			buf[k] = t_sat16(t_gauss(&seed) * 3000);
		smdsp_dtmf_rx_process(rx, buf, 160);
	}
	n = smdsp_dtmf_rx_get(rx, got, sizeof(got));
	CHECK(n == 0, "noise gave digits '%s'", got);

	smdsp_dtmf_tx_free(tx);
	smdsp_dtmf_rx_free(rx);
	dtmf_rx_free(srx);
	dtmf_tx_free(stx);
}

/* ---- answer tones ---- */
static int sp_tone_seen;

static void sp_tone_cb(void *user, int code, int level, int delay)
{
	(void)user;
	(void)level;
	(void)delay;
	if (code > sp_tone_seen)
		sp_tone_seen = code;
}

static const int sp_kind[] = {
	0, MODEM_CONNECT_TONES_ANS, MODEM_CONNECT_TONES_ANS_PR,
	MODEM_CONNECT_TONES_ANSAM, MODEM_CONNECT_TONES_ANSAM_PR,
};
static const char *kind_name[] = { "none", "ANS", "ANS/PR", "ANSam", "ANSam/PR" };

/* Runs our detector over a signal made by gen(); returns the kind seen after 'ms'. */
static enum smdsp_anstone_kind detect_ours(int16_t *sig, int len, double noise_dbm0, int offset_hz_x10)
{
	struct smdsp_anstone_rx *rx = smdsp_anstone_rx_create(2100000);
	uint64_t seed = 7;
	enum smdsp_anstone_kind k;
	int i;

	(void)offset_hz_x10;
	for (i = 0; i < len; i++)
		if (noise_dbm0 > -100)
			sig[i] = t_sat16(sig[i] + t_gauss(&seed) * 32767 * pow(10, (noise_dbm0 - 3.14) / 20) / sqrt(2));
	/* the classification of the burst, kept after the tone ends */
	k = SMDSP_ANS_NONE;
	for (i = 0; i + 160 <= len; i += 160) {
		smdsp_anstone_rx_process(rx, sig + i, 160);
		if (smdsp_anstone_rx_kind(rx) != SMDSP_ANS_NONE)
			k = smdsp_anstone_rx_kind(rx);
	}
	smdsp_anstone_rx_free(rx);
	return k;
}

static void test_anstone(void)
{
	static int16_t sig[8000 * 3];
	int kind, i, len = 8000 * 3;

	for (kind = 1; kind <= 4; kind++) {
		struct smdsp_tone_desc d;
		struct smdsp_tone *g;
		modem_connect_tones_rx_state_t *srx;
		modem_connect_tones_tx_state_t *stx;
		enum smdsp_anstone_kind got;
		int want_sp = sp_kind[kind];

		/* ours -> SpanDSP */
		smdsp_anstone_desc(&d, kind, -120, 3000);
		g = smdsp_tone_create(&d);
		smdsp_tone_process(g, sig, len);
		smdsp_tone_free(g);
		sp_tone_seen = 0;
		srx = modem_connect_tones_rx_init(NULL, kind >= 3 ? MODEM_CONNECT_TONES_ANSAM_PR :
						  MODEM_CONNECT_TONES_ANS_PR, sp_tone_cb, NULL);
		for (i = 0; i + 160 <= len; i += 160)
			modem_connect_tones_rx(srx, sig + i, 160);
		modem_connect_tones_rx_free(srx);
		/* ours -> ours */
		got = detect_ours(sig, len, -200, 0);
		printf("answer tone %-8s: SpanDSP detects %-8s ours detects %s\n", kind_name[kind],
		       sp_tone_seen >= 2 && sp_tone_seen <= 5 ? kind_name[sp_tone_seen - 1] : "none",
		       kind_name[got]);
		CHECK(sp_tone_seen == want_sp, "SpanDSP saw %d for %s", sp_tone_seen, kind_name[kind]);
		CHECK(got == (enum smdsp_anstone_kind)kind, "ours saw %s for %s", kind_name[got], kind_name[kind]);

		/* SpanDSP -> ours, with noise at -35 dBm0 */
		stx = modem_connect_tones_tx_init(NULL, want_sp);
		memset(sig, 0, sizeof(sig));
		modem_connect_tones_tx(stx, sig, len);
		modem_connect_tones_tx_free(stx);
		got = detect_ours(sig, len, -35, 0);
		printf("answer tone %-8s from SpanDSP + noise -35 dBm0: ours detects %s\n", kind_name[kind],
		       kind_name[got]);
		CHECK(got == (enum smdsp_anstone_kind)kind, "ours saw %s for SpanDSP %s", kind_name[got],
		      kind_name[kind]);
	}
	/* frequency tolerance: 2100 +- 15 Hz accepted, 2100 +- 60 Hz and 1800 Hz rejected */
	{
		static const int freqs[] = { 2085000, 2115000, 2040000, 2160000, 1800000, 2400000 };

		for (i = 0; i < 6; i++) {
			struct smdsp_tone_desc d;
			struct smdsp_tone *g;
			enum smdsp_anstone_kind got;

			smdsp_anstone_desc(&d, SMDSP_ANS_ANS_PR, -200, 3000);
			d.freq_mhz[0] = freqs[i];
			g = smdsp_tone_create(&d);
			smdsp_tone_process(g, sig, len);
			smdsp_tone_free(g);
			got = detect_ours(sig, len, -200, 0);
			printf("ANS/PR at %7.1f Hz (-20 dBm0): ours detects %s\n", freqs[i] / 1000.0, kind_name[got]);
			if (i < 2)
				CHECK(got == SMDSP_ANS_ANS_PR, "%d Hz not accepted", freqs[i]);
			else
				CHECK(got == SMDSP_ANS_NONE, "%d Hz accepted", freqs[i]);
		}
	}
	/* noise alone */
	{
		uint64_t seed = 3;

		for (i = 0; i < len; i++)
			sig[i] = t_sat16(t_gauss(&seed) * 4000);
		CHECK(detect_ours(sig, len, -200, 0) == SMDSP_ANS_NONE, "noise detected as answer tone");
	}
}

static int ci_random_bit(void *user)
{
	return (int)(t_rand64(user) & 1);
}

/*
 * A caller's CI echoing back over the answer tone: V.21's low channel in
 * bursts (400 ms on, 500 ms off, as our V.8 caller sends CI) 7 dB louder
 * than a plain ANS at -25 dBm0. The tone must be heard through the bursts,
 * long enough to be told from ANSam (600 ms of it, V8_ANS_MS), and never
 * taken for ANSam. Without the notch the tone was lost at every burst.
 */
static void test_anstone_under_ci(void)
{
	static int16_t sig[8000 * 3], ci[8000 * 3];
	struct smdsp_tone_desc d;
	struct smdsp_tone *g;
	struct smdsp_fsk_tx *f;
	struct smdsp_anstone_rx *rx;
	uint64_t seed = 5;
	uint32_t max_ms = 0;
	int i, len = 8000 * 3, ansam = 0;
	enum smdsp_anstone_kind k = SMDSP_ANS_NONE;

	smdsp_anstone_desc(&d, SMDSP_ANS_ANS, -250, 3000);
	g = smdsp_tone_create(&d);
	smdsp_tone_process(g, sig, len);
	smdsp_tone_free(g);
	f = smdsp_fsk_tx_create(SMDSP_V21_CH1, -180, ci_random_bit, &seed);
	smdsp_fsk_tx_process(f, ci, len);
	smdsp_fsk_tx_free(f);
	for (i = 0; i < len; i++)
		if (i % 7200 < 3200)
			sig[i] = t_sat16(sig[i] + ci[i]);
	rx = smdsp_anstone_rx_create(2100000);
	for (i = 0; i + 160 <= len; i += 160) {
		smdsp_anstone_rx_process(rx, sig + i, 160);
		if (smdsp_anstone_rx_tone_ms(rx) > max_ms)
			max_ms = smdsp_anstone_rx_tone_ms(rx);
		if (smdsp_anstone_rx_kind(rx) != SMDSP_ANS_NONE)
			k = smdsp_anstone_rx_kind(rx);
		ansam |= smdsp_anstone_rx_kind(rx) == SMDSP_ANS_ANSAM ||
			 smdsp_anstone_rx_kind(rx) == SMDSP_ANS_ANSAM_PR;
	}
	smdsp_anstone_rx_free(rx);
	printf("ANS at -25 dBm0 under CI bursts at -18 dBm0: ours detects %s, %u ms of tone at most\n",
	       kind_name[k], max_ms);
	CHECK(k == SMDSP_ANS_ANS && !ansam, "ANS under CI seen as %s (ANSam %d)", kind_name[k], ansam);
	CHECK(max_ms >= 2000, "ANS under CI heard for %u ms at most", max_ms);
}

int main(void)
{
	test_fixmath();
	test_nco_vs_liquid();
	test_goertzel();
	test_dtmf();
	test_anstone();
	test_anstone_under_ci();
	return t_report("test_tones");
}
