// SPDX-License-Identifier: GPL-2.0
/*
 * Modem data pump entry point: the modem engine behind the interface the
 * driver calls once per period, or a pass-through for bring-up.
 */
#include <smdsp/pump.h>

struct smdsp_pump {
	uint32_t sample_rate;
	uint32_t flags;
	struct smdsp_modem *modem;
};

struct smdsp_pump *smdsp_pump_create(const struct smdsp_pump_config *cfg)
{
	struct smdsp_modem_config mc;
	struct smdsp_pump *p;

	if (!cfg || cfg->sample_rate == 0)
		return NULL;
	p = smdsp_alloc(sizeof(*p));
	if (!p)
		return NULL;
	p->sample_rate = cfg->sample_rate;
	p->flags = cfg->flags;
	/* the modem runs at 8000 samples/s: other rates get the pass-through */
	if ((p->flags & SMDSP_PUMP_FLAG_LOOPBACK) || cfg->sample_rate != SMDSP_MODEM_RATE)
		return p;
	memset(&mc, 0, sizeof(mc));
	mc.sample_rate = cfg->sample_rate;
	mc.flags = cfg->flags;
	mc.tone_plan = SMDSP_CALLPROG_PLAN_NA;
	p->modem = smdsp_modem_create(&mc);
	if (!p->modem) {
		smdsp_free(p);
		return NULL;
	}
	return p;
}

void smdsp_pump_free(struct smdsp_pump *p)
{
	if (!p)
		return;
	smdsp_modem_free(p->modem);
	smdsp_free(p);
}

int smdsp_pump_process(struct smdsp_pump *p, const int16_t *rx, int16_t *tx,
		       unsigned int n)
{
	if (!p || (n && (!rx || !tx)))
		return -EINVAL;
	if (!p->modem) {
		if (n)
			memmove(tx, rx, n * sizeof(*tx));
		return 0;
	}
	return smdsp_modem_process(p->modem, rx, tx, n);
}

struct smdsp_modem *smdsp_pump_modem(struct smdsp_pump *p)
{
	return p ? p->modem : NULL;
}

int smdsp_pump_print(const struct smdsp_pump *p, char *buf, size_t len)
{
	return snprintf(buf, len, "pump rate=%u flags=%#x modem=%s",
			p->sample_rate, p->flags, p->modem ? "yes" : "none");
}
