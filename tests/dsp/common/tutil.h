/* Small helpers shared by the dsp test programs (user space only). */
#ifndef TUTIL_H
#define TUTIL_H
#include <stdio.h>
#include <stdint.h>

extern int t_failures, t_checks;

/* every check counts: a program whose checks never ran must not pass (t_report) */
#define CHECK(cond, ...) do { \
	t_checks++; \
	if (!(cond)) { \
		t_failures++; \
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__); \
		printf("\n"); \
	} \
} while (0)

/* the exit status: 1 if a check failed or none ran */
int t_report(const char *name);

/* deterministic PRNG for test data (xorshift64*) */
uint64_t t_rand64(uint64_t *s);
double t_gauss(uint64_t *s);
/* power of a block in dBm0 (3.14 dBm0 = full-scale sine, per G.711 mu-law) */
double t_power_dbm0(const int16_t *x, int n);
int16_t t_sat16(double v);

#endif
