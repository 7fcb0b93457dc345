/* V.32bis test runs: one direction of our modem (S to the data) over the test line. */
#ifndef V32EP_H
#define V32EP_H
#include <stdint.h>

struct v32run_cfg {
	unsigned int rate;	/* the rate E selects */
	int uncoded;		/* 9600 without the trellis code (E's B8 = 0, V.32's 16 points) */
	unsigned int offer;	/* the rates R offers (SMDSP_V32BIS_*), 0: all */
	int caller_tx;		/* the caller's transmitter (GPC) to the answerer's receiver, else GPA */
	int level_dbm0_10;	/* 0: -13 dBm0 */
	double noise_dbm0;	/* <= -200: none */
	double loss_db;
	double ppm;
	int delay;
	double seconds;
	unsigned int trn;	/* TRN symbols, 0: 1280 */
	uint64_t seed;
};

struct v32run_res {
	int trained;
	unsigned int rate;	/* what the receiver took from E */
	int trellis;		/* and whether its data was trellis-coded */
	uint16_t rword;		/* the rate word it saw twice */
	long bits, errors;	/* PRBS bits checked after sync; a wrong bit counts 3 */
	double trained_s;	/* when it was trained (s of line) */
	int snr_10;		/* its decisions' SNR estimate at the end */
	int fails;		/* trainings that failed (SMDSP_STATUS_TRAINING_FAILED) */
};

/*
 * The test data: x^23 + x^18 + 1 from src (a get_bit), checked by chk (a
 * put_bit) once 64 bits after the first zero have filled its history.
 */
struct v32_prbs {
	uint32_t reg, hist;
	long n, bits, errors;
};

int v32_prbs_src(void *u);
void v32_prbs_chk(void *u, int b);

void v32_run(const struct v32run_cfg *c, struct v32run_res *r);
#endif
