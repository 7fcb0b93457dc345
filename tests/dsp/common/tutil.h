/* Small helpers shared by the dsp test programs (user space only). */
#ifndef TUTIL_H
#define TUTIL_H
#include <stdio.h>
#include <stdint.h>

#include "check.h"

/* deterministic PRNG for test data (xorshift64*) */
uint64_t t_rand64(uint64_t *s);
double t_gauss(uint64_t *s);
/* power of a block in dBm0 (3.14 dBm0 = full-scale sine, per G.711 mu-law) */
double t_power_dbm0(const int16_t *x, int n);
int16_t t_sat16(double v);

/*
 * The V.34 tests' data: a PRBS (each bit the XOR of the ones 18 and 23
 * before it) as a bit source, and a checker seeded from the first 23 bits
 * it gets, then counting those against the recurrence
 */
struct t_prbs {
	uint32_t s;
	unsigned long n, checked, errors;
};
int t_prbs_src_bit(void *user);
void t_prbs_sink_bit(void *user, int bit);

#endif
