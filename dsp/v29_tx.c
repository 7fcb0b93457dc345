// SPDX-License-Identifier: GPL-2.0
/*
 * V.29 modulator.
 *
 * 2400 baud on a 1700 Hz carrier, 10/3 samples per symbol. 9600 bit/s:
 * four bits per symbol, the first picks the ring (amplitude), the other
 * three one of eight phase changes (Gray coded, 45 degree steps); 7200:
 * three bits, the low ring only; 4800: two bits, four changes of 90
 * degrees on the low ring. The symbols are shaped at baseband by a root-
 * raised-cosine pulse (beta 0.25, from a table per third of a sample) and
 * put on the carrier (qam.c). Data bits go through the scrambler
 * 1 + x^-18 + x^-23.
 *
 * Training: optional talker echo protection (480 symbols of unmodulated
 * carrier), 48 symbols of silence, 128 symbols alternating between B and A
 * (segment 2), 384 symbols of C or D as the generator 1 + x^-6 + x^-7
 * gives (segment 3), 48 symbols of scrambled ones at the data rate, then
 * the data, whose phase changes start from phase 0. A, B, C and D depend
 * on the rate; the lengths are those of the Recommendation and SpanDSP.
 */
#include <smdsp/private/v29.h>

#define TEP_SYMS 480
#define SEG1_END (TEP_SYMS + 48)
#define SEG2_END (SEG1_END + 128)
#define SEG3_END (SEG2_END + 384)
#define SEG4_END (SEG3_END + 48)
#define SHUTDOWN_SYMS 32
#define TXU 1024		/* transmit constellation unit */

const int8_t smdsp_v29_points[16][2] = {
	{ 3, 0 }, { 1, 1 }, { 0, 3 }, { -1, 1 }, { -3, 0 }, { -1, -1 }, { 0, -3 }, { 1, -1 },
	{ 5, 0 }, { 3, 3 }, { 0, 5 }, { -3, 3 }, { -5, 0 }, { -3, -3 }, { 0, -5 }, { 3, -3 },
};

/* segment 2: A, B; segment 3: C, D (by rate: 9600, 7200, 4800) */
static const int8_t abab[3][2][2] = {
	{ { 3, -3 }, { -3, 0 } }, { { 1, -1 }, { -3, 0 } }, { { 0, -3 }, { -3, 0 } },
};

static const int8_t cdcd[3][2][2] = {
	{ { 3, 0 }, { -3, 3 } }, { { 3, 0 }, { -1, 1 } }, { { 3, 0 }, { 0, 3 } },
};

/* tribit (first bit in bit 2) -> phase change in 45 degree steps */
static const uint8_t steps_8[8] = { 1, 0, 2, 3, 6, 7, 5, 4 };
/* dibit (first bit in bit 1) -> phase change in 45 degree steps (4800) */
static const uint8_t steps_4[4] = { 0, 2, 6, 4 };

/* mean sum of squares of the transmit table's rows */
#define TX_POWER 67083498ULL

const int16_t smdsp_v29_tx_rrc[10][9] = {
	{
		174, -307, 435, -526, 8752, -526, 435, -307, 174,
	},
	{
		159, -198, 129, 322, 8582, -1146, 647, -363, 162,
	},
	{
		114, -42, -247, 1368, 8086, -1526, 755, -366, 128,
	},
	{
		43, 147, -658, 2558, 7300, -1674, 763, -323, 80,
	},
	{
		-49, 347, -1057, 3826, 6279, -1617, 682, -246, 26,
	},
	{
		-150, 535, -1395, 5094, 5094, -1395, 535, -150, -24,
	},
	{
		-246, 682, -1617, 6279, 3826, -1057, 347, -49, -64,
	},
	{
		-323, 763, -1674, 7300, 2558, -658, 147, 43, -88,
	},
	{
		-366, 755, -1526, 8086, 1368, -247, -42, 114, -95,
	},
	{
		-363, 647, -1146, 8582, 322, 129, -198, 159, -85,
	},
};
const int16_t smdsp_v29_rx_rrc[12][48] = {
	{
		30, -6, -41, -30, 19, 47, 14, -45, -47,
		32, 103, 49, -120, -223, -75, 267, 463, 175,
		-517, -1002, -520, 1170, 3423, 5027, 5027, 3423, 1170,
		-520, -1002, -517, 175, 463, 267, -75, -223, -120,
		49, 103, 32, -47, -45, 14, 47, 19, -30,
		-41, -6, 30,
	},
	{
		32, -2, -39, -33, 14, 47, 18, -41, -50,
		24, 100, 59, -105, -222, -98, 238, 462, 220,
		-457, -990, -609, 993, 3242, 4946, 5096, 3599, 1351,
		-422, -1007, -577, 128, 460, 295, -51, -221, -134,
		38, 104, 40, -43, -48, 9, 47, 23, -27,
		-42, -10, 28,
	},
	{
		33, 2, -37, -36, 10, 46, 23, -37, -53,
		16, 97, 68, -90, -220, -119, 209, 458, 261,
		-395, -971, -688, 821, 3058, 4855, 5152, 3769, 1536,
		-316, -1005, -635, 77, 453, 321, -25, -218, -148,
		26, 104, 48, -38, -51, 4, 46, 27, -23,
		-43, -13, 26,
	},
	{
		34, 5, -35, -38, 6, 45, 27, -32, -55,
		8, 93, 77, -75, -216, -138, 179, 450, 298,
		-333, -946, -759, 655, 2870, 4752, 5197, 3934, 1723,
		-201, -995, -690, 24, 443, 346, 2, -213, -161,
		13, 104, 56, -33, -53, -2, 44, 30, -20,
		-43, -17, 24,
	},
	{
		35, 9, -33, -40, 1, 44, 31, -28, -56,
		0, 88, 84, -59, -210, -156, 148, 439, 332,
		-270, -915, -820, 494, 2681, 4638, 5228, 4091, 1913,
		-77, -977, -743, -31, 429, 369, 30, -205, -173,
		-1, 102, 63, -27, -55, -7, 43, 34, -16,
		-43, -20, 21,
	},
	{
		35, 12, -30, -41, -3, 42, 35, -23, -57,
		-7, 83, 90, -44, -203, -171, 118, 426, 362,
		-209, -879, -873, 340, 2489, 4515, 5248, 4241, 2105,
		54, -951, -792, -89, 410, 391, 58, -196, -184,
		-15, 99, 70, -21, -56, -12, 40, 37, -12,
		-43, -24, 18,
	},
	{
		35, 15, -27, -42, -7, 39, 38, -18, -57,
		-14, 77, 95, -29, -194, -184, 88, 409, 388,
		-148, -838, -916, 194, 2297, 4382, 5254, 4382, 2297,
		194, -916, -838, -148, 388, 409, 88, -184, -194,
		-29, 95, 77, -14, -57, -18, 38, 39, -7,
		-42, -27, 15,
	},
	{
		35, 18, -24, -43, -12, 37, 40, -12, -56,
		-21, 70, 99, -15, -184, -196, 58, 391, 410,
		-89, -792, -951, 54, 2105, 4241, 5248, 4515, 2489,
		340, -873, -879, -209, 362, 426, 118, -171, -203,
		-44, 90, 83, -7, -57, -23, 35, 42, -3,
		-41, -30, 12,
	},
	{
		34, 21, -20, -43, -16, 34, 43, -7, -55,
		-27, 63, 102, -1, -173, -205, 30, 369, 429,
		-31, -743, -977, -77, 1913, 4091, 5229, 4639, 2681,
		494, -820, -915, -270, 332, 439, 148, -156, -210,
		-59, 84, 88, 0, -56, -28, 31, 44, 1,
		-40, -33, 9,
	},
	{
		33, 24, -17, -43, -20, 30, 44, -2, -53,
		-33, 56, 104, 13, -161, -213, 2, 346, 443,
		24, -690, -995, -201, 1723, 3934, 5197, 4752, 2871,
		655, -759, -946, -333, 298, 450, 179, -138, -216,
		-75, 77, 93, 8, -55, -32, 27, 45, 6,
		-38, -35, 5,
	},
	{
		32, 26, -13, -43, -23, 27, 46, 4, -51,
		-38, 48, 104, 26, -148, -218, -25, 321, 453,
		77, -635, -1005, -316, 1536, 3770, 5153, 4855, 3058,
		821, -688, -971, -395, 261, 458, 209, -119, -220,
		-90, 68, 97, 16, -53, -37, 23, 46, 10,
		-36, -37, 2,
	},
	{
		30, 28, -10, -42, -27, 23, 47, 9, -48,
		-43, 40, 104, 38, -134, -221, -51, 295, 460,
		128, -577, -1007, -422, 1351, 3599, 5096, 4947, 3243,
		993, -609, -990, -457, 220, 462, 238, -98, -222,
		-105, 59, 100, 24, -50, -41, 18, 47, 14,
		-33, -39, -2,
	},
};

int smdsp_v29_train_bit(uint32_t *reg)
{
	int bit = (int)(*reg & 1);

	*reg >>= 1;
	*reg |= ((uint32_t)(bit ^ (int)*reg) & 1) << 6;
	return bit;
}

static unsigned int rate_idx(unsigned int rate)
{
	return rate == 9600 ? 0 : rate == 7200 ? 1 : 2;
}

static bool rate_ok(unsigned int rate)
{
	return rate == 4800 || rate == 7200 || rate == 9600;
}

int smdsp_v29_tx_init(struct smdsp_v29_tx *s, unsigned int rate, int level_dbm0_10, bool tep,
		      smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn, void *user)
{
	/* twice the symbols' mean square, units^2 (9600, 7200, 4800) */
	static const uint8_t pow2[3] = { 27, 11, 18 };

	if (!rate_ok(rate))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	smdsp_qam_tx_init(&s->qt, 1700000, SMDSP_V29_CAR_PERIOD, 10, 1, smdsp_v29_tx_rrc[0]);
	s->qt.gain = smdsp_qam_tx_gain(level_dbm0_10,
				       (uint64_t)TXU * TXU * pow2[rate_idx(rate)] / 2, TX_POWER);
	s->rate = rate;
	s->tep = tep;
	s->level_dbm0_10 = level_dbm0_10;
	s->step = tep ? 0 : TEP_SYMS;
	s->train = 0x2a;
	smdsp_qam_tx_calls(&s->qt, get_bit, status_fn, user);
	return 0;
}

struct smdsp_v29_tx *smdsp_v29_tx_create(unsigned int rate, int level_dbm0_10, bool tep,
					 smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn,
					 void *user)
{
	struct smdsp_v29_tx *s;

	if (!rate_ok(rate))
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (s)
		smdsp_v29_tx_init(s, rate, level_dbm0_10, tep, get_bit, status_fn, user);
	return s;
}

void smdsp_v29_tx_free(struct smdsp_v29_tx *s)
{
	smdsp_free(s);
}

void smdsp_v29_tx_stop(struct smdsp_v29_tx *s)
{
	smdsp_qam_tx_stop(&s->qt, SHUTDOWN_SYMS);
}

static unsigned int next_bit(struct smdsp_v29_tx *s)
{
	return (unsigned int)smdsp_qam_scramble(&s->scr, smdsp_qam_tx_bit(&s->qt));
}

static void put(int *re, int *im, const int8_t *p)
{
	*re = p[0] * TXU;
	*im = p[1] * TXU;
}

static void tx_symbol(void *user, int *re, int *im)
{
	struct smdsp_v29_tx *s = user;
	unsigned int r = rate_idx(s->rate), amp = 0, b;

	if (s->step < SEG3_END) {
		s->step++;
		if (s->step <= TEP_SYMS)
			put(re, im, smdsp_v29_points[0]);
		else if (s->step > SEG1_END && s->step <= SEG2_END)
			put(re, im, abab[r][(s->step - SEG1_END) & 1]);
		else if (s->step > SEG2_END)
			put(re, im, cdcd[r][smdsp_v29_train_bit(&s->train)]);
		return;
	}
	if (!smdsp_qam_tx_data(&s->qt, &s->step, SEG4_END))
		return;
	if (s->rate == 9600 && next_bit(s))
		amp = 8;
	b = next_bit(s) << 1;
	b |= next_bit(s);
	if (s->rate == 4800) {
		b = steps_4[b];
	} else {
		b = (b << 1) | next_bit(s);
		b = steps_8[b];
	}
	s->state = (s->state + b) & 7;
	put(re, im, smdsp_v29_points[amp | s->state]);
}

bool smdsp_v29_tx_process(struct smdsp_v29_tx *s, int16_t *out, unsigned int n)
{
	smdsp_qam_tx_process(&s->qt, out, n, tx_symbol, s);
	return !s->qt.done;
}

void smdsp_v29_tx_reset(struct smdsp_v29_tx *s)
{
	smdsp_v29_tx_init(s, s->rate, s->level_dbm0_10, s->tep, s->qt.get_bit, s->qt.status_fn,
		       s->qt.user);
}

int smdsp_v29_tx_print(const struct smdsp_v29_tx *s, char *buf, size_t len)
{
	return smdsp_qam_tx_print_as(&s->qt, "v29_tx", s->rate, s->step, buf, len);
}
