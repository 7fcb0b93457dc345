/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34's phase 4 modulation parameter sequences MP and MP' (10.1.3.8, Table
 * 18: type 0 of 88 bits, type 1 of 188 with the precoding coefficients; MP'
 * is MP with the acknowledge bit set) and the E sequence (10.1.3.9), as bits
 * in bytes (bit i of a frame in byte i / 8, bit i % 8), fields least
 * significant bit first, as smdsp_v34_info packs its frames.
 */
#ifndef SMDSP_V34_MP_H
#define SMDSP_V34_MP_H

#include <smdsp/compat.h>

#define SMDSP_V34_MP0_BITS 88
#define SMDSP_V34_MP1_BITS 188
#define SMDSP_V34_E_BITS 20

struct smdsp_v34_mp {
	unsigned int type;		/* 0, or 1 with the precoding coefficients */
	unsigned int rate_c_to_a;	/* maximum call-to-answer data rate / 2400 (1-14; both 0: cleardown) */
	unsigned int rate_a_to_c;	/* maximum answer-to-call data rate / 2400 (1-14) */
	bool aux;			/* the auxiliary channel enabled */
	unsigned int trellis;		/* asked of the far transmitter: 0 16, 1 32, 2 64 states */
	bool nonlinear;			/* ... the nonlinear encoder, theta = 0.3125 */
	bool expanded;			/* ... expanded shaping */
	bool ack;			/* MP' (an MP received from the far end) */
	uint16_t rates;			/* rates enabled: bit 0 = 2400 ... bit 13 = 33600 */
	bool asymmetric;		/* asymmetric data rates allowed */
	int16_t h[6];			/* type 1: h(1) re, im, h(2) re, im, h(3) re, im (Q2.14) */
	uint16_t reserved;		/* the 16 bits reserved for the ITU-T (Annex A uses bit 0) */
};

/*
 * What a receiver's MP asks of the far transmitter for its nonlinear
 * encoder and its shaping (the configurations of <smdsp/v34.h> and
 * <smdsp/v34_train.h>)
 */
enum smdsp_v34_ask {
	SMDSP_V34_ASK_AUTO = 0,		/* <smdsp/v34_train.h>'s rule, SMDSP_V34_NL_SNR_DB10 */
	SMDSP_V34_ASK_NO,
	SMDSP_V34_ASK_YES,
};

enum smdsp_v34_mp_error {
	SMDSP_V34_MP_OK = 0,
	SMDSP_V34_MP_SHORT = 1,		/* fewer bits than the type needs */
	SMDSP_V34_MP_SYNC = 2,		/* not 17 ones */
	SMDSP_V34_MP_START = 3,		/* a start bit that is not 0 */
	SMDSP_V34_MP_CRC = 4,
	SMDSP_V34_MP_RANGE = 5,		/* good CRC, a field out of range */
};

/* Bits in an MP of that type (0 for a bad type). */
unsigned int smdsp_v34_mp_bits(unsigned int type);
/* Packs mp into frame (room for its bits); returns the bits written, or -EINVAL for a field out of range. */
int smdsp_v34_mp_pack(const struct smdsp_v34_mp *mp, uint8_t *frame);
/* Reads an MP of nbits (88 or 188 or more: fill bits ignored); 0 or an smdsp_v34_mp_error. */
int smdsp_v34_mp_unpack(const uint8_t *frame, unsigned int nbits, struct smdsp_v34_mp *mp);
/* The CRC register over bits 18 to the end of the CRC, the start bits left out: 0 for a good frame. */
uint16_t smdsp_v34_mp_crc(const uint8_t *frame, unsigned int nbits);
int smdsp_v34_mp_print(const struct smdsp_v34_mp *mp, char *buf, size_t len);
/* E: 20 ones into frame; and whether the n bits at frame are an E */
unsigned int smdsp_v34_mp_e(uint8_t *frame);
bool smdsp_v34_mp_is_e(const uint8_t *frame, unsigned int n);

#endif /* SMDSP_V34_MP_H */
