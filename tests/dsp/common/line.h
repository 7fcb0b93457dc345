/* An in-memory full-duplex telephone line between modems A and B (test code, floating point). */
#ifndef LINE_H
#define LINE_H
#include <stdint.h>

struct line_cfg {
	double loss_db;		/* attenuation each way */
	double noise_dbm0;	/* white noise added at each receiver (<= -200: none) */
	double echo_db;		/* own signal back into own receiver, relative (<= -200: none) */
	int echo_delay;		/* samples */
	int delay;		/* one-way delay, samples (>= 0; the line adds 16 of its own) */
	double ppm;		/* B's sample clock runs this much faster than A's */
	uint64_t seed;
	/*
	 * Echo paths of each end's own signal into its own receiver
	 * (tools/line/echopath.h), all off when zero: the near echo through
	 * the local hybrid, a G.168 model (1..8, 0: none) at hybrid_erl_db; the
	 * far echo far_echo_db below the signal sent (0: none), through the
	 * G.168 model far_hybrid (0: model 1), far_echo_delay samples of round
	 * trip, shifted by far_echo_hz.
	 */
	int hybrid;
	double hybrid_erl_db;
	double far_echo_db;
	int far_echo_delay;
	double far_echo_hz;
	int far_hybrid;
	/*
	 * A telephone-band response on both directions (tests/dsp/common/chan.h,
	 * enum chan_kind; 0: flat), before the receiver's noise.
	 */
	int channel;
	/*
	 * The network's PCM path (G.711) on both directions: 0 none,
	 * LINE_MULAW or LINE_ALAW. Each sample after the response and the
	 * loss is coded and decoded, as a digital exchange's line card and the
	 * far one do: companding noise proportional to the signal (SQNR near
	 * 38 dB over 30 dB of levels) and overload above +3.14 dBm0; the
	 * receiver's echoes and noise come after it, on its own loop.
	 */
	int codec;
};

#define LINE_MULAW 1
#define LINE_ALAW 2

/* one sample (16-bit linear, full scale +3.14 dBm0) through a G.711 coder and decoder */
double line_g711(int codec, double v);

struct line;

struct line *line_create(const struct line_cfg *cfg);
void line_free(struct line *l);
/*
 * One block: a_tx/b_tx are what A and B sent (n samples each, at their own
 * clocks), a_rx/b_rx receive what the line delivers.
 */
void line_process(struct line *l, const int16_t *a_tx, int16_t *a_rx, const int16_t *b_tx,
		  int16_t *b_rx, int n);

/*
 * The line changes from the next block on (a line that loses level or gets
 * noisier in a call): its loss each way and its noise (<= -200: none); the
 * echoes, which arise at each end, unchanged.
 */
void line_set(struct line *l, double loss_db, double noise_dbm0);

/* samples delivered from the future (delay too short for the clock offset); must be 0 */
long line_starved(const struct line *l);

#endif
