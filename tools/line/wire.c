// SPDX-License-Identifier: GPL-2.0
/* smline: line impairments between the modem and the exchange. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spandsp.h>

#include "echopath.h"
#include "wire.h"

/*
 * With a clock offset the way down queues this many modem samples: the
 * margin against the count rounding of the two conversions (the up way
 * hands the exchange n / ratio samples, give or take one, the down way
 * turns them back into n, give or take one).
 */
#define DOWN_PREFILL 8

struct sml_wire {
	struct sml_wire_cfg cfg;
	double gain, noise_rms, echo_gain;
	struct sml_rng rng_up, rng_down;
	struct sml_delay up_delay, down_delay, echo;
	bool drift;
	struct sml_drift d_up;
	struct sml_link down;
	struct sml_echo_path near, far;
	bool has_near, has_far;
};

void sml_wire_cfg_default(struct sml_wire_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->noise_dbm0 = -99.0;
	c->echo_db = -99.0;
	c->seed = 1;
	c->hybrid_erl_db = 12.0;
}

static const char *const codec_names[] = { "none", "ulaw", "alaw" };

int sml_codec_parse(const char *s)
{
	int i;

	for (i = 0; i < (int)(sizeof(codec_names) / sizeof(codec_names[0])); i++)
		if (!strcmp(s, codec_names[i]))
			return i;
	return -1;
}

const char *sml_codec_name(int codec)
{
	return codec >= 0 && codec <= SML_CODEC_ALAW ? codec_names[codec] : "?";
}

/*
 * A sample through the line card's G.711 encoder and the far card's
 * decoder (SpanDSP's, an implementation apart from dsp/'s test line):
 * the network's 8-bit code is all that crosses, so the step's middle is
 * what comes out, a noise that grows with the signal (the reason for
 * V.34's nonlinear encoder, 9.7) and the codec's overload above +3 dBm0.
 */
static double codec(int c, double v)
{
	int16_t x = sml_clip16(v);

	if (c == SML_CODEC_ULAW)
		return ulaw_to_linear(linear_to_ulaw(x));
	if (c == SML_CODEC_ALAW)
		return alaw_to_linear(linear_to_alaw(x));
	return v;
}

/* the delay line of ms milliseconds */
static int dline_init(struct sml_delay *d, double ms)
{
	return sml_delay_init(d, (int)lround(ms * SML_RATE / 1000.0));
}

struct sml_wire *sml_wire_new(const struct sml_wire_cfg *cfg)
{
	struct sml_wire *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->cfg = *cfg;
	sml_wire_restore(w);
	w->echo_gain = cfg->echo_db > -99.0 ? sml_db_to_gain(cfg->echo_db) : 0.0;
	sml_rng_seed(&w->rng_up, cfg->seed * 2 + 1);
	sml_rng_seed(&w->rng_down, cfg->seed * 2 + 2);
	if (dline_init(&w->up_delay, cfg->delay_ms) ||
	    dline_init(&w->down_delay, cfg->delay_ms) ||
	    dline_init(&w->echo, cfg->echo_ms))
		goto fail;
	w->has_near = cfg->hybrid > 0;
	if (w->has_near && sml_echo_path_init(&w->near, cfg->hybrid, cfg->hybrid_erl_db, 0, 0)) {
		w->has_near = false;
		goto fail;
	}
	w->has_far = cfg->far_echo_db > 0;
	if (w->has_far && sml_echo_path_init(&w->far, cfg->far_hybrid ? cfg->far_hybrid : 1, cfg->far_echo_db,
					     (int)lround(cfg->far_echo_ms * SML_RATE / 1000.0), cfg->far_echo_hz)) {
		w->has_far = false;
		goto fail;
	}
	w->drift = cfg->ppm != 0.0;
	if (w->drift && sml_drift_init(&w->d_up, 1.0 + cfg->ppm * 1e-6))
		goto fail;
	if (sml_link_init(&w->down, 1.0 / (1.0 + cfg->ppm * 1e-6),
			  w->drift ? DOWN_PREFILL : 0))
		goto fail;
	return w;
fail:
	sml_wire_free(w);
	return NULL;
}

void sml_wire_free(struct sml_wire *w)
{
	if (!w)
		return;
	sml_delay_free(&w->up_delay);
	sml_delay_free(&w->down_delay);
	sml_delay_free(&w->echo);
	if (w->has_near)
		sml_echo_path_free(&w->near);
	if (w->has_far)
		sml_echo_path_free(&w->far);
	if (w->drift)
		sml_drift_free(&w->d_up);
	sml_link_free(&w->down);
	free(w);
}

int sml_wire_up(struct sml_wire *w, const int16_t *in, int n, int16_t *out,
		int max)
{
	double tmp[n], res[max];
	int i, m;

	for (i = 0; i < n; i++)
		tmp[i] = sml_delay_push(&w->up_delay, in[i] * w->gain);
	if (w->drift) {
		m = sml_drift_process(&w->d_up, tmp, n, res, max);
	} else {
		m = n < max ? n : max;
		memcpy(res, tmp, sizeof(double) * (size_t)m);
	}
	for (i = 0; i < m; i++) {
		double v = res[i];

		if (w->noise_rms > 0.0)
			v += w->noise_rms * sml_rng_gauss(&w->rng_up);
		/* the modem's loop, its noise included, into the line card's encoder */
		out[i] = sml_clip16(codec(w->cfg.codec, v));
	}
	return m;
}

void sml_wire_down(struct sml_wire *w, const int16_t *in, int m,
		   const int16_t *modem_tx, int16_t *out, int n)
{
	double tmp[m > n ? m : n];
	int i;

	/* the far modem's signal as the network carries it: coded at its line card */
	for (i = 0; i < m; i++)
		tmp[i] = codec(w->cfg.codec, in[i]) * w->gain;
	sml_link_push(&w->down, tmp, m);
	sml_link_pull(&w->down, tmp, n);
	for (i = 0; i < n; i++) {
		double v = sml_delay_push(&w->down_delay, tmp[i]);

		if (w->echo_gain > 0.0)
			v += w->echo_gain * sml_delay_push(&w->echo, modem_tx[i]);
		if (w->has_near)
			v += sml_echo_path_step(&w->near, modem_tx[i]);
		if (w->has_far)
			v += sml_echo_path_step(&w->far, modem_tx[i]);
		if (w->noise_rms > 0.0)
			v += w->noise_rms * sml_rng_gauss(&w->rng_down);
		out[i] = sml_clip16(v);
	}
}

void sml_wire_worsen(struct sml_wire *w, double noise_dbm0, double loss_db)
{
	double base = w->cfg.noise_dbm0 > -99.0 ? sml_dbm0_to_rms(w->cfg.noise_dbm0) : 0.0;
	double more = noise_dbm0 > -99.0 ? sml_dbm0_to_rms(noise_dbm0) : 0.0;

	/* the line's noise and the new one are independent: their powers add */
	w->noise_rms = sqrt(base * base + more * more);
	w->gain = sml_db_to_gain(-(w->cfg.atten_db + loss_db));
}

void sml_wire_restore(struct sml_wire *w)
{
	w->gain = sml_db_to_gain(-w->cfg.atten_db);
	w->noise_rms = w->cfg.noise_dbm0 > -99.0 ? sml_dbm0_to_rms(w->cfg.noise_dbm0) : 0.0;
}

uint64_t sml_wire_underruns(const struct sml_wire *w)
{
	return w->down.underruns;
}

void sml_wire_describe(const struct sml_wire_cfg *c, char *buf, size_t len)
{
	int n = snprintf(buf, len,
		 "attenuation %.1f dB, noise %s%.1f dBm0, echo %.1f dB at %.1f ms, delay %.1f ms, clock %+.1f ppm, seed %llu",
		 c->atten_db, c->noise_dbm0 > -99 ? "" : "off ",
		 c->noise_dbm0, c->echo_db, c->echo_ms, c->delay_ms, c->ppm,
		 (unsigned long long)c->seed);

	if (n >= 0 && (size_t)n < len && c->hybrid > 0)
		n += snprintf(buf + n, len - n, ", hybrid m%d at ERL %.1f dB", c->hybrid, c->hybrid_erl_db);
	if (n >= 0 && (size_t)n < len && c->far_echo_db > 0)
		n += snprintf(buf + n, len - n, ", far echo %.1f dB down at %.1f ms, %+.2f Hz (m%d)",
			      c->far_echo_db, c->far_echo_ms, c->far_echo_hz, c->far_hybrid ? c->far_hybrid : 1);
	if (n >= 0 && (size_t)n < len && c->codec)
		snprintf(buf + n, len - n, ", G.711 %s", sml_codec_name(c->codec));
}

void sml_wire_json(const struct sml_wire_cfg *c, struct sml_json *j)
{
	sml_json_obj_begin(j, "wire");
	sml_json_num(j, "atten_db", c->atten_db);
	if (c->noise_dbm0 > -99)
		sml_json_num(j, "noise_dbm0", c->noise_dbm0);
	else
		sml_json_null(j, "noise_dbm0");
	if (c->echo_db > -99)
		sml_json_num(j, "echo_db", c->echo_db);
	else
		sml_json_null(j, "echo_db");
	sml_json_num(j, "echo_ms", c->echo_ms);
	sml_json_num(j, "delay_ms", c->delay_ms);
	sml_json_num(j, "ppm", c->ppm);
	sml_json_int(j, "seed", (int64_t)c->seed);
	if (c->hybrid > 0) {
		sml_json_int(j, "hybrid", c->hybrid);
		sml_json_num(j, "hybrid_erl_db", c->hybrid_erl_db);
	} else {
		sml_json_null(j, "hybrid");
	}
	if (c->far_echo_db > 0) {
		sml_json_num(j, "far_echo_db", c->far_echo_db);
		sml_json_num(j, "far_echo_ms", c->far_echo_ms);
		sml_json_num(j, "far_echo_hz", c->far_echo_hz);
		sml_json_int(j, "far_hybrid", c->far_hybrid ? c->far_hybrid : 1);
	} else {
		sml_json_null(j, "far_echo_db");
	}
	sml_json_str(j, "codec", sml_codec_name(c->codec));
	sml_json_obj_end(j);
}
