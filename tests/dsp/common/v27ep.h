/* V.27ter runs for the tests: one transmitter (ours or SpanDSP's), both receivers on the same samples. */
#ifndef V27EP_H
#define V27EP_H
#include "refs.h"
#include <smdsp/v27ter.h>

struct v27run_cfg {
	int rate;		/* 2400 or 4800 */
	int ours_tx;		/* 1: our transmitter, 0: SpanDSP's */
	int tep;		/* echo protection tone before the training */
	double level_dbm0;	/* transmit level (0: -14) */
	double loss_db;
	double ppm;		/* receiver's clock against the transmitter's */
	double noise_dbm0;	/* white noise at the receivers (0: none) */
	int gate;		/* noise only from the first nonzero sample of the signal on */
	double seconds;
	uint64_t seed;
	int bursts;		/* > 1: transmissions of seconds / bursts each, 200 ms apart, each trained */
};

/* [0]: our receiver, [1]: SpanDSP's */
struct v27run_res {
	long bits[2], errors[2];	/* PRBS bits checked after the first 64, line errors count 3 */
	int trained[2];			/* trainings that succeeded */
	int carrier_downs;		/* ours */
	double rx_level_dbm0;		/* what reached the receivers (signal only) */
};

void v27_run(const struct v27run_cfg *c, struct v27run_res *r);
double v27_ber(const struct v27run_res *r, int rx);

#endif
