// SPDX-License-Identifier: GPL-2.0
/*
 * The modem's side of /dev/ttySM<n> (see smodem_link.h): it reaches the
 * port through sd->tty under RCU, because the port may be unregistered (and
 * later freed) while the modem still runs, and touches only what the port's
 * raw spinlock guards.  The in-kernel modem reaches these through
 * sd->link's ops (the end of this file), as smodemd's reaches its area.
 */
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include "smodem.h"
#include "smodem_trace.h"
#include "smodem_tty_int.h"

/* What the modem asks of the port, with its lock held and the port alive. */
struct link_op {
	unsigned int (*fn)(struct smodem_tty *st, struct link_op *op);
	struct smodem_dev *sd;
	struct smodem_cmd *cmd;
	const u8 *in;
	u8 *out;
	unsigned int n;
	u8 type, code;
	u32 arg, id;
};

/*
 * op->fn's result, or 0 when the port is gone.  Inlined, so that each
 * caller's op->fn is a direct call.
 */
static __always_inline unsigned int with_port(struct link_op *op)
{
	struct smodem_tty *st;
	unsigned long flags;
	unsigned int ret = 0;

	rcu_read_lock();
	st = rcu_dereference(op->sd->tty);
	if (st) {
		raw_spin_lock_irqsave(&st->lock, flags);
		if (!st->dead)
			ret = op->fn(st, op);
		raw_spin_unlock_irqrestore(&st->lock, flags);
	}
	rcu_read_unlock();
	return ret;
}

static unsigned int take(struct smodem_tty *st, struct link_op *op)
{
	*op->cmd = st->cmd;
	/* Taken once: nothing of it (a dial string) goes out again. */
	memset(&st->cmd, 0, sizeof(st->cmd));
	WRITE_ONCE(st->cmd.what, 0);
	return 0;
}

void smodem_link_take(struct smodem_dev *sd, struct smodem_cmd *cmd)
{
	struct link_op op = { .fn = take, .sd = sd, .cmd = cmd };
	struct smodem_tty *st;
	bool any;

	cmd->what = 0;
	/* Every period asks, and almost never is there anything. */
	rcu_read_lock();
	st = rcu_dereference(sd->tty);
	any = st && READ_ONCE(st->cmd.what);
	rcu_read_unlock();
	if (any)
		with_port(&op);
}

static unsigned int post(struct smodem_tty *st, struct link_op *op)
{
	struct smodem_ev *e;

	if (st->ev_len == EVQ_LEN) {
		st->ev_dropped++;
		return 0;
	}
	e = &st->ev[(st->ev_head + st->ev_len++) % EVQ_LEN];
	e->type = op->type;
	e->code = op->code;
	e->arg = op->arg;
	e->id = op->id;
	queue_work(system_wq, &st->work);
	return 0;
}

void smodem_link_connected(struct smodem_dev *sd, u32 id, u32 rate, u32 conn)
{
	struct link_op op = { .fn = post, .sd = sd, .type = EV_CONNECTED,
			      .arg = rate, .code = conn & SMODEM_CONN_MASK,
			      .id = id };

	with_port(&op);
}

void smodem_link_result(struct smodem_dev *sd, u32 id, enum at_result rc)
{
	struct link_op op = { .fn = post, .sd = sd, .type = EV_END,
			      .code = (u8)rc, .id = id };

	with_port(&op);
}

void smodem_link_ring(struct smodem_dev *sd, bool on)
{
	struct link_op op = { .fn = post, .sd = sd,
			      .type = on ? EV_RING_ON : EV_RING_OFF };

	with_port(&op);
}

static unsigned int gone(struct smodem_tty *st, struct link_op *op)
{
	/* One pending at a time: the first stands for both. */
	if (!st->gone) {
		st->gone = true;
		st->gone_id = st->call_id;
		st->gone_at = st->ev_len;
	}
	queue_work(system_wq, &st->work);
	return 0;
}

void smodem_link_gone(struct smodem_dev *sd)
{
	struct link_op op = { .fn = gone, .sd = sd };

	with_port(&op);
}

static unsigned int rx_in(struct smodem_tty *st, struct link_op *op)
{
	unsigned int k;

	/*
	 * A hang-up or a new call the modem has not taken yet: what it sends
	 * now is of the call before, which the DTE has left (its queue was
	 * flushed then).  Taken and dropped, not an overrun.
	 */
	if (st->cmd.what & (SMODEM_CMD_HANGUP | SMODEM_CMD_CALL))
		return op->n;
	k = kfifo_in(&st->rxf, op->in, op->n);

	st->icount.buf_overrun += op->n - k;
	if (k)
		queue_work(system_wq, &st->work);
	return k;
}

unsigned int smodem_link_rx(struct smodem_dev *sd, const u8 *buf,
			    unsigned int n)
{
	struct link_op op = { .fn = rx_in, .sd = sd, .in = buf, .n = n };

	return with_port(&op);
}

static unsigned int rx_room(struct smodem_tty *st, struct link_op *op)
{
	return kfifo_avail(&st->rxf);
}

unsigned int smodem_link_rx_room(struct smodem_dev *sd)
{
	struct link_op op = { .fn = rx_room, .sd = sd };

	return with_port(&op);
}

static unsigned int tx_out(struct smodem_tty *st, struct link_op *op)
{
	unsigned int before = kfifo_len(&st->txf);
	unsigned int n = kfifo_out(&st->txf, op->out, op->n);
	unsigned int after = before - n;

	st->icount.tx += n;
	/* Writers sleep until the queue is low (or empty, for tcdrain). */
	if (n && (!after || (before > SMODEM_TTY_TX_LOW &&
			     after <= SMODEM_TTY_TX_LOW)))
		st->wake_tx = true;
	if (!(st->mctrl & TIOCM_CTS) && after <= SMODEM_TTY_TX_LOW) {
		st->mctrl |= TIOCM_CTS;
		st->icount.cts++;
		st->wake_msr = true;
	}
	if (st->wake_tx || st->wake_msr)
		queue_work(system_wq, &st->work);
	return n;
}

unsigned int smodem_link_tx_get(struct smodem_dev *sd, u8 *buf,
				unsigned int max)
{
	struct link_op op = { .fn = tx_out, .sd = sd, .out = buf, .n = max };

	return with_port(&op);
}

/* -- the link's ops, for the in-kernel modem -------------------------------- */

static struct smodem_dev *dev_of(struct smodem_link *l)
{
	return container_of(l, struct smodem_dev, link);
}

static void tty_take(struct smodem_link *l, struct smodem_cmd *cmd)
{
	smodem_link_take(dev_of(l), cmd);
}

static void tty_connected(struct smodem_link *l, u32 id, u32 rate, u32 conn)
{
	smodem_link_connected(dev_of(l), id, rate, conn);
}

static void tty_result(struct smodem_link *l, u32 id, enum at_result rc)
{
	smodem_link_result(dev_of(l), id, rc);
}

static void tty_ring(struct smodem_link *l, bool on)
{
	smodem_link_ring(dev_of(l), on);
}

/* The tty has no use for it: a phase is the trace's, and the lead's. */
static void tty_phase(struct smodem_link *l, u32 phase, u32 arg)
{
	trace_smodem_phase(dev_of(l), phase, arg);
	smodem_hook_phase(dev_of(l), phase);
}

static unsigned int tty_rx(struct smodem_link *l, const u8 *buf,
			   unsigned int n)
{
	return smodem_link_rx(dev_of(l), buf, n);
}

static unsigned int tty_rx_room(struct smodem_link *l)
{
	return smodem_link_rx_room(dev_of(l));
}

static unsigned int tty_tx_get(struct smodem_link *l, u8 *buf,
			       unsigned int max)
{
	return smodem_link_tx_get(dev_of(l), buf, max);
}

static const struct smodem_link_ops tty_link_ops = {
	.take = tty_take,
	.connected = tty_connected,
	.result = tty_result,
	.ring = tty_ring,
	.phase = tty_phase,
	.rx = tty_rx,
	.rx_room = tty_rx_room,
	.tx_get = tty_tx_get,
};

void smodem_link_init(struct smodem_dev *sd)
{
	sd->link.ops = &tty_link_ops;
}
