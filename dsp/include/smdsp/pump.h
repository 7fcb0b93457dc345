/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Public interface of the modem data pump: one call per audio period.
 */
#ifndef SMDSP_PUMP_H
#define SMDSP_PUMP_H

#include <smdsp/compat.h>
#include <smdsp/modem.h>

struct smdsp_pump;

/*
 * flags: SMDSP_MODEM_FLAG_* (modem.h) for the modem engine, or
 * SMDSP_PUMP_FLAG_LOOPBACK for a pass-through (tx = rx). The modem engine
 * runs at SMDSP_MODEM_RATE (8000) samples/s only: at any other rate the pump
 * is a pass-through too, and smdsp_pump_modem() returns NULL.
 */
#define SMDSP_PUMP_FLAG_LOOPBACK (1u << 31)

struct smdsp_pump_config {
	uint32_t sample_rate;
	uint32_t flags;
};

/* NULL on failure */
struct smdsp_pump *smdsp_pump_create(const struct smdsp_pump_config *cfg);
void smdsp_pump_free(struct smdsp_pump *p);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_pump_print(const struct smdsp_pump *p, char *buf, size_t len);
/* one call per period; rx and tx are n mono samples at sample_rate; returns 0 or -errno */
int smdsp_pump_process(struct smdsp_pump *p, const int16_t *rx, int16_t *tx,
		       unsigned int n);
/*
 * The modem behind the pump (NULL in loopback mode), for the commands, the
 * byte stream, the events and the period length (see modem.h).
 */
struct smdsp_modem *smdsp_pump_modem(struct smdsp_pump *p);

#endif /* SMDSP_PUMP_H */
