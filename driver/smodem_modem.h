/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The modem: the one object the per-period path (smodem_core.c) calls.  It
 * owns the data pump (dsp/) and, with call control, what the pump does for
 * /dev/ttySM<n>: commands, bytes and reports through the link
 * (smodem_link.h), and the hook signal.  Without call control it is the
 * pump alone.
 */
#ifndef SMODEM_MODEM_H
#define SMODEM_MODEM_H

#include <linux/types.h>

struct smodem_dev;
struct smodem_modem;
struct seq_file;

/**
 * struct smodem_modem_ops - what the core asks of the modem
 * @period: one period: @n received frames in @rx, @n frames to transmit
 *	written to @tx.  Returns the period, in frames, the modem wants from
 *	the next one on (@n: no change).  Called once per period, from the
 *	processing context only, never concurrently with itself or @fill
 * @gap: the output lead grew: @late frames were played before anything
 *	could be written there (lost), the next @len are filled by @fill
 * @fill: the transmitter's own continuation for @n frames of such a gap,
 *	so that the line hears no hole (a carrier drop to the far modem, a
 *	hook flash to the exchange).  Processing context, in pieces, right
 *	before the next @period
 * @show: the modem's lines of the stats file; may sleep, runs while the
 *	processing goes on, so it reads only what the processing publishes
 * @free: after the processing context has stopped
 */
struct smodem_modem_ops {
	u32 (*period)(struct smodem_modem *m, const s16 *rx, s16 *tx, u32 n);
	void (*gap)(struct smodem_modem *m, u32 len, u32 late);
	void (*fill)(struct smodem_modem *m, s16 *tx, u32 n);
	void (*show)(struct smodem_modem *m, struct seq_file *sf);
	void (*free)(struct smodem_modem *m);
};

struct smodem_modem {
	const struct smodem_modem_ops *ops;
};

/*
 * Process context, before the device starts.  calls: call control behind
 * the tty (8000 Hz only, checked at load); phase_periods: the period
 * follows the call's phase (smdsp_modem_period()).
 */
struct smodem_modem *smodem_modem_create(struct smodem_dev *sd, bool calls,
					 bool phase_periods);

#endif
