// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ttySM<n>: the DTE side of the soft modem.  Bytes written in command
 * mode go to the AT interpreter, in data mode to a queue the modem drains
 * once per period; bytes from the line come back through a second queue.
 * What the interpreter asks for (dial, answer, hang up) is left for the
 * modem as a command, and the modem's reports come back as events: all of
 * it through the link (smodem_link.h), which the modem uses from whatever
 * context it runs in, hard IRQ included.  The tty work the modem causes
 * (result codes, flip buffer pushes, wakeups, hang-ups) runs in a work item.
 * Locks: see smodem_tty_int.h.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/tty_driver.h>
#include <linux/tty_flip.h>
#include <linux/mutex.h>
#include <linux/idr.h>
#include <linux/ktime.h>
#include <linux/jiffies.h>
#include <linux/sched/signal.h>
#include <linux/serial.h>
#include "smodem.h"
#include "smodem_tty_int.h"

static struct tty_driver *smodem_tty_driver;
/* Minors: freed with the port, which may outlive its device (still open). */
static DEFINE_IDA(smodem_tty_ida);
static DEFINE_MUTEX(smodem_tty_table_lock);
static struct smodem_tty *smodem_tty_table[SMODEM_TTY_MINORS];

/* -- tty side, at_lock held ----------------------------------------------- */

static void emit(struct smodem_tty *st, struct at_out *o)
{
	/* Closed: nobody would read it, and it must not greet the next open. */
	if (o->len && tty_port_initialized(&st->port)) {
		tty_insert_flip_string(&st->port, o->buf, o->len);
		tty_flip_buffer_push(&st->port);
	}
	o->len = 0;
}

static void flush_queues(struct smodem_tty *st)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&st->lock, flags);
	kfifo_reset(&st->txf);
	kfifo_reset(&st->rxf);
	st->wake_tx = true;
	if (!(st->mctrl & TIOCM_CTS)) {
		st->mctrl |= TIOCM_CTS;
		st->icount.cts++;
		st->wake_msr = true;
	}
	raw_spin_unlock_irqrestore(&st->lock, flags);
}

/*
 * A command for the modem, which takes it before its next period.  Every
 * command starts a new call attempt: whatever the modem still reports of
 * the one before is dropped from here on (pop_event()).
 */
static void command(struct smodem_tty *st, unsigned int what, bool answer)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&st->lock, flags);
	st->call_id++;
	st->cmd.id = st->call_id;
	/* A hang-up forgets a call not started yet. */
	if (!(what & SMODEM_CMD_HANGUP))
		what |= st->cmd.what;
	/* Only what the command needs: no dial string in a hang-up. */
	if (what & SMODEM_CMD_CALL) {
		st->cmd.call = st->at.callp;
		st->cmd.answer = answer;
		/* Line data held from before is no byte of this call. */
		kfifo_reset(&st->rxf);
	} else {
		memset(&st->cmd.call, 0, sizeof(st->cmd.call));
		st->cmd.answer = false;
	}
	if (what & SMODEM_CMD_FAX) {
		st->cmd.fax_op = (u8)st->at.fax_op;
		st->cmd.fax_arg = st->at.fax_arg;
	} else {
		st->cmd.fax_op = 0;
		st->cmd.fax_arg = 0;
	}
	/* The modem peeks at it without the lock. */
	WRITE_ONCE(st->cmd.what, what);
	raw_spin_unlock_irqrestore(&st->lock, flags);
}

/* Carry out what the interpreter asked for; may add to o. */
static void act(struct smodem_tty *st, struct at_out *o)
{
	unsigned int a = o->act;

	o->act = 0;
	if (!a || !st->sd)
		return;
	if (a & AT_ACT_HANGUP) {
		flush_queues(st);
		st->carrier = false;
		command(st, SMODEM_CMD_HANGUP, false);
	}
	if (a & (AT_ACT_DIAL | AT_ACT_ANSWER)) {
		if (st->calls)
			command(st, SMODEM_CMD_CALL, a & AT_ACT_ANSWER);
		else
			at_call_end(&st->at, AT_RC_NO_CARRIER, o);
	}
	/* Class 1: the operation for the fax pump; without one, ERROR */
	if (a & AT_ACT_FAX) {
		if (st->calls)
			command(st, SMODEM_CMD_FAX, false);
		else
			at_fax_result(&st->at, AT_FAXRC_ERROR, ktime_get_ns(), o);
	}
}

/*
 * Bring DCD and RI in line with the interpreter and the carrier.  The
 * wakeups are the work item's; kick it unless we are it.
 */
static void settle(struct smodem_tty *st, bool kick)
{
	bool dcd = at_dcd(&st->at, st->carrier);
	unsigned int old, new;
	unsigned long flags;

	raw_spin_lock_irqsave(&st->lock, flags);
	old = st->mctrl;
	new = old & ~(TIOCM_CAR | TIOCM_RNG);
	if (dcd)
		new |= TIOCM_CAR;
	if (st->ring_on)
		new |= TIOCM_RNG;
	if ((old ^ new) & TIOCM_CAR) {
		st->icount.dcd++;
		if (dcd)
			st->wake_open = true;
	}
	if ((old ^ new) & TIOCM_RNG)
		st->icount.rng++;
	if (old != new) {
		st->mctrl = new;
		st->wake_msr = true;
	}
	if (kick && !st->dead && (st->wake_msr || st->wake_open || st->wake_tx))
		queue_work(system_wq, &st->work);
	raw_spin_unlock_irqrestore(&st->lock, flags);
}

static void arm_escape(struct smodem_tty *st, u64 now)
{
	u64 due = at_escape_deadline(&st->at);

	mod_delayed_work(system_wq, &st->esc_work,
			 nsecs_to_jiffies(due > now ? due - now : 0) + 1);
}

/* Data mode: queue for the line; the escape sequence still goes out. */
static unsigned int tx_put(struct smodem_tty *st, const u8 *buf,
			   unsigned int n, u64 now)
{
	unsigned long flags;
	unsigned int k;

	raw_spin_lock_irqsave(&st->lock, flags);
	k = kfifo_in(&st->txf, buf, n);
	if ((st->mctrl & TIOCM_CTS) && kfifo_len(&st->txf) > SMODEM_TTY_TX_HIGH) {
		st->mctrl &= ~TIOCM_CTS;
		st->icount.cts++;
		st->wake_msr = true;
		queue_work(system_wq, &st->work);
	}
	raw_spin_unlock_irqrestore(&st->lock, flags);
	/* Class 1's fax data has DLE ETX for an end, no escape sequence */
	if (k && st->at.mode == AT_MODE_DATA &&
	    at_escape_feed(&st->at, buf, k, now))
		arm_escape(st, now);
	return k;
}

/* Line data to the line discipline, as far as it has room for it. */
static void rx_push(struct smodem_tty *st)
{
	unsigned long flags;
	bool pushed = false;

	if ((st->at.mode != AT_MODE_DATA && st->at.mode != AT_MODE_FAX_RX) ||
	    !tty_port_initialized(&st->port))
		return;
	for (;;) {
		unsigned int room = tty_buffer_space_avail(&st->port);
		unsigned int n = 0, k;

		raw_spin_lock_irqsave(&st->lock, flags);
		if (!st->throttled && (st->rts || !st->crtscts))
			n = kfifo_out(&st->rxf, st->chunk, min_t(unsigned int,
						room, RX_CHUNK));
		raw_spin_unlock_irqrestore(&st->lock, flags);
		if (!n)
			break;
		k = tty_insert_flip_string(&st->port, st->chunk, n);
		raw_spin_lock_irqsave(&st->lock, flags);
		st->icount.rx += k;
		st->icount.buf_overrun += n - k;
		raw_spin_unlock_irqrestore(&st->lock, flags);
		pushed = true;
	}
	if (pushed)
		tty_flip_buffer_push(&st->port);
}

static bool pop_event(struct smodem_tty *st, struct smodem_ev *e, bool *cur)
{
	unsigned long flags;
	bool got = false;

	raw_spin_lock_irqsave(&st->lock, flags);
	if (st->gone && !st->gone_at) {
		/* The modem went away: its call ends, in its place in the queue */
		st->gone = false;
		e->type = EV_GONE;
		e->code = AT_RC_NO_CARRIER;
		e->arg = 0;
		e->id = st->gone_id;
		*cur = e->id == st->call_id;
		got = true;
	} else if (st->ev_len) {
		if (st->gone)
			st->gone_at--;
		*e = st->ev[st->ev_head];
		st->ev_head = (st->ev_head + 1) % EVQ_LEN;
		st->ev_len--;
		*cur = e->id == st->call_id;
		got = true;
	}
	raw_spin_unlock_irqrestore(&st->lock, flags);
	return got;
}

/* Returns true when the tty is to be hung up (carrier lost, &C1). */
static bool handle_event(struct smodem_tty *st, const struct smodem_ev *e,
			 bool current_call, struct at_out *o)
{
	bool online = st->at.call == AT_CALL_ONLINE;

	switch (e->type) {
	case EV_CONNECTED: {
		struct at_conn conn = {
			.rate = e->arg,
			.v34 = e->code & SMODEM_CONN_V34,
			.lapm = e->code & SMODEM_CONN_LAPM,
			.v42bis = (e->code & (SMODEM_CONN_V42BIS_TX |
					      SMODEM_CONN_V42BIS_RX)) >> 1,
		};

		if (!current_call)
			break;
		at_connected(&st->at, &conn, ktime_get_ns(), o);
		st->carrier = st->at.call == AT_CALL_ONLINE;
		/* A connection nobody waits for (e.g. after a ';' dial). */
		if (!st->carrier)
			o->act |= AT_ACT_HANGUP;
		break;
	}
	case EV_GONE:
		st->ring_on = false;
		fallthrough;
	case EV_END:
		if (!current_call)
			break;
		if (at_rc_fax(e->code)) {
			/* Class 1: the operation's report, the call goes on */
			at_fax_result(&st->at,
				      (enum at_fax_rc)(e->code - AT_RC_FAX_CONNECT),
				      ktime_get_ns(), o);
			st->carrier = st->at.call == AT_CALL_ONLINE;
			break;
		}
		at_call_end(&st->at, (enum at_result)e->code, o);
		st->carrier = false;
		flush_queues(st);
		return online && st->at.cfg.amp_c;
	case EV_RING_ON:
		st->ring_on = true;
		at_ring(&st->at, ktime_get_ns(), o);
		break;
	case EV_RING_OFF:
		st->ring_on = false;
		break;
	}
	return false;
}

static void smodem_tty_work(struct work_struct *w)
{
	struct smodem_tty *st = container_of(w, struct smodem_tty, work);
	bool hangup = false, wake_tx, wake_msr, wake_open, cur;
	struct smodem_ev e;
	struct at_out o;
	unsigned long flags;

	spin_lock_irqsave(&st->at_lock, flags);
	at_out_init(&o, st->out, sizeof(st->out));
	for (;;) {
		/* Line data first: it came before the events after it. */
		rx_push(st);
		if (!pop_event(st, &e, &cur))
			break;
		if (!st->sd)
			continue;
		hangup |= handle_event(st, &e, cur, &o);
		act(st, &o);
		emit(st, &o);
	}
	settle(st, false);
	spin_unlock_irqrestore(&st->at_lock, flags);

	raw_spin_lock_irqsave(&st->lock, flags);
	wake_tx = st->wake_tx;
	wake_msr = st->wake_msr;
	wake_open = st->wake_open;
	st->wake_tx = false;
	st->wake_msr = false;
	st->wake_open = false;
	raw_spin_unlock_irqrestore(&st->lock, flags);

	if (wake_tx)
		tty_port_tty_wakeup(&st->port);
	if (wake_open)
		wake_up_interruptible(&st->port.open_wait);
	if (wake_msr)
		wake_up_interruptible(&st->port.delta_msr_wait);
	/* SIGHUP to the session unless CLOCAL. */
	if (hangup)
		tty_port_tty_hangup(&st->port, true);
}

static void smodem_tty_esc_work(struct work_struct *w)
{
	struct smodem_tty *st = container_of(to_delayed_work(w),
					     struct smodem_tty, esc_work);
	struct at_out o;
	unsigned long flags;
	u64 now = ktime_get_ns();

	spin_lock_irqsave(&st->at_lock, flags);
	at_out_init(&o, st->out, sizeof(st->out));
	if (st->sd) {
		if (at_escape_poll(&st->at, now, &o))
			emit(st, &o);
		else if (st->at.mode == AT_MODE_DATA && st->at.plus == 3)
			arm_escape(st, now);	/* woke a jiffy early */
	}
	spin_unlock_irqrestore(&st->at_lock, flags);
}

/* DTR from the DTE: TIOCMSET, B0, open, close with HUPCL. */
static void set_dtr_rts(struct smodem_tty *st, bool dtr, bool rts)
{
	unsigned long flags, rflags;
	struct at_out o;

	spin_lock_irqsave(&st->at_lock, flags);
	raw_spin_lock_irqsave(&st->lock, rflags);
	st->dtr = dtr;
	st->rts = rts;
	raw_spin_unlock_irqrestore(&st->lock, rflags);
	if (st->sd) {
		at_out_init(&o, st->out, sizeof(st->out));
		at_dtr(&st->at, dtr, &o);
		act(st, &o);
		emit(st, &o);
		settle(st, true);
		/* RTS may let held line data through. */
		queue_work(system_wq, &st->work);
	}
	spin_unlock_irqrestore(&st->at_lock, flags);
}

/* -- tty_operations --------------------------------------------------------- */

static int smodem_tty_install(struct tty_driver *driver,
			      struct tty_struct *tty)
{
	struct smodem_tty *st;
	int err;

	mutex_lock(&smodem_tty_table_lock);
	st = tty->index < SMODEM_TTY_MINORS ? smodem_tty_table[tty->index] : NULL;
	if (st)
		tty_port_get(&st->port);
	mutex_unlock(&smodem_tty_table_lock);
	if (!st)
		return -ENODEV;
	err = tty_port_install(&st->port, driver, tty);
	if (err) {
		tty_port_put(&st->port);
		return err;
	}
	tty->driver_data = st;
	return 0;
}

static void smodem_tty_cleanup(struct tty_struct *tty)
{
	struct smodem_tty *st = tty->driver_data;

	tty->driver_data = NULL;
	if (st)
		tty_port_put(&st->port);
}

static int smodem_tty_open(struct tty_struct *tty, struct file *filp)
{
	struct smodem_tty *st = tty->driver_data;

	return tty_port_open(&st->port, tty, filp);
}

static void smodem_tty_close(struct tty_struct *tty, struct file *filp)
{
	struct smodem_tty *st = tty->driver_data;

	tty_port_close(&st->port, tty, filp);
}

static void smodem_tty_hangup(struct tty_struct *tty)
{
	struct smodem_tty *st = tty->driver_data;

	tty_port_hangup(&st->port);
}

static long st_write(struct tty_struct *tty, const u8 *buf, size_t count)
{
	struct smodem_tty *st = tty->driver_data;
	unsigned long flags;
	size_t done = 0;
	struct at_out o;
	u64 now = ktime_get_ns();
	bool data;

	spin_lock_irqsave(&st->at_lock, flags);
	if (!st->sd) {
		spin_unlock_irqrestore(&st->at_lock, flags);
		return -EIO;
	}
	data = st->at.mode == AT_MODE_DATA;
	while (done < count) {
		unsigned int n = min_t(size_t, count - done, INT_MAX);
		unsigned int k;

		if (st->at.mode == AT_MODE_DATA ||
		    st->at.mode == AT_MODE_FAX_TX) {
			k = tx_put(st, buf + done, n, now);
			done += k;
			if (k < n)
				break;	/* full: n_tty waits for the wakeup */
			continue;
		}
		at_out_init(&o, st->out, sizeof(st->out));
		k = at_input(&st->at, buf + done, n, now, &o);
		done += k;
		act(st, &o);
		emit(st, &o);
		if (!k && st->at.mode != AT_MODE_DATA &&
		    st->at.mode != AT_MODE_FAX_TX)
			break;
	}
	settle(st, true);
	/* ATO: line data held in online command mode may go now. */
	if (!data && st->at.mode == AT_MODE_DATA)
		queue_work(system_wq, &st->work);
	spin_unlock_irqrestore(&st->at_lock, flags);
	return done;
}

/*
 * tty_operations.write took an int count before 6.6 and
 * tty_port_operations.carrier_raised/dtr_rts took ints before 6.3.  The
 * headers say which one applies (distribution kernels backport); the
 * variant not chosen is not emitted.
 */
#define SMODEM_PICK(slot, a, b) \
	__builtin_choose_expr(__builtin_types_compatible_p(typeof(slot), \
							   typeof(&(a))), a, b)

static __maybe_unused ssize_t smodem_tty_write_sz(struct tty_struct *tty,
						  const u8 *buf, size_t count)
{
	return st_write(tty, buf, count);
}

static __maybe_unused int smodem_tty_write_int(struct tty_struct *tty,
					       const u8 *buf, int count)
{
	return count > 0 ? (int)st_write(tty, buf, count) : 0;
}

static unsigned int smodem_tty_write_room(struct tty_struct *tty)
{
	struct smodem_tty *st = tty->driver_data;
	unsigned long flags;
	unsigned int room;

	/* Command mode takes everything; the interpreter bounds its line. */
	if (READ_ONCE(st->at.mode) != AT_MODE_DATA &&
	    READ_ONCE(st->at.mode) != AT_MODE_FAX_TX)
		return READ_ONCE(st->dead) ? 0 : AT_OUT_MIN;
	raw_spin_lock_irqsave(&st->lock, flags);
	room = st->dead ? 0 : kfifo_avail(&st->txf);
	raw_spin_unlock_irqrestore(&st->lock, flags);
	return room;
}

static unsigned int smodem_tty_chars_in_buffer(struct tty_struct *tty)
{
	struct smodem_tty *st = tty->driver_data;
	unsigned long flags;
	unsigned int n;

	/* Gone: nothing will drain it, a close must not wait for it. */
	raw_spin_lock_irqsave(&st->lock, flags);
	n = st->dead ? 0 : kfifo_len(&st->txf);
	raw_spin_unlock_irqrestore(&st->lock, flags);
	return n;
}

static void smodem_tty_flush_buffer(struct tty_struct *tty)
{
	struct smodem_tty *st = tty->driver_data;
	unsigned long flags;

	raw_spin_lock_irqsave(&st->lock, flags);
	kfifo_reset(&st->txf);
	if (!(st->mctrl & TIOCM_CTS)) {
		st->mctrl |= TIOCM_CTS;
		st->icount.cts++;
		st->wake_msr = true;
		if (!st->dead)
			queue_work(system_wq, &st->work);
	}
	raw_spin_unlock_irqrestore(&st->lock, flags);
	tty_wakeup(tty);
}

static void set_throttle(struct tty_struct *tty, bool on)
{
	struct smodem_tty *st = tty->driver_data;
	unsigned long flags;

	raw_spin_lock_irqsave(&st->lock, flags);
	st->throttled = on;
	if (!on && !st->dead)
		queue_work(system_wq, &st->work);
	raw_spin_unlock_irqrestore(&st->lock, flags);
}

static void smodem_tty_throttle(struct tty_struct *tty)
{
	set_throttle(tty, true);
}

static void smodem_tty_unthrottle(struct tty_struct *tty)
{
	set_throttle(tty, false);
}

static int smodem_tty_tiocmget(struct tty_struct *tty)
{
	struct smodem_tty *st = tty->driver_data;
	unsigned long flags;
	int v;

	raw_spin_lock_irqsave(&st->lock, flags);
	v = st->mctrl | (st->dtr ? TIOCM_DTR : 0) | (st->rts ? TIOCM_RTS : 0);
	raw_spin_unlock_irqrestore(&st->lock, flags);
	/* AT&S1: DSR only while a connection is up (a snapshot, as MSR). */
	if (READ_ONCE(st->at.cfg.amp_s) && !READ_ONCE(st->carrier))
		v &= ~TIOCM_DSR;
	return v;
}

static int smodem_tty_tiocmset(struct tty_struct *tty, unsigned int set,
			       unsigned int clear)
{
	struct smodem_tty *st = tty->driver_data;
	unsigned long flags;
	bool dtr, rts;

	raw_spin_lock_irqsave(&st->lock, flags);
	dtr = st->dtr;
	rts = st->rts;
	raw_spin_unlock_irqrestore(&st->lock, flags);
	if (set & TIOCM_DTR)
		dtr = true;
	if (set & TIOCM_RTS)
		rts = true;
	if (clear & TIOCM_DTR)
		dtr = false;
	if (clear & TIOCM_RTS)
		rts = false;
	set_dtr_rts(st, dtr, rts);
	return 0;
}

static bool msr_moved(struct smodem_tty *st, const struct async_icount *prev,
		      unsigned long mask, int *ret)
{
	struct async_icount c;
	unsigned long flags;
	bool dead;

	raw_spin_lock_irqsave(&st->lock, flags);
	c = st->icount;
	dead = st->dead;
	raw_spin_unlock_irqrestore(&st->lock, flags);
	if (dead || !tty_port_initialized(&st->port)) {
		*ret = -EIO;
		return true;
	}
	return ((mask & TIOCM_RNG) && c.rng != prev->rng) ||
	       ((mask & TIOCM_DSR) && c.dsr != prev->dsr) ||
	       ((mask & TIOCM_CD) && c.dcd != prev->dcd) ||
	       ((mask & TIOCM_CTS) && c.cts != prev->cts);
}

/* TIOCMIWAIT: sleep until one of the lines in mask changes. */
static int wait_msr(struct smodem_tty *st, unsigned long mask)
{
	struct async_icount prev;
	unsigned long flags;
	int ret = 0, err;

	if (!(mask & (TIOCM_RNG | TIOCM_DSR | TIOCM_CD | TIOCM_CTS)))
		return -EINVAL;
	raw_spin_lock_irqsave(&st->lock, flags);
	prev = st->icount;
	raw_spin_unlock_irqrestore(&st->lock, flags);
	err = wait_event_interruptible(st->port.delta_msr_wait,
				       msr_moved(st, &prev, mask, &ret));
	return err ? err : ret;
}

static int smodem_tty_ioctl(struct tty_struct *tty, unsigned int cmd,
			    unsigned long arg)
{
	struct smodem_tty *st = tty->driver_data;

	switch (cmd) {
	case TIOCMIWAIT:
		return wait_msr(st, arg);
	default:
		return -ENOIOCTLCMD;
	}
}

static int smodem_tty_get_icount(struct tty_struct *tty,
				 struct serial_icounter_struct *ic)
{
	struct smodem_tty *st = tty->driver_data;
	struct async_icount c;
	unsigned long flags;

	raw_spin_lock_irqsave(&st->lock, flags);
	c = st->icount;
	raw_spin_unlock_irqrestore(&st->lock, flags);
	ic->cts = c.cts;
	ic->dsr = c.dsr;
	ic->rng = c.rng;
	ic->dcd = c.dcd;
	ic->rx = c.rx;
	ic->tx = c.tx;
	ic->frame = c.frame;
	ic->overrun = c.overrun;
	ic->parity = c.parity;
	ic->brk = c.brk;
	ic->buf_overrun = c.buf_overrun;
	return 0;
}

/*
 * TIOCGSERIAL: dialers (wvdial, setserial) ask it of every modem port.
 * There is no UART: no I/O port, no IRQ, no divisor to set.
 */
static int smodem_tty_get_serial(struct tty_struct *tty,
				 struct serial_struct *ss)
{
	struct smodem_tty *st = tty->driver_data;

	ss->type = PORT_UNKNOWN;
	ss->line = st->index;
	ss->xmit_fifo_size = SMODEM_TTY_TX_SIZE;
	ss->close_delay = jiffies_to_msecs(st->port.close_delay) / 10;
	ss->closing_wait = st->port.closing_wait == ASYNC_CLOSING_WAIT_NONE ?
			   ASYNC_CLOSING_WAIT_NONE :
			   jiffies_to_msecs(st->port.closing_wait) / 10;
	return 0;
}

static void smodem_tty_set_termios(struct tty_struct *tty,
				   const struct ktermios *old)
{
	struct smodem_tty *st = tty->driver_data;
	unsigned long flags;
	bool dtr, rts;

	spin_lock_irqsave(&st->at_lock, flags);
	st->at.dte_rate = tty_get_baud_rate(tty);
	spin_unlock_irqrestore(&st->at_lock, flags);
	raw_spin_lock_irqsave(&st->lock, flags);
	st->crtscts = C_CRTSCTS(tty);
	dtr = st->dtr;
	rts = st->rts;
	raw_spin_unlock_irqrestore(&st->lock, flags);
	/* B0 is the classic way to drop DTR; leaving it raises it again. */
	if (old && (old->c_cflag & CBAUD) != B0 && !C_BAUD(tty))
		set_dtr_rts(st, false, false);
	else if (old && (old->c_cflag & CBAUD) == B0 && C_BAUD(tty))
		set_dtr_rts(st, true, true);
	else
		set_dtr_rts(st, dtr, rts);	/* CRTSCTS may free held rx */
}

static const struct tty_operations smodem_tty_ops = {
	.install = smodem_tty_install,
	.cleanup = smodem_tty_cleanup,
	.open = smodem_tty_open,
	.close = smodem_tty_close,
	.hangup = smodem_tty_hangup,
	.write = SMODEM_PICK(smodem_tty_ops.write, smodem_tty_write_sz,
			     smodem_tty_write_int),
	.write_room = smodem_tty_write_room,
	.chars_in_buffer = smodem_tty_chars_in_buffer,
	.flush_buffer = smodem_tty_flush_buffer,
	.throttle = smodem_tty_throttle,
	.unthrottle = smodem_tty_unthrottle,
	.tiocmget = smodem_tty_tiocmget,
	.tiocmset = smodem_tty_tiocmset,
	.ioctl = smodem_tty_ioctl,
	.get_icount = smodem_tty_get_icount,
	.get_serial = smodem_tty_get_serial,
	.set_termios = smodem_tty_set_termios,
};

/* -- tty_port_operations ---------------------------------------------------- */

static int smodem_port_activate(struct tty_port *port, struct tty_struct *tty)
{
	struct smodem_tty *st = container_of(port, struct smodem_tty, port);
	unsigned long flags, rflags;
	int err = 0;

	/* What the last session left in the flip buffer is not for this one. */
	tty_ldisc_flush(tty);
	spin_lock_irqsave(&st->at_lock, flags);
	if (!st->sd) {
		err = -ENODEV;
	} else {
		at_reset_session(&st->at);
		st->at.dte_rate = tty_get_baud_rate(tty);
		st->ring_on = false;
		flush_queues(st);
		raw_spin_lock_irqsave(&st->lock, rflags);
		st->throttled = false;
		st->crtscts = C_CRTSCTS(tty);
		raw_spin_unlock_irqrestore(&st->lock, rflags);
		settle(st, true);
	}
	spin_unlock_irqrestore(&st->at_lock, flags);
	return err;
}

/* Last close or hang-up: the call ends with the session. */
static void smodem_port_shutdown(struct tty_port *port)
{
	struct smodem_tty *st = container_of(port, struct smodem_tty, port);
	unsigned long flags;
	struct at_out o;

	spin_lock_irqsave(&st->at_lock, flags);
	if (st->sd) {
		at_out_init(&o, st->out, sizeof(st->out));
		/* Also when idle: a ';' dial leaves the line off-hook. */
		o.act = AT_ACT_HANGUP;
		at_reset_session(&st->at);
		act(st, &o);
		st->carrier = false;
		st->ring_on = false;
		flush_queues(st);
		settle(st, true);
	}
	spin_unlock_irqrestore(&st->at_lock, flags);
	cancel_delayed_work(&st->esc_work);
}

static bool port_carrier(struct tty_port *port)
{
	struct smodem_tty *st = container_of(port, struct smodem_tty, port);
	unsigned long flags;
	bool dcd;

	raw_spin_lock_irqsave(&st->lock, flags);
	dcd = st->dead || (st->mctrl & TIOCM_CAR);
	raw_spin_unlock_irqrestore(&st->lock, flags);
	return dcd;
}

static __maybe_unused bool smodem_port_carrier_bool(struct tty_port *port)
{
	return port_carrier(port);
}

static __maybe_unused int smodem_port_carrier_int(struct tty_port *port)
{
	return port_carrier(port);
}

static __maybe_unused void smodem_port_dtr_rts_bool(struct tty_port *port,
						    bool active)
{
	set_dtr_rts(container_of(port, struct smodem_tty, port), active, active);
}

static __maybe_unused void smodem_port_dtr_rts_int(struct tty_port *port,
						   int raise)
{
	set_dtr_rts(container_of(port, struct smodem_tty, port), raise, raise);
}

static void smodem_port_destruct(struct tty_port *port)
{
	struct smodem_tty *st = container_of(port, struct smodem_tty, port);

	/* A hung-up tty may have queued them after smodem_tty_unregister(). */
	cancel_work_sync(&st->work);
	cancel_delayed_work_sync(&st->esc_work);
	kfifo_free(&st->txf);
	kfifo_free(&st->rxf);
	if (st->index >= 0)
		ida_free(&smodem_tty_ida, st->index);
	/* The modem may still be looking at it under rcu_read_lock(). */
	kfree_rcu(st, rcu);
}

static const struct tty_port_operations smodem_port_ops = {
	.activate = smodem_port_activate,
	.shutdown = smodem_port_shutdown,
	.carrier_raised = SMODEM_PICK(smodem_port_ops.carrier_raised,
				      smodem_port_carrier_bool,
				      smodem_port_carrier_int),
	.dtr_rts = SMODEM_PICK(smodem_port_ops.dtr_rts, smodem_port_dtr_rts_bool,
			       smodem_port_dtr_rts_int),
	.destruct = smodem_port_destruct,
};

/* -- devices ------------------------------------------------------------- */

int smodem_tty_register(struct smodem_dev *sd, bool calls)
{
	struct smodem_tty *st;
	struct device *dev;
	int err;

	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	tty_port_init(&st->port);
	st->port.ops = &smodem_port_ops;
	st->index = -1;
	spin_lock_init(&st->at_lock);
	raw_spin_lock_init(&st->lock);
	INIT_WORK(&st->work, smodem_tty_work);
	INIT_DELAYED_WORK(&st->esc_work, smodem_tty_esc_work);
	at_init(&st->at);
	st->sd = sd;
	st->calls = calls;
	st->mctrl = TIOCM_DSR | TIOCM_CTS;

	err = kfifo_alloc(&st->txf, SMODEM_TTY_TX_SIZE, GFP_KERNEL);
	if (!err)
		err = kfifo_alloc(&st->rxf, SMODEM_TTY_RX_SIZE, GFP_KERNEL);
	if (!err) {
		st->index = ida_alloc_max(&smodem_tty_ida, SMODEM_TTY_MINORS - 1,
					  GFP_KERNEL);
		if (st->index < 0)
			err = st->index;
	}
	if (err)
		goto put;

	mutex_lock(&smodem_tty_table_lock);
	smodem_tty_table[st->index] = st;
	mutex_unlock(&smodem_tty_table_lock);
	dev = tty_register_device(smodem_tty_driver, st->index, sd->dev);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		mutex_lock(&smodem_tty_table_lock);
		smodem_tty_table[st->index] = NULL;
		mutex_unlock(&smodem_tty_table_lock);
		goto put;
	}
	rcu_assign_pointer(sd->tty, st);
	pr_info("smodem: %s: /dev/%s%d\n", sd->name, SMODEM_TTY_NAME,
		st->index);
	return 0;

put:
	tty_port_put(&st->port);
	return err;
}

void smodem_tty_unregister(struct smodem_dev *sd)
{
	struct smodem_tty *st = rcu_dereference_protected(sd->tty, 1);
	unsigned long flags, rflags;

	if (!st)
		return;
	/* No new opens. */
	mutex_lock(&smodem_tty_table_lock);
	smodem_tty_table[st->index] = NULL;
	mutex_unlock(&smodem_tty_table_lock);

	/* No commands, no reports, no new work from here on. */
	spin_lock_irqsave(&st->at_lock, flags);
	st->sd = NULL;
	raw_spin_lock_irqsave(&st->lock, rflags);
	st->dead = true;
	st->mctrl = 0;
	st->icount.dsr++;
	raw_spin_unlock_irqrestore(&st->lock, rflags);
	spin_unlock_irqrestore(&st->at_lock, flags);
	RCU_INIT_POINTER(sd->tty, NULL);

	/* Whoever has it open gets a hang-up (EIO, SIGHUP), then EOF. */
	tty_port_tty_vhangup(&st->port);
	wake_up_interruptible(&st->port.delta_msr_wait);
	cancel_work_sync(&st->work);
	cancel_delayed_work_sync(&st->esc_work);
	tty_unregister_device(smodem_tty_driver, st->index);
	/* Freed with the last tty that still holds the port. */
	tty_port_put(&st->port);
}

int smodem_tty_init(void)
{
	struct tty_driver *drv;
	int err;

	drv = tty_alloc_driver(SMODEM_TTY_MINORS,
			       TTY_DRIVER_REAL_RAW | TTY_DRIVER_DYNAMIC_DEV);
	if (IS_ERR(drv))
		return PTR_ERR(drv);
	drv->driver_name = "smodem";
	drv->name = SMODEM_TTY_NAME;
	drv->major = 0;
	drv->minor_start = 0;
	drv->type = TTY_DRIVER_TYPE_SERIAL;
	drv->subtype = SERIAL_TYPE_NORMAL;
	drv->init_termios = tty_std_termios;
	/*
	 * A serial port's defaults (no CLOCAL: opens without O_NONBLOCK wait
	 * for DCD), but no local echo: with the modem's own echo (ATE1) the
	 * two would feed each other forever.
	 */
	drv->init_termios.c_cflag = B115200 | CS8 | CREAD | HUPCL;
	drv->init_termios.c_lflag &= ~(ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE);
	drv->init_termios.c_ispeed = 115200;
	drv->init_termios.c_ospeed = 115200;
	tty_set_operations(drv, &smodem_tty_ops);
	err = tty_register_driver(drv);
	if (err) {
		tty_driver_kref_put(drv);
		return err;
	}
	smodem_tty_driver = drv;
	return 0;
}

void smodem_tty_exit(void)
{
	tty_unregister_driver(smodem_tty_driver);
	tty_driver_kref_put(smodem_tty_driver);
	smodem_tty_driver = NULL;
}
