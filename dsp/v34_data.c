// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 data-mode encoder and decoder, in the signal-point domain (clause 9).
 *
 * Transmit, one mapping frame at a time (Table 11's steps): the data bits
 * are scrambled and framed (v34_frame: shell, I and Q bits, the aux bit);
 * the shell bits become eight rings (v34_shell); each 2D symbol's ring and Q
 * bits pick a quarter-superconstellation point; for each 4D symbol the
 * differential encoder's Z(m) turns the first point, the precoder adds c(2m)
 * (y = u + c) and outputs x(2m) = y - p; the precoder's next c(2m+1) gives
 * C0, and with the trellis state's Y0 and the sync pattern's V0, U0; the
 * second point is turned by Z(m) + 2 I1 + U0, moved by c(2m+1) and sent; the
 * trellis encoder moves on with the labels of the two y points; the
 * nonlinear encoder, if asked, stretches each x.
 *
 * Receive: the Viterbi decoder turns the received y(n) + noise into y
 * decisions 31 4D symbols later (the V0 of each 4D symbol from a framer
 * that follows the input); the inverse precoder runs on the decisions (u =
 * y - c, x = y - p as the transmitter did); each u gives its rotation (its
 * coset modulo 4) and, turned back, its quarter point, hence ring and Q
 * bits; the rotations give I1-I3 back (I2 + 2 I3 = Z(m) - Z(m-1), I1 the
 * high bit of the second point's rotation less Z(m)); four 4D symbols make
 * a mapping frame, whose rings the shell mapper's inverse turns back into
 * R0; a second framer, running 8 mapping frames behind, puts the bits back
 * in order and the descrambler restores the data.
 *
 * The superframe sync check: at the first 4D symbol of each half data frame,
 * where V0 carries a bit of the sync pattern, the Viterbi decoder's margin
 * says whether the V0 the input framer expects fits better than its
 * inverse. One position is as unsure as an uncoded decision (near the
 * rate's need a tenth fit by less than a quarter of a neighbour's squared
 * distance), so a superframe is judged by all of its 14 or 16: bad when
 * their mean margin is under SMDSP_V34_SYNC_MEAN or SMDSP_V34_SYNC_BAD of
 * them fit the inverse better by SMDSP_V34_SYNC_MARGIN (half a data frame out, the pattern
 * differs from itself at only 4 of 14 positions); SMDSP_V34_SYNC_LOST bad
 * superframes in a row and the decoder is out of step, its bits garbage.
 */
#include <smdsp/private/v34_data.h>

static int config_params(const struct smdsp_v34_data_config *cfg, struct smdsp_v34_frame_params *p)
{
	if (cfg->states != 16 && cfg->states != 32 && cfg->states != 64)
		return -EINVAL;
	return smdsp_v34_frame_params(cfg->symbol_rate, cfg->data_rate, cfg->aux, cfg->expanded, p);
}

/* the mean |u|^2 of the quarter points in use, all equally likely (1/128 units squared) */
static uint32_t mean_power(const struct smdsp_v34_trellis *t, const struct smdsp_v34_frame_params *p)
{
	uint64_t e = 0;
	unsigned int i, n = p->l / 4;
	int x, y;

	for (i = 0; i < n; i++) {
		smdsp_v34_trellis_point(t, i, &x, &y);
		e += (uint64_t)(x * x + y * y) * 128 * 128;
	}
	return (uint32_t)smdsp_div_u64(e, n);
}

/* ring r's mean |u|^2 (1/128 units squared): its 2^q quarter points, as likely as each other */
static uint32_t ring_power(const struct smdsp_v34_trellis *t, unsigned int r, unsigned int q)
{
	uint64_t e = 0;
	unsigned int i;

	for (i = r << q; i < (r + 1) << q; i++) {
		int x = 4 * t->pt[i][0] + 1, y = 4 * t->pt[i][1] + 1;

		e += (uint64_t)(x * x + y * y) * 128 * 128;
	}
	return (uint32_t)(e >> q);
}

/*
 * G7(x): the combinations of 7 rings costing less than x, from the shell
 * mapper's g8 alone (g8 = g7 (1 + z + ... + z^(M-1)), so the sums of g7 up
 * to x - 1 are g8(x - 1) + g8(x - 1 - M) + ...)
 */
static uint64_t g7_below(const struct smdsp_v34_shell *sh, int x)
{
	uint64_t n = 0;

	for (x--; x >= 0; x -= (int)sh->m)
		n += x <= 8 * ((int)sh->m - 1) ? sh->g8[x] : 0;
	return n;
}

/*
 * The mean |u|^2 of the points a mapping frame of k shell bits sends (1/128
 * units squared): each ring's own mean weighted by how often the shell
 * mapper's 2^k cheapest 8-ring combinations use it (by symmetry, at the
 * first of the eight: G7 below the cut, and the cost class the cut goes
 * through counted as if used evenly). The counts are kept with f bits of
 * fraction: the cut's share of a class is seldom whole, and truncated it
 * left a few combinations of 2^k uncounted, which at small k is a large
 * part (k = 4, M = 2: 15 of 16, the mean 0.7 dB low).
 */
static uint32_t shaped_k(const struct smdsp_v34_shell *sh, const struct smdsp_v34_trellis *t, unsigned int q,
			 unsigned int k)
{
	unsigned int f = k < 30 ? 30 - k : 0;
	uint64_t all = 1ULL << k, e = 0, rem, gc;
	unsigned int c = 0, top = 8 * (sh->m - 1), r;

	while (c < top && sh->z8[c + 1] <= all)
		c++;
	rem = all - sh->z8[c];
	gc = sh->g8[c];
	/* counts under 2^k, so with f bits of fraction under 2^30; ring powers under 2^28 */
	for (r = 0; r < sh->m && r <= c; r++) {
		uint64_t n = g7_below(sh, (int)(c - r)) << f;

		if (gc)
			n += smdsp_div_u64((rem * (g7_below(sh, (int)(c - r) + 1) - g7_below(sh, (int)(c - r)))) << f,
					   (uint32_t)gc);
		e += n * ring_power(t, r, q);
	}
	return (uint32_t)(e >> (k + f));
}

/*
 * ... over a data frame: its r high mapping frames of K shell bits, the
 * others of K - 1 (the shell mapper sh set up for p). Not inlined: its
 * frame only where it runs, at configuration.
 */
static smdsp_noinline uint32_t shaped_power(const struct smdsp_v34_shell *sh, const struct smdsp_v34_trellis *t,
					    const struct smdsp_v34_frame_params *p)
{
	uint64_t e = (uint64_t)shaped_k(sh, t, p->q, p->k) * p->r;

	if (p->r < p->p)
		e += (uint64_t)shaped_k(sh, t, p->q, p->k - 1) * (p->p - p->r);
	return (uint32_t)smdsp_div_u64(e, p->p);
}

/*
 * The power the points are scaled by (the transmitter's level, the
 * receiver's units, the nonlinear encoder's normaliser). Minimum shaping:
 * the mean over the points in use as if equally likely. Expanded shaping:
 * the same actual power on the line as minimum shaping at that rate, so
 * that its shaping gain (its points' lower mean for the same spacing)
 * shows as wider spacing; the shell mapper is left as p has it. pm:
 * room for minimum shaping's parameters (in the state: off the stack,
 * which at the answer modem's hand-over is the pump's deepest).
 */
static uint32_t norm_power(struct smdsp_v34_shell *sh, const struct smdsp_v34_trellis *t,
			   const struct smdsp_v34_frame_params *p, struct smdsp_v34_frame_params *pm)
{
	uint64_t pu = 0;
	uint32_t ps, pms;
	unsigned int r;

	if (!p->expanded || !p->k || smdsp_v34_frame_params(p->symbol_rate, p->data_rate, p->aux, false, pm))
		return mean_power(t, p);
	ps = shaped_power(sh, t, p);
	for (r = 0; r < pm->m; r++)
		pu += ring_power(t, r, pm->q);
	pu = smdsp_div_u64(pu, pm->m);
	smdsp_v34_shell_init(sh, pm->m, pm->k);
	pms = shaped_power(sh, t, pm);
	smdsp_v34_shell_init(sh, p->m, p->k);
	return pms ? (uint32_t)smdsp_div_u64(pu * ps, pms) : (uint32_t)pu;
}

uint32_t smdsp_v34_data_tx_power(const struct smdsp_v34_data_tx *s)
{
	return s->power;
}

uint32_t smdsp_v34_data_shaped_power(const struct smdsp_v34_data_tx *s)
{
	return s->frame.p.k ? shaped_power(&s->shell, &s->trellis, &s->frame.p) : s->power;
}

static int tx_init(struct smdsp_v34_data_tx *s, const struct smdsp_v34_data_config *cfg)
{
	struct smdsp_v34_frame_params p;

	memset(s, 0, sizeof(*s));
	if (config_params(cfg, &p))
		return -EINVAL;
	s->cfg = *cfg;
	if (smdsp_v34_frame_init(&s->frame, &p) || smdsp_v34_shell_init(&s->shell, p.m, p.k) ||
	    smdsp_v34_trellis_init(&s->trellis, cfg->states))
		return -EINVAL;
	smdsp_v34_scramble_init(&s->scr, cfg->caller);
	smdsp_v34_precode_init(&s->pre, cfg->h, p.w2);
	return 0;
}

struct smdsp_v34_data_tx *smdsp_v34_data_tx_create(const struct smdsp_v34_data_config *cfg)
{
	struct smdsp_v34_data_tx *s = smdsp_alloc(sizeof(*s));

	if (s && tx_init(s, cfg)) {
		smdsp_free(s);
		return NULL;
	}
	if (s)
		s->power = norm_power(&s->shell, &s->trellis, &s->frame.p, &s->pm);
	return s;
}

int smdsp_v34_data_tx_configure(struct smdsp_v34_data_tx *s, const struct smdsp_v34_data_config *cfg)
{
	struct smdsp_v34_data_config old = s->cfg;
	int ret = 0;

	if (tx_init(s, cfg)) {
		tx_init(s, &old);
		ret = -EINVAL;
	}
	/* after the init, not in it: its frame off the chain under it */
	s->power = norm_power(&s->shell, &s->trellis, &s->frame.p, &s->pm);
	return ret;
}

void smdsp_v34_data_tx_free(struct smdsp_v34_data_tx *s)
{
	smdsp_free(s);
}

void smdsp_v34_data_tx_reset(struct smdsp_v34_data_tx *s)
{
	smdsp_v34_frame_reset(&s->frame);
	smdsp_v34_scramble_reset(&s->scr);
	smdsp_v34_trellis_reset(&s->trellis);
	smdsp_v34_precode_reset(&s->pre);
	s->frames = 0;
}

int smdsp_v34_data_tx_print(const struct smdsp_v34_data_tx *s, char *buf, size_t len)
{
	const struct smdsp_v34_frame_params *p = &s->frame.p;

	return snprintf(buf, len, "v34_data_tx R=%u b=%u K=%u q=%u M=%u states=%u frames=%u state=%u",
			p->data_rate, p->b, p->k, p->q, p->m, s->cfg.states, (unsigned int)s->frames,
			s->trellis.state);
}

const struct smdsp_v34_frame_params *smdsp_v34_data_tx_params(const struct smdsp_v34_data_tx *s)
{
	return &s->frame.p;
}

unsigned int smdsp_v34_data_tx_bits(const struct smdsp_v34_data_tx *s)
{
	return smdsp_v34_frame_primary(&s->frame);
}

/* one 2D point out: y = u + c, x through the precoder and the nonlinear encoder */
static void tx_point(struct smdsp_v34_data_tx *s, int ux, int uy, int *yx, int *yy, int32_t *out)
{
	int cx, cy;

	smdsp_v34_precode_c(&s->pre, &cx, &cy);
	*yx = ux + cx;
	*yy = uy + cy;
	smdsp_v34_precode_push(&s->pre, *yx, *yy, out);
	if (s->cfg.theta)
		smdsp_v34_nonlinear(out, s->cfg.theta, s->power);
}

void smdsp_v34_data_tx_frame(struct smdsp_v34_data_tx *s, const uint8_t *bits, unsigned int aux,
			     int32_t out[16], int y[16])
{
	const unsigned int q = s->frame.p.q;
	uint8_t sb[SMDSP_V34_MAX_B], ring[8] = { 0 };
	struct smdsp_v34_mframe mf;
	unsigned int n = smdsp_v34_frame_primary(&s->frame), t, j;
	int yy[16];

	for (t = 0; t < n; t++)
		sb[t] = (uint8_t)smdsp_v34_scramble_bit(&s->scr, bits[t]);
	smdsp_v34_frame_pack(&s->frame, sb, aux, &mf);
	if (mf.nshell)
		smdsp_v34_shell_map(&s->shell, mf.r0, ring);
	for (j = 0; j < 4; j++) {
		unsigned int z = smdsp_v34_trellis_diff(&s->trellis, mf.i[j]), c0, u0;
		int ux, uy, cx, cy;

		smdsp_v34_trellis_point(&s->trellis, (ring[2 * j] << q) + mf.q[2 * j], &ux, &uy);
		smdsp_v34_rotate(&ux, &uy, z);
		smdsp_v34_precode_c(&s->pre, &cx, &cy);
		c0 = smdsp_v34_precode_cbit(cx, cy);
		tx_point(s, ux, uy, &yy[4 * j], &yy[4 * j + 1], &out[4 * j]);
		smdsp_v34_precode_c(&s->pre, &cx, &cy);
		c0 ^= smdsp_v34_precode_cbit(cx, cy);
		u0 = smdsp_v34_trellis_u0(&s->trellis, c0, mf.v0[j]);
		smdsp_v34_trellis_point(&s->trellis, (ring[2 * j + 1] << q) + mf.q[2 * j + 1], &ux, &uy);
		smdsp_v34_rotate(&ux, &uy, z + 2 * (mf.i[j] & 1) + u0);
		tx_point(s, ux, uy, &yy[4 * j + 2], &yy[4 * j + 3], &out[4 * j + 2]);
		smdsp_v34_trellis_advance(&s->trellis, smdsp_v34_label(yy[4 * j], yy[4 * j + 1]),
					  smdsp_v34_label(yy[4 * j + 2], yy[4 * j + 3]));
	}
	if (y)
		memcpy(y, yy, sizeof(yy));
	s->frames++;
}

/* -- receive ----------------------------------------------------------------------------------- */

static int rx_init(struct smdsp_v34_data_rx *s, const struct smdsp_v34_data_config *cfg)
{
	struct smdsp_v34_frame_params p;

	memset(s, 0, sizeof(*s));
	if (config_params(cfg, &p))
		return -EINVAL;
	s->cfg = *cfg;
	if (smdsp_v34_frame_init(&s->in_frame, &p) || smdsp_v34_frame_init(&s->out_frame, &p) ||
	    smdsp_v34_shell_init(&s->shell, p.m, p.k) || smdsp_v34_trellis_init(&s->map, cfg->states) ||
	    smdsp_v34_viterbi_init(&s->vit, cfg->states))
		return -EINVAL;
	smdsp_v34_scramble_init(&s->scr, cfg->caller);
	smdsp_v34_precode_init(&s->pre, cfg->h, p.w2);
	smdsp_v34_frame_peek(&s->in_frame, &s->in_mf);
	return 0;
}

struct smdsp_v34_data_rx *smdsp_v34_data_rx_create(const struct smdsp_v34_data_config *cfg)
{
	struct smdsp_v34_data_rx *s = smdsp_alloc(sizeof(*s));

	if (s && rx_init(s, cfg)) {
		smdsp_free(s);
		return NULL;
	}
	if (s)
		s->power = norm_power(&s->shell, &s->map, &s->out_frame.p, &s->pm);
	return s;
}

int smdsp_v34_data_rx_configure(struct smdsp_v34_data_rx *s, const struct smdsp_v34_data_config *cfg)
{
	struct smdsp_v34_data_config old = s->cfg;
	int ret = 0;

	if (rx_init(s, cfg)) {
		rx_init(s, &old);
		ret = -EINVAL;
	}
	s->power = norm_power(&s->shell, &s->map, &s->out_frame.p, &s->pm);
	return ret;
}

void smdsp_v34_data_rx_free(struct smdsp_v34_data_rx *s)
{
	smdsp_free(s);
}

void smdsp_v34_data_rx_reset(struct smdsp_v34_data_rx *s)
{
	smdsp_v34_frame_reset(&s->in_frame);
	smdsp_v34_frame_reset(&s->out_frame);
	smdsp_v34_scramble_reset(&s->scr);
	smdsp_v34_viterbi_reset(&s->vit);
	smdsp_v34_precode_reset(&s->pre);
	smdsp_v34_frame_peek(&s->in_frame, &s->in_mf);
	s->in_sym = 0;
	s->z = 0;
	s->out_sym = 0;
	s->sf_sum = 0;
	s->sf_n = 0;
	s->sf_miss = 0;
	memset(&s->out_mf, 0, sizeof(s->out_mf));
	memset(&s->stats, 0, sizeof(s->stats));
}

int smdsp_v34_data_rx_print(const struct smdsp_v34_data_rx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_data_rx R=%u states=%u frames=%u bad_points=%u bad_shell=%u",
			s->out_frame.p.data_rate, s->cfg.states, (unsigned int)s->stats.frames,
			(unsigned int)s->stats.bad_points, (unsigned int)s->stats.bad_shell);
}

const struct smdsp_v34_frame_params *smdsp_v34_data_rx_params(const struct smdsp_v34_data_rx *s)
{
	return &s->out_frame.p;
}

uint32_t smdsp_v34_data_rx_power(const struct smdsp_v34_data_rx *s)
{
	return s->power;
}

uint32_t smdsp_v34_data_rx_shaped_power(const struct smdsp_v34_data_rx *s)
{
	return s->out_frame.p.k ? shaped_power(&s->shell, &s->map, &s->out_frame.p) : s->power;
}

uint32_t smdsp_v34_data_rate_power(const struct smdsp_v34_data_rx *s, unsigned int symbol_rate,
				   unsigned int data_rate)
{
	struct smdsp_v34_frame_params p;

	if (smdsp_v34_frame_params(symbol_rate, data_rate, false, false, &p))
		return 0;
	return mean_power(&s->map, &p);
}

void smdsp_v34_data_rx_get_stats(const struct smdsp_v34_data_rx *s, struct smdsp_v34_data_stats *st)
{
	*st = s->stats;
}

/* a decided y: through the inverse precoder to u, its rotation and ring/Q; returns the rotation */
static unsigned int rx_point(struct smdsp_v34_data_rx *s, int yx, int yy, unsigned int k)
{
	const struct smdsp_v34_frame_params *p = &s->out_frame.p;
	int32_t xo[2];
	int cx, cy, ux, uy, idx;
	unsigned int rot;

	smdsp_v34_precode_c(&s->pre, &cx, &cy);
	smdsp_v34_precode_push(&s->pre, yx, yy, xo);
	ux = yx - cx;
	uy = yy - cy;
	rot = smdsp_v34_rotation(ux, uy);
	smdsp_v34_rotate(&ux, &uy, 4 - rot);
	idx = smdsp_v34_trellis_index(&s->map, ux, uy);
	if (idx < 0 || (unsigned int)idx >= p->l / 4) {
		s->stats.bad_points++;
		idx = 0;
	}
	s->ring[k] = (uint8_t)((unsigned int)idx >> p->q);
	s->out_mf.q[k] = (uint16_t)((unsigned int)idx & ((1u << p->q) - 1));
	return rot;
}

static unsigned int rx_decided(struct smdsp_v34_data_rx *s, const int d[4], uint8_t *bits, uint8_t *aux)
{
	unsigned int j = s->out_sym, r0, r1, t, n;
	struct smdsp_v34_mframe lay;
	int64_t r;

	r0 = rx_point(s, d[0], d[1], 2 * j);
	r1 = rx_point(s, d[2], d[3], 2 * j + 1);
	s->out_mf.i[j] = (uint8_t)((((r0 - s->z) & 3) << 1) | (((r1 - r0) & 3) >> 1));
	s->z = r0;
	if (++s->out_sym < 4)
		return 0;
	s->out_sym = 0;
	smdsp_v34_frame_peek(&s->out_frame, &lay);
	s->out_mf.r0 = 0;
	if (lay.nshell) {
		r = smdsp_v34_shell_unmap(&s->shell, s->ring);
		if (r < 0 || r >= ((int64_t)1 << lay.nshell))
			s->stats.bad_shell++;
		else
			s->out_mf.r0 = (uint32_t)r;
	}
	n = smdsp_v34_frame_unpack(&s->out_frame, &s->out_mf, bits, aux);
	for (t = 0; t < n; t++)
		bits[t] = (uint8_t)smdsp_v34_descramble_bit(&s->scr, bits[t]);
	s->stats.frames++;
	return n;
}

/*
 * The sync check at a 4D symbol just taken in (g: its index in its data
 * frame): at the first of each half data frame (where V0 carries the
 * pattern), whether the V0 the framer expects fits the paths better than
 * its inverse; once the decoder has filled (before, all paths are alike)
 */
static void sync_check(struct smdsp_v34_data_rx *s, unsigned int g)
{
	int32_t m;

	if (g % (2 * s->in_frame.p.p) || s->vit.filled < SMDSP_V34_VITERBI_DEPTH)
		return;
	m = smdsp_v34_viterbi_margin(&s->vit);
	s->stats.sync_checks++;
	if (m <= -SMDSP_V34_SYNC_MARGIN) {
		s->stats.sync_misses++;
		s->sf_miss++;
	}
	s->sf_sum += m;
	s->sf_n++;
}

/*
 * A superframe has come in: judged by its margins' mean (a position's own
 * margin is only as sure as an uncoded decision: near the rate's need a
 * tenth of them are under SMDSP_V34_SYNC_MARGIN, their mean is not; noise
 * 1.5 dB under the need lowers it, out of step takes it to 0) and by
 * its misses (a pattern shifted by half a data frame differs from itself at
 * only 4 of 14 positions)
 */
static void sync_superframe(struct smdsp_v34_data_rx *s)
{
	if (s->sf_n >= s->in_frame.p.j) {
		s->stats.superframes++;
		if (s->sf_sum < (int64_t)s->sf_n * SMDSP_V34_SYNC_MEAN || s->sf_miss >= SMDSP_V34_SYNC_BAD) {
			s->stats.bad_superframes++;
			if (++s->stats.bad_run >= SMDSP_V34_SYNC_LOST)
				s->stats.sync_lost = true;
		} else {
			s->stats.bad_run = 0;
		}
	}
	s->sf_sum = 0;
	s->sf_n = 0;
	s->sf_miss = 0;
}

unsigned int smdsp_v34_data_rx_frame(struct smdsp_v34_data_rx *s, const int32_t in[16], uint8_t *bits,
				     uint8_t *aux)
{
	unsigned int j, n = 0;
	int d[4];

	*aux = 0;
	for (j = 0; j < 4; j++) {
		unsigned int v0 = s->in_mf.v0[s->in_sym], g = 4 * s->in_mf.index + s->in_sym;
		bool decided = smdsp_v34_viterbi_step(&s->vit, &in[4 * j], v0, d);

		sync_check(s, g);
		if (++s->in_sym == 4) {
			/* the input framer only keeps time: move it on (no bits: off the stack) */
			s->in_sym = 0;
			smdsp_v34_frame_next(&s->in_frame);
			smdsp_v34_frame_peek(&s->in_frame, &s->in_mf);
			if (!s->in_mf.index && !s->in_mf.data_frame)
				sync_superframe(s);
		}
		if (decided)
			n += rx_decided(s, d, bits + n, aux);
	}
	return n;
}
