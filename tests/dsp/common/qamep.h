/*
 * V.27ter, V.29 and V.17 runs for the tests: one transmitter (ours or
 * SpanDSP's), both receivers on the same samples.
 */
#ifndef QAMEP_H
#define QAMEP_H
#include "refs.h"
#include <smdsp/v27ter.h>
#include <smdsp/v29.h>
#include <smdsp/v17.h>

struct qamrun_cfg {
	int rate;		/* V.27ter 2400, 4800; V.29 4800, 7200, 9600; V.17 7200 to 14400 */
	int ours_tx;		/* 1: our transmitter, 0: SpanDSP's */
	int tep;		/* echo protection tone before the training */
	double level_dbm0;	/* transmit level (0: -14) */
	double loss_db;
	double ppm;		/* receiver's clock against the transmitter's */
	double noise_dbm0;	/* white noise at the receivers (0: none) */
	int gate;		/* noise only from the first nonzero sample of the signal on */
	double echo_db;		/* a delayed copy of the received signal added to it (0: none) */
	int echo_delay;		/* its delay, samples */
	double seconds;
	uint64_t seed;
	int bursts;		/* > 1: transmissions of seconds / bursts each, 200 ms apart, each trained */
	int short_train;	/* V.17 with bursts: every transmission after the first with the short training */
	double lead_s;		/* line (and noise, unless gated) for this long before the transmitter starts */
	double tail_s;		/* the transmitter stopped this long before the end (seconds: its run, lead excluded) */
};

/* [0]: our receiver, [1]: SpanDSP's */
struct qamrun_res {
	long bits[2], errors[2];	/* PRBS bits checked after the first 64, line errors count 3 */
	int trained[2];			/* trainings that succeeded */
	int carrier_downs;		/* ours */
	int carrier_ups;		/* ours */
	int fails;			/* ours: trainings that failed */
	/* ours, by part of the run: before the transmitter started, while it sent, after it stopped */
	int ups_lead, downs_lead, downs_sig, flips_tail;
	double trained_s;		/* ours: first training, seconds after the transmitter started (-99: none) */
	double rx_level_dbm0;		/* what reached the receivers (signal only) */
	double rx_cpu[2];		/* seconds of CPU in each receiver */
};

/* modem: 27 (V.27ter), 29 (V.29) or 17 (V.17) */
void qam_run(int modem, const struct qamrun_cfg *c, struct qamrun_res *r);
double qam_ber(const struct qamrun_res *r, int rx);

/*
 * The checks of test_v27ter, test_v29 and test_v17 on one run (printed,
 * counted by tutil's CHECK). qam_check: both receivers train and deliver
 * 90 % of the PRBS sent after 1.6 s of training (tep_s more with the echo
 * protection tone) without an error; with sp_ppm_loses, SpanDSP's receiver
 * under a clock offset need only train. qam_check_bursts: three
 * transmissions of seconds / 3 (c->short_train as set), 200 ms apart:
 * three trainings and two carrier losses at ours, each PRBS intact at both
 * (with sp_ppm_errs, SpanDSP's receiver under a clock offset may lose under
 * 1 %); c's bursts, short_train and seconds (6) back after.
 */
void qam_check(int modem, const char *what, const struct qamrun_cfg *c, double tep_s, int sp_ppm_loses);
void qam_check_bursts(int modem, const char *what, struct qamrun_cfg *c, double seconds, int sp_ppm_errs);
/*
 * qam_check on the line's conditions after a clean run: the echo
 * protection tone, +-100 ppm, 10 and 26 dB of loss, sent at -6 dBm0, and
 * with echo an echo 20 dB down, 1.5 ms late (c->echo_delay stays 12).
 */
void qam_check_line(int modem, struct qamrun_cfg *c, double tep_s, int sp_ppm_loses, int echo);

/*
 * The BER sweep of test_v29_ber and test_v17_ber: for each rate, each
 * transmitter, QAM_BER_LEVELS noise levels 1 dB apart from top[] (the
 * highest SNR) down, 30 s each, both receivers on the same samples; the
 * SNR each needs for a BER of 1e-3 (ours no more than 1 dB above
 * SpanDSP's), ours trained wherever SpanDSP's trained with a BER under
 * unusable (0: any BER). Rows to json (NULL: none) as test key.
 */
#define QAM_BER_LEVELS 9
/*
 * Each level again with the noise on from QAM_BER_LEAD s before the signal
 * (not gated), QAM_BER_CONT_S s of signal: ours must train wherever
 * SpanDSP's trained in the gated noise (with a BER under unusable) and
 * need no more than 1 dB over SpanDSP's gated SNR for 1e-3.
 */
#define QAM_BER_LEAD 0.7
#define QAM_BER_CONT_S 12
void qam_ber_sweep(int modem, const char *name, const char *key, const int *rates,
		   const double *top, int nrates, double unusable, const char *json);

#endif
