// SPDX-License-Identifier: GPL-2.0
/*
 * V.17 modulator.
 *
 * 2400 baud on an 1800 Hz carrier, 10/3 samples per symbol, shaped by the
 * root-raised-cosine pulse of V.29 (beta 0.25, smdsp_v29_tx_rrc) and put on
 * the carrier by qam.c. Each symbol takes 6, 5, 4 or 3 data bits (14400,
 * 12000, 9600, 7200 bit/s) through the scrambler 1 + x^-18 + x^-23 (first
 * bit Q1); Q1 Q2 are differentially and convolutionally encoded (trellis.c)
 * and the code picks one of 128, 64, 32 or 16 points.
 *
 * Training (V.17 Table 3, with the lengths SpanDSP uses): optional talker
 * echo protection (480 symbols of unmodulated carrier, 48 of silence);
 * segment 1, 256 symbols alternating A and B; segment 2, 2976 symbols (38
 * in the short training) of C, D, B or A as the scrambler, fed with ones
 * and started at 0x2ecdd5, gives each pair of bits; segment 3 (long
 * training only), 64 symbols moving through A B C D by the phase steps the
 * scrambled bridge pattern 0x8880 gives; segment 4, 48 symbols of scrambled
 * ones at the data rate, trellis-coded from the encoder's zero state and a
 * differential state of 1 (long) or 0 (short); then the data. At the end,
 * 32 symbols of scrambled ones and 48 of silence. The signal starts at its
 * full level (prefill()).
 */
#include <smdsp/private/v17.h>
#include <smdsp/private/v29.h>	/* V.29's pulse tables */

#define TEP_SYMS 480
#define SEG1_START (TEP_SYMS + 48)
#define SEG2_START (SEG1_START + 256)
#define SEG3_START (SEG2_START + 2976)
#define SHORT_SEG2_LEN 38
#define SEG4_LEN 48
#define SEG3_LEN 64
#define SHUTDOWN_SYMS 32
#define SILENCE_SYMS 48
#define TXU SMDSP_V17_TX_UNIT
#define TRAIN_POW 40		/* the mean square of every constellation, units^2 */
/*
 * The carrier's first sample: 5 samples on (45 degrees). With the pulse
 * history filled (prefill()), SpanDSP's receiver sees A at about -8 degrees
 * in its short training, 98 degrees from the quadrant where it takes A for
 * B; of the phases that keep it out from -6 to -24 dBm0, this one does so
 * best at +-100 ppm on the tests' line (down to -29 dBm0 at 7200 bit/s).
 */
#define CAR_START 5

const int8_t smdsp_v17_points_14400[128][2] = {
	{ -8, -3 }, { 9, 2 }, { 2, -9 }, { -3, 8 }, { 8, 3 }, { -9, -2 }, { -2, 9 }, { 3, -8 },
	{ -8, 1 }, { 9, -2 }, { -2, -9 }, { 1, 8 }, { 8, -1 }, { -9, 2 }, { 2, 9 }, { -1, -8 },
	{ -4, -3 }, { 5, 2 }, { 2, -5 }, { -3, 4 }, { 4, 3 }, { -5, -2 }, { -2, 5 }, { 3, -4 },
	{ -4, 1 }, { 5, -2 }, { -2, -5 }, { 1, 4 }, { 4, -1 }, { -5, 2 }, { 2, 5 }, { -1, -4 },
	{ 4, -3 }, { -3, 2 }, { 2, 3 }, { -3, -4 }, { -4, 3 }, { 3, -2 }, { -2, -3 }, { 3, 4 },
	{ 4, 1 }, { -3, -2 }, { -2, 3 }, { 1, -4 }, { -4, -1 }, { 3, 2 }, { 2, -3 }, { -1, 4 },
	{ 0, -3 }, { 1, 2 }, { 2, -1 }, { -3, 0 }, { 0, 3 }, { -1, -2 }, { -2, 1 }, { 3, 0 },
	{ 0, 1 }, { 1, -2 }, { -2, -1 }, { 1, 0 }, { 0, -1 }, { -1, 2 }, { 2, 1 }, { -1, 0 },
	{ 8, -3 }, { -7, 2 }, { 2, 7 }, { -3, -8 }, { -8, 3 }, { 7, -2 }, { -2, -7 }, { 3, 8 },
	{ 8, 1 }, { -7, -2 }, { -2, 7 }, { 1, -8 }, { -8, -1 }, { 7, 2 }, { 2, -7 }, { -1, 8 },
	{ -4, -7 }, { 5, 6 }, { 6, -5 }, { -7, 4 }, { 4, 7 }, { -5, -6 }, { -6, 5 }, { 7, -4 },
	{ -4, 5 }, { 5, -6 }, { -6, -5 }, { 5, 4 }, { 4, -5 }, { -5, 6 }, { 6, 5 }, { -5, -4 },
	{ 4, -7 }, { -3, 6 }, { 6, 3 }, { -7, -4 }, { -4, 7 }, { 3, -6 }, { -6, -3 }, { 7, 4 },
	{ 4, 5 }, { -3, -6 }, { -6, 3 }, { 5, -4 }, { -4, -5 }, { 3, 6 }, { 6, -3 }, { -5, 4 },
	{ 0, -7 }, { 1, 6 }, { 6, -1 }, { -7, 0 }, { 0, 7 }, { -1, -6 }, { -6, 1 }, { 7, 0 },
	{ 0, 5 }, { 1, -6 }, { -6, -1 }, { 5, 0 }, { 0, -5 }, { -1, 6 }, { 6, 1 }, { -5, 0 },
};
const int8_t smdsp_v17_points_12000[64][2] = {
	{ 7, 1 }, { -5, -1 }, { -1, 5 }, { 1, -7 }, { -7, -1 }, { 5, 1 }, { 1, -5 }, { -1, 7 },
	{ 3, -3 }, { -1, 3 }, { 3, 1 }, { -3, -3 }, { -3, 3 }, { 1, -3 }, { -3, -1 }, { 3, 3 },
	{ 7, -7 }, { -5, 7 }, { 7, 5 }, { -7, -7 }, { -7, 7 }, { 5, -7 }, { -7, -5 }, { 7, 7 },
	{ -1, -7 }, { 3, 7 }, { 7, -3 }, { -7, 1 }, { 1, 7 }, { -3, -7 }, { -7, 3 }, { 7, -1 },
	{ 3, 5 }, { -1, -5 }, { -5, 1 }, { 5, -3 }, { -3, -5 }, { 1, 5 }, { 5, -1 }, { -5, 3 },
	{ -1, 1 }, { 3, -1 }, { -1, -3 }, { 1, 1 }, { 1, -1 }, { -3, 1 }, { 1, 3 }, { -1, -1 },
	{ -5, 5 }, { 7, -5 }, { -5, -7 }, { 5, 5 }, { 5, -5 }, { -7, 5 }, { 5, 7 }, { -5, -5 },
	{ -5, -3 }, { 7, 3 }, { 3, -7 }, { -3, 5 }, { 5, 3 }, { -7, -3 }, { -3, 7 }, { 3, -5 },
};
const int8_t smdsp_v17_points_9600[32][2] = {
	{ -8, 2 }, { -6, -4 }, { -4, 6 }, { 2, 8 }, { 8, -2 }, { 6, 4 }, { 4, -6 }, { -2, -8 },
	{ 0, 2 }, { -6, 4 }, { 4, 6 }, { 2, 0 }, { 0, -2 }, { 6, -4 }, { -4, -6 }, { -2, 0 },
	{ 0, -6 }, { 2, -4 }, { -4, -2 }, { -6, 0 }, { 0, 6 }, { -2, 4 }, { 4, 2 }, { 6, 0 },
	{ 8, 2 }, { 2, 4 }, { 4, -2 }, { 2, -8 }, { -8, -2 }, { -2, -4 }, { -4, 2 }, { -2, 8 },
};
const int8_t smdsp_v17_points_7200[16][2] = {
	{ 6, -6 }, { -2, 6 }, { 6, 2 }, { -6, -6 }, { -6, 6 }, { 2, -6 }, { -6, -2 }, { 6, 6 },
	{ -2, 2 }, { 6, -2 }, { -2, -6 }, { 2, 2 }, { 2, -2 }, { -6, 2 }, { 2, 6 }, { -2, -2 },
};

/* A, B, C, D: B is A turned by 90 degrees, C by 180, D by 270 */
const int8_t smdsp_v17_abcd[4][2] = { { -6, -2 }, { 2, -6 }, { 6, 2 }, { -2, 6 } };

const int8_t (*smdsp_v17_points(unsigned int rate, unsigned int *npoints))[2]
{
	switch (rate) {
	case 14400:
		*npoints = 128;
		return smdsp_v17_points_14400;
	case 12000:
		*npoints = 64;
		return smdsp_v17_points_12000;
	case 9600:
		*npoints = 32;
		return smdsp_v17_points_9600;
	case 7200:
		*npoints = 16;
		return smdsp_v17_points_7200;
	default:
		*npoints = 0;
		return NULL;
	}
}

/*
 * The pulse history as if the first segment (all A for the echo protection
 * tone, A B A B for segment 1) had always been on: the signal starts at its
 * full level on the first sample instead of rising over the pulse's
 * precursor.
 *
 * SpanDSP's receiver (0.0.6 and its later versions) starts its carrier at
 * the sample where it hears the signal, and in a short training takes its
 * 100th and 101st symbols for A and B; its test of which came first,
 * (uint32_t)(angle - start) < 2^31, is compiled as angle >= start (the
 * int32 difference may overflow), so it turns the constellation by 90
 * degrees and fails whenever A lies between 90 and 180 degrees. Through
 * the rising pulse that sample moved with the level, 81 degrees of carrier
 * a sample (the 4th to the 12th from -6 to -24 dBm0), and A fell there at
 * -10 to -13 and -20, -21 dBm0. From the full level SpanDSP hears the first
 * sample down to -30 dBm0 (the third from -31 to -35 dBm0, where it fails
 * again). A line's phase at 1800 Hz can still turn A into that quadrant,
 * whichever the transmitter.
 */
static void prefill(struct smdsp_v17_tx *s, bool tep)
{
	unsigned int k, p;
	const int8_t *pt;

	/* the first symbol goes to sym_pos + 1; k symbols before it to sym_pos + 1 - k */
	for (k = 1; k < SMDSP_QAM_TX_SYMS; k++) {
		pt = smdsp_v17_abcd[!tep && (k & 1)];
		p = (s->qt.sym_pos + 1 + SMDSP_QAM_TX_SYMS - k) % SMDSP_QAM_TX_SYMS;
		s->qt.sym_re[p] = (int16_t)(pt[0] * TXU);
		s->qt.sym_im[p] = (int16_t)(pt[1] * TXU);
		s->qt.sym_re[p + SMDSP_QAM_TX_SYMS] = s->qt.sym_re[p];
		s->qt.sym_im[p + SMDSP_QAM_TX_SYMS] = s->qt.sym_im[p];
	}
}

void smdsp_v17_qam_tx_init(struct smdsp_qam_tx *qt, int level_dbm0_10)
{
	unsigned int r, k;
	uint64_t tab_pow = 0;

	smdsp_qam_tx_init(qt, 1800000, SMDSP_V17_CAR_PERIOD, 10, 1, smdsp_v29_tx_rrc[0]);
	for (r = 0; r < 10; r++)
		for (k = 0; k < SMDSP_QAM_TX_SYMS; k++)
			tab_pow += (int32_t)smdsp_v29_tx_rrc[r][k] * smdsp_v29_tx_rrc[r][k];
	/* every rate and the training have the same mean square: one gain */
	qt->gain = smdsp_qam_tx_gain(level_dbm0_10, (uint64_t)TXU * TXU * TRAIN_POW, tab_pow / 10);
}

int smdsp_v17_tx_init(struct smdsp_v17_tx *s, unsigned int rate, int level_dbm0_10, bool tep,
		      bool short_train, smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn,
		      void *user)
{
	unsigned int np;

	if (!smdsp_v17_points(rate, &np))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	smdsp_v17_qam_tx_init(&s->qt, level_dbm0_10);
	prefill(s, tep);
	s->qt.car_idx = CAR_START;
	s->rate = rate;
	s->points = smdsp_v17_points(rate, &np);
	s->bits = rate / 2400;
	s->short_train = short_train;
	s->tep = tep;
	s->level_dbm0_10 = level_dbm0_10;
	smdsp_trellis_enc_init(&s->enc, short_train ? 0 : 1);
	s->scr = SMDSP_V17_SCR_INIT;
	s->step = tep ? 0 : SEG1_START;
	smdsp_qam_tx_calls(&s->qt, get_bit, status_fn, user);
	return 0;
}

struct smdsp_v17_tx *smdsp_v17_tx_create(unsigned int rate, int level_dbm0_10, bool tep,
					 bool short_train, smdsp_get_bit_fn get_bit,
					 smdsp_status_fn status_fn, void *user)
{
	struct smdsp_v17_tx *s;
	unsigned int np;

	if (!smdsp_v17_points(rate, &np))
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (s)
		smdsp_v17_tx_init(s, rate, level_dbm0_10, tep, short_train, get_bit, status_fn,
				  user);
	return s;
}

void smdsp_v17_tx_free(struct smdsp_v17_tx *s)
{
	smdsp_free(s);
}

void smdsp_v17_tx_stop(struct smdsp_v17_tx *s)
{
	smdsp_qam_tx_stop(&s->qt, SHUTDOWN_SYMS + SILENCE_SYMS);
}

static void put(int *re, int *im, const int8_t *p)
{
	*re = p[0] * TXU;
	*im = p[1] * TXU;
}

/* Segments 1 to 3: the point of training symbol step (counted from 1 at segment 1). */
static void training(struct smdsp_v17_tx *s, unsigned int step, int *re, int *im)
{
	/* scrambled dibit (first bit high) -> C, D, B, A; bridge dibit -> phase step */
	static const uint8_t cdba[4] = { 2, 3, 1, 0 };
	static const uint8_t turn[4] = { 1, 0, 2, 3 };
	unsigned int b, sh;

	if (step <= 256) {
		s->abcd = (step & 1) ? 0 : 1;
	} else if (step <= 256 + 2976) {
		b = (unsigned int)smdsp_qam_scramble(&s->scr, 1) << 1;
		b |= (unsigned int)smdsp_qam_scramble(&s->scr, 1);
		s->abcd = cdba[b];
	} else {
		sh = ((step - 256 - 2976 - 1) & 7) << 1;
		b = (unsigned int)smdsp_qam_scramble(&s->scr, SMDSP_V17_BRIDGE >> sh) << 1;
		b |= (unsigned int)smdsp_qam_scramble(&s->scr, SMDSP_V17_BRIDGE >> (sh + 1));
		s->abcd = (s->abcd + turn[b]) & 3;
	}
	put(re, im, smdsp_v17_abcd[s->abcd]);
}

static void tx_symbol(void *user, int *re, int *im)
{
	struct smdsp_v17_tx *s = user;
	unsigned int i, q = 0, train_end;

	/* symbols of training after segment 1's start: 256 + 2976 + 64, or 256 + 38 */
	train_end = s->short_train ? 256 + SHORT_SEG2_LEN : 256 + 2976 + SEG3_LEN;
	if (s->step < SEG1_START + train_end) {
		s->step++;
		if (s->step <= TEP_SYMS)
			put(re, im, smdsp_v17_abcd[0]);
		else if (s->step > SEG1_START)
			training(s, s->step - SEG1_START, re, im);
		return;
	}
	if (!smdsp_qam_tx_data(&s->qt, &s->step, SEG1_START + train_end + SEG4_LEN))
		return;
	/* the shutdown's last SILENCE_SYMS symbols are silence */
	if (s->qt.stopping && s->qt.shutdown < SILENCE_SYMS)
		return;
	for (i = 0; i < s->bits; i++)
		q |= (unsigned int)smdsp_qam_scramble(&s->scr, smdsp_qam_tx_bit(&s->qt)) << i;
	put(re, im, s->points[smdsp_trellis_encode(&s->enc, q)]);
}

bool smdsp_v17_tx_process(struct smdsp_v17_tx *s, int16_t *out, unsigned int n)
{
	smdsp_qam_tx_process(&s->qt, out, n, tx_symbol, s);
	return !s->qt.done;
}

void smdsp_v17_tx_reset(struct smdsp_v17_tx *s)
{
	smdsp_v17_tx_init(s, s->rate, s->level_dbm0_10, s->tep, s->short_train, s->qt.get_bit, s->qt.status_fn,
		       s->qt.user);
}

int smdsp_v17_tx_print(const struct smdsp_v17_tx *s, char *buf, size_t len)
{
	return smdsp_qam_tx_print_as(&s->qt, "v17_tx", s->rate, s->step, buf, len);
}
