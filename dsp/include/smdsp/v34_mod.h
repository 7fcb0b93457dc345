/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34's timing unit: QAM at the six symbol rates (2400, 2743, 2800, 3000,
 * 3200, 3429 baud) on their low and high carriers (Table 1), at 8000
 * samples/s, where no symbol is a whole number of samples.
 *
 * Time is counted in ticks, SMDSP_V34_TICKS to a symbol at every rate. A
 * sample is then a whole number of ticks at every rate (8000/S samples a
 * symbol is 10/3, 35/12, 20/7, 8/3, 5/2 or 7/3: 5376, 6144, 6272, 6720,
 * 7168 or 7680 ticks a sample), so the transmitter places its pulses exactly
 * and the receiver can sample anywhere to 1/17920 of a symbol. Both use one
 * pulse, a root raised cosine (beta 1/8, 20 symbols, its last two symbols
 * each side tapered), tabulated at create every 64 ticks.
 *
 * The modulator (v34_mod.c) pulls one complex symbol per symbol period from
 * its user; a symbol's value is the complex amplitude of the carrier it
 * makes, in PCM units (a steady symbol A sends Re{A e^(jwt)}, peak |A|). The
 * demodulator (v34_demod.c) mixes the line down, filters with the same pulse
 * at the instants asked for (one or two a symbol, moved by a timing loop
 * with smdsp_v34_demod_adjust()), and gives the symbols back in the same
 * units times 2^SMDSP_V34_DEMOD_SHIFT.
 */
#ifndef SMDSP_V34_MOD_H
#define SMDSP_V34_MOD_H

#include <smdsp/compat.h>
#include <smdsp/fixmath.h>
#include <smdsp/v34_info.h>

#define SMDSP_V34_TICKS 17920		/* ticks a symbol */
#define SMDSP_V34_PULSE_SYMS 20		/* the pulse's span in symbols */
#define SMDSP_V34_DEMOD_SHIFT 4		/* the demodulator's output has 4 fractional bits */

/*
 * Table 1: symbol rate 2400 a / c, carrier S d / e. The exact values in
 * thousandths (of a baud, of a Hz), rounded; 0 for a rate out of range.
 */
uint32_t smdsp_v34_symrate_mbaud(enum smdsp_v34_symrate r);
uint32_t smdsp_v34_carrier_mhz(enum smdsp_v34_symrate r, bool high);
/* Ticks a sample at that rate (exact), 0 for a rate out of range. */
unsigned int smdsp_v34_ticks_per_sample(enum smdsp_v34_symrate r);
/* The carrier's phase step a sample, 2^32 a turn. */
uint32_t smdsp_v34_carrier_step(enum smdsp_v34_symrate r, bool high);

/* ---- the modulator ---- */

/* Gives the next symbol: its complex amplitude in PCM units (|re|, |im| < 2^15). */
typedef void (*smdsp_v34_get_sym_t)(void *user, struct smdsp_cplx *sym);

struct smdsp_v34_mod;

/*
 * get is called once a symbol (the first symbol starts at the first
 * sample); NULL sends silence.
 */
struct smdsp_v34_mod *smdsp_v34_mod_create(enum smdsp_v34_symrate rate, bool high,
					   smdsp_v34_get_sym_t get, void *user);
void smdsp_v34_mod_free(struct smdsp_v34_mod *s);
/* Silent history, symbol clock and carrier back to 0, same rate. */
void smdsp_v34_mod_reset(struct smdsp_v34_mod *s);
/* Another rate or carrier (a reset too); -EINVAL for a rate out of range. */
int smdsp_v34_mod_set_rate(struct smdsp_v34_mod *s, enum smdsp_v34_symrate rate, bool high);
int smdsp_v34_mod_print(const struct smdsp_v34_mod *s, char *buf, size_t len);
void smdsp_v34_mod_process(struct smdsp_v34_mod *s, int16_t *out, unsigned int n);
/* Symbols pulled since create or reset. */
uint32_t smdsp_v34_mod_symbols(const struct smdsp_v34_mod *s);

/* ---- the demodulator ---- */

struct smdsp_v34_demod;

/*
 * per_symbol: outputs a symbol, 1 or 2 (T/2, for a fractionally spaced
 * equaliser). The first output is at tick SMDSP_V34_PULSE_SYMS / 2 symbols
 * after the first sample (where a modulator started at the same sample puts
 * its first symbol's centre), the next ones a symbol / per_symbol apart.
 */
struct smdsp_v34_demod *smdsp_v34_demod_create(enum smdsp_v34_symrate rate, bool high,
					       unsigned int per_symbol);
void smdsp_v34_demod_free(struct smdsp_v34_demod *s);
void smdsp_v34_demod_reset(struct smdsp_v34_demod *s);
int smdsp_v34_demod_set_rate(struct smdsp_v34_demod *s, enum smdsp_v34_symrate rate, bool high);
int smdsp_v34_demod_print(const struct smdsp_v34_demod *s, char *buf, size_t len);
/*
 * Takes n samples; writes at most max outputs (complex amplitude in PCM
 * units << SMDSP_V34_DEMOD_SHIFT) and returns how many. Outputs due beyond
 * max are dropped (counted in smdsp_v34_demod_outputs() all the same).
 */
unsigned int smdsp_v34_demod_process(struct smdsp_v34_demod *s, const int16_t *x, unsigned int n,
				     struct smdsp_cplx *out, unsigned int max);
/* Moves every later sampling instant by ticks (later if positive). */
void smdsp_v34_demod_adjust(struct smdsp_v34_demod *s, int32_t ticks);
/* Outputs due since create or reset. */
uint32_t smdsp_v34_demod_outputs(const struct smdsp_v34_demod *s);

#endif /* SMDSP_V34_MOD_H */
