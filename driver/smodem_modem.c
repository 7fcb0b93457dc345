// SPDX-License-Identifier: GPL-2.0
/*
 * The modem behind /dev/ttySM<n> (smodem_modem.h): the data pump with its
 * call control, or the pump alone.
 *
 * Call control: the tty leaves commands (dial, answer, hang up) in the
 * link and the modem takes them before its next period, in whatever
 * context the processing runs (hard IRQ, BH or a thread), where nothing
 * else touches the pump; its reports go back through the link, stamped
 * with the id of the call they belong to.
 *
 * Hook signalling: an audio path (AC'97 through QEMU, JACK) carries no
 * loop current, so while the modem is off hook a DC offset of
 * SMODEM_HOOK_DC is added to every transmitted sample.  tools/line's
 * smline closes its loop above --hook-threshold (1024 by default) and
 * opens it after --hangup-ms of the offset gone; see tools/line/README.md.
 *
 * Class 1 (T.31): with +FCLASS=1 a call (ATD, ATA) and the fax commands
 * run on the fax pump (dsp/faxmodem.c behind the DCE's DTE side,
 * dsp/faxdte.c) instead of the data engine, both allocated at create; the
 * period is one call to whichever runs.  The DTE's bytes go to the fax
 * side as they are (DLE shielded), its bytes back the same way, and its
 * results travel as AT_RC_FAX_* results after the bytes they follow.
 *
 * The same source runs in smodemd for context=usr (tools/smodemd), whose
 * link carries the commands, bytes, reports and phases in the shared area
 * (driver/smodem_usr.h): one call control for every context.  What the
 * modem asks of the world is its link's (struct smodem_link_ops); what
 * differs in the language between the two sides is smodem_compat.h's.
 */
#include "smodem_compat.h"
#include <smdsp/pump.h>
#include <smdsp/modem.h>
#include <smdsp/faxdte.h>
#include "smodem_call.h"
#include "smodem_link.h"
#include "smodem_modem.h"

/* Well above smline's default threshold, far below clipping the signal. */
#define SMODEM_HOOK_DC		4096
/*
 * The modem reports the start of a ring burst only; RI drops this long
 * after it (the shortest common burst, 0.4 s twice, is covered, and the
 * 2 s of the usual cadence mostly so).
 */
#define SMODEM_RING_ON_MS	1500
/* Bytes moved per chunk between the link and the modem. */
#define SMODEM_BYTES_CHUNK	256
/* Class 1: the period, frames (12.5 ms), with phase_periods */
#define SMODEM_FAX_PERIOD	100

enum call_role { ROLE_NONE, ROLE_DIAL, ROLE_ANSWER };

/* What the stats file shows: the last call's, and totals since load. */
struct call_stats {
	u32 phase;			/* enum smdsp_modem_phase */
	u32 role;			/* enum call_role */
	u32 flags;			/* SMDSP_MODEM_FLAG_* configured */
	u32 modulations;		/* SMDSP_MODEM_V* configured */
	bool ec_required;		/* \N2, \N4: no LAPM, no call */
	bool v42bis_required;		/* +DS=,1: no V.42bis, no call */
	u32 rate;			/* bit/s when it connected, 0: never */
	u32 retrains;
	u64 tx_bytes;			/* DTE bytes given to the modem */
	u64 rx_bytes;			/* and taken from it */
	u64 calls;
	u64 connects;
	/* Output lead growths since load, frames filled and lost in them. */
	u64 tx_gaps;
	u64 tx_gap_filled;
	u64 tx_gap_late;
	struct smdsp_modem_stats dsp;
	/* Class 1 */
	bool fax_on;
	u32 fax_phase;			/* SMODEM_PHASE_FAX_* */
	struct smdsp_faxmodem_stats fax;
};

/* The pump alone: no call control (engine=0, or a rate it does not run). */
struct pump_modem {
	struct smodem_modem base;
	struct smdsp_pump *pump;
};

struct call_modem {
	struct smodem_modem base;
	struct smodem_link *link;
	struct smdsp_pump *pump;
	struct smdsp_modem *m;		/* the pump's */
	bool phase_periods;

	u32 id;				/* the call running, for its reports */
	struct smodem_cmd cmd;		/* the last command taken */
	bool stay;			/* ';': report OK once dialled */
	bool connected;			/* CONNECT reported */
	/*
	 * Connected with V.42 configured: CONNECT waits for the error
	 * control to be settled, as a V.42 modem's always did, so that \N2
	 * and \N4 can still refuse a peer without LAPM.
	 */
	bool ec_wait;
	bool dirty;			/* the stats file is behind */
	u32 ring_left;			/* samples until RI drops, 0: off */
	u8 buf[SMODEM_BYTES_CHUNK];
	struct call_stats cur;

	/* Class 1: the fax pump and its DTE side, instead of the engine */
	struct smdsp_faxmodem *fax;
	struct smdsp_faxdte *fdte;
	bool fax_on;
	bool fax_setup;			/* ATD/ATA in class 1: no CONNECT yet */
	u32 fax_phase;			/* the last one traced */

	/*
	 * A copy of cur for debugfs, refreshed by the processing context:
	 * the modem itself must not be read while it runs, and that may be
	 * in hard IRQ context, so the reader only ever copies this.
	 */
	raw_spinlock_t pub_lock;
	struct call_stats pub;
};

static const char *const phase_names[] = {
	[SMDSP_PHASE_ONHOOK] = "on-hook",
	[SMDSP_PHASE_OFFHOOK] = "off-hook",
	[SMDSP_PHASE_DIALING] = "dialing",
	[SMDSP_PHASE_WAITING] = "waiting",
	[SMDSP_PHASE_ANSWER_TONE] = "answer-tone",
	[SMDSP_PHASE_V8] = "v8",
	[SMDSP_PHASE_TRAINING] = "training",
	[SMDSP_PHASE_CONNECTED] = "connected",
	[SMDSP_PHASE_RETRAIN] = "retrain",
	[SMDSP_PHASE_CARRIER_LOST] = "carrier-lost",
	[SMDSP_PHASE_HUNGUP] = "hung-up",
	[SMDSP_PHASE_PROBING] = "probing",
};

static const char *name_of(const char *const *names, size_t n, u32 i)
{
	return i < n && names[i] ? names[i] : "unknown";
}

/* A result for the DTE, of the call running. */
static void call_result(struct call_modem *cm, enum at_result rc)
{
	cm->link->ops->result(cm->link, cm->id, rc);
}

/* -- the pump alone --------------------------------------------------------- */

static u32 pump_period(struct smodem_modem *base, const s16 *rx, s16 *tx,
		       u32 n)
{
	struct pump_modem *pm = container_of(base, struct pump_modem, base);

	smdsp_pump_process(pm->pump, rx, tx, n);
	return n;
}

static void pump_gap(struct smodem_modem *base, u32 len, u32 late)
{
}

/* On hook, or a pass-through: its continuation is silence. */
static void pump_fill(struct smodem_modem *base, s16 *tx, u32 n)
{
	memset(tx, 0, n * sizeof(*tx));
}

static void pump_show(struct smodem_modem *base, struct seq_file *sf)
{
}

static void pump_free(struct smodem_modem *base)
{
	struct pump_modem *pm = container_of(base, struct pump_modem, base);

	smdsp_pump_free(pm->pump);
	kfree(pm);
}

static const struct smodem_modem_ops pump_ops = {
	.period = pump_period,
	.gap = pump_gap,
	.fill = pump_fill,
	.show = pump_show,
	.free = pump_free,
};

/* -- call control: commands ------------------------------------------------- */

static void start_call(struct call_modem *cm)
{
	const struct at_call *c = &cm->cmd.call;
	bool answer = cm->cmd.answer;
	struct smdsp_modem_config cfg;
	char digits[AT_DIAL_MAX + 1];
	int err;

	smodem_call_config(c, answer, cm->base.lead, &cfg);
	err = smdsp_modem_configure(cm->m, &cfg);
	cm->connected = false;
	cm->ec_wait = false;
	cm->stay = !answer && c->stay_command;

	/* A new call: its figures start from zero, the totals go on. */
	cm->cur.role = answer ? ROLE_ANSWER : ROLE_DIAL;
	cm->cur.flags = cfg.flags;
	cm->cur.modulations = cfg.modulations;
	cm->cur.ec_required = smodem_call_ec_required(c->ec);
	cm->cur.v42bis_required = c->v42bis_required && c->v42bis_dirs;
	cm->cur.rate = 0;
	cm->cur.retrains = 0;
	cm->cur.tx_bytes = 0;
	cm->cur.rx_bytes = 0;
	cm->cur.calls++;

	if (!err && answer) {
		err = smdsp_modem_answer(cm->m);
	} else if (!err) {
		smodem_call_digits(digits, sizeof(digits), c->number,
				   c->comma_s != 0);
		err = smdsp_modem_dial(cm->m, digits);
	}
	if (err)
		call_result(cm, AT_RC_NO_CARRIER);
}

/* -- Class 1 -------------------------------------------------------------- */

static void fax_off(struct call_modem *cm)
{
	if (!cm->fax_on)
		return;
	smdsp_faxdte_hangup(cm->fdte);
	cm->fax_on = false;
	cm->fax_setup = false;
}

/* The fax pump takes over the line: the data engine goes on hook. */
static void fax_on(struct call_modem *cm)
{
	if (cm->fax_on)
		return;
	if (smdsp_modem_offhook(cm->m))
		smdsp_modem_hangup(cm->m);
	cm->fax_on = true;
	cm->dirty = true;
}

static void start_fax_call(struct call_modem *cm)
{
	const struct at_call *c = &cm->cmd.call;
	char digits[AT_DIAL_MAX + 1];
	int err;

	fax_on(cm);
	cm->fax_setup = true;
	cm->connected = false;
	cm->cur.role = cm->cmd.answer ? ROLE_ANSWER : ROLE_DIAL;
	cm->cur.flags = 0;
	cm->cur.modulations = 0;
	cm->cur.rate = 0;
	cm->cur.tx_bytes = 0;
	cm->cur.rx_bytes = 0;
	cm->cur.calls++;
	if (cm->cmd.answer) {
		err = smdsp_faxdte_command(cm->fdte, SMDSP_FAXDTE_ANSWER, 0);
	} else {
		smodem_call_digits(digits, sizeof(digits), c->number,
				   c->comma_s != 0);
		err = smdsp_faxdte_call(cm->fdte, digits,
					c->carrier_wait_s * 1000);
	}
	if (err) {
		fax_off(cm);
		call_result(cm, AT_RC_NO_CARRIER);
	}
}

static void fax_command(struct call_modem *cm)
{
	enum smdsp_faxdte_op op = smodem_fax_op(cm->cmd.fax_op);

	fax_on(cm);
	/* an abort of what already ended (or never started): its OK */
	if (op == SMDSP_FAXDTE_ABORT && smdsp_faxdte_done(cm->fdte)) {
		call_result(cm, smodem_fax_rc(SMDSP_FAXDTE_RC_OK));
		return;
	}
	smdsp_faxdte_command(cm->fdte, op, cm->cmd.fax_arg);
}

/* The DTE's next bytes, up to room of them, from the link into buf. */
static unsigned int dte_bytes(struct call_modem *cm, unsigned int room)
{
	return cm->link->ops->tx_get(cm->link, cm->buf,
				     min_t(unsigned int, room, sizeof(cm->buf)));
}

/* How many of the line's bytes the DTE has room for, in buf. */
static unsigned int dte_room(struct call_modem *cm)
{
	return min_t(unsigned int, cm->link->ops->rx_room(cm->link),
		     sizeof(cm->buf));
}

/* The first k bytes of buf, for the DTE. */
static void to_dte(struct call_modem *cm, unsigned int k)
{
	cm->cur.rx_bytes += k;
	cm->link->ops->rx(cm->link, cm->buf, k);
}

/* The DTE's bytes after CONNECT of +FTH/+FTM, as far as the pump has room. */
static void fax_bytes_to_line(struct call_modem *cm)
{
	unsigned int room = smdsp_faxdte_room(cm->fdte), n;

	while (room && (n = dte_bytes(cm, room)) != 0) {
		cm->cur.tx_bytes += smdsp_faxdte_from_dte(cm->fdte, cm->buf, n);
		room = smdsp_faxdte_room(cm->fdte);
	}
}

static void fax_report(struct call_modem *cm, enum smdsp_faxdte_rc rc)
{
	if (cm->fax_setup) {
		/* ATD/ATA: CONNECT, or the call ends */
		cm->fax_setup = false;
		if (rc != SMDSP_FAXDTE_RC_CONNECT) {
			fax_off(cm);
			call_result(cm, AT_RC_NO_CARRIER);
			return;
		}
		cm->connected = true;
		cm->cur.connects++;
	}
	call_result(cm, smodem_fax_rc(rc));
}

/* Frames, data and results for the DTE, in their order. */
static void fax_bytes_from_line(struct call_modem *cm)
{
	enum smdsp_faxdte_rc rc;
	unsigned int k;

	do {
		k = smdsp_faxdte_to_dte(cm->fdte, cm->buf, dte_room(cm), &rc);
		if (k)
			to_dte(cm, k);
		if (rc != SMDSP_FAXDTE_RC_NONE)
			fax_report(cm, rc);
	} while (cm->fax_on && (k || rc != SMDSP_FAXDTE_RC_NONE));
}

/* The fax phases for a trace of T.30's turnarounds. */
static void fax_trace(struct call_modem *cm)
{
	u32 ph = smodem_fax_phase(smdsp_faxmodem_phase(cm->fax));

	if (ph == cm->fax_phase)
		return;
	cm->fax_phase = ph;
	cm->dirty = true;
	cm->link->ops->phase(cm->link, ph, smdsp_faxmodem_mod(cm->fax));
}

static void take_command(struct call_modem *cm)
{
	cm->link->ops->take(cm->link, &cm->cmd);
	if (!cm->cmd.what)
		return;
	cm->dirty = true;
	cm->id = cm->cmd.id;
	if (cm->cmd.what & SMODEM_CMD_HANGUP) {
		cm->connected = false;
		cm->ec_wait = false;
		cm->stay = false;
		smdsp_modem_hangup(cm->m);
		fax_off(cm);
	}
	if ((cm->cmd.what & SMODEM_CMD_CALL) && cm->cmd.call.fclass == 1)
		start_fax_call(cm);
	else if (cm->cmd.what & SMODEM_CMD_CALL)
		start_call(cm);
	if (cm->cmd.what & SMODEM_CMD_FAX)
		fax_command(cm);
}

/* What does not fit stays in the link, which holds CTS down. */
static void bytes_to_line(struct call_modem *cm)
{
	unsigned int room, n, k;

	if (smdsp_modem_phase(cm->m) != SMDSP_PHASE_CONNECTED)
		return;
	room = smdsp_modem_write_space(cm->m);
	while (room && (n = dte_bytes(cm, room)) != 0) {
		k = smdsp_modem_write(cm->m, cm->buf, n);
		cm->cur.tx_bytes += k;
		room -= k;
		if (k < n)
			break;
	}
}

/*
 * A full link leaves the rest in the modem, which counts overruns.  The
 * modem is asked first: most periods it has nothing, and the link's room
 * is a lock taken.
 */
static void bytes_from_line(struct call_modem *cm)
{
	unsigned int room, k;

	while (smdsp_modem_read_avail(cm->m) && (room = dte_room(cm)) != 0) {
		k = smdsp_modem_read(cm->m, cm->buf, room);
		if (!k)
			break;
		to_dte(cm, k);
	}
}

/* -- call control: reports -------------------------------------------------- */

static void call_ended(struct call_modem *cm, u32 cause)
{
	bool was_connected = cm->connected;
	enum at_result rc;

	cm->connected = false;
	cm->ec_wait = false;
	if (cause == SMDSP_CAUSE_LOCAL)
		return;		/* the tty asked: it expects no report */
	switch (was_connected ? SMDSP_CAUSE_CARRIER_LOST : cause) {
	case SMDSP_CAUSE_NO_DIALTONE:
		rc = AT_RC_NO_DIALTONE;
		break;
	case SMDSP_CAUSE_BUSY:
		rc = AT_RC_BUSY;
		break;
	case SMDSP_CAUSE_NO_ANSWER:
		rc = AT_RC_NO_ANSWER;
		break;
	default:
		rc = AT_RC_NO_CARRIER;
		break;
	}
	call_result(cm, rc);
}

static void ring_off(struct call_modem *cm)
{
	if (cm->ring_left) {
		cm->ring_left = 0;
		cm->link->ops->ring(cm->link, false);
	}
}

/* What CONNECT reports: V.34, V.42, and V.42bis as XID agreed (our view) */
static u32 conn_flags(const struct call_modem *cm)
{
	u32 f = smodem_call_is_v34(&cm->cur.dsp) ? SMODEM_CONN_V34 : 0;

	if (cm->cur.dsp.link == SMDSP_LINK_V42) {
		f |= SMODEM_CONN_LAPM;
		if (cm->cur.dsp.v42.v42bis_dirs & SMDSP_V42BIS_DIR_TX)
			f |= SMODEM_CONN_V42BIS_TX;
		if (cm->cur.dsp.v42.v42bis_dirs & SMDSP_V42BIS_DIR_RX)
			f |= SMODEM_CONN_V42BIS_RX;
	}
	return f;
}

static void phase_event(struct call_modem *cm,
			const struct smdsp_modem_event *ev)
{
	cm->link->ops->phase(cm->link, ev->phase, ev->arg);
	if (ev->phase != SMDSP_PHASE_ONHOOK)
		ring_off(cm);
	switch (ev->phase) {
	case SMDSP_PHASE_WAITING:
		/* ATD...; : dialled, back to command mode, line kept. */
		if (cm->stay) {
			cm->stay = false;
			call_result(cm, AT_RC_OK);
		}
		break;
	case SMDSP_PHASE_CONNECTED:
		/*
		 * Again after a retrain, a rate renegotiation or a carrier
		 * loss: the tty says nothing, but keeps the rate for ATO's
		 * CONNECT (cur.rate stays the call's first).
		 */
		if (cm->connected) {
			cm->link->ops->connected(cm->link, cm->id, ev->arg, conn_flags(cm));
			break;
		}
		if (cm->ec_wait)
			break;
		cm->cur.rate = ev->arg;
		cm->cur.connects++;
		if (cm->cur.flags & SMDSP_MODEM_FLAG_V42) {
			cm->ec_wait = true;
		} else {
			cm->connected = true;
			cm->link->ops->connected(cm->link, cm->id, ev->arg, 0);
		}
		break;
	case SMDSP_PHASE_RETRAIN:
		cm->cur.retrains++;
		break;
	case SMDSP_PHASE_HUNGUP:
		cm->stay = false;
		call_ended(cm, ev->arg);
		break;
	default:
		break;
	}
}

/* CONNECT, held while V.42 negotiates, or NO CARRIER. */
static void ec_settle(struct call_modem *cm)
{
	enum smodem_ec_verdict v;

	if (!cm->ec_wait)
		return;
	v = smodem_call_ec(cm->cur.dsp.link, cm->cur.dsp.v42_status,
			   cm->cur.ec_required);
	if (v == SMODEM_EC_WAIT)
		return;
	cm->ec_wait = false;
	if (cm->cur.v42bis_required &&
	    !(conn_flags(cm) & (SMODEM_CONN_V42BIS_TX | SMODEM_CONN_V42BIS_RX)))
		v = SMODEM_EC_REFUSE;
	if (v == SMODEM_EC_REFUSE) {
		/* LOCAL: the pump reports nothing, the tty hears it here. */
		smdsp_modem_hangup(cm->m);
		call_result(cm, AT_RC_NO_CARRIER);
		return;
	}
	cm->connected = true;
	cm->link->ops->connected(cm->link, cm->id, cm->cur.rate, conn_flags(cm));
}

/* Events of this period; true if any. */
static bool events(struct call_modem *cm, u32 n)
{
	struct smdsp_modem_event ev;
	bool any = false;

	if (cm->ring_left) {
		if (cm->ring_left > n)
			cm->ring_left -= n;
		else
			ring_off(cm);
	}
	while (smdsp_modem_get_event(cm->m, &ev)) {
		any = true;
		if (ev.type == SMDSP_EV_PHASE) {
			phase_event(cm, &ev);
		} else if (ev.type == SMDSP_EV_RING) {
			ring_off(cm);
			cm->ring_left = SMODEM_RING_ON_MS *
					(SMDSP_MODEM_RATE / 1000);
			cm->link->ops->ring(cm->link, true);
		}
	}
	return any;
}

/* Whatever changed this period, for the stats file. */
static void publish(struct call_modem *cm)
{
	unsigned long flags;

	cm->cur.phase = smdsp_modem_phase(cm->m);
	smdsp_modem_get_stats(cm->m, &cm->cur.dsp);
	cm->cur.fax_on = cm->fax_on;
	cm->cur.fax_phase = cm->fax_phase;
	smdsp_faxmodem_get_stats(cm->fax, &cm->cur.fax);
	raw_spin_lock_irqsave(&cm->pub_lock, flags);
	cm->pub = cm->cur;
	raw_spin_unlock_irqrestore(&cm->pub_lock, flags);
}

static void add_hook_dc(struct call_modem *cm, s16 *tx, u32 n)
{
	u32 i;

	if (!(cm->fax_on ? smdsp_faxmodem_offhook(cm->fax) :
	      smdsp_modem_offhook(cm->m)))
		return;
	for (i = 0; i < n; i++)
		tx[i] = clamp_t(s32, tx[i] + SMODEM_HOOK_DC, S16_MIN, S16_MAX);
}

/* -- call control: the period ---------------------------------------------- */

static u32 call_period(struct smodem_modem *base, const s16 *rx, s16 *tx,
		       u32 n)
{
	struct call_modem *cm = container_of(base, struct call_modem, base);

	take_command(cm);
	if (cm->fax_on) {
		/* Class 1: the fax pump instead of the engine, one call */
		fax_bytes_to_line(cm);
		smdsp_faxmodem_process(cm->fax, rx, tx, n);
		add_hook_dc(cm, tx, n);
		fax_bytes_from_line(cm);
		fax_trace(cm);
		if (cm->dirty) {
			publish(cm);
			cm->dirty = false;
		}
		return cm->phase_periods ? SMODEM_FAX_PERIOD : n;
	}
	if (cm->fax_phase != SMODEM_PHASE_FAX_ON_HOOK) {
		/* back to the data engine: the trace says the fax side is on hook */
		cm->fax_phase = SMODEM_PHASE_FAX_ON_HOOK;
		cm->link->ops->phase(cm->link, cm->fax_phase, 0);
	}
	bytes_to_line(cm);
	smdsp_pump_process(cm->pump, rx, tx, n);
	add_hook_dc(cm, tx, n);
	bytes_from_line(cm);
	/*
	 * On hook and quiet nothing moves: the copy would cost every 2.5 ms
	 * for nothing.  A call's last figures come with its hang-up event.
	 */
	if (events(cm, n) || cm->dirty || smdsp_modem_offhook(cm->m)) {
		publish(cm);
		cm->dirty = false;
		ec_settle(cm);
	}
	return cm->phase_periods ? smdsp_modem_period(cm->m) : n;
}

static void call_gap(struct smodem_modem *base, u32 len, u32 late)
{
	struct call_modem *cm = container_of(base, struct call_modem, base);

	cm->dirty = true;
	cm->cur.tx_gaps++;
	cm->cur.tx_gap_filled += len;
	cm->cur.tx_gap_late += late;
}

static void call_fill(struct smodem_modem *base, s16 *tx, u32 n)
{
	struct call_modem *cm = container_of(base, struct call_modem, base);

	/* Class 1: no continuation of the fax signals yet, silence */
	if (cm->fax_on)
		memset(tx, 0, n * sizeof(*tx));
	else
		smdsp_modem_tx_fill(cm->m, tx, n);
	add_hook_dc(cm, tx, n);
}

/* -- the stats file ------------------------------------------------------- */

static const char *const role_names[] = {
	[ROLE_NONE] = "none",
	[ROLE_DIAL] = "dial",
	[ROLE_ANSWER] = "answer",
};

static const char *const link_names[] = {
	[SMDSP_LINK_NONE] = "none",
	[SMDSP_LINK_ASYNC] = "async",
	[SMDSP_LINK_V42] = "v42",
};

static const char *const v8_names[] = {
	[SMDSP_V8_IN_PROGRESS] = "in-progress",
	[SMDSP_V8_DONE] = "done",
	[SMDSP_V8_NON_V8] = "non-v8",
	[SMDSP_V8_FAILED] = "failed",
};

/*
 * The pump reports a rate; each of its modulations has one of its own, but
 * V.34's, which only V.8's choice tells.
 */
static const char *modulation_name(const struct smdsp_modem_stats *st, u32 rate)
{
	if (rate && smodem_call_is_v34(st))
		return "v34";
	switch (rate) {
	case 0:
		return "none";
	case 300:
		return "v21";
	case 1200:
		return "v22";
	case 2400:
		return "v22bis";
	default:
		return "v32bis";
	}
}

static void show_modulations(struct seq_file *sf, u32 mods)
{
	static const struct {
		u32 bit;
		const char *name;
	} names[] = {
		{ SMDSP_MODEM_V34, "v34" },
		{ SMDSP_MODEM_V32BIS, "v32bis" }, { SMDSP_MODEM_V32, "v32" },
		{ SMDSP_MODEM_V22BIS, "v22bis" }, { SMDSP_MODEM_V22, "v22" },
		{ SMDSP_MODEM_V21, "v21" },
	};
	const char *sep = "";
	unsigned int i;

	seq_puts(sf, "engine_cfg_modulations ");
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (mods & names[i].bit) {
			seq_printf(sf, "%s%s", sep, names[i].name);
			sep = ",";
		}
	}
	seq_puts(sf, mods ? "\n" : "none\n");
}

static void call_show(struct smodem_modem *base, struct seq_file *sf)
{
	struct call_modem *cm = container_of(base, struct call_modem, base);
	const struct smdsp_v42_stats *v42;
	struct call_stats cs;
	unsigned long flags;

	raw_spin_lock_irqsave(&cm->pub_lock, flags);
	cs = cm->pub;
	raw_spin_unlock_irqrestore(&cm->pub_lock, flags);
	v42 = &cs.dsp.v42;

	seq_printf(sf, "engine_phase %s\n", name_of(phase_names, ARRAY_SIZE(phase_names), cs.phase));
	seq_printf(sf, "engine_calls %llu\n", cs.calls);
	seq_printf(sf, "engine_connects %llu\n", cs.connects);
	/* The last call's: what it was set up with, then what it did. */
	seq_printf(sf, "engine_role %s\n",
		   name_of(role_names, ARRAY_SIZE(role_names), cs.role));
	show_modulations(sf, cs.modulations);
	seq_printf(sf, "engine_cfg_v8 %d\n", !!(cs.flags & SMDSP_MODEM_FLAG_V8));
	seq_printf(sf, "engine_cfg_v42 %d\n",
		   !!(cs.flags & SMDSP_MODEM_FLAG_V42));
	seq_printf(sf, "engine_cfg_v42_required %d\n", cs.ec_required);
	seq_printf(sf, "engine_cfg_v42bis_required %d\n", cs.v42bis_required);
	seq_printf(sf, "engine_cfg_blind %d\n",
		   !!(cs.flags & SMDSP_MODEM_FLAG_BLIND));
	seq_printf(sf, "engine_rate %u\n", cs.rate);
	seq_printf(sf, "engine_modulation %s\n", modulation_name(&cs.dsp, cs.rate));
	seq_printf(sf, "engine_link %s\n",
		   name_of(link_names, ARRAY_SIZE(link_names), cs.dsp.link));
	seq_printf(sf, "engine_v42 %d\n", cs.dsp.link == SMDSP_LINK_V42 &&
		   cs.dsp.v42_status == SMDSP_V42_CONNECTED);
	seq_printf(sf, "engine_v42_status %s\n", cs.dsp.v42_status < 0 ?
		   "none" : smdsp_v42_status_name(cs.dsp.v42_status));
	seq_printf(sf, "engine_v8 %u\n", cs.dsp.v8_used);
	seq_printf(sf, "engine_v8_status %s\n", cs.dsp.v8_used ?
		   name_of(v8_names, ARRAY_SIZE(v8_names), cs.dsp.v8.status) :
		   "none");
	seq_printf(sf, "engine_tx_bytes %llu\n", cs.tx_bytes);
	seq_printf(sf, "engine_rx_bytes %llu\n", cs.rx_bytes);
	seq_printf(sf, "engine_rx_overruns %u\n", cs.dsp.rx_overruns);
	seq_printf(sf, "engine_framing_errors %u\n",
		   cs.dsp.async_rx.framing_errors);
	seq_printf(sf, "engine_retrains %u\n", cs.retrains);
	seq_printf(sf, "engine_carrier_losses %u\n", cs.dsp.carrier_losses);
	seq_printf(sf, "engine_v42_frames_tx %u\n", v42->frames_tx);
	seq_printf(sf, "engine_v42_frames_rx %u\n", v42->frames_rx);
	seq_printf(sf, "engine_v42_iframes_tx %u\n", v42->iframes_tx);
	seq_printf(sf, "engine_v42_iframes_rx %u\n", v42->iframes_rx);
	seq_printf(sf, "engine_v42_retransmissions %u\n", v42->retransmissions);
	seq_printf(sf, "engine_v42_rej_tx %u\n", v42->rej_tx);
	seq_printf(sf, "engine_v42_rej_rx %u\n", v42->rej_rx);
	seq_printf(sf, "engine_v42_srej_tx %u\n", v42->srej_tx);
	seq_printf(sf, "engine_v42_srej_rx %u\n", v42->srej_rx);
	seq_printf(sf, "engine_v42_crc_errors %u\n", v42->crc_errors);
	seq_printf(sf, "engine_v42_bad_frames %u\n", v42->bad_frames);
	seq_printf(sf, "engine_v42_t401_expiries %u\n", v42->t401_expiries);
	seq_printf(sf, "engine_v42_bytes_tx %u\n", v42->bytes_tx);
	seq_printf(sf, "engine_v42_bytes_rx %u\n", v42->bytes_rx);
	/* V.42bis as XID agreed it (our view); bytes before and after */
	seq_printf(sf, "engine_v42bis_dirs %u\n", v42->v42bis_dirs);
	seq_printf(sf, "engine_v42bis_p1 %u\n", v42->v42bis_p1);
	seq_printf(sf, "engine_v42bis_p2 %u\n", v42->v42bis_p2);
	seq_printf(sf, "engine_v42bis_tx_in %u\n", v42->v42bis_tx_in);
	seq_printf(sf, "engine_v42bis_tx_out %u\n", v42->v42bis_tx_out);
	seq_printf(sf, "engine_v42bis_rx_in %u\n", v42->v42bis_rx_in);
	seq_printf(sf, "engine_v42bis_rx_out %u\n", v42->v42bis_rx_out);
	seq_printf(sf, "engine_v42bis_errors %u\n", v42->v42bis_errors);
	seq_printf(sf, "engine_tx_gaps %llu\n", cs.tx_gaps);
	seq_printf(sf, "engine_tx_gap_filled %llu\n", cs.tx_gap_filled);
	seq_printf(sf, "engine_tx_gap_late %llu\n", cs.tx_gap_late);
	/* V.32bis's canceller: -1 none (4-wire), 0 no V.32bis in the call */
	seq_printf(sf, "engine_echo_latency %d\n", cs.dsp.echo_latency);
	seq_printf(sf, "engine_echo_erle_db %d\n", cs.dsp.echo_erle_db_q8 / 256);
	seq_printf(sf, "engine_v32_rtd %d\n", cs.dsp.v32_rtd);
	/* each direction's rate (V.34's may differ), and V.34's own figures when it ran */
	seq_printf(sf, "engine_tx_rate %u\n", cs.dsp.tx_rate);
	seq_printf(sf, "engine_rx_rate %u\n", cs.dsp.rx_rate);
	seq_printf(sf, "engine_v34 %u\n", cs.dsp.v34_used);
	if (cs.dsp.v34_used) {
		seq_printf(sf, "engine_v34_state %s\n", smdsp_v34_state_name(cs.dsp.v34_state));
		seq_printf(sf, "engine_v34_fail %s\n", smdsp_v34_fail_name(cs.dsp.v34_fail));
		seq_printf(sf, "engine_v34_baud %u %u\n", cs.dsp.tx_baud, cs.dsp.rx_baud);
		seq_printf(sf, "engine_v34_rtd %d\n", cs.dsp.v34_rtd);
		seq_printf(sf, "engine_v34_mse_db10 %d\n", cs.dsp.v34_mse_db10);
		seq_printf(sf, "engine_v34_renegs %u\n", cs.dsp.v34.renegs);
		seq_printf(sf, "engine_v34_retrains %u\n", cs.dsp.v34.retrains);
		seq_printf(sf, "engine_v34_near_latency %d\n", cs.dsp.v34.near_latency);
		/*
		 * The pump's sample count, where each direction's data began
		 * and where the present rates' data did, and the data bits
		 * each way, in all and at that point: bits against the rate
		 * times the samples say whether the call kept its time.
		 */
		seq_printf(sf, "engine_v34_clock %u %u %u %u\n", cs.dsp.v34.now,
			   cs.dsp.v34.tx_data_at, cs.dsp.v34.rx_data_at,
			   cs.dsp.v34.run_at);
		seq_printf(sf, "engine_v34_bits %u %u %u %u\n",
			   cs.dsp.v34.bits_sent, cs.dsp.v34.bits_received,
			   cs.dsp.v34.run_bits_sent, cs.dsp.v34.run_bits_received);
	}
	seq_printf(sf, "engine_fax %d\n", cs.fax_on);
	seq_printf(sf, "engine_fax_phase %u\n", cs.fax_phase);
	seq_printf(sf, "engine_fax_frames_tx %u\n", cs.fax.frames_tx);
	seq_printf(sf, "engine_fax_frames_rx_good %u\n", cs.fax.frames_rx_good);
	seq_printf(sf, "engine_fax_frames_rx_bad %u\n", cs.fax.frames_rx_bad);
	seq_printf(sf, "engine_fax_octets_tx %u\n", cs.fax.octets_tx);
	seq_printf(sf, "engine_fax_octets_rx %u\n", cs.fax.octets_rx);
	seq_printf(sf, "engine_fax_tx_underruns %u\n", cs.fax.tx_underruns);
	seq_printf(sf, "engine_fax_rx_overruns %u\n", cs.fax.rx_overruns);
	seq_printf(sf, "engine_fax_trainings %u\n", cs.fax.trainings);
	seq_printf(sf, "engine_fax_training_failures %u\n", cs.fax.training_failures);
}

static void call_free(struct smodem_modem *base)
{
	struct call_modem *cm = container_of(base, struct call_modem, base);

	smdsp_faxdte_free(cm->fdte);
	smdsp_faxmodem_free(cm->fax);
	smdsp_pump_free(cm->pump);
	kfree(cm);
}

static const struct smodem_modem_ops call_ops = {
	.period = call_period,
	.gap = call_gap,
	.fill = call_fill,
	.show = call_show,
	.free = call_free,
};

/* -- lifetime ------------------------------------------------------------ */

struct smodem_modem *smodem_modem_create(struct smodem_link *link, u32 rate,
					 bool calls, bool phase_periods)
{
	struct smdsp_pump_config pc = { .sample_rate = rate };
	struct smdsp_pump *pump = smdsp_pump_create(&pc);
	struct smdsp_modem *m = smdsp_pump_modem(pump);
	struct call_modem *cm;
	struct pump_modem *pm;

	if (!pump)
		return ERR_PTR(-ENOMEM);
	if (!calls || !m) {
		pm = kzalloc(sizeof(*pm), GFP_KERNEL);
		if (!pm)
			goto nomem;
		pm->base.ops = &pump_ops;
		pm->pump = pump;
		return &pm->base;
	}
	cm = kzalloc(sizeof(*cm), GFP_KERNEL);
	if (!cm)
		goto nomem;
	/* Class 1's pump, allocated now: nothing is allocated per period */
	cm->fax = smdsp_faxmodem_create(NULL);
	cm->fdte = cm->fax ? smdsp_faxdte_create(cm->fax) : NULL;
	if (!cm->fdte) {
		smdsp_faxmodem_free(cm->fax);
		kfree(cm);
		goto nomem;
	}
	cm->fax_phase = SMODEM_PHASE_FAX_ON_HOOK;
	cm->base.ops = &call_ops;
	cm->link = link;
	cm->pump = pump;
	cm->m = m;
	cm->phase_periods = phase_periods;
	raw_spin_lock_init(&cm->pub_lock);
	cm->cur.phase = smdsp_modem_phase(m);
	cm->cur.dsp.v42_status = -1;
	cm->pub = cm->cur;
	return &cm->base;
nomem:
	smdsp_pump_free(pump);
	return ERR_PTR(-ENOMEM);
}
