/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34 phase 2 line probing (10.1.2.4, 11.2): the signals L1 and L2, their
 * analysis at the receiver, and the choices made from it for INFO1c and
 * INFO1a (symbol rate, carrier, pre-emphasis filter, power reduction, the
 * maximum data rate of each direction).
 *
 * L1 and L2 are the same periodic signal: tones 150 Hz apart from 150 Hz to
 * 3750 Hz without those at 900, 1200, 1800 and 2400 Hz (21 tones), each at
 * phase 0 except 300, 1650, 2250, 2700, 3000, 3150, 3300 and 3450 Hz at 180
 * degrees. It repeats every 160 samples (20 ms). L1 is sent 6 dB above the
 * nominal transmit level for 160 ms, then L2 at the nominal level, as long
 * as the procedure wants (at most 550 ms plus a round trip).
 *
 * The receiver (v34_probe_rx.c) cuts what it hears into 20 ms periods and
 * takes the DFT of each at 50 Hz spacing: the tones fall on every third
 * bin whatever the alignment, the bins between them hold only noise. See
 * v34_probe_rx.c for the analysis and v34_probe.c for the choices.
 */
#ifndef SMDSP_V34_PROBE_H
#define SMDSP_V34_PROBE_H

#include <smdsp/compat.h>
#include <smdsp/v34_info.h>

#define SMDSP_V34_PROBE_TONES 25	/* tone slots m = 1..25, f = 150 m Hz */
#define SMDSP_V34_PROBE_SENT 21		/* tones actually sent */
#define SMDSP_V34_PROBE_PERIOD 160	/* samples the signal repeats in */
#define SMDSP_V34_L1_MS 160
#define SMDSP_V34_PROBE_L1_DB10 60	/* L1 above the nominal level, tenths of dB */

/* Tone slot m (1..25) is sent; its phase, 0 or 180 degrees. */
bool smdsp_v34_probe_sent(unsigned int m);
unsigned int smdsp_v34_probe_phase(unsigned int m);

/* ---- the transmitter ---- */

struct smdsp_v34_probe_tx;

/* level_dbm0_10: the nominal transmit level (L2's), tenths of dBm0. Silent. */
struct smdsp_v34_probe_tx *smdsp_v34_probe_tx_create(int level_dbm0_10);
void smdsp_v34_probe_tx_free(struct smdsp_v34_probe_tx *s);
void smdsp_v34_probe_tx_reset(struct smdsp_v34_probe_tx *s);
int smdsp_v34_probe_tx_print(const struct smdsp_v34_probe_tx *s, char *buf, size_t len);
/* L1 for 160 ms, then L2 for l2_ms (0: until smdsp_v34_probe_tx_stop()). */
void smdsp_v34_probe_tx_start(struct smdsp_v34_probe_tx *s, unsigned int l2_ms);
/* Silence from the next sample. */
void smdsp_v34_probe_tx_stop(struct smdsp_v34_probe_tx *s);
/* L1 or L2 is going out. */
bool smdsp_v34_probe_tx_busy(const struct smdsp_v34_probe_tx *s);
void smdsp_v34_probe_tx_process(struct smdsp_v34_probe_tx *s, int16_t *out, unsigned int n);

/* ---- the receiver's analysis ---- */

struct smdsp_v34_probe_result {
	bool valid;			/* L2 was heard for at least SMDSP_V34_PROBE_MIN_PERIODS */
	uint16_t l1_periods, l2_periods;	/* 20 ms periods averaged */
	int16_t l1_dbm0_10, l2_dbm0_10;	/* received levels (L1: -999 if not heard) */
	/*
	 * Per tone slot m (index m, 1..25; 0 unused): the channel's gain, the
	 * received tone's power over what the far end sent at the nominal level
	 * it was told of (SMDSP_V34_PROBE_TONES sent share L2's power), tenths of
	 * dB; the noise in the 150 Hz around the tone, tenths of dBm0; the tone's
	 * SNR in those 150 Hz, tenths of dB. Slots not sent (900, 1200, 1800,
	 * 2400 Hz) are interpolated from their neighbours in dB.
	 */
	int16_t gain_db10[SMDSP_V34_PROBE_TONES + 1];
	int16_t noise_dbm0_10[SMDSP_V34_PROBE_TONES + 1];
	int16_t snr_db10[SMDSP_V34_PROBE_TONES + 1];
	/*
	 * Group delay between neighbouring sent tones (the phase slope between
	 * them), at the midpoint of each pair, microseconds, relative to the
	 * smallest; gd_pairs of them (20), gd_mid_hz their frequencies.
	 */
	unsigned int gd_pairs;
	uint16_t gd_mid_hz[SMDSP_V34_PROBE_SENT - 1];
	int32_t gd_us[SMDSP_V34_PROBE_SENT - 1];
	/* the 1050 Hz tone's offset, received less sent, 0.02 Hz units; -512 if unknown */
	int16_t freq_offset;
};

#define SMDSP_V34_PROBE_MIN_PERIODS 4	/* L2 periods needed for a result (80 ms) */
#define SMDSP_V34_PROBE_MAX_PERIODS 64	/* averaged at most (1.28 s) */

struct smdsp_v34_probe_rx;

/*
 * far_level_dbm0_10: the nominal level the far end sends L2 at (only the
 * gains depend on it; the SNRs and the choices do not).
 */
struct smdsp_v34_probe_rx *smdsp_v34_probe_rx_create(int far_level_dbm0_10);
void smdsp_v34_probe_rx_free(struct smdsp_v34_probe_rx *s);
/* Forgets what it heard: ready for another L1/L2. */
void smdsp_v34_probe_rx_reset(struct smdsp_v34_probe_rx *s);
int smdsp_v34_probe_rx_print(const struct smdsp_v34_probe_rx *s, char *buf, size_t len);
void smdsp_v34_probe_rx_process(struct smdsp_v34_probe_rx *s, const int16_t *x, unsigned int n);
/* The probing signal ended (or its longest average is full) and was analysed. */
bool smdsp_v34_probe_rx_done(const struct smdsp_v34_probe_rx *s);
/* The probing signal is being heard now. */
bool smdsp_v34_probe_rx_active(const struct smdsp_v34_probe_rx *s);
/* Samples since create or reset at which L2's first averaged period began (0 if none). */
uint32_t smdsp_v34_probe_rx_l2_start(const struct smdsp_v34_probe_rx *s);
/* Analyses what was averaged so far (also before done); r->valid says if it is enough. */
void smdsp_v34_probe_rx_result(const struct smdsp_v34_probe_rx *s, struct smdsp_v34_probe_result *r);

/* ---- the choices (v34_probe.c) ---- */

/*
 * The rule (see v34_probe.c): for each symbol rate S and carrier fc, the SNR
 * a signal of L2's power spread flat over fc +- S/2 would have at each
 * frequency (with the pre-emphasis filter chosen), the SNR of an ideal
 * decision-feedback receiver over that band (the geometric mean of 1 + SNR,
 * less 1), and the bits a symbol log2(1 + SNR / gap) with the gap below;
 * the data rate is that times S, down to a multiple of 2400, within the
 * rate's range (Table 2's rates: 2400-21600 at 2400 baud, 4800-26400 at
 * 2743 and 2800, -28800 at 3000, -31200 at 3200, -33600 at 3429).
 */
#define SMDSP_V34_PROBE_GAP_DB10 70

struct smdsp_v34_probe_choice {
	bool high;		/* the carrier */
	uint8_t preemph;	/* pre-emphasis filter index 0-10 */
	uint8_t max_rate;	/* data rate / 2400, 0: the symbol rate cannot be used */
	int16_t snr_db10;	/* the band's decision-feedback SNR, pre-emphasis applied */
	int16_t margin_db10;	/* SNR above what max_rate needs */
};

/*
 * The symbol rates and carriers the transmitter (tx: its INFO0) can send and
 * the receiver (rx: its INFO0) can receive: bit 0 low carrier, bit 1 high
 * carrier, per symbol rate.
 */
void smdsp_v34_probe_allowed(const struct smdsp_v34_info0 *tx, const struct smdsp_v34_info0 *rx,
			     uint8_t allowed[SMDSP_V34_SYMRATES]);
/* The pre-emphasis filter's gain (Tables 3 and 4, as read here), tenths of dB, at f_hz. */
int smdsp_v34_preemph_db10(unsigned int index, enum smdsp_v34_symrate r, bool high, int f_hz);
/* The choice for each symbol rate (max_rate 0 where not allowed or not usable). */
void smdsp_v34_probe_choose(const struct smdsp_v34_probe_result *res,
			    const uint8_t allowed[SMDSP_V34_SYMRATES],
			    struct smdsp_v34_probe_choice ch[SMDSP_V34_SYMRATES]);
/* The best symbol rate among ch (the highest data rate, then the widest margin); -1 if none. */
int smdsp_v34_probe_best(const struct smdsp_v34_probe_choice ch[SMDSP_V34_SYMRATES]);
/*
 * Power reduction the receiver asks of the far transmitter: enough to bring
 * L2 down to -12 dBm0 (a louder signal risks the codecs' overload), and the
 * further reduction its margin at the best rate tolerates; 0 and 0 if the
 * far transmitter cannot reduce its power. Each 0-7 dB.
 */
void smdsp_v34_probe_power(const struct smdsp_v34_probe_result *res,
			   const struct smdsp_v34_probe_choice ch[SMDSP_V34_SYMRATES], bool far_can_reduce,
			   uint8_t *min_red, uint8_t *add_red);
/* The call modem's INFO1c from its analysis of the answer modem's L1/L2. */
void smdsp_v34_probe_info1c(const struct smdsp_v34_probe_result *res,
			    const struct smdsp_v34_info0 *info0a, const struct smdsp_v34_info0 *info0c,
			    struct smdsp_v34_info1c *out);
/*
 * The answer modem's INFO1a from its analysis of the call modem's L1/L2 and
 * the INFO1c it received: the symbol rate of each direction (the highest
 * total data rate within the symbol rate difference both INFO0s allow).
 */
void smdsp_v34_probe_info1a(const struct smdsp_v34_probe_result *res,
			    const struct smdsp_v34_info1c *info1c,
			    const struct smdsp_v34_info0 *info0a, const struct smdsp_v34_info0 *info0c,
			    struct smdsp_v34_info1a *out);

#endif /* SMDSP_V34_PROBE_H */
