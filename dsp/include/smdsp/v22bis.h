/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.22 (1200 bit/s DPSK) and V.22bis (2400 bit/s 16-QAM) modem: modulator,
 * demodulator and the V.22bis handshake (rate negotiation and retrain).
 */
#ifndef SMDSP_V22BIS_H
#define SMDSP_V22BIS_H

#include <smdsp/fixmath.h>
#include <smdsp/bits.h>
#include <smdsp/eq.h>
#include <smdsp/tables.h>

/* Constellation unit of the demodulator: the points are at +-1 and +-3 units. */
#define SMDSP_V22_UNIT 1024

enum smdsp_v22_guard {
	SMDSP_V22_GUARD_NONE = 0,
	SMDSP_V22_GUARD_550,
	SMDSP_V22_GUARD_1800,
};

/* What the transmitter sends. */
enum smdsp_v22_tx_mode {
	SMDSP_V22_TX_SILENCE = 0,
	SMDSP_V22_TX_USB1,	/* unscrambled binary 1 at 1200 bit/s */
	SMDSP_V22_TX_S1,	/* unscrambled double dibit 00 11 */
	SMDSP_V22_TX_SB1,	/* scrambled binary 1 at 1200 bit/s */
	SMDSP_V22_TX_SB1_2400,	/* scrambled binary 1 at 2400 bit/s */
	SMDSP_V22_TX_DATA_1200,
	SMDSP_V22_TX_DATA_2400,
};

#define SMDSP_V22_CAR_PERIOD 20	/* 1200 and 2400 Hz repeat every 20 samples */
#define SMDSP_V22_GUARD_PERIOD 160	/* 550 Hz: 160 samples, 1800 Hz: 40 */

struct smdsp_v22_tx {
	int16_t car_cos[SMDSP_V22_CAR_PERIOD];
	int16_t car_sin[SMDSP_V22_CAR_PERIOD];
	unsigned int car_idx;
	int16_t guard[SMDSP_V22_GUARD_PERIOD];	/* the guard tone, already scaled */
	unsigned int guard_len;
	unsigned int guard_idx;
	int32_t gain;		/* see v22bis_tx.c */
	int16_t sym_re[2 * SMDSP_V22_TX_SYMS];	/* recent symbols, stored twice */
	int16_t sym_im[2 * SMDSP_V22_TX_SYMS];
	unsigned int sym_pos;
	unsigned int baud_phase;	/* 1/3 samples since the newest symbol */
	unsigned int quadrant;
	uint32_t scramble_reg;
	unsigned int ones;
	unsigned int s1_toggle;
	unsigned int idle_syms;	/* nonzero symbols in the filter */
	enum smdsp_v22_tx_mode mode;
	smdsp_get_bit_fn get_bit;
	void (*sym_hook)(void *user);	/* called before each symbol */
	void *user;
};

/* Constellation point (+-1/+-3 units) for a quadrant and the two low bits. */
void smdsp_v22_map(unsigned int quadrant, unsigned int low, int *re, int *im);
/* Decision: nearest point of the 4-point (1200) or 16-point set, in units of SMDSP_V22_UNIT. */
void smdsp_v22_slice(bool sixteen, int32_t re, int32_t im, unsigned int *quadrant,
		     unsigned int *low, int32_t *dre, int32_t *dim);

void smdsp_v22_tx_init(struct smdsp_v22_tx *s, bool calling, int level_dbm0_10,
		       enum smdsp_v22_guard guard, smdsp_get_bit_fn get_bit, void *user);
void smdsp_v22_tx_set_mode(struct smdsp_v22_tx *s, enum smdsp_v22_tx_mode mode);
void smdsp_v22_tx_process(struct smdsp_v22_tx *s, int16_t *out, unsigned int n);

struct smdsp_v22_sym {
	uint8_t dibit;		/* differentially decoded, before descrambling */
	uint8_t bits;		/* descrambled: 2 (or 4 in 16-way mode) bits, first in the MSB */
	uint8_t nbits;
	int32_t err2;		/* squared distance to the decision, units^2 >> 10 */
};

typedef void (*smdsp_v22_sym_fn)(void *user, const struct smdsp_v22_sym *sym);

#define SMDSP_V22_EQ_LEN 17	/* T/2 taps */

struct smdsp_v22_rx {
	const int16_t (*bp)[2][SMDSP_V22_RX_TAPS];
	int16_t hist[2 * SMDSP_V22_RX_TAPS];
	unsigned int hpos;
	uint32_t lo_phase;
	uint32_t lo_rate;
	int32_t tpos;		/* time to the next T/2 sample, 1/3072 sample */
	int32_t t_int;		/* timing loop integrator */
	int ted_shift;
	int ted_int_shift;
	/* power and AGC */
	uint64_t pwr;		/* smoothed |y|^2 before the AGC */
	uint64_t pwr_fast;	/* the same, faster, for the AGC */
	uint64_t pwr_slow;	/* the same over 64 T/2 samples: the carrier's onset */
	uint64_t agc_ref;	/* pwr_fast when the AGC was set */
	uint64_t floor_pwr;	/* lowest pwr since the carrier was lost */
	bool level_locked;	/* data mode: no more re-acquisition */
	uint64_t on_pwr;
	uint64_t off_pwr;
	uint32_t agc;		/* Q16 */
	unsigned int agc_count;
	bool carrier;
	unsigned int off_count;
	bool hold;		/* a lost carrier keeps the loops (set in data mode) */
	bool held;		/* lost while hold was set: resume, do not re-acquire */
	/* T/2 samples after the AGC, for the timing detector */
	struct smdsp_cplx t2[3];
	bool half;
	struct smdsp_eq eq;
	bool eq_adapt;
	bool sixteen;
	/* carrier recovery */
	uint32_t car_phase;
	int32_t car_freq;
	int car_p_shift;
	int car_i_shift;
	unsigned int quadrant;
	uint32_t descramble_reg;
	unsigned int ones;
	uint32_t symbols;
	int32_t mse;		/* smoothed err2 */
	smdsp_v22_sym_fn sym_fn;
	smdsp_status_fn status_fn;
	void *user;
};

void smdsp_v22_rx_init(struct smdsp_v22_rx *s, bool calling, smdsp_v22_sym_fn sym_fn,
		       smdsp_status_fn status_fn, void *user);
/* Back to carrier search (keeps the configuration). */
void smdsp_v22_rx_restart(struct smdsp_v22_rx *s);
void smdsp_v22_rx_process(struct smdsp_v22_rx *s, const int16_t *x, unsigned int n);
/* Carrier detect thresholds in tenths of dBm0 (defaults -430 on, -480 off). */
void smdsp_v22_rx_set_thresholds(struct smdsp_v22_rx *s, int on_dbm0_10, int off_dbm0_10);
/* Received level in tenths of dBm0 (estimate). */
int smdsp_v22_rx_level(const struct smdsp_v22_rx *s);

/* The whole modem. */
enum smdsp_v22bis_state {
	SMDSP_V22BIS_IDLE = 0,
	SMDSP_V22BIS_TRAINING,
	SMDSP_V22BIS_DATA,
	SMDSP_V22BIS_FAILED,
};

struct smdsp_v22bis_config {
	bool calling;
	uint16_t max_rate;		/* 1200 or 2400 */
	int16_t tx_level_dbm0_10;	/* default -130 when 0 */
	enum smdsp_v22_guard guard;	/* answering modem only */
	/*
	 * Data mode: a lost carrier does not end the call. The receiver keeps
	 * its equalizer, timing and carrier loops, reports CARRIER_DOWN and
	 * CARRIER_UP, and carries on when the signal comes back; the owner
	 * decides how long to wait. Without it, a lost carrier is FAILED.
	 */
	bool hold_on_loss;
	smdsp_get_bit_fn get_bit;	/* data to send */
	smdsp_put_bit_fn put_bit;	/* data received */
	smdsp_status_fn status;
	void *user;
};

#define SMDSP_V22_SCHED 4

struct smdsp_v22bis {
	struct smdsp_v22bis_config cfg;
	struct smdsp_v22_tx tx;
	struct smdsp_v22_rx rx;
	enum smdsp_v22bis_state state;
	uint16_t rate;			/* negotiated: 0 until known */
	int hs;				/* handshake step, see v22bis.c */
	uint32_t tx_syms;		/* symbols sent since start */
	uint32_t rx_syms;		/* symbols received in this step */
	uint32_t s1_run;		/* alternating 00/11 dibits */
	uint32_t u_run;			/* unscrambled ones (or zeros) */
	uint32_t sb1_run;		/* descrambled ones (or zeros) */
	uint8_t last_dibit;
	bool s1_sent;
	bool s1_seen;
	bool tx_ready;
	bool rx_ready;
	/* pending transmitter changes at absolute symbol counts */
	uint32_t sched_at[SMDSP_V22_SCHED];
	uint8_t sched_mode[SMDSP_V22_SCHED];
	unsigned int nsched;
	uint32_t bad_run;		/* symbols with a poor decision margin */
	uint32_t retrains;
	uint32_t train_syms;		/* symbols since training started */
};

void smdsp_v22bis_init(struct smdsp_v22bis *m, const struct smdsp_v22bis_config *cfg);
struct smdsp_v22bis *smdsp_v22bis_create(const struct smdsp_v22bis_config *cfg);
void smdsp_v22bis_free(struct smdsp_v22bis *m);
void smdsp_v22bis_restart(struct smdsp_v22bis *m);
void smdsp_v22bis_rx(struct smdsp_v22bis *m, const int16_t *x, unsigned int n);
void smdsp_v22bis_tx(struct smdsp_v22bis *m, int16_t *out, unsigned int n);
/* Both directions in 1 ms steps, so that handshake timers hold to the symbol. */
void smdsp_v22bis_process(struct smdsp_v22bis *m, const int16_t *rx, int16_t *tx, unsigned int n);
/* Ask the far end to retrain (2400 bit/s only); 0 or -EINVAL. */
int smdsp_v22bis_retrain(struct smdsp_v22bis *m);
/* 0 while training, else the data rate. */
unsigned int smdsp_v22bis_rate(const struct smdsp_v22bis *m);
bool smdsp_v22bis_carrier(const struct smdsp_v22bis *m);
/* The far modem has been heard and the handshake is running. */
bool smdsp_v22bis_handshaking(const struct smdsp_v22bis *m);

#endif /* SMDSP_V22BIS_H */
