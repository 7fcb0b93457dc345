// SPDX-License-Identifier: GPL-2.0
/*
 * context=usr: each period is an upcall into the process that has
 * /dev/smodem<n> open (tools/smodemd), which runs the modem, call control
 * and data pump alike (driver/smodem_modem.c and dsp/, the same sources
 * built for user space), under the scheduling policy it chose.  The tty,
 * its AT interpreter and the link stay here; the driver/smodem_usr.h
 * area carries one period's samples, the DTE's command and bytes, and the
 * modem's reports, which the kernel hands to the link (smodem_link.h) as
 * the in-kernel modem would have.
 *
 * The interrupt only wakes the daemon.  The daemon's system calls do the
 * per-period path's two halves: SMODEM_USR_WAIT takes the period
 * (smodem_period_take()), SMODEM_USR_DONE places the output and accounts
 * for it (smodem_period_put()).  Nothing is allocated per period.
 *
 * Without a daemon the interrupt keeps the input position current itself,
 * counting missed periods, the output is silent (on hook), and a dial or
 * an answer is refused at once with NO CARRIER: the tty stays usable.  A
 * daemon that goes away (exit, SIGKILL) ends the call it had the same way.
 * One that stops answering (stopped, stuck) lets the ring overrun (counted
 * and traced by the core); after SMODEM_USR_STALL_MS it is detached just
 * the same: its next system call fails with -EPIPE and poll() says
 * POLLERR | POLLHUP, at once for a thread polling then.
 */
#include <linux/fs.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/swait.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <smdsp/anstone.h>
#include <smdsp/faxmodem.h>
#include <smdsp/modem.h>
#include "smodem.h"
#include "smodem_modem.h"
#include "smodem_sched.h"
#include "smodem_trace.h"
#include "smodem_usr.h"

/* A period's interrupt unanswered for this long: stalled. */
#define SMODEM_USR_STALL_MS	2000

/*
 * Why a field the daemon wrote was refused (clamped or ignored): the stats
 * file's usr_bad_<name>, usr_bad their sum.  A daemon that follows the
 * interface never moves them, so any count is a daemon to look at.
 */
enum usr_bad {
	USR_BAD_TX_USED,	/* took more bytes for the line than it had */
	USR_BAD_RX_LEN,		/* more bytes for the DTE than rx_room */
	USR_BAD_NREP,		/* more reports than rep[] holds */
	USR_BAD_TYPE,		/* a report of no known type */
	USR_BAD_RESULT,		/* a result code no modem reports */
	USR_BAD_RATE,		/* a CONNECT at a rate no pump runs */
	USR_BAD_NEXT,		/* a period out of [SMODEM_PERIOD_MIN, max] */
	USR_BAD_PHASE,		/* a phase, or its argument, no modem traces */
	USR_BAD_N
};

static const char *const usr_bad_names[USR_BAD_N] = {
	[USR_BAD_TX_USED] = "tx_used",
	[USR_BAD_RX_LEN] = "rx_len",
	[USR_BAD_NREP] = "nrep",
	[USR_BAD_TYPE] = "type",
	[USR_BAD_RESULT] = "result",
	[USR_BAD_RATE] = "rate",
	[USR_BAD_NEXT] = "next",
	[USR_BAD_PHASE] = "phase",
};

struct usr {
	struct kref ref;		/* the context's and an open file's */
	struct smodem_dev *sd;		/* NULL once the context stopped */
	/* What the core and debugfs call in place of the daemon's modem. */
	struct smodem_modem proxy;
	struct miscdevice misc;
	char name[24];

	struct smodem_usr_area *area;	/* vmalloc_user(), mapped */
	size_t size;
	u32 max_frames;
	s16 *rx, *tx, *fill;		/* in the area */

	/* Against the interrupt: who owns sw_pos, whom to wake. */
	raw_spinlock_t lock;
	bool attached;
	bool dead;
	bool polled;
	bool kicked;
	bool stalled;			/* stall_work queued for this daemon */
	u32 gen;			/* the attach in place (attaches) */
	u32 stall_gen;			/* the attach stall_work is for */
	u64 last_ns;			/* its last WAIT or DONE */
	u64 owed_ns;			/* the first kick after its last answer */
	u64 missed;			/* periods nobody processed */
	struct swait_queue_head wait;	/* SMODEM_USR_WAIT */
	wait_queue_head_t pollq;	/* poll(), woken by poll_work */
	struct irq_work poll_work;
	struct work_struct stall_work;

	/* The daemon's side: one system call at a time. */
	struct mutex io;
	bool open;
	bool revoked;			/* detached as stalled: -EPIPE */
	bool busy;			/* a period is handed out */
	bool idle;			/* its last look found no period */
	struct smodem_upcall up;
	u64 t_wake;
	u64 age;			/* the interrupt's at t_wake (0: none) */
	u32 tx_len;			/* bytes for the line in the area */
	u32 rx_room;
	bool call_open;			/* a call the daemon was told about */
	u32 call_id;
	bool ring_on;
	struct pid *pid;		/* the thread that last waited */
	u32 attaches;
	u32 lead0;			/* the device's output lead at start */
	u64 detaches;
	u64 upcalls;
	u64 stalls;
	u64 bad[USR_BAD_N];		/* fields refused, by reason */
};

static void count_bad(struct usr *u, enum usr_bad why)
{
	WRITE_ONCE(u->bad[why], u->bad[why] + 1);
}

static void usr_release_ref(struct kref *ref)
{
	struct usr *u = container_of(ref, struct usr, ref);

	put_pid(u->pid);
	vfree(u->area);
	kfree(u);
}

static void usr_put(struct usr *u)
{
	kref_put(&u->ref, usr_release_ref);
}

/* -- the interrupt ---------------------------------------------------------- */

/* Detached: whole periods pass unprocessed, the position stays current. */
static void usr_skip(struct usr *u)
{
	struct smodem_dev *sd = u->sd;
	u32 n = READ_ONCE(sd->period);
	u64 hw = smodem_hw_position(sd);
	u64 k;

	if (hw <= sd->sw_pos + n - 1)
		return;
	k = div_u64(hw - sd->sw_pos, n);
	WRITE_ONCE(sd->sw_pos, sd->sw_pos + k * n);
	u->missed += k;
}

/*
 * A DTE's dial, answer or fax operation without a daemon: refused as a
 * failed call (a fax operation would otherwise wait for ever).
 */
static void usr_refuse(struct smodem_dev *sd)
{
	struct smodem_cmd cmd;

	smodem_link_take(sd, &cmd);
	if (cmd.what & (SMODEM_CMD_CALL | SMODEM_CMD_FAX))
		smodem_link_result(sd, cmd.id, AT_RC_NO_CARRIER);
}

/*
 * Stalled: the first interrupt it did not answer (no WAIT or DONE since)
 * is more than SMODEM_USR_STALL_MS old.  Counted from that interrupt, not
 * from its last answer: a daemon asleep in WAIT while the engine stood
 * (halted, restarted by the watchdog) owed nothing meanwhile.  Under the
 * lock.
 */
static bool usr_owes(struct usr *u, u64 now)
{
	u64 last = READ_ONCE(u->last_ns);

	/* signed: a DONE on another CPU may stamp a later time than now */
	if (!u->owed_ns || (s64)(last - u->owed_ns) >= 0)
		u->owed_ns = now;
	return smodem_usr_stalled(now, u->owed_ns,
				  (u64)SMODEM_USR_STALL_MS * NSEC_PER_MSEC);
}

static void usr_kick(struct smodem_dev *sd)
{
	struct usr *u = sd->ctx_priv;
	unsigned long flags;
	bool wake, stall = false;

	raw_spin_lock_irqsave(&u->lock, flags);
	wake = u->attached;
	if (wake) {
		WRITE_ONCE(u->kicked, true);
		stall = !u->stalled && usr_owes(u, ktime_get_ns());
		if (stall) {
			u->stalled = true;
			u->stall_gen = u->gen;
		}
	} else {
		usr_skip(u);
	}
	raw_spin_unlock_irqrestore(&u->lock, flags);
	if (stall)
		queue_work(system_highpri_wq, &u->stall_work);
	if (!wake) {
		if (sd->p.engine)
			usr_refuse(sd);
		return;
	}
	swake_up_one(&u->wait);
	if (READ_ONCE(u->polled))
		irq_work_queue(&u->poll_work);
}

static void usr_poll_work(struct irq_work *w)
{
	wake_up_interruptible(&container_of(w, struct usr, poll_work)->pollq);
}

/* -- one period --------------------------------------------------------------- */

static void usr_bytes_in(struct usr *u, const struct smodem_cmd *cmd)
{
	struct smodem_dev *sd = u->sd;
	struct smodem_usr_area *a = u->area;

	if (cmd->what) {
		/* What the DTE wrote for the old call is not the new one's. */
		u->tx_len = 0;
		/* Every command is a new id, a fax operation's too. */
		u->call_id = cmd->id;
		if (cmd->what & SMODEM_CMD_HANGUP)
			u->call_open = false;
		if (cmd->what & SMODEM_CMD_CALL)
			u->call_open = true;
	}
	u->tx_len += smodem_link_tx_get(sd, a->tx_bytes + u->tx_len,
					SMODEM_USR_TX_BYTES - u->tx_len);
	u->rx_room = min_t(u32, smodem_link_rx_room(sd), SMODEM_USR_RX_BYTES);
}

/* The daemon's thread, for the stats file (set from the thread itself). */
static void usr_set_pid(struct usr *u)
{
	struct pid *old, *pid = get_pid(task_pid(current));
	unsigned long flags;

	raw_spin_lock_irqsave(&u->lock, flags);
	old = u->pid;
	u->pid = pid;
	raw_spin_unlock_irqrestore(&u->lock, flags);
	put_pid(old);
}

static int usr_wait(struct usr *u, bool nonblock)
{
	struct smodem_dev *sd = u->sd;
	struct smodem_usr_area *a = u->area;
	struct smodem_cmd cmd;
	u64 age;
	int err;

	if (u->busy)
		return -EBUSY;		/* SMODEM_USR_DONE first */
	for (;;) {
		/*
		 * Spun on (O_NONBLOCK), the hardware is read again only once
		 * the interrupt said a period completed since the last look.
		 */
		if (nonblock && u->idle && !READ_ONCE(u->kicked))
			return -EAGAIN;
		WRITE_ONCE(u->kicked, false);
		u->idle = !smodem_period_take(sd, u->rx, &u->up);
		if (!u->idle)
			break;
		if (nonblock)
			return -EAGAIN;
		err = swait_event_interruptible_exclusive(u->wait,
							  READ_ONCE(u->kicked) ||
							  !READ_ONCE(u->attached));
		if (err)
			return err;
		if (READ_ONCE(u->dead))
			return -ENODEV;
		if (!READ_ONCE(u->attached))
			return -EPIPE;
	}
	u->t_wake = u->up.t0;
	WRITE_ONCE(u->last_ns, u->t_wake);
	age = smodem_take_irq_age(sd, u->t_wake);
	u->age = age;
	smodem_stat_add(&sd->stats.wake_ns, age);
	trace_smodem_thread_wakeup(sd, age);
	if (unlikely(READ_ONCE(u->pid) != task_pid(current)))
		usr_set_pid(u);

	/* To user space: its padding too is zero, not the stack's. */
	memset(&cmd, 0, sizeof(cmd));
	if (sd->p.engine) {
		smodem_link_take(sd, &cmd);
		usr_bytes_in(u, &cmd);
	}
	memcpy(&a->cmd, &cmd, sizeof(cmd));
	a->seq = ++u->upcalls;
	a->pos = u->up.pos;
	a->n = u->up.n;
	a->gap = u->up.gap.grew;
	a->gap_len = u->up.gap.len;
	a->gap_late = u->up.gap.late;
	a->lead = u->up.gap.lead;
	a->tx_len = u->tx_len;
	a->tx_used = 0;
	a->rx_room = u->rx_room;
	a->rx_len = 0;
	a->next = u->up.n;
	a->nrep = 0;
	u->busy = true;
	return 0;
}

static bool result_ok(u32 rc)
{
	switch (rc) {
	case AT_RC_OK:
	case AT_RC_NO_CARRIER:
	case AT_RC_ERROR:
	case AT_RC_NO_DIALTONE:
	case AT_RC_BUSY:
	case AT_RC_NO_ANSWER:
		return true;
	default:
		/* Class 1's reports on its operations */
		return at_rc_fax(rc);
	}
}

/* The data rates of the V-series pumps a CONNECT may name. */
static bool rate_ok(u32 rate)
{
	switch (rate) {
	case 300:
	case 600:
	case 1200:
	case 2400:
	case 4800:
	case 7200:
	case 9600:
	case 12000:
	case 14400:
		return true;
	case 16800:
	case 19200:
	case 21600:
	case 24000:
	case 26400:
	case 28800:
	case 31200:
	case 33600:
		/* V.34's */
		return true;
	default:
		return false;
	}
}

/*
 * A phase the smodem_phase event knows, with the argument the modem gives
 * it (smodem_modem.c: the data engine's, then Class 1's): the trace is
 * what the studies' tools read, and a forged CONNECTED or a phase number
 * no modem has would be taken for the modem's.
 */
static bool phase_ok(u32 phase, u32 arg)
{
	if (phase >= SMODEM_PHASE_FAX_ON_HOOK &&
	    phase <= SMODEM_PHASE_FAX_RX_SILENCE)
		return !arg || smdsp_faxmodem_mod_valid(arg);
	switch (phase) {
	case SMDSP_PHASE_CONNECTED:
		return rate_ok(arg);
	case SMDSP_PHASE_HUNGUP:
		return arg <= SMDSP_CAUSE_V42_RELEASED;
	case SMDSP_PHASE_ANSWER_TONE:
		return arg <= SMDSP_ANS_ANSAM_PR;
	case SMDSP_PHASE_ONHOOK:
	case SMDSP_PHASE_OFFHOOK:
	case SMDSP_PHASE_DIALING:
	case SMDSP_PHASE_WAITING:
	case SMDSP_PHASE_V8:
	case SMDSP_PHASE_PROBING:
	case SMDSP_PHASE_TRAINING:
	case SMDSP_PHASE_RETRAIN:
	case SMDSP_PHASE_CARRIER_LOST:
		return !arg;
	default:
		return false;
	}
}

/* One of the daemon's reports to the link, as smodem_modem.c made it. */
static void usr_report(struct usr *u, const struct smodem_usr_report *r)
{
	struct smodem_dev *sd = u->sd;

	switch (r->type) {
	case SMODEM_USR_CONNECTED:
		if (!rate_ok(r->a)) {
			count_bad(u, USR_BAD_RATE);
			break;
		}
		smodem_link_connected(sd, r->id, r->a, r->b);
		break;
	case SMODEM_USR_RESULT:
		if (!result_ok(r->a)) {
			count_bad(u, USR_BAD_RESULT);
			break;
		}
		if (r->id == u->call_id && r->a != AT_RC_OK && !at_rc_fax(r->a))
			u->call_open = false;
		smodem_link_result(sd, r->id, r->a);
		break;
	case SMODEM_USR_RING:
		u->ring_on = r->a != 0;
		smodem_link_ring(sd, u->ring_on);
		break;
	case SMODEM_USR_PHASE:
		if (!phase_ok(r->a, r->b)) {
			count_bad(u, USR_BAD_PHASE);
			break;
		}
		trace_smodem_phase(sd, r->a, r->b);
		smodem_hook_phase(sd, r->a);
		break;
	default:
		count_bad(u, USR_BAD_TYPE);
		break;
	}
}

/* Every field the daemon wrote is read once and checked. */
static int usr_done(struct usr *u)
{
	struct smodem_dev *sd = u->sd;
	struct smodem_usr_area *a = u->area;
	struct smodem_usr_report r;
	u32 used, len, nrep, next, i;
	u64 t1;

	if (!u->busy)
		return -EINVAL;		/* nothing handed out */
	if (sd->p.engine) {
		used = READ_ONCE(a->tx_used);
		if (used > u->tx_len) {
			count_bad(u, USR_BAD_TX_USED);
			used = u->tx_len;
		}
		u->tx_len -= used;
		memmove(a->tx_bytes, a->tx_bytes + used, u->tx_len);
		/* The modem's order: bytes from the line, then its reports. */
		len = READ_ONCE(a->rx_len);
		if (len > u->rx_room) {
			count_bad(u, USR_BAD_RX_LEN);
			len = u->rx_room;
		}
		if (len)
			smodem_link_rx(sd, a->rx_bytes, len);
		nrep = READ_ONCE(a->nrep);
		if (nrep > SMODEM_USR_REPORTS) {
			count_bad(u, USR_BAD_NREP);
			nrep = SMODEM_USR_REPORTS;
		}
		for (i = 0; i < nrep; i++) {
			memcpy(&r, &a->rep[i], sizeof(r));
			usr_report(u, &r);
		}
	}
	next = READ_ONCE(a->next);
	if (next < SMODEM_PERIOD_MIN || next > u->max_frames) {
		count_bad(u, USR_BAD_NEXT);
		next = u->up.n;
	}
	smodem_period_put(sd, &u->up, u->fill, u->tx, u->rx, next);
	u->busy = false;
	t1 = ktime_get_ns();
	WRITE_ONCE(u->last_ns, t1);
	sd->stats.runs++;
	smodem_stat_add(&sd->stats.thr_ns, t1 - u->t_wake);
	if (u->age)
		smodem_stat_add(&sd->stats.resp_ns, u->age + t1 - u->t_wake);
	trace_smodem_thread_done(sd, t1 - u->t_wake, 1);
	return 0;
}

/* The header: the area's layout, which the daemon reads and may not set. */
static void usr_area_init(struct usr *u)
{
	struct smodem_dev *sd = u->sd;
	struct smodem_usr_area *a = u->area;
	size_t hdr = ALIGN(sizeof(struct smodem_usr_area), 64);
	size_t samples = u->max_frames * sizeof(s16);

	a->magic = SMODEM_USR_MAGIC;
	a->version = SMODEM_USR_VERSION;
	a->size = u->size;
	a->area_size = sizeof(*a);
	a->cmd_size = sizeof(struct smodem_cmd);
	a->dev_id = sd->id;
	a->rate = sd->p.rate;
	a->ring = sd->p.ring;
	a->max_frames = u->max_frames;
	a->fill_frames = sd->p.ring;
	a->flags = (sd->p.engine ? SMODEM_USR_F_CALLS : 0) |
		   (sd->p.phase_periods ? SMODEM_USR_F_PHASE : 0);
	a->rx_off = hdr;
	a->tx_off = hdr + samples;
	a->fill_off = hdr + 2 * samples;
	u->rx = (s16 *)((u8 *)a + a->rx_off);
	u->tx = (s16 *)((u8 *)a + a->tx_off);
	u->fill = (s16 *)((u8 *)a + a->fill_off);
}

/* -- the device ----------------------------------------------------------- */

static int usr_open(struct inode *ino, struct file *f)
{
	struct usr *u = container_of(f->private_data, struct usr, misc);
	unsigned long flags;
	int err = 0;

	if (mutex_lock_interruptible(&u->io))
		return -ERESTARTSYS;
	if (u->dead) {
		err = -ENODEV;
	} else if (u->open) {
		err = -EBUSY;		/* one daemon per modem */
	} else {
		u->open = true;
		u->revoked = false;
		u->busy = false;
		u->idle = false;
		u->tx_len = 0;
		u->call_open = false;
		u->ring_on = false;
		/*
		 * Nothing of the last daemon's (possibly another user's): its
		 * call's bytes, reports, audio and stats lines, and not the
		 * header it could write over either (its sizes and offsets
		 * tell the next daemon where to read).  Nobody maps the area
		 * now: a mapping holds the file open.
		 */
		memset(u->area, 0, u->size);
		usr_area_init(u);
		u->area->attach = ++u->attaches;
		kref_get(&u->ref);
		f->private_data = u;
		/* From the next interrupt on, the daemon owns sw_pos. */
		raw_spin_lock_irqsave(&u->lock, flags);
		u->last_ns = ktime_get_ns();
		u->owed_ns = 0;
		u->stalled = false;
		u->gen = u->attaches;
		u->attached = true;
		raw_spin_unlock_irqrestore(&u->lock, flags);
	}
	mutex_unlock(&u->io);
	if (!err)
		err = nonseekable_open(ino, f);
	return err;
}

/*
 * The daemon is gone: the line goes quiet (no hook current, no signal), a
 * ring or a call it had ends at the tty (NO CARRIER, DCD off: a state of
 * the link, which no full queue or stale id can lose), the interrupt keeps
 * the position current again, and nothing the daemon chose outlives it:
 * the period is the one loaded, the output lead the one at start (its
 * lateness, which grew it, was its own).
 */
static void usr_detach(struct usr *u)
{
	struct smodem_dev *sd = u->sd;
	unsigned long flags;

	raw_spin_lock_irqsave(&u->lock, flags);
	u->attached = false;
	if (u->busy)
		u->missed++;
	raw_spin_unlock_irqrestore(&u->lock, flags);
	/*
	 * No interrupt wakes it from now on: a thread of the daemon's
	 * polling (for POLLERR only, say) hears of it now, not never.
	 */
	swake_up_all(&u->wait);
	wake_up_interruptible(&u->pollq);
	u->busy = false;
	memset(sd->tx_ring, 0, sd->p.ring * 2 * sizeof(*sd->tx_ring));
	if (u->call_open) {
		trace_smodem_phase(sd, SMDSP_PHASE_HUNGUP, SMDSP_CAUSE_LOCAL);
		trace_smodem_phase(sd, SMDSP_PHASE_ONHOOK, 0);
	}
	smodem_link_gone(sd);
	/* Nobody takes a period now: the lead is free to move back. */
	smodem_set_period(sd, sd->p.period);
	WRITE_ONCE(sd->tx_lead, u->lead0);
	sd->stats.tx_delay_max = 0;
	sd->lead_seen.delay = 0;
	sd->lead_seen.late = 0;
	sd->lead_seen.late_hook = 0;
	sd->hook = 0;
	u->call_open = false;
	u->ring_on = false;
	u->detaches++;
}

static int usr_release(struct inode *ino, struct file *f)
{
	struct usr *u = f->private_data;

	mutex_lock(&u->io);
	if (!u->dead && !u->revoked)
		usr_detach(u);
	u->open = false;
	mutex_unlock(&u->io);
	usr_put(u);
	return 0;
}

/* The daemon stopped answering: detached as if it had gone. */
static void usr_stall_work(struct work_struct *w)
{
	struct usr *u = container_of(w, struct usr, stall_work);
	unsigned long flags;
	u32 gen;

	raw_spin_lock_irqsave(&u->lock, flags);
	gen = u->stall_gen;
	raw_spin_unlock_irqrestore(&u->lock, flags);
	mutex_lock(&u->io);
	/* Only the daemon that stalled: not one attached since. */
	if (!u->dead && u->open && !u->revoked && gen == u->attaches) {
		usr_detach(u);
		u->revoked = true;
		u->stalls++;
	}
	mutex_unlock(&u->io);
}

static long usr_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct usr *u = f->private_data;
	bool nonblock = f->f_flags & O_NONBLOCK;
	long err;

	/*
	 * Held by another of its threads until the next period, which may be
	 * long (next = max_frames): a signal ends the wait for it.
	 */
	if (mutex_lock_interruptible(&u->io))
		return -ERESTARTSYS;
	if (u->dead) {
		err = -ENODEV;
	} else if (u->revoked) {
		err = -EPIPE;		/* detached as stalled: reopen */
	} else {
		switch (cmd) {
		case SMODEM_USR_WAIT:
			err = usr_wait(u, nonblock);
			break;
		case SMODEM_USR_DONE:
			err = usr_done(u);
			break;
		case SMODEM_USR_DONE_WAIT:
			err = usr_done(u);
			if (!err)
				err = usr_wait(u, nonblock);
			/* Done is done: a restart would do it twice. */
			if (err == -ERESTARTSYS)
				err = -EINTR;
			break;
		default:
			err = -ENOTTY;
			break;
		}
	}
	mutex_unlock(&u->io);
	return err;
}

static __poll_t usr_poll(struct file *f, poll_table *pt)
{
	struct usr *u = f->private_data;
	struct smodem_dev *sd;
	unsigned long flags;
	__poll_t mask = 0;
	u64 hw;

	poll_wait(f, &u->pollq, pt);
	raw_spin_lock_irqsave(&u->lock, flags);
	WRITE_ONCE(u->polled, true);
	sd = u->sd;
	if (!u->attached) {
		/*
		 * Gone (the module) or detached as stalled: no period will
		 * come, WAIT fails (-ENODEV, -EPIPE), and no interrupt wakes a
		 * poller again, so it must not sleep.
		 */
		mask = EPOLLERR | EPOLLHUP;
	} else {
		/*
		 * Where the last interrupt found the hardware, not the
		 * hardware itself (a poll() in a loop would read it with
		 * interrupts off): a period completes with an interrupt,
		 * whose kick wakes the poller again.
		 */
		hw = READ_ONCE(sd->irq_pos);
		if (hw >= READ_ONCE(sd->sw_pos) + READ_ONCE(sd->period))
			mask = EPOLLIN | EPOLLRDNORM;
	}
	raw_spin_unlock_irqrestore(&u->lock, flags);
	return mask;
}

static int usr_mmap(struct file *f, struct vm_area_struct *vma)
{
	struct usr *u = f->private_data;

	if (vma->vm_pgoff)
		return -EINVAL;
	return remap_vmalloc_range(vma, u->area, 0);
}

static const struct file_operations usr_fops = {
	.owner = THIS_MODULE,
	.open = usr_open,
	.release = usr_release,
	.unlocked_ioctl = usr_ioctl,
	.compat_ioctl = usr_ioctl,
	.poll = usr_poll,
	.mmap = usr_mmap,
};

/* -- the modem the core sees ------------------------------------------------ */

/* The core never runs the modem of context=usr: the daemon does. */
static u32 proxy_period(struct smodem_modem *m, const s16 *rx, s16 *tx, u32 n)
{
	memset(tx, 0, n * sizeof(*tx));
	return n;
}

static void proxy_gap(struct smodem_modem *m, u32 len, u32 late)
{
}

static void proxy_fill(struct smodem_modem *m, s16 *tx, u32 n)
{
	memset(tx, 0, n * sizeof(*tx));
}

/* One of the modem's own lines, newline excluded: engine_*, printable. */
static bool show_line_ok(const char *s, size_t n)
{
	static const char pfx[] = "engine_";
	size_t i;

	if (n < sizeof(pfx) || memcmp(s, pfx, sizeof(pfx) - 1))
		return false;
	for (i = sizeof(pfx) - 1; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

/*
 * The daemon's modem's own lines, as it last rendered them; those of the
 * last daemon until another attaches, none before the first.  Text from
 * user space, copied, then bounded and checked: only whole engine_* lines
 * of printable characters (a daemon printing "overruns 0" is not the
 * kernel's count); torn only if the daemon rewrote this very buffer while
 * it is copied, two refreshes (tens of periods) after naming it.
 */
static void proxy_show(struct smodem_modem *m, struct seq_file *sf)
{
	struct usr *u = container_of(m, struct usr, proxy);
	struct smodem_usr_area *a = u->area;
	u32 i = READ_ONCE(a->show_cur) & 1;
	u32 len = min_t(u32, READ_ONCE(a->show_len[i]), SMODEM_USR_SHOW_BYTES);
	char *buf, *p, *end, *nl;

	buf = kmalloc(SMODEM_USR_SHOW_BYTES, GFP_KERNEL);
	if (!buf)
		return;
	memcpy(buf, a->show[i], len);
	end = buf + len;
	/* A tail without a newline is no line. */
	for (p = buf; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			break;
		if (show_line_ok(p, nl - p))
			seq_write(sf, p, nl - p + 1);
	}
	kfree(buf);
}

static void proxy_free(struct smodem_modem *m)
{
}

static const struct smodem_modem_ops proxy_ops = {
	.period = proxy_period,
	.gap = proxy_gap,
	.fill = proxy_fill,
	.show = proxy_show,
	.free = proxy_free,
};

/* -- the context ------------------------------------------------------------ */

static int usr_start(struct smodem_dev *sd)
{
	size_t hdr = ALIGN(sizeof(struct smodem_usr_area), 64);
	struct usr *u;
	int err;

	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u)
		return -ENOMEM;
	kref_init(&u->ref);
	u->sd = sd;
	u->max_frames = sd->p.ring / 2;
	u->size = PAGE_ALIGN(hdr + (2 * u->max_frames + sd->p.ring) *
			     sizeof(s16));
	u->area = vmalloc_user(u->size);
	if (!u->area) {
		kfree(u);
		return -ENOMEM;
	}
	usr_area_init(u);
	u->lead0 = sd->tx_lead;
	raw_spin_lock_init(&u->lock);
	init_swait_queue_head(&u->wait);
	init_waitqueue_head(&u->pollq);
	init_irq_work(&u->poll_work, usr_poll_work);
	INIT_WORK(&u->stall_work, usr_stall_work);
	mutex_init(&u->io);
	u->proxy.ops = &proxy_ops;

	snprintf(u->name, sizeof(u->name), "smodem%u", sd->id);
	u->misc.minor = MISC_DYNAMIC_MINOR;
	u->misc.name = u->name;
	u->misc.fops = &usr_fops;
	u->misc.mode = sd->p.usr_mode;
	sd->ctx_priv = u;
	sd->modem = &u->proxy;
	/* Last: from here on a daemon may open it. */
	err = misc_register(&u->misc);
	if (err) {
		sd->modem = NULL;
		sd->ctx_priv = NULL;
		usr_put(u);
		return err;
	}
	return 0;
}

static void usr_stop(struct smodem_dev *sd)
{
	struct usr *u = sd->ctx_priv;
	unsigned long flags;

	/* No new daemon; the one attached gets -ENODEV from now on. */
	misc_deregister(&u->misc);
	raw_spin_lock_irqsave(&u->lock, flags);
	u->dead = true;
	u->attached = false;
	raw_spin_unlock_irqrestore(&u->lock, flags);
	swake_up_all(&u->wait);
	wake_up_interruptible(&u->pollq);
	irq_work_sync(&u->poll_work);
	/* No interrupt queues it again: the hardware has stopped. */
	cancel_work_sync(&u->stall_work);
	/* Its system call in progress, if any, has returned. */
	mutex_lock(&u->io);
	u->sd = NULL;
	mutex_unlock(&u->io);
	sd->modem = NULL;
	sd->ctx_priv = NULL;
	usr_put(u);
}

static void usr_show(struct smodem_dev *sd, struct seq_file *m)
{
	struct usr *u = sd->ctx_priv;
	struct task_struct *t = NULL;
	struct pid *pid;
	unsigned long flags;
	u64 missed, bad[USR_BAD_N], sum = 0;
	bool attached;
	int i;

	raw_spin_lock_irqsave(&u->lock, flags);
	attached = u->attached;
	missed = u->missed;
	pid = attached ? get_pid(u->pid) : NULL;
	raw_spin_unlock_irqrestore(&u->lock, flags);
	seq_puts(m, "exec usr\n");
	seq_printf(m, "usr_device /dev/%s\n", u->name);
	seq_printf(m, "usr_attached %d\n", attached);
	seq_printf(m, "usr_attaches %u\n", READ_ONCE(u->attaches));
	seq_printf(m, "usr_detaches %llu\n", READ_ONCE(u->detaches));
	seq_printf(m, "usr_upcalls %llu\n", READ_ONCE(u->upcalls));
	seq_printf(m, "usr_missed %llu\n", missed);
	seq_printf(m, "usr_stalls %llu\n", READ_ONCE(u->stalls));
	for (i = 0; i < USR_BAD_N; i++) {
		bad[i] = READ_ONCE(u->bad[i]);
		sum += bad[i];
	}
	seq_printf(m, "usr_bad %llu\n", sum);
	for (i = 0; i < USR_BAD_N; i++)
		seq_printf(m, "usr_bad_%s %llu\n", usr_bad_names[i], bad[i]);
	/* The daemon thread's scheduling, as the kernel threads' is shown. */
	if (pid)
		t = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (t) {
		seq_printf(m, "usr_pid %d\n", task_pid_nr(t));
		smodem_sched_show(m, t);
		put_task_struct(t);
	}
}

const struct smodem_ctx_ops smodem_ctx_usr = {
	.name = "usr",
	.start = usr_start,
	.stop = usr_stop,
	.kick = usr_kick,
	.show = usr_show,
};
