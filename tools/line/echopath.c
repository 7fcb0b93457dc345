// SPDX-License-Identifier: GPL-2.0
/* Echo paths: G.168's hybrid models and a delayed, frequency-shifted far echo. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * The coefficients of G.168 Annex D's echo-path models (clauses D.2 to D.9,
 * models 1 to 8) as SpanDSP publishes them; this is the one file that
 * includes the header (it defines the arrays).
 */
#include <spandsp/g168models.h>

#include "echopath.h"

static const int32_t *const models[SML_HYBRID_MODELS] = {
	line_model_d2_coeffs, line_model_d3_coeffs, line_model_d4_coeffs,
	line_model_d5_coeffs, line_model_d6_coeffs, line_model_d7_coeffs,
	line_model_d8_coeffs, line_model_d9_coeffs,
};

static const int model_len[SML_HYBRID_MODELS] = {
	sizeof(line_model_d2_coeffs) / sizeof(int32_t),
	sizeof(line_model_d3_coeffs) / sizeof(int32_t),
	sizeof(line_model_d4_coeffs) / sizeof(int32_t),
	sizeof(line_model_d5_coeffs) / sizeof(int32_t),
	sizeof(line_model_d6_coeffs) / sizeof(int32_t),
	sizeof(line_model_d7_coeffs) / sizeof(int32_t),
	sizeof(line_model_d8_coeffs) / sizeof(int32_t),
	sizeof(line_model_d9_coeffs) / sizeof(int32_t),
};

int sml_hybrid_parse(const char *name)
{
	char *end;
	long m;

	if (!strcasecmp(name, "none") || !strcasecmp(name, "off"))
		return 0;
	if (name[0] == 'm' || name[0] == 'M')
		name++;
	m = strtol(name, &end, 10);
	if (end == name || *end || m < 1 || m > SML_HYBRID_MODELS)
		return -1;
	return (int)m;
}

int sml_hybrid_taps(int m, double erl_db, double *h, int max)
{
	double ss = 0, g;
	int i, n;

	if (m < 1 || m > SML_HYBRID_MODELS)
		return 0;
	n = model_len[m - 1] < max ? model_len[m - 1] : max;
	for (i = 0; i < n; i++)
		ss += (double)models[m - 1][i] * models[m - 1][i];
	g = pow(10, -erl_db / 20) / sqrt(ss);
	for (i = 0; i < n; i++)
		h[i] = models[m - 1][i] * g;
	return n;
}

int sml_echo_path_init(struct sml_echo_path *p, int m, double erl_db, int delay,
		       double shift_hz)
{
	int k, L = SML_ECHO_HIL_DELAY;

	memset(p, 0, sizeof(*p));
	p->nh = sml_hybrid_taps(m, erl_db, p->h, 128);
	if (!p->nh || delay < 0)
		return -1;
	p->shift = 2 * M_PI * shift_hz / 8000.0;
	/* the Hilbert filter delays the FIR's output by L: take it from the bulk delay */
	if (p->shift != 0.0)
		delay = delay > L ? delay - L : 0;
	p->delay = delay;
	p->len = delay + p->nh;
	p->line = calloc(p->len, sizeof(double));
	p->ylen = 2 * L + 1;
	p->y = calloc(p->ylen, sizeof(double));
	if (!p->line || !p->y) {
		sml_echo_path_free(p);
		return -1;
	}
	/* Hilbert: 2 / (pi k) for odd k, Blackman window */
	for (k = -L; k <= L; k++) {
		double w = 0.42 + 0.5 * cos(M_PI * k / (L + 1)) + 0.08 * cos(2 * M_PI * k / (L + 1));

		p->hil[k + L] = (k & 1) ? 2 / (M_PI * k) * w : 0;
	}
	return 0;
}

void sml_echo_path_free(struct sml_echo_path *p)
{
	free(p->line);
	free(p->y);
	p->line = NULL;
	p->y = NULL;
}

int sml_echo_path_delay(const struct sml_echo_path *p)
{
	return p->shift != 0.0 ? p->delay + SML_ECHO_HIL_DELAY : p->delay;
}

double sml_echo_path_step(struct sml_echo_path *p, double x)
{
	double y = 0, yh = 0, yc;
	int k, i, L = SML_ECHO_HIL_DELAY;

	/* line[pos] is the newest sample, line[pos + j] the one j samples ago */
	p->pos = p->pos ? p->pos - 1 : p->len - 1;
	p->line[p->pos] = x;
	for (k = 0; k < p->nh; k++) {
		i = p->pos + p->delay + k;
		if (i >= p->len)
			i -= p->len;
		y += p->h[k] * p->line[i];
	}
	if (p->shift == 0.0)
		return y;
	p->ypos = p->ypos ? p->ypos - 1 : p->ylen - 1;
	p->y[p->ypos] = y;
	/* y[ypos + j] is y j samples ago; output centred on j = L */
	for (k = -L; k <= L; k += 1) {
		if (!(k & 1))
			continue;
		i = p->ypos + L + k;
		if (i >= p->ylen)
			i -= p->ylen;
		yh += p->hil[k + L] * p->y[i];
	}
	i = p->ypos + L;
	if (i >= p->ylen)
		i -= p->ylen;
	yc = p->y[i];
	p->phase = fmod(p->phase + p->shift, 2 * M_PI);
	return yc * cos(p->phase) - yh * sin(p->phase);
}
