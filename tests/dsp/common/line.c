#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chan.h"
#include "echopath.h"
#include "line.h"
#include "resample.h"
#include "tutil.h"

/*
 * Samples the line holds back besides the configured delay: the margin the
 * line always had, kept so that every test's timing stays as it was. The
 * clock-offset converter's own delay comes out of it.
 */
#define MARGIN 16

struct dir {
	struct sml_link link;	/* sender's clock -> receiver's clock */
	float *echo;		/* the receiver's own last echo_delay samples */
	int epos;
	struct sml_echo_path near, far;	/* the receiver's own signal through its hybrid, far echo */
	int has_near, has_far;
	struct chan ch;		/* the line's response (cfg.channel) */
};

struct line {
	struct line_cfg c;
	struct dir ab, ba;
	double gain, noise, echo;
};

static void dir_init(struct dir *d, const struct line_cfg *c, double ratio)
{
	memset(d, 0, sizeof(*d));
	if (sml_link_init(&d->link, ratio,
			  c->delay + MARGIN - (ratio != 1.0 ? SML_DRIFT_DELAY : 0)))
		abort();
	d->echo = calloc(c->echo_delay + 1, sizeof(float));
	chan_init(&d->ch, (enum chan_kind)c->channel);
	d->has_near = c->hybrid > 0;
	if (d->has_near && sml_echo_path_init(&d->near, c->hybrid, c->hybrid_erl_db, 0, 0))
		abort();
	d->has_far = c->far_echo_db > 0;
	if (d->has_far && sml_echo_path_init(&d->far, c->far_hybrid ? c->far_hybrid : 1, c->far_echo_db,
					     c->far_echo_delay, c->far_echo_hz))
		abort();
}

static void dir_free(struct dir *d)
{
	sml_link_free(&d->link);
	free(d->echo);
	if (d->has_near)
		sml_echo_path_free(&d->near);
	if (d->has_far)
		sml_echo_path_free(&d->far);
}

struct line *line_create(const struct line_cfg *cfg)
{
	struct line *l = calloc(1, sizeof(*l));

	l->c = *cfg;
	if (!l->c.seed)
		l->c.seed = 12345;
	/* B's clock is fast: A->B, B takes more samples per A sample */
	dir_init(&l->ab, &l->c, 1.0 / (1.0 + cfg->ppm * 1e-6));
	dir_init(&l->ba, &l->c, 1.0 + cfg->ppm * 1e-6);
	l->gain = pow(10, -cfg->loss_db / 20);
	l->noise = cfg->noise_dbm0 > -200 ? 32767.0 * pow(10, (cfg->noise_dbm0 - 3.14) / 20) / sqrt(2) : 0;
	l->echo = cfg->echo_db > -200 ? pow(10, cfg->echo_db / 20) : 0;
	return l;
}

void line_set(struct line *l, double loss_db, double noise_dbm0)
{
	l->gain = pow(10, -loss_db / 20);
	l->noise = noise_dbm0 > -200 ? 32767.0 * pow(10, (noise_dbm0 - 3.14) / 20) / sqrt(2) : 0;
}

void line_free(struct line *l)
{
	dir_free(&l->ab);
	dir_free(&l->ba);
	free(l);
}

/*
 * G.711's quantiser as its decoder's output: mu-law on 14 bits (bias 33,
 * eight segments of 16 steps, each twice the last's), A-law on 13 (a first
 * segment of 32 steps of 2, then seven of 16 steps doubling); the step's
 * middle is what the decoder gives back.
 */
double line_g711(int codec, double v)
{
	double a = fabs(v), m, r;
	int e;

	if (codec == LINE_MULAW) {
		m = fmin(a / 4, 8158) + 33;
		e = (int)floor(log2(m)) - 5;
		if (e < 0)
			e = 0;
		if (e > 7)
			e = 7;
		r = ldexp(1, e + 5) + floor((m - ldexp(1, e + 5)) / ldexp(1, e + 1)) * ldexp(1, e + 1) + ldexp(1, e);
		r = (r - 33) * 4;
	} else if (codec == LINE_ALAW) {
		m = fmin(a / 8, 4095);
		if (m < 32) {
			r = floor(m / 2) * 2 + 1;
		} else {
			e = (int)floor(log2(m)) - 4;
			if (e > 7)
				e = 7;
			r = ldexp(1, e + 4) + floor((m - ldexp(1, e + 4)) / ldexp(1, e)) * ldexp(1, e) + ldexp(1, e - 1);
		}
		r *= 8;
	} else {
		return v;
	}
	return v < 0 ? -r : r;
}

/* d carries the far end's tx to this receiver; own_tx: what this receiver's end sent */
static void deliver(struct line *l, struct dir *d, const int16_t *tx, const int16_t *own_tx,
		    int16_t *rx, int n)
{
	double x[n > 0 ? n : 1];
	int i;

	if (n <= 0)
		return;
	for (i = 0; i < n; i++)
		x[i] = tx[i];
	sml_link_push(&d->link, x, n);
	sml_link_pull(&d->link, x, n);
	for (i = 0; i < n; i++) {
		double v = (l->c.channel ? chan_filter(&d->ch, x[i]) : x[i]) * l->gain;

		if (l->c.codec)
			v = line_g711(l->c.codec, v);

		/* the sample sent echo_delay samples before this one */
		d->echo[d->epos] = own_tx[i];
		d->epos = d->epos == l->c.echo_delay ? 0 : d->epos + 1;
		if (l->echo)
			v += d->echo[d->epos] * l->echo;
		if (d->has_near)
			v += sml_echo_path_step(&d->near, own_tx[i]);
		if (d->has_far)
			v += sml_echo_path_step(&d->far, own_tx[i]);
		if (l->noise)
			v += l->noise * t_gauss(&l->c.seed);
		rx[i] = t_sat16(v);
	}
}

void line_process(struct line *l, const int16_t *a_tx, int16_t *a_rx, const int16_t *b_tx,
		  int16_t *b_rx, int n)
{
	deliver(l, &l->ab, a_tx, b_tx, b_rx, n);
	deliver(l, &l->ba, b_tx, a_tx, a_rx, n);
}

long line_starved(const struct line *l)
{
	return (long)(l->ab.link.underruns + l->ba.link.underruns);
}
