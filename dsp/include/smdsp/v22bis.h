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
#define SMDSP_V22BIS_UNIT 1024

enum smdsp_v22bis_guard {
	SMDSP_V22BIS_GUARD_NONE = 0,
	SMDSP_V22BIS_GUARD_550,
	SMDSP_V22BIS_GUARD_1800,
};

/* What the transmitter sends. */
enum smdsp_v22bis_tx_mode {
	SMDSP_V22BIS_TX_SILENCE = 0,
	SMDSP_V22BIS_TX_USB1,	/* unscrambled binary 1 at 1200 bit/s */
	SMDSP_V22BIS_TX_S1,	/* unscrambled double dibit 00 11 */
	SMDSP_V22BIS_TX_SB1,	/* scrambled binary 1 at 1200 bit/s */
	SMDSP_V22BIS_TX_SB1_2400,	/* scrambled binary 1 at 2400 bit/s */
	SMDSP_V22BIS_TX_DATA_1200,
	SMDSP_V22BIS_TX_DATA_2400,
};

struct smdsp_v22bis_tx;

/* Constellation point (+-1/+-3 units) for a quadrant and the two low bits. */
void smdsp_v22bis_map(unsigned int quadrant, unsigned int low, int *re, int *im);
/* Decision: nearest point of the 4-point (1200) or 16-point set, in units of SMDSP_V22BIS_UNIT. */
void smdsp_v22bis_slice(bool sixteen, int32_t re, int32_t im, unsigned int *quadrant,
		     unsigned int *low, int32_t *dre, int32_t *dim);

void smdsp_v22bis_tx_set_mode(struct smdsp_v22bis_tx *s, enum smdsp_v22bis_tx_mode mode);
void smdsp_v22bis_tx_process(struct smdsp_v22bis_tx *s, int16_t *out, unsigned int n);
/* NULL without memory. */
struct smdsp_v22bis_tx *smdsp_v22bis_tx_create(bool calling, int level_dbm0_10,
					     enum smdsp_v22bis_guard guard, smdsp_get_bit_fn get_bit,
					     void *user);
void smdsp_v22bis_tx_free(struct smdsp_v22bis_tx *s);
/* Back to silence from the start, same configuration. */
void smdsp_v22bis_tx_reset(struct smdsp_v22bis_tx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v22bis_tx_print(const struct smdsp_v22bis_tx *s, char *buf, size_t len);

struct smdsp_v22bis_sym {
	uint8_t dibit;		/* differentially decoded, before descrambling */
	uint8_t bits;		/* descrambled: 2 (or 4 in 16-way mode) bits, first in the MSB */
	uint8_t nbits;
	int32_t err2;		/* squared distance to the decision, units^2 >> 10 */
};

typedef void (*smdsp_v22bis_sym_fn)(void *user, const struct smdsp_v22bis_sym *sym);

struct smdsp_v22bis_rx;

/* Back to carrier search (keeps the configuration). */
void smdsp_v22bis_rx_reset(struct smdsp_v22bis_rx *s);
void smdsp_v22bis_rx_process(struct smdsp_v22bis_rx *s, const int16_t *x, unsigned int n);
/* Carrier detect thresholds in tenths of dBm0 (defaults -430 on, -480 off). */
void smdsp_v22bis_rx_set_thresholds(struct smdsp_v22bis_rx *s, int on_dbm0_10, int off_dbm0_10);
/* Received level in tenths of dBm0 (estimate). */
int smdsp_v22bis_rx_level(const struct smdsp_v22bis_rx *s);
/* NULL without memory. */
struct smdsp_v22bis_rx *smdsp_v22bis_rx_create(bool calling, smdsp_v22bis_sym_fn sym_fn,
					     smdsp_status_fn status_fn, void *user);
void smdsp_v22bis_rx_free(struct smdsp_v22bis_rx *s);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v22bis_rx_print(const struct smdsp_v22bis_rx *s, char *buf, size_t len);

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
	enum smdsp_v22bis_guard guard;	/* answering modem only */
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

struct smdsp_v22bis;

struct smdsp_v22bis *smdsp_v22bis_create(const struct smdsp_v22bis_config *cfg);
void smdsp_v22bis_free(struct smdsp_v22bis *m);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_v22bis_print(const struct smdsp_v22bis *m, char *buf, size_t len);
void smdsp_v22bis_reset(struct smdsp_v22bis *m);
void smdsp_v22bis_rx(struct smdsp_v22bis *m, const int16_t *x, unsigned int n);
void smdsp_v22bis_tx(struct smdsp_v22bis *m, int16_t *out, unsigned int n);
/* Both directions in 1 ms steps, so that handshake timers hold to the symbol. */
void smdsp_v22bis_process(struct smdsp_v22bis *m, const int16_t *rx, int16_t *tx, unsigned int n);
/* Ask the far end to retrain (2400 bit/s only); 0 or -EINVAL. */
int smdsp_v22bis_retrain(struct smdsp_v22bis *m);
/* 0 while training, else the data rate. */
unsigned int smdsp_v22bis_rate(const struct smdsp_v22bis *m);
bool smdsp_v22bis_carrier(const struct smdsp_v22bis *m);
enum smdsp_v22bis_state smdsp_v22bis_get_state(const struct smdsp_v22bis *m);
/* The far modem has been heard and the handshake is running. */
bool smdsp_v22bis_handshaking(const struct smdsp_v22bis *m);

#endif /* SMDSP_V22BIS_H */
