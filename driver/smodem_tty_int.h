/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state of one /dev/ttySM<n>, shared by its two sides: the tty
 * operations (smodem_tty.c) and the link the modem uses (smodem_link.c).
 *
 * Locks, outermost first:
 *  - at_lock (spinlock, irqsave): the interpreter and the flip buffer
 *    producer.  Taken from write(), which a line discipline may call from
 *    softirq context, so it never sleeps either.
 *  - lock (raw spinlock, irqsave): the command, the report queue, the byte
 *    queues, the modem-control lines.  Held only for short copies; the
 *    modem takes it in whatever context it runs in.
 */
#ifndef SMODEM_TTY_INT_H
#define SMODEM_TTY_INT_H

#include <linux/tty.h>
#include <linux/serial.h>
#include <linux/kfifo.h>
#include <linux/workqueue.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include "smodem_link.h"
#include "smodem_tty.h"

/* The modem's reports, queued for the work item. */
#define EVQ_LEN		16
/* Flip buffer pushes go in chunks of this much. */
#define RX_CHUNK	256

enum ev_type { EV_CONNECTED, EV_END, EV_RING_ON, EV_RING_OFF,
	       EV_GONE };	/* smodem_link_gone(), never queued */

struct smodem_ev {
	u8 type;
	u8 code;
	u32 arg;
	u32 id;		/* the call that produced it */
};

struct smodem_tty {
	struct tty_port port;
	struct rcu_head rcu;
	int index;

	spinlock_t at_lock;
	struct smodem_dev *sd;		/* NULL once unregistered */
	bool calls;			/* a modem with call control behind */
	struct at_state at;
	bool carrier;			/* the modem's, ordered with events */
	bool ring_on;
	u8 out[AT_OUT_MIN * 2];
	u8 chunk[RX_CHUNK];

	raw_spinlock_t lock;
	bool dead;
	bool throttled, crtscts, dtr, rts;
	unsigned int mctrl;		/* TIOCM_CAR, _RNG, _DSR, _CTS */
	struct async_icount icount;
	u32 call_id;			/* the newest call attempt */
	struct smodem_cmd cmd;		/* for the modem, see smodem_link.h */
	struct smodem_ev ev[EVQ_LEN];
	unsigned int ev_head, ev_len;
	u64 ev_dropped;
	/* smodem_link_gone(): after gone_at more events, ends call gone_id */
	bool gone;
	unsigned int gone_at;
	u32 gone_id;
	bool wake_tx, wake_msr, wake_open;
	DECLARE_KFIFO_PTR(txf, u8);
	DECLARE_KFIFO_PTR(rxf, u8);

	struct work_struct work;
	struct delayed_work esc_work;
};

#endif
