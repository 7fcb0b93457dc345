#include <math.h>
#include "tutil.h"

uint64_t t_rand64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

double t_gauss(uint64_t *s)
{
	double u1 = ((t_rand64(s) >> 11) + 1.0) / 9007199254740993.0;
	double u2 = (t_rand64(s) >> 11) / 9007199254740992.0;

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double t_power_dbm0(const int16_t *x, int n)
{
	double e = 0;
	int i;

	for (i = 0; i < n; i++)
		e += (double)x[i] * x[i];
	e /= n > 0 ? n : 1;
	if (e <= 0)
		return -200;
	/* full-scale sine (rms 32767/sqrt2) is +3.14 dBm0 */
	return 10.0 * log10(e / (32767.0 * 32767.0 / 2.0)) + 3.14;
}

int16_t t_sat16(double v)
{
	if (v > 32767)
		return 32767;
	if (v < -32768)
		return -32768;
	return (int16_t)lrint(v);
}

static int prbs_next(struct t_prbs *p)
{
	int b = (int)(((p->s >> 22) ^ (p->s >> 17)) & 1);

	p->s = (p->s << 1) | (uint32_t)b;
	return b;
}

int t_prbs_src_bit(void *user)
{
	struct t_prbs *p = user;

	p->n++;
	return prbs_next(p);
}

void t_prbs_sink_bit(void *user, int bit)
{
	struct t_prbs *p = user;

	if (p->n++ < 23) {
		p->s = (p->s << 1) | (uint32_t)(bit & 1);
		return;
	}
	p->checked++;
	p->errors += (unsigned long)(prbs_next(p) != bit);
}
