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

#endif
