#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "line.h"
#include "tutil.h"

#define TAPS 16		/* windowed-sinc interpolator half length */

struct dir {
	float *hist;	/* everything the sender sent, at its clock */
	long len, cap;
	long out;	/* samples delivered so far, at the receiver's clock */
	double ratio;	/* sender samples per receiver sample */
};

struct line {
	struct line_cfg c;
	struct dir ab, ba;
	double gain, noise, echo;
	long starved;
};

static void dir_init(struct dir *d, double ratio)
{
	memset(d, 0, sizeof(*d));
	d->cap = 1 << 16;
	d->hist = calloc(d->cap, sizeof(float));
	d->ratio = ratio;
}

static void dir_push(struct dir *d, const int16_t *x, int n)
{
	int i;

	if (d->len + n > d->cap) {
		d->cap = 2 * (d->len + n);
		d->hist = realloc(d->hist, d->cap * sizeof(float));
	}
	for (i = 0; i < n; i++)
		d->hist[d->len++] = x[i];
}

static float at(const struct dir *d, long i)
{
	return i >= 0 && i < d->len ? d->hist[i] : 0.0f;
}

/* the sender's signal at (fractional) sender time t */
static double interp(const struct dir *d, double t)
{
	long i0 = (long)floor(t);
	double f = t - i0, acc = 0;
	int k;

	if (f < 1e-9)
		return at(d, i0);
	for (k = -TAPS + 1; k <= TAPS; k++) {
		double x = k - f;
		double w = 0.5 + 0.5 * cos(M_PI * x / TAPS);

		acc += at(d, i0 + k) * sin(M_PI * x) / (M_PI * x) * w;
	}
	return acc;
}

struct line *line_create(const struct line_cfg *cfg)
{
	struct line *l = calloc(1, sizeof(*l));

	l->c = *cfg;
	if (!l->c.seed)
		l->c.seed = 12345;
	/* B's clock is fast: A->B, B takes more samples per A sample */
	dir_init(&l->ab, 1.0 / (1.0 + cfg->ppm * 1e-6));
	dir_init(&l->ba, 1.0 + cfg->ppm * 1e-6);
	l->gain = pow(10, -cfg->loss_db / 20);
	l->noise = cfg->noise_dbm0 > -200 ? 32767.0 * pow(10, (cfg->noise_dbm0 - 3.14) / 20) / sqrt(2) : 0;
	l->echo = cfg->echo_db > -200 ? pow(10, cfg->echo_db / 20) : 0;
	return l;
}

void line_free(struct line *l)
{
	free(l->ab.hist);
	free(l->ba.hist);
	free(l);
}

static void deliver(struct line *l, struct dir *d, struct dir *own, int16_t *rx, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		long k = d->out++;
		/* keep TAPS samples of margin so the interpolator never reads the future */
		double t = (k - l->c.delay) * d->ratio - TAPS;
		double v;

		if (t + TAPS >= d->len)
			l->starved++;	/* clock offset ate the delay: a test setup error */
		v = interp(d, t) * l->gain;

		if (l->echo)
			v += at(own, own->len - n + i - l->c.echo_delay) * l->echo;
		if (l->noise)
			v += l->noise * t_gauss(&l->c.seed);
		rx[i] = t_sat16(v);
	}
}

void line_process(struct line *l, const int16_t *a_tx, int16_t *a_rx, const int16_t *b_tx,
		  int16_t *b_rx, int n)
{
	dir_push(&l->ab, a_tx, n);
	dir_push(&l->ba, b_tx, n);
	deliver(l, &l->ab, &l->ba, b_rx, n);
	deliver(l, &l->ba, &l->ab, a_rx, n);
}

long line_starved(const struct line *l)
{
	return l->starved;
}
