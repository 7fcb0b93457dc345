// SPDX-License-Identifier: GPL-2.0
/*
 * V.27ter modulator.
 *
 * 4800 bit/s: three bits per symbol pick one of eight phase changes (Gray
 * coded, 45 degree steps) at 1600 baud, 5 samples per symbol. 2400 bit/s:
 * two bits pick one of four changes (90 degree steps) at 1200 baud, 20/3
 * samples per symbol. The symbols are shaped at baseband by a root-raised-
 * cosine pulse (beta 0.5) from a table per baud phase and put on the 1800 Hz
 * carrier. All bits go through the scrambler 1 + x^-6 + x^-7 with its guard
 * against repetitive patterns.
 *
 * Training (the long sequence, the one fax uses): optional talker echo
 * protection (320 symbols of unmodulated carrier), 32 symbols of silence,
 * 50 symbols of 180 degree reversals, 1074 symbols of 0/180 degree changes
 * given by every third bit of the scrambler fed with ones (started at
 * 0x3c), 8 symbols of scrambled ones at the data rate, then the data. The
 * segment lengths in symbols are those SpanDSP's receiver expects at both
 * rates.
 *
 * The tables below come from a short script (beta 0.5, 9 symbols, Q14 / 2
 * for the transmitter; the receiver's matched filter at 12 fractional delays
 * of 1/12 sample, 48 taps, DC gain 2 in Q13).
 */
#include <smdsp/private/v27ter.h>

#define TEP_SYMS 320
#define SEG2_END (TEP_SYMS + 32)
#define SEG3_END (SEG2_END + 50)
#define SEG4_END (SEG3_END + 1074)
#define SEG5_END (SEG4_END + 8)
#define SHUTDOWN_SYMS 32
#define RADIUS 4096
#define R45 2896		/* RADIUS / sqrt(2) */
/* mean sum of squares of a transmit phase set (both rates) */
#define TX_POWER 67100000ULL

static const int16_t pts[8][2] = {
	{ RADIUS, 0 }, { R45, R45 }, { 0, RADIUS }, { -R45, R45 },
	{ -RADIUS, 0 }, { -R45, -R45 }, { 0, -RADIUS }, { R45, -R45 },
};

/* tribit (first bit in bit 2) -> phase change in 45 degree steps */
static const uint8_t steps_4800[8] = { 1, 0, 2, 3, 6, 7, 5, 4 };
/* dibit (first bit in bit 1) -> phase change in 45 degree steps */
static const uint8_t steps_2400[4] = { 0, 2, 6, 4 };

const int16_t smdsp_v27ter_tx_rrc_4800[5][9] = {
	{
		-83, 25, 348, -869, 9311, -869, 348, 25, -83,
	},
	{
		-50, -110, 219, 717, 8446, -1321, 187, 125, -47,
	},
	{
		40, -159, -278, 3282, 6167, -945, -44, 123, 17,
	},
	{
		123, -44, -945, 6167, 3282, -278, -159, 40, 54,
	},
	{
		125, 187, -1321, 8446, 717, 219, -110, -50, 41,
	},
};
const int16_t smdsp_v27ter_tx_rrc_2400[20][9] = {
	{
		-83, 25, 348, -869, 9311, -869, 348, 25, -83,
	},
	{
		-82, -10, 349, -582, 9255, -1083, 327, 57, -79,
	},
	{
		-76, -45, 330, -221, 9090, -1226, 291, 85, -72,
	},
	{
		-65, -79, 287, 214, 8817, -1303, 243, 108, -61,
	},
	{
		-50, -110, 219, 717, 8446, -1321, 187, 125, -47,
	},
	{
		-31, -135, 127, 1285, 7983, -1285, 127, 135, -31,
	},
	{
		-9, -152, 11, 1908, 7440, -1205, 66, 138, -15,
	},
	{
		15, -161, -125, 2578, 6831, -1088, 8, 134, 1,
	},
	{
		40, -159, -278, 3282, 6167, -945, -44, 123, 17,
	},
	{
		65, -147, -443, 4007, 5465, -785, -88, 108, 30,
	},
	{
		88, -123, -615, 4740, 4740, -615, -123, 88, 41,
	},
	{
		108, -88, -785, 5465, 4007, -443, -147, 65, 49,
	},
	{
		123, -44, -945, 6167, 3282, -278, -159, 40, 54,
	},
	{
		134, 8, -1088, 6831, 2578, -125, -161, 15, 55,
	},
	{
		138, 66, -1205, 7440, 1908, 11, -152, -9, 53,
	},
	{
		135, 127, -1285, 7983, 1285, 127, -135, -31, 48,
	},
	{
		125, 187, -1321, 8446, 717, 219, -110, -50, 41,
	},
	{
		108, 243, -1303, 8817, 214, 287, -79, -65, 31,
	},
	{
		85, 291, -1226, 9090, -221, 330, -45, -76, 19,
	},
	{
		57, 327, -1083, 9255, -582, 349, -10, -82, 7,
	},
};
const int16_t smdsp_v27ter_rx_rrc_4800[12][48] = {
	{
		21, 16, -6, -29, -30, -4, 35, 55, 34,
		-18, -61, -49, 26, 116, 132, 5, -245, -481,
		-489, -88, 762, 1892, 2970, 3628, 3628, 2970, 1892,
		762, -88, -489, -481, -245, 5, 132, 116, 26,
		-49, -61, -18, 34, 55, 35, -4, -30, -29,
		-6, 16, 21,
	},
	{
		21, 18, -4, -27, -31, -7, 32, 55, 37,
		-13, -59, -53, 18, 110, 135, 21, -222, -467,
		-503, -139, 676, 1795, 2892, 3597, 3655, 3045, 1989,
		849, -33, -473, -493, -268, -13, 127, 122, 34,
		-45, -62, -23, 31, 55, 38, -1, -29, -30,
		-8, 15, 22,
	},
	{
		20, 19, -2, -26, -32, -10, 29, 54, 40,
		-9, -56, -56, 11, 104, 138, 36, -200, -451,
		-513, -187, 593, 1697, 2810, 3560, 3677, 3118, 2086,
		938, 24, -454, -504, -291, -31, 121, 126, 42,
		-40, -64, -27, 27, 54, 41, 3, -28, -31,
		-10, 14, 22,
	},
	{
		19, 20, 1, -24, -33, -12, 26, 53, 43,
		-4, -54, -59, 3, 97, 140, 51, -177, -434,
		-520, -232, 513, 1600, 2726, 3520, 3694, 3187, 2182,
		1029, 85, -432, -513, -313, -50, 114, 131, 51,
		-35, -64, -32, 23, 54, 43, 6, -26, -32,
		-12, 12, 22,
	},
	{
		18, 20, 3, -22, -33, -15, 23, 52, 46,
		1, -51, -61, -4, 90, 140, 64, -155, -416,
		-525, -274, 435, 1502, 2640, 3474, 3707, 3252, 2276,
		1121, 149, -407, -520, -335, -70, 106, 134, 59,
		-30, -64, -36, 19, 53, 45, 9, -24, -32,
		-15, 10, 22,
	},
	{
		17, 21, 5, -21, -33, -18, 19, 51, 48,
		5, -47, -62, -11, 82, 140, 76, -133, -397,
		-527, -312, 359, 1406, 2552, 3425, 3714, 3313, 2370,
		1215, 216, -379, -525, -357, -90, 97, 137, 67,
		-24, -64, -40, 14, 51, 47, 13, -22, -33,
		-17, 8, 22,
	},
	{
		16, 21, 7, -19, -33, -20, 16, 49, 50,
		10, -44, -64, -18, 75, 139, 87, -111, -377,
		-527, -347, 286, 1310, 2462, 3371, 3717, 3371, 2462,
		1310, 286, -347, -527, -377, -111, 87, 139, 75,
		-18, -64, -44, 10, 50, 49, 16, -20, -33,
		-19, 7, 21,
	},
	{
		15, 22, 8, -17, -33, -22, 13, 47, 51,
		14, -40, -64, -24, 67, 137, 97, -90, -357,
		-525, -379, 216, 1215, 2370, 3313, 3714, 3425, 2552,
		1406, 359, -312, -527, -397, -133, 76, 140, 82,
		-11, -62, -47, 5, 48, 51, 19, -18, -33,
		-21, 5, 21,
	},
	{
		14, 22, 10, -15, -32, -24, 9, 45, 53,
		19, -36, -64, -30, 59, 134, 106, -70, -335,
		-520, -407, 149, 1121, 2276, 3252, 3707, 3474, 2640,
		1502, 435, -274, -525, -416, -155, 64, 140, 90,
		-4, -61, -51, 1, 46, 52, 23, -15, -33,
		-22, 3, 20,
	},
	{
		12, 22, 12, -12, -32, -26, 6, 43, 54,
		23, -32, -64, -35, 51, 131, 114, -50, -313,
		-513, -432, 85, 1029, 2182, 3187, 3694, 3520, 2726,
		1600, 513, -232, -520, -434, -177, 51, 140, 97,
		3, -59, -54, -4, 43, 53, 26, -12, -33,
		-24, 1, 20,
	},
	{
		11, 22, 14, -10, -31, -28, 3, 41, 54,
		27, -27, -64, -40, 42, 126, 121, -31, -291,
		-504, -454, 24, 938, 2086, 3118, 3677, 3560, 2810,
		1697, 593, -187, -513, -451, -200, 36, 138, 104,
		11, -56, -56, -9, 40, 54, 29, -10, -32,
		-26, -2, 19,
	},
	{
		9, 22, 15, -8, -30, -29, -1, 38, 55,
		31, -23, -62, -45, 34, 122, 127, -13, -268,
		-493, -473, -33, 849, 1989, 3045, 3655, 3597, 2892,
		1795, 676, -139, -503, -467, -222, 21, 135, 110,
		18, -53, -59, -13, 37, 55, 32, -7, -31,
		-27, -4, 18,
	},
};
const int16_t smdsp_v27ter_rx_rrc_2400[12][48] = {
	{
		23, 39, 39, 21, -8, -37, -48, -32, 11,
		64, 101, 93, 21, -107, -259, -373, -380, -219,
		136, 667, 1305, 1940, 2453, 2740, 2740, 2453, 1940,
		1305, 667, 136, -219, -380, -373, -259, -107, 21,
		93, 101, 64, 11, -32, -48, -37, -8, 21,
		39, 39, 23,
	},
	{
		21, 38, 40, 24, -6, -35, -48, -34, 7,
		60, 100, 96, 30, -95, -246, -366, -385, -240,
		99, 618, 1250, 1890, 2418, 2727, 2751, 2487, 1989,
		1359, 718, 175, -197, -373, -378, -270, -120, 13,
		89, 103, 68, 15, -29, -48, -39, -11, 19,
		38, 39, 25,
	},
	{
		19, 37, 40, 25, -3, -33, -48, -37, 2,
		56, 98, 98, 38, -83, -234, -359, -389, -259,
		64, 569, 1195, 1839, 2381, 2711, 2761, 2519, 2037,
		1414, 769, 214, -174, -366, -383, -282, -132, 3,
		85, 104, 72, 20, -26, -48, -40, -14, 17,
		37, 40, 26,
	},
	{
		18, 36, 41, 27, 0, -31, -48, -39, -2,
		51, 95, 100, 45, -71, -222, -352, -392, -277,
		29, 521, 1141, 1788, 2343, 2694, 2768, 2549, 2085,
		1468, 821, 255, -149, -357, -387, -293, -145, -6,
		81, 104, 76, 24, -23, -47, -42, -16, 15,
		36, 40, 28,
	},
	{
		16, 35, 41, 29, 2, -28, -47, -41, -6,
		47, 93, 102, 52, -60, -209, -343, -393, -294,
		-4, 474, 1087, 1736, 2303, 2674, 2773, 2578, 2131,
		1523, 873, 296, -122, -347, -390, -304, -158, -16,
		76, 105, 80, 29, -20, -46, -43, -19, 12,
		35, 41, 29,
	},
	{
		14, 33, 41, 31, 5, -26, -46, -42, -9,
		42, 90, 103, 59, -48, -196, -334, -394, -309,
		-35, 428, 1033, 1683, 2262, 2653, 2776, 2605, 2176,
		1577, 926, 339, -95, -336, -393, -315, -170, -27,
		71, 105, 83, 33, -17, -45, -44, -21, 10,
		34, 41, 31,
	},
	{
		12, 32, 41, 32, 7, -24, -45, -44, -13,
		38, 87, 104, 65, -37, -183, -325, -394, -323,
		-66, 383, 979, 1630, 2219, 2630, 2777, 2630, 2219,
		1630, 979, 383, -66, -323, -394, -325, -183, -37,
		65, 104, 87, 38, -13, -44, -45, -24, 7,
		32, 41, 32,
	},
	{
		10, 31, 41, 34, 10, -21, -44, -45, -17,
		33, 83, 105, 71, -27, -170, -315, -393, -336,
		-95, 339, 926, 1577, 2176, 2605, 2776, 2653, 2262,
		1683, 1033, 428, -35, -309, -394, -334, -196, -48,
		59, 103, 90, 42, -9, -42, -46, -26, 5,
		31, 41, 33,
	},
	{
		8, 29, 41, 35, 12, -19, -43, -46, -20,
		29, 80, 105, 76, -16, -158, -304, -390, -347,
		-122, 296, 873, 1523, 2131, 2578, 2773, 2674, 2303,
		1736, 1087, 474, -4, -294, -393, -343, -209, -60,
		52, 102, 93, 47, -6, -41, -47, -28, 2,
		29, 41, 35,
	},
	{
		6, 28, 40, 36, 15, -16, -42, -47, -23,
		24, 76, 104, 81, -6, -145, -293, -387, -357,
		-149, 255, 821, 1468, 2085, 2549, 2768, 2694, 2343,
		1788, 1141, 521, 29, -277, -392, -352, -222, -71,
		45, 100, 95, 51, -2, -39, -48, -31, 0,
		27, 41, 36,
	},
	{
		4, 26, 40, 37, 17, -14, -40, -48, -26,
		20, 72, 104, 85, 3, -132, -282, -383, -366,
		-174, 214, 769, 1414, 2037, 2519, 2761, 2711, 2381,
		1839, 1195, 569, 64, -259, -389, -359, -234, -83,
		38, 98, 98, 56, 2, -37, -48, -33, -3,
		25, 40, 37,
	},
	{
		3, 25, 39, 38, 19, -11, -39, -48, -29,
		15, 68, 103, 89, 13, -120, -270, -378, -373,
		-197, 175, 718, 1359, 1989, 2487, 2751, 2727, 2418,
		1890, 1250, 618, 99, -240, -385, -366, -246, -95,
		30, 96, 100, 60, 7, -34, -48, -35, -6,
		24, 40, 38,
	},
};
/*
 * The guard: a counter of bits during which the line bit repeated the bit
 * 8, 9 or 12 bits earlier; at 33 the next bit is inverted.
 */
static bool guard_reset(uint32_t reg, int b)
{
	return (((reg >> 7) ^ b) & ((reg >> 8) ^ b) & ((reg >> 11) ^ b) & 1) != 0;
}

int smdsp_v27ter_scramble(struct smdsp_v27ter_scrambler *s, int bit)
{
	int out = (bit ^ (int)(s->reg >> 5) ^ (int)(s->reg >> 6)) & 1;

	if (s->count >= 33) {
		out ^= 1;
		s->count = 0;
	} else if (guard_reset(s->reg, out)) {
		s->count = 0;
	} else {
		s->count++;
	}
	s->reg = (s->reg << 1) | (uint32_t)out;
	return out;
}

int smdsp_v27ter_descramble(struct smdsp_v27ter_scrambler *s, int bit)
{
	int out = (bit ^ (int)(s->reg >> 5) ^ (int)(s->reg >> 6)) & 1;

	if (s->count >= 33) {
		out ^= 1;
		s->count = 0;
	} else if (guard_reset(s->reg, bit)) {
		s->count = 0;
	} else {
		s->count++;
	}
	s->reg = (s->reg << 1) | (uint32_t)(bit & 1);
	return out;
}

int smdsp_v27ter_tx_init(struct smdsp_v27ter_tx *s, unsigned int rate, int level_dbm0_10, bool tep,
		      smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn, void *user)
{
	if (rate != 2400 && rate != 4800)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	/* 4800: one table row per sample; 2400: one per 1/3 sample */
	if (rate == 4800)
		smdsp_qam_tx_init(&s->qt, 1800000, SMDSP_V27TER_CAR_PERIOD, 15, 3,
				  smdsp_v27ter_tx_rrc_4800[0]);
	else
		smdsp_qam_tx_init(&s->qt, 1800000, SMDSP_V27TER_CAR_PERIOD, 20, 1,
				  smdsp_v27ter_tx_rrc_2400[0]);
	s->rate = rate;
	s->qt.gain = smdsp_qam_tx_gain(level_dbm0_10, (uint64_t)RADIUS * RADIUS, TX_POWER);
	s->step = tep ? 0 : TEP_SYMS;
	s->tep = tep;
	s->level_dbm0_10 = level_dbm0_10;
	s->scr.reg = 0x3c;
	smdsp_qam_tx_calls(&s->qt, get_bit, status_fn, user);
	return 0;
}

struct smdsp_v27ter_tx *smdsp_v27ter_tx_create(unsigned int rate, int level_dbm0_10, bool tep,
					 smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn,
					 void *user)
{
	struct smdsp_v27ter_tx *s;

	if (rate != 2400 && rate != 4800)
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (s)
		smdsp_v27ter_tx_init(s, rate, level_dbm0_10, tep, get_bit, status_fn, user);
	return s;
}

void smdsp_v27ter_tx_free(struct smdsp_v27ter_tx *s)
{
	smdsp_free(s);
}

void smdsp_v27ter_tx_stop(struct smdsp_v27ter_tx *s)
{
	smdsp_qam_tx_stop(&s->qt, SHUTDOWN_SYMS);
}

static int next_bit(struct smdsp_v27ter_tx *s)
{
	return smdsp_v27ter_scramble(&s->scr, smdsp_qam_tx_bit(&s->qt));
}

/* The next symbol's phase in 45 degree steps, or -1 for silence. */
static int next_symbol(struct smdsp_v27ter_tx *s)
{
	unsigned int b;

	if (s->step < TEP_SYMS) {
		s->step++;
		return 0;
	}
	if (s->step < SEG2_END) {
		s->step++;
		return -1;
	}
	if (s->step < SEG3_END) {
		s->step++;
		s->state = (s->state + 4) & 7;
		return (int)s->state;
	}
	if (s->step < SEG4_END) {
		s->step++;
		b = (unsigned int)next_bit(s) << 2;
		next_bit(s);
		next_bit(s);
		s->state = (s->state + b) & 7;
		return (int)s->state;
	}
	if (!smdsp_qam_tx_data(&s->qt, &s->step, SEG5_END))
		return -1;
	if (s->rate == 4800) {
		b = (unsigned int)next_bit(s) << 2;
		b |= (unsigned int)next_bit(s) << 1;
		b |= (unsigned int)next_bit(s);
		b = steps_4800[b];
	} else {
		b = (unsigned int)next_bit(s) << 1;
		b |= (unsigned int)next_bit(s);
		b = steps_2400[b];
	}
	s->state = (s->state + b) & 7;
	return (int)s->state;
}

static void tx_symbol(void *user, int *re, int *im)
{
	int st = next_symbol(user);

	if (st >= 0) {
		*re = pts[st][0];
		*im = pts[st][1];
	}
}

bool smdsp_v27ter_tx_process(struct smdsp_v27ter_tx *s, int16_t *out, unsigned int n)
{
	smdsp_qam_tx_process(&s->qt, out, n, tx_symbol, s);
	return !s->qt.done;
}

void smdsp_v27ter_tx_reset(struct smdsp_v27ter_tx *s)
{
	smdsp_v27ter_tx_init(s, s->rate, s->level_dbm0_10, s->tep, s->qt.get_bit, s->qt.status_fn,
		       s->qt.user);
}

int smdsp_v27ter_tx_print(const struct smdsp_v27ter_tx *s, char *buf, size_t len)
{
	return smdsp_qam_tx_print_as(&s->qt, "v27ter_tx", s->rate, s->step, buf, len);
}
