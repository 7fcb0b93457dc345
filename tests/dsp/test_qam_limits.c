/*
 * The passband receivers' loops at the limits of their arithmetic (found
 * by independent checks: signed overflow in smdsp_qam_rx_track() when the
 * V.17 receiver had trained on noise and its equalizer had run away).
 *
 * - smdsp_qam_rx_track() on symbols anywhere in the 32-bit plane (an
 *   equalizer output saturates at +-2^31): the carrier frequency saturates
 *   instead of wrapping round, the squared error stays >= 0, and repeated
 *   huge phase errors push the frequency to its limit and hold it there;
 * - the V.17, V.29 and V.27ter receivers on hostile lines: white noise at
 *   20-30 dB below the signal for 0.5-1.5 s before our transmitter starts
 *   (and on under it), full-scale noise, DC, a clipped square wave, and the
 *   signal 18 dB over its -14 dBm0, clipped; the loops' state stays sane.
 *
 * Meant for the UBSan builds (dsp/dsp.mk, build/dsp/ubsan-*): there any
 * overflow ends the program. Argument: --seeds N, the noise-first runs
 * per receiver and rate (default 5; seed 4 at V.17 14400 overflowed the
 * carrier loop before the fix).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v17.h>
#include <smdsp/v29.h>
#include <smdsp/v27ter.h>
#include <smdsp/v22bis.h>
/* white-box: the receivers' loops are driven and read directly (car_freq, mse, eq) */
#include <smdsp/private/v17.h>
#include <smdsp/private/v29.h>
#include <smdsp/private/v27ter.h>
#include <smdsp/private/v22bis.h>
#include "tutil.h"

#define I32_MAX 2147483647
#define I32_MIN (-I32_MAX - 1)

static void no_bit(void *user, int bit)
{
	(void)user;
	(void)bit;
}

static int ones(void *user)
{
	uint64_t *s = user;

	return (int)(t_rand64(s) >> 63);
}

static void track_limits(void)
{
	static const int32_t vals[] = { I32_MIN, I32_MIN + 1, -(1 << 24), -4608, 0, 4608, 1 << 24,
					I32_MAX - 1, I32_MAX };
	static const int32_t dv[] = { -7 * SMDSP_V17_UNIT, -SMDSP_V17_UNIT, 0, 3 * SMDSP_V17_UNIT,
				      9 * SMDSP_V17_UNIT };
	struct smdsp_v17_rx *s = smdsp_v17_rx_create(14400, no_bit, NULL, NULL);
	struct smdsp_qam_rx *q = &s->q;
	unsigned int a, b, c, d, k, bad_mse = 0, bad_freq = 0;
	int32_t f0;

	/* every corner of the plane against every kind of point, eq on and off */
	for (a = 0; a < SMDSP_ARRAY_SIZE(vals); a++)
		for (b = 0; b < SMDSP_ARRAY_SIZE(vals); b++)
			for (c = 0; c < SMDSP_ARRAY_SIZE(dv); c++)
				for (d = 0; d < SMDSP_ARRAY_SIZE(dv); d++) {
					struct smdsp_cplx z = { vals[a], vals[b] };

					q->c = 23170;	/* 45 degrees */
					q->sn = -23170;
					smdsp_qam_rx_track(q, z, dv[c], dv[d], (a + b + c + d) & 1, 2, 7);
					bad_mse += q->mse < 0;
				}
	CHECK(!bad_mse, "%u negative squared errors", bad_mse);

	/* a huge positive phase error, again and again: the frequency rises to its limit and stays */
	smdsp_v17_rx_restart(s, 14400, false);
	for (k = 0; k < 2000; k++) {
		struct smdsp_cplx z = { 0, I32_MAX };

		f0 = q->car_freq;
		smdsp_qam_rx_track(q, z, 9 * SMDSP_V17_UNIT, 0, true, 2, 7);
		bad_freq += q->car_freq < f0;
		bad_mse += q->mse < 0;
	}
	CHECK(!bad_freq && q->car_freq == I32_MAX, "phase error +: frequency %d, %u steps down", q->car_freq,
	      bad_freq);
	for (k = 0; k < 2000; k++) {
		struct smdsp_cplx z = { 0, I32_MIN };

		f0 = q->car_freq;
		smdsp_qam_rx_track(q, z, 9 * SMDSP_V17_UNIT, 0, true, 2, 7);
		bad_freq += q->car_freq > f0;
		bad_mse += q->mse < 0;
	}
	CHECK(!bad_freq && q->car_freq == I32_MIN, "phase error -: frequency %d, %u steps up", q->car_freq,
	      bad_freq);
	CHECK(!bad_mse && q->mse > I32_MAX - 32, "squared error %d (%u negative)", q->mse, bad_mse);
	/* the phase error's sign is kept whatever its size: a small one after the limit moves it back */
	f0 = q->car_freq;
	{
		struct smdsp_cplx z = { 9 * SMDSP_V17_UNIT, 100 };

		smdsp_qam_rx_track(q, z, 9 * SMDSP_V17_UNIT, 0, true, 2, 7);
	}
	CHECK(q->car_freq > f0, "small positive phase error at the limit: frequency %d -> %d", f0, q->car_freq);
	smdsp_v17_rx_free(s);
}

enum { SIG_NOISE_FIRST, SIG_FULL_NOISE, SIG_DC, SIG_SQUARE, SIG_CLIPPED, NSIG };
static const char *sig_name[] = { "noise first", "full-scale noise", "DC", "clipped square wave",
				  "signal 18 dB up, clipped" };

struct rx {
	int modem, rate;
	void *rx, *tx;
};

static void rx_open(struct rx *r, uint64_t *bits, int level)
{
	switch (r->modem) {
	case 17:
		r->rx = smdsp_v17_rx_create(r->rate, no_bit, NULL, NULL);
		r->tx = smdsp_v17_tx_create(r->rate, level, false, false, ones, NULL, bits);
		break;
	case 29:
		r->rx = smdsp_v29_rx_create(r->rate, no_bit, NULL, NULL);
		r->tx = smdsp_v29_tx_create(r->rate, level, false, ones, NULL, bits);
		break;
	default:
		r->rx = smdsp_v27ter_rx_create(r->rate, no_bit, NULL, NULL);
		r->tx = smdsp_v27ter_tx_create(r->rate, level, false, ones, NULL, bits);
	}
}

static void rx_close(struct rx *r)
{
	switch (r->modem) {
	case 17:
		smdsp_v17_rx_free(r->rx);
		smdsp_v17_tx_free(r->tx);
		break;
	case 29:
		smdsp_v29_rx_free(r->rx);
		smdsp_v29_tx_free(r->tx);
		break;
	default:
		smdsp_v27ter_rx_free(r->rx);
		smdsp_v27ter_tx_free(r->tx);
	}
}

static void tx_block(struct rx *r, int16_t *x, unsigned int n)
{
	if (r->modem == 17)
		smdsp_v17_tx_process(r->tx, x, n);
	else if (r->modem == 29)
		smdsp_v29_tx_process(r->tx, x, n);
	else
		smdsp_v27ter_tx_process(r->tx, x, n);
}

/* an equalizer that ran away: every tap at the limit, alternating in sign, so that |z| reaches 2^31 */
static void run_away(struct smdsp_eq *e)
{
	unsigned int k;

	for (k = 0; k < e->len; k++) {
		e->cre[k] = k & 1 ? I32_MIN : I32_MAX;
		e->cim[k] = k & 2 ? I32_MIN : I32_MAX;
	}
	e->in_range = false;
}

/* one block to the receiver (its equalizer run away first if runaway); the loop state it leaves */
static const struct smdsp_qam_rx *rx_block(struct rx *r, const int16_t *x, unsigned int n, bool runaway)
{
	if (runaway) {
		struct smdsp_qam_rx *q = r->modem == 17 ? &((struct smdsp_v17_rx *)r->rx)->q :
					 r->modem == 29 ? &((struct smdsp_v29_rx *)r->rx)->q :
					 &((struct smdsp_v27ter_rx *)r->rx)->q;

		run_away(&q->eq);
	}
	if (r->modem == 17) {
		smdsp_v17_rx_process(r->rx, x, n);
		return &((struct smdsp_v17_rx *)r->rx)->q;
	}
	if (r->modem == 29) {
		smdsp_v29_rx_process(r->rx, x, n);
		return &((struct smdsp_v29_rx *)r->rx)->q;
	}
	smdsp_v27ter_rx_process(r->rx, x, n);
	return &((struct smdsp_v27ter_rx *)r->rx)->q;
}

/* 4 s of one hostile line into one receiver (with runaway, its equalizer run away at every block) */
static void hostile(int modem, int rate, int kind, uint64_t seed, bool runaway)
{
	struct rx r = { .modem = modem, .rate = rate };
	uint64_t bits = seed * 7 + 1, ns = seed;
	double snr = 20 + (double)(seed % 11), sigma = 32767.0 * pow(10, (-14 - snr - 3.14) / 20) / sqrt(2);
	long lead = kind == SIG_NOISE_FIRST ? 4000 + (long)(seed % 5) * 2000 : 0, t = 0, bad = 0;
	int16_t x[160];
	int i, blk;

	rx_open(&r, &bits, -140);
	for (blk = 0; blk < 200; blk++) {
		const struct smdsp_qam_rx *q;

		memset(x, 0, sizeof(x));
		if ((kind == SIG_NOISE_FIRST || kind == SIG_CLIPPED) && t + 160 > lead) {
			int16_t y[160];
			int skip = t < lead ? (int)(lead - t) : 0;

			tx_block(&r, y, 160 - skip);
			memcpy(x + skip, y, (160 - skip) * sizeof(y[0]));
		}
		for (i = 0; i < 160; i++, t++) {
			switch (kind) {
			case SIG_NOISE_FIRST:
				x[i] = t_sat16(x[i] + sigma * t_gauss(&ns));
				break;
			case SIG_FULL_NOISE:
				x[i] = (int16_t)(t_rand64(&ns) >> 48);
				break;
			case SIG_DC:
				x[i] = seed & 1 ? 32767 : -32768;
				break;
			case SIG_SQUARE:
				x[i] = t_sat16(60000 * sin(2 * M_PI * (1700 + 100.0 * (double)(seed % 5)) * t / 8000));
				break;
			default:
				x[i] = t_sat16(8.0 * x[i]);
				break;
			}
		}
		q = rx_block(&r, x, 160, runaway);
		bad += q->mse < 0;
	}
	CHECK(!bad, "V.%d %d %s%s (seed %llu): %ld blocks with a negative squared error", modem, rate,
	      sig_name[kind], runaway ? ", equalizer run away" : "", (unsigned long long)seed, bad);
	rx_close(&r);
}

static void v22_sym(void *user, const struct smdsp_v22bis_sym *sym)
{
	long *bad = user;

	*bad += sym->err2 < 0;
}

/*
 * The V.22bis receiver (answerer's band, 16 points, adapting, data-mode
 * loops) on a hostile line for 4 s, its equalizer run away at every
 * block (runaway) or not.
 */
static void v22_hostile(int kind, int runaway, uint64_t seed)
{
	struct smdsp_v22bis_rx *s = calloc(1, sizeof(*s));
	uint64_t ns = seed;
	long t = 0, bad = 0;
	int16_t x[160];
	int i, blk;

	smdsp_v22bis_rx_init(s, false, v22_sym, NULL, &bad);
	for (blk = 0; blk < 200; blk++) {
		for (i = 0; i < 160; i++, t++) {
			switch (kind) {
			case SIG_FULL_NOISE:
				x[i] = (int16_t)(t_rand64(&ns) >> 48);
				break;
			case SIG_DC:
				x[i] = seed & 1 ? 32767 : -32768;
				break;
			case SIG_SQUARE:
				x[i] = t_sat16(60000 * sin(2 * M_PI * (1100 + 100.0 * (double)(seed % 5)) * t / 8000));
				break;
			default:
				x[i] = t_sat16(30000 * 4 * sin(2 * M_PI * 1200 * t / 8000 + (t / 13 % 4) * M_PI / 2));
				break;
			}
		}
		s->sixteen = true;
		s->eq_adapt = true;
		if (runaway)
			run_away(&s->eq);
		smdsp_v22bis_rx_process(s, x, 160);
		bad += s->mse < 0;
	}
	CHECK(!bad, "V.22bis rx %s%s (seed %llu): %ld negative squared errors", sig_name[kind],
	      runaway ? ", equalizer run away" : "", (unsigned long long)seed, bad);
	free(s);
}

int main(int argc, char **argv)
{
	static const int rx[][2] = { { 17, 14400 }, { 17, 12000 }, { 17, 9600 }, { 17, 7200 }, { 29, 9600 },
				     { 29, 7200 }, { 27, 4800 }, { 27, 2400 } };
	int seeds = 5, k, kind;
	uint64_t sd;

	if (argc > 2 && !strcmp(argv[1], "--seeds"))
		seeds = atoi(argv[2]);
	track_limits();
	for (k = 0; k < (int)SMDSP_ARRAY_SIZE(rx); k++) {
		for (sd = 1; sd <= (uint64_t)seeds; sd++)
			hostile(rx[k][0], rx[k][1], SIG_NOISE_FIRST, sd + 100 * (uint64_t)k, false);
		for (kind = SIG_FULL_NOISE; kind < NSIG; kind++) {
			hostile(rx[k][0], rx[k][1], kind, (uint64_t)k + 1, false);
			hostile(rx[k][0], rx[k][1], kind, (uint64_t)k + 1, true);
		}
	}
	for (kind = SIG_FULL_NOISE; kind < NSIG; kind++)
		for (k = 0; k < 2; k++)
			v22_hostile(kind, k, (uint64_t)kind + 1);
	return t_report("test_qam_limits");
}
