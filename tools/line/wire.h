/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wire between the modem (guest) and the exchange: attenuation, white
 * noise, an echo of the modem's own signal (plain, through a G.168 hybrid,
 * and a far echo delayed and shifted in frequency), one-way delay, and a sample
 * clock offset between the modem's codec and the network, and a G.711
 * codec at the line card (the network carries 8-bit codes). Two clock
 * domains: the modem's (what the transport moves) and the network's (what
 * the exchange and far modem run on); they differ only when ppm != 0.
 */
#ifndef SML_WIRE_H
#define SML_WIRE_H

#include "resample.h"
#include "sml.h"

struct sml_wire_cfg {
	double atten_db;	/* loss each way, >= 0 */
	double noise_dbm0;	/* white noise at each receiver, <= -99 off */
	double echo_db;		/* echo of the modem's signal, <= -99 off */
	double echo_ms;		/* echo path delay */
	double delay_ms;	/* one-way delay */
	double ppm;		/* modem clock minus network clock, ppm */
	uint64_t seed;
	/* echo paths of the modem's signal (echopath.h), off when zero */
	int hybrid;		/* the local hybrid: G.168 model 1..8 (0: none) */
	double hybrid_erl_db;	/* its echo return loss */
	double far_echo_db;	/* the far echo, dB below the modem's signal (0: none) */
	double far_echo_ms;	/* its round trip */
	double far_echo_hz;	/* its frequency offset */
	int far_hybrid;		/* the far hybrid's model (0: model 1) */
	int codec;		/* G.711 at the line card: SML_CODEC_* */
};

/* the line card's codec: none (a linear network), G.711 mu-law or A-law */
enum { SML_CODEC_NONE = 0, SML_CODEC_ULAW, SML_CODEC_ALAW };
/* "none", "ulaw" or "alaw" -> SML_CODEC_*, -1 for anything else */
int sml_codec_parse(const char *s);
const char *sml_codec_name(int codec);

void sml_wire_cfg_default(struct sml_wire_cfg *c);

struct sml_wire;

struct sml_wire *sml_wire_new(const struct sml_wire_cfg *cfg);
void sml_wire_free(struct sml_wire *w);
/*
 * Modem -> network: n modem-domain samples in, returns the number of
 * network-domain samples written to out (at most max; n + 2 is enough).
 */
int sml_wire_up(struct sml_wire *w, const int16_t *in, int n, int16_t *out,
		int max);
/*
 * Network -> modem: m network samples in, exactly n modem samples out.
 * modem_tx is the modem's own (DC-free) signal of this block, for the echo.
 */
void sml_wire_down(struct sml_wire *w, const int16_t *in, int m,
		   const int16_t *modem_tx, int16_t *out, int n);
/*
 * The line worsens from the next block on (a route's worsen= words, at their
 * time in a call): white noise of noise_dbm0 (<= -99: none) added to the
 * noise at each receiver, the powers summed, and loss_db more loss each
 * way on the signals (not on the echoes, which arise at the modem's end).
 * Another call replaces the worsening, sml_wire_restore() undoes it: the
 * line of the configuration again.
 */
void sml_wire_worsen(struct sml_wire *w, double noise_dbm0, double loss_db);
void sml_wire_restore(struct sml_wire *w);
/* modem samples the way down had to play as silence (0 with consistent counts) */
uint64_t sml_wire_underruns(const struct sml_wire *w);
/* one line of text / a "wire" JSON object describing the settings */
void sml_wire_describe(const struct sml_wire_cfg *c, char *buf, size_t len);
void sml_wire_json(const struct sml_wire_cfg *c, struct sml_json *j);

#endif /* SML_WIRE_H */
