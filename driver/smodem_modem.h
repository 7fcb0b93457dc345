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

struct smodem_link;
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

/**
 * struct smodem_modem - the modem as the core sees it
 * @ops: what the core asks of it
 * @lead: the output lead of the period running (smodem_modem_step()): a
 *	period's output is written this many frames after its input, so its
 *	echo can be back no earlier (V.32bis's echo canceller sits there)
 */
struct smodem_modem {
	const struct smodem_modem_ops *ops;
	u32 lead;
};

/*
 * Process context, before the device starts.  link: what call control
 * talks to (smodem_link.h), kept until free; rate: the line's, Hz; calls:
 * call control behind the tty (8000 Hz only, checked at load);
 * phase_periods: the period follows the call's phase
 * (smdsp_modem_period()).
 */
struct smodem_modem *smodem_modem_create(struct smodem_link *link, u32 rate,
					 bool calls, bool phase_periods);

/**
 * struct smodem_gap - how the output lead moved before a period
 * @grew: it grew: the modem is told (ops->gap()) and fills what it left
 * @len: the frames to fill, ahead of the period's own output
 * @late: frames of the move the output engine had already played
 * @start: the first frame to fill (the kernel's count, for placing them)
 * @lead: the lead from this period on, grown or not (0: not known)
 */
struct smodem_gap {
	bool grew;
	u32 len;
	u32 late;
	u64 start;
	u32 lead;
};

/**
 * struct smodem_fill - where a gap's frames go
 * @buf: room for the longest gap (a ring)
 * @chunk: the most frames one ops->fill() is given (the longest period)
 * @place: NULL, or puts buf[0, gap->len) in its place at once, before the
 *	period runs (the kernel's core: ahead of the output engine).  smodemd
 *	has none: the kernel places its fill when the period is done
 */
struct smodem_fill {
	s16 *buf;
	u32 chunk;
	void (*place)(const struct smodem_fill *f, const struct smodem_gap *gap);
};

/*
 * One period as every side runs it, the kernel's core (smodem_core.c) and
 * smodemd alike: a grown lead's frames filled (and placed), then the period
 * itself.  Returns the period the modem wants next (ops->period()).
 * Inline: it is the per-period path, in both.
 */
static inline u32 smodem_modem_step(struct smodem_modem *m,
				    const struct smodem_gap *gap,
				    const struct smodem_fill *fill,
				    const s16 *rx, s16 *tx, u32 n)
{
	u32 off, k;

	m->lead = gap->lead;
	if (gap->grew) {
		m->ops->gap(m, gap->len, gap->late);
		for (off = 0; off < gap->len; off += k) {
			k = gap->len - off < fill->chunk ? gap->len - off :
							   fill->chunk;
			m->ops->fill(m, fill->buf + off, k);
		}
		if (fill->place)
			fill->place(fill, gap);
	}
	return m->ops->period(m, rx, tx, n);
}

#endif
