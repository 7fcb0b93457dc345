/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34 phase 2: the INFO sequences (INFO0, INFO1c, INFO1a) and tones A/B.
 *
 * Frames (v34_info.c): every field of Tables 12, 13 and 14 of V.34 as a C
 * struct, packed to and unpacked from the bits on the line, the CRC of
 * 10.1.2.3. A frame is held one bit per position, first in time first:
 * bit i of a frame is (frame[i / 8] >> (i % 8)) & 1. Multi-bit fields go
 * least significant bit first (the lowest-numbered bit of a field is its LSB).
 *
 * The 600 bit/s DPSK modulator (v34_info_tx.c) and demodulator
 * (v34_info_rx.c): carrier 1200 Hz for the call modem (INFO0c, INFO1c, tone
 * B), 2400 Hz for the answer modem (INFO0a, INFO1a, tone A); a 1 is sent as
 * a 180 degree phase change, a 0 as none, so a tone is a run of zeros and a
 * tone's phase reversal (A-bar, B-bar) is a single one.
 */
#ifndef SMDSP_V34_INFO_H
#define SMDSP_V34_INFO_H

#include <smdsp/compat.h>

enum smdsp_v34_info_kind {
	SMDSP_V34_INFO0 = 0,	/* INFO0c or INFO0a: the same format (Table 12) */
	SMDSP_V34_INFO1C,	/* the call modem's INFO1c (Table 13) */
	SMDSP_V34_INFO1A,	/* the answer modem's INFO1a (Table 14) */
	SMDSP_V34_INFO_KINDS
};

#define SMDSP_V34_INFO_MASK(kind) (1u << (kind))
#define SMDSP_V34_INFO0_BITS 49
#define SMDSP_V34_INFO1C_BITS 109
#define SMDSP_V34_INFO1A_BITS 70
#define SMDSP_V34_INFO_MAX_BITS SMDSP_V34_INFO1C_BITS
#define SMDSP_V34_INFO_BYTES ((SMDSP_V34_INFO_MAX_BITS + 7) / 8)
#define SMDSP_V34_INFO_SYNC 0x72	/* 01110010, left-most bit first in time */

/* Symbol rates by their V.34 index (INFO1a bits 34:39, INFO0 bits 21:23 count these steps) */
enum smdsp_v34_symrate {
	SMDSP_V34_S2400 = 0,
	SMDSP_V34_S2743,
	SMDSP_V34_S2800,
	SMDSP_V34_S3000,
	SMDSP_V34_S3200,
	SMDSP_V34_S3429,
	SMDSP_V34_SYMRATES
};

/* Table 12: INFO0c and INFO0a (bit numbers in the comments) */
struct smdsp_v34_info0 {
	bool rate_2743;		/* 12: symbol rate 2743 supported */
	bool rate_2800;		/* 13: 2800 supported */
	bool rate_3429;		/* 14: 3429 supported */
	bool low_3000;		/* 15: can transmit 3000 on the low carrier */
	bool high_3000;		/* 16: ... 3000, high carrier */
	bool low_3200;		/* 17: ... 3200, low carrier */
	bool high_3200;		/* 18: ... 3200, high carrier */
	bool allow_3429;	/* 19: 0 = transmission at 3429 is disallowed */
	bool power_reduction;	/* 20: can reduce its transmit power */
	uint8_t max_rate_diff;	/* 21:23: allowed tx/rx symbol rate difference, 0-5 steps */
	bool cme;		/* 24: sent by a CME modem */
	bool c1664;		/* 25: supports constellations up to 1664 points */
	uint8_t tx_clock;	/* 26:27: 0 internal, 1 receive timing, 2 external, 3 reserved */
	bool ack;		/* 28: acknowledges an INFO0 received correctly (error recovery) */
};

/* Probing results for one symbol rate, INFO1c bits 25:33 (2400) and the five 9-bit groups after */
struct smdsp_v34_info1c_rate {
	bool high_carrier;	/* answer-to-call direction uses the high carrier */
	uint8_t preemph;	/* pre-emphasis filter index, 0-10 (Tables 3 and 4) */
	uint8_t max_rate;	/* projected maximum data rate / 2400, 0-14 (0: rate unusable) */
};

/* Table 13: INFO1c */
struct smdsp_v34_info1c {
	uint8_t min_power_red;	/* 12:14: answer modem's minimum power reduction, dB */
	uint8_t add_power_red;	/* 15:17: more reduction the call modem's receiver tolerates, dB */
	uint8_t md_len;		/* 18:24: length of the call modem's MD in phase 3, 35 ms units */
	struct smdsp_v34_info1c_rate rate[SMDSP_V34_SYMRATES];	/* 25:78 */
	int16_t freq_offset;	/* 79:88: probing tone offset, 0.02 Hz units; -512: ignore */
};

/* Table 14: INFO1a */
struct smdsp_v34_info1a {
	uint8_t min_power_red;	/* 12:14: call modem's minimum power reduction, dB */
	uint8_t add_power_red;	/* 15:17: further reduction the answer modem's receiver tolerates */
	uint8_t md_len;		/* 18:24: length of the answer modem's MD, 35 ms units */
	bool high_carrier;	/* 25: call-to-answer direction uses the high carrier */
	uint8_t preemph;	/* 26:29: call modem's pre-emphasis filter, 0-10 */
	uint8_t max_rate;	/* 30:33: projected maximum call-to-answer data rate / 2400, 0-14 */
	uint8_t rate_a_to_c;	/* 34:36: symbol rate answer to call (enum smdsp_v34_symrate) */
	uint8_t rate_c_to_a;	/* 37:39: symbol rate call to answer */
	int16_t freq_offset;	/* 40:49: as INFO1c's, measured by the answer modem */
};

struct smdsp_v34_info {
	enum smdsp_v34_info_kind kind;
	union {
		struct smdsp_v34_info0 i0;
		struct smdsp_v34_info1c i1c;
		struct smdsp_v34_info1a i1a;
	};
};

/* Why a frame was refused (negative returns of smdsp_v34_info_unpack()) */
enum smdsp_v34_info_err {
	SMDSP_V34_INFO_ERR_KIND = 1,	/* not an INFO kind */
	SMDSP_V34_INFO_ERR_SHORT,	/* fewer bits than the frame up to its CRC */
	SMDSP_V34_INFO_ERR_SYNC,	/* bits 4:11 are not the frame sync */
	SMDSP_V34_INFO_ERR_CRC,		/* the CRC does not check */
	SMDSP_V34_INFO_ERR_RANGE,	/* CRC good, but a field holds a value the tables forbid */
};

/* Bits in a frame of that kind, fill bits included (0 for an unknown kind). */
unsigned int smdsp_v34_info_bits(enum smdsp_v34_info_kind kind);
/*
 * The CRC register (x^16 + x^12 + x^5 + 1, preset to ones) after the n bits
 * of frame from bit first on; over a whole frame's bits 12 to the end of its
 * CRC it is 0.
 */
uint16_t smdsp_v34_info_crc(const uint8_t *frame, unsigned int first, unsigned int n);
/* The CRC register crc after one more bit (the preset is 0xffff): for frames with bits left out (MP's start bits) */
uint16_t smdsp_v34_info_crc_bit(uint16_t crc, unsigned int bit);
/*
 * A frame's bits, first bit in bit 0 of byte 0 (INFO and MP alike): bit i;
 * width bits of v written, and read, from *pos on, least significant first,
 * *pos moved past them.
 */
unsigned int smdsp_v34_info_bit(const uint8_t *f, unsigned int i);
void smdsp_v34_info_put(uint8_t *f, unsigned int *pos, uint32_t v, unsigned int width);
uint32_t smdsp_v34_info_get(const uint8_t *f, unsigned int *pos, unsigned int width);
/*
 * Packs info into frame (fill bits, sync, fields, CRC, fill bits); returns the
 * number of bits, or -EINVAL if a field is out of its table's range.
 */
int smdsp_v34_info_pack(const struct smdsp_v34_info *info, uint8_t frame[SMDSP_V34_INFO_BYTES]);
/*
 * Reads a frame of the given kind from nbits bits (the four trailing fill
 * bits may be missing: some modems do not send them). Returns 0, or minus an
 * enum smdsp_v34_info_err; on ERR_RANGE info holds the fields as received.
 */
int smdsp_v34_info_unpack(enum smdsp_v34_info_kind kind, const uint8_t *frame, unsigned int nbits,
			  struct smdsp_v34_info *info);
/* Its fields on one line (snprintf: the length the whole line needs). */
int smdsp_v34_info_print(const struct smdsp_v34_info *info, char *buf, size_t len);

/* ---- the DPSK transmitter: INFO frames and tone A or B ---- */

struct smdsp_v34_info_tx;

/*
 * calling: the call modem (1200 Hz carrier, tone B), else the answer modem
 * (2400 Hz, tone A). level_dbm0_10: the signal's level, tenths of dBm0 (a
 * tone and random DPSK have the same power). Starts silent.
 */
struct smdsp_v34_info_tx *smdsp_v34_info_tx_create(bool calling, int level_dbm0_10);
void smdsp_v34_info_tx_free(struct smdsp_v34_info_tx *s);
/* Silent again, nothing queued. */
void smdsp_v34_info_tx_reset(struct smdsp_v34_info_tx *s);
int smdsp_v34_info_tx_print(const struct smdsp_v34_info_tx *s, char *buf, size_t len);
/*
 * Queues the nbits bits of frame (at most SMDSP_V34_INFO_MAX_BITS) to go out
 * after the frame now going out, if any; -EBUSY while another one waits,
 * -EINVAL for a bad length. From silence a reference symbol goes first.
 */
int smdsp_v34_info_tx_send(struct smdsp_v34_info_tx *s, const uint8_t *frame, unsigned int nbits);
/* What goes out when no frame is: the tone (A or B) or silence. */
void smdsp_v34_info_tx_tone(struct smdsp_v34_info_tx *s, bool on);
/*
 * One phase reversal of the tone (A to A-bar, B to B-bar) at the next symbol
 * with no frame bit; -EINVAL if the tone is off.
 */
int smdsp_v34_info_tx_reverse(struct smdsp_v34_info_tx *s);
/* True while frame bits (sent or queued) or a reversal remain. */
bool smdsp_v34_info_tx_busy(const struct smdsp_v34_info_tx *s);
/* Symbols begun since create or reset (600 a second). */
uint32_t smdsp_v34_info_tx_symbols(const struct smdsp_v34_info_tx *s);
void smdsp_v34_info_tx_process(struct smdsp_v34_info_tx *s, int16_t *out, unsigned int n);

/* ---- the DPSK receiver: INFO frames, tone A or B and its reversals ---- */

enum smdsp_v34_info_ev_type {
	SMDSP_V34_EV_FRAME = 1,	/* a frame with a good CRC and fields in range */
	SMDSP_V34_EV_TONE_ON,	/* the tone, steady for 32 symbols (53 ms) */
	SMDSP_V34_EV_REVERSAL,	/* a phase reversal of the tone */
	SMDSP_V34_EV_TONE_OFF,	/* the tone ended (silence, or DPSK data) */
};

struct smdsp_v34_info_event {
	enum smdsp_v34_info_ev_type type;
	/*
	 * Samples since create or reset at the event: a frame's last CRC bit, the
	 * symbol after a reversal, as seen after the receiver's matched filter.
	 */
	uint32_t sample;
	struct smdsp_v34_info info;			/* FRAME */
	uint8_t frame[SMDSP_V34_INFO_BYTES];		/* FRAME: the bits up to its CRC */
	uint8_t nbits;
};

struct smdsp_v34_info_rx_stats {
	uint32_t frames[SMDSP_V34_INFO_KINDS];	/* delivered */
	uint32_t bad_crc;	/* a frame sync in a clean DPSK signal, no good frame after it */
	uint32_t truncated;	/* a frame sync, then the signal ended before the frame could */
	uint32_t bad_range;	/* good CRC, a field out of range: refused */
	uint32_t tones;		/* TONE_ON events */
	uint32_t reversals;
	uint32_t lost_events;	/* events dropped: the queue was full */
};

#define SMDSP_V34_INFO_RX_EVENTS 8

struct smdsp_v34_info_rx;

/*
 * calling: this modem is the call modem, so it hears the answer modem (2400
 * Hz, tone A); else the call modem (1200 Hz, tone B). kinds: the frames to
 * look for (SMDSP_V34_INFO_MASK() bits), 0 for what that far end sends
 * (INFO0 and INFO1a, or INFO0 and INFO1c).
 */
struct smdsp_v34_info_rx *smdsp_v34_info_rx_create(bool calling, unsigned int kinds);
void smdsp_v34_info_rx_free(struct smdsp_v34_info_rx *s);
/* Forgets everything heard; the sample count restarts at 0. */
void smdsp_v34_info_rx_reset(struct smdsp_v34_info_rx *s);
int smdsp_v34_info_rx_print(const struct smdsp_v34_info_rx *s, char *buf, size_t len);
void smdsp_v34_info_rx_process(struct smdsp_v34_info_rx *s, const int16_t *x, unsigned int n);
/* The oldest event not yet taken; false if none. */
bool smdsp_v34_info_rx_get(struct smdsp_v34_info_rx *s, struct smdsp_v34_info_event *ev);
/* Energy in the channel above -43 dBm0 (off below -48 dBm0). */
bool smdsp_v34_info_rx_carrier(const struct smdsp_v34_info_rx *s);
/* The tone is on now. */
bool smdsp_v34_info_rx_tone(const struct smdsp_v34_info_rx *s);
void smdsp_v34_info_rx_get_stats(const struct smdsp_v34_info_rx *s,
				 struct smdsp_v34_info_rx_stats *st);

#endif /* SMDSP_V34_INFO_H */
