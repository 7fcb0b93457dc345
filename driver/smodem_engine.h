/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data pump's modem engine behind /dev/ttySM<n>: call control from the
 * AT interpreter, the byte streams, phase events and the hook signal.
 */
#ifndef SMODEM_ENGINE_H
#define SMODEM_ENGINE_H

#include <linux/types.h>

struct smodem_dev;
struct smodem_engine;

/*
 * Process context, before the device starts processing.  NULL when the
 * pump has no modem engine (a rate other than 8000 Hz, loopback pump):
 * the tty then keeps whatever engine it has.  phase_periods: let the
 * interrupt period follow the phase (smdsp_modem_period()).
 */
struct smodem_engine *smodem_engine_create(struct smodem_dev *sd,
					   bool phase_periods);
/*
 * Process context, once the tty is registered.  smodem_tty_unregister()
 * detaches it (hanging up first).
 */
void smodem_engine_attach(struct smodem_dev *sd);
/* After the processing context has stopped. */
void smodem_engine_free(struct smodem_engine *e);

/*
 * The per-period hooks, from the processing context only, around
 * smdsp_pump_process(): pending commands and the DTE's bytes go in
 * before, the received bytes, the events, the hook signal (added to tx)
 * and the next period's length are handled after.
 */
void smodem_engine_pre(struct smodem_dev *sd);
void smodem_engine_post(struct smodem_dev *sd, s16 *tx, u32 n);

#endif
