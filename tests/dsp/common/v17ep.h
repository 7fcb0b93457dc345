/* V.17 runs for the tests: one transmitter (ours or SpanDSP's), both receivers on the same samples. */
#ifndef V17EP_H
#define V17EP_H
#include "refs.h"
#include <smdsp/v17.h>

struct v17run_cfg {
	int rate;		/* 7200, 9600, 12000 or 14400 */
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
	int short_train;	/* with bursts: every transmission after the first with the short training */
};

/* [0]: our receiver, [1]: SpanDSP's */
struct v17run_res {
	long bits[2], errors[2];	/* PRBS bits checked after the first 64, line errors count 3 */
	int trained[2];			/* trainings that succeeded */
	int carrier_downs;		/* ours */
	double rx_level_dbm0;		/* what reached the receivers (signal only) */
	double rx_cpu[2];		/* seconds of CPU in each receiver */
};

void v17_run(const struct v17run_cfg *c, struct v17run_res *r);
double v17_ber(const struct v17run_res *r, int rx);

#endif
