// SPDX-License-Identifier: GPL-2.0
/*
 * The data pump's modem engine (dsp/modem.c) as the call control of
 * /dev/ttySM<n>.
 *
 * The tty calls dial/answer/hangup with its spinlock held and interrupts
 * off, in whatever context the DTE writes from, while the engine belongs
 * to the processing context (hard IRQ, BH or a thread), where it must not
 * run concurrently with smdsp_pump_process().  So the ops only post a
 * command to a mailbox under a raw spinlock and the processing context
 * carries it out before the next period; everything the engine reports
 * goes back through the tty's callbacks, which are safe in any context.
 *
 * Hook signalling: an audio path (AC'97 through QEMU, JACK) carries no
 * loop current, so while the engine is off hook a DC offset of
 * SMODEM_HOOK_DC is added to every transmitted sample.  tools/line's
 * smline closes its loop above --hook-threshold (1024 by default) and
 * opens it after --hangup-ms of the offset gone; see tools/line/README.md.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/seq_file.h>
#include <smdsp/pump.h>
#include <smdsp/modem.h>
#include "smodem.h"
#include "smodem_engine.h"
#include "smodem_trace.h"
#include "smodem_tty.h"

/* Well above smline's default threshold, far below clipping the signal. */
#define SMODEM_HOOK_DC		4096
/*
 * The engine reports the start of a ring burst only; RI drops this long
 * after it (the shortest common burst, 0.4 s twice, is covered, and the
 * 2 s of the usual cadence mostly so).
 */
#define SMODEM_RING_ON_MS	1500
/* Bytes moved per chunk between the tty and the engine. */
#define SMODEM_ENGINE_CHUNK	256

#define CMD_HANGUP	BIT(0)
#define CMD_CALL	BIT(1)

enum engine_role { ROLE_NONE, ROLE_DIAL, ROLE_ANSWER };

/* What the stats file shows: the last call's, and totals since load. */
struct smodem_engine_stats {
	u32 phase;			/* enum smdsp_modem_phase */
	u32 role;			/* enum engine_role */
	u32 flags;			/* SMDSP_MODEM_FLAG_* configured */
	u32 modulations;		/* SMDSP_MODEM_V* configured */
	bool ec_required;		/* \N2, \N4: no LAPM, no call */
	u32 rate;			/* bit/s when it connected, 0: never */
	u32 retrains;
	u64 tx_bytes;			/* DTE bytes given to the engine */
	u64 rx_bytes;			/* and taken from it */
	u64 calls;
	u64 connects;
	/* Output lead growths since load, frames filled and lost in them. */
	u64 tx_gaps;
	u64 tx_gap_filled;
	u64 tx_gap_late;
	struct smdsp_modem_stats dsp;
};

struct smodem_engine {
	struct smodem_dev *sd;
	struct smdsp_modem *m;
	bool phase_periods;

	/* The mailbox: written by the tty's ops, emptied per period. */
	raw_spinlock_t lock;
	unsigned int cmd;		/* CMD_* */
	struct at_call call;		/* for CMD_CALL; number empty: ATA */
	bool call_answer;

	/* Processing context only. */
	struct at_call run;
	bool run_answer;
	bool stay;			/* ';': report OK once dialed */
	bool connected;			/* CONNECT reported */
	/*
	 * Connected with V.42 configured: CONNECT waits for the error
	 * control to be settled, as a V.42 modem's always did, so that \N2
	 * and \N4 can still refuse a peer without LAPM.
	 */
	bool ec_wait;
	bool dirty;			/* the stats file is behind */
	u32 ring_left;			/* samples until RI drops, 0: off */
	u8 buf[SMODEM_ENGINE_CHUNK];
	struct smodem_engine_stats cur;

	/*
	 * A copy of cur for debugfs, refreshed by the processing context:
	 * the engine itself must not be read while it runs, and that may be
	 * in hard IRQ context, so the reader only ever copies this.
	 */
	raw_spinlock_t st_lock;
	struct smodem_engine_stats pub;
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
};

static const char *phase_name(unsigned int p)
{
	return p < ARRAY_SIZE(phase_names) && phase_names[p] ?
		phase_names[p] : "unknown";
}

/* -- the tty's ops: post and return ------------------------------------- */

static int post_call(struct smodem_dev *sd, const struct at_call *call,
		     bool answer)
{
	struct smodem_engine *e = sd->engine;
	unsigned long flags;

	if (!e)
		return -ENODEV;
	raw_spin_lock_irqsave(&e->lock, flags);
	e->call = *call;
	e->call_answer = answer;
	e->cmd |= CMD_CALL;
	raw_spin_unlock_irqrestore(&e->lock, flags);
	return 0;
}

static int engine_dial(struct smodem_dev *sd, const struct at_call *call)
{
	return post_call(sd, call, false);
}

static int engine_answer(struct smodem_dev *sd, const struct at_call *call)
{
	return post_call(sd, call, true);
}

/* A call posted but not started yet is simply forgotten. */
static void engine_hangup(struct smodem_dev *sd)
{
	struct smodem_engine *e = sd->engine;
	unsigned long flags;

	if (!e)
		return;
	raw_spin_lock_irqsave(&e->lock, flags);
	e->cmd = CMD_HANGUP;
	raw_spin_unlock_irqrestore(&e->lock, flags);
}

static const struct smodem_tty_engine smodem_pump_engine = {
	.dial = engine_dial,
	.answer = engine_answer,
	.hangup = engine_hangup,
};

/* -- processing context ------------------------------------------------- */

static void start_call(struct smodem_engine *e)
{
	struct smdsp_modem_config cfg;
	char digits[AT_DIAL_MAX + 1];
	int err;

	smodem_engine_config(&e->run, e->run_answer, &cfg);
	err = smdsp_modem_configure(e->m, &cfg);
	e->connected = false;
	e->ec_wait = false;
	e->stay = !e->run_answer && e->run.stay_command;

	/* A new call: its figures start from zero, the totals go on. */
	e->cur.role = e->run_answer ? ROLE_ANSWER : ROLE_DIAL;
	e->cur.flags = cfg.flags;
	e->cur.modulations = cfg.modulations;
	e->cur.ec_required = smodem_engine_ec_required(e->run.ec);
	e->cur.rate = 0;
	e->cur.retrains = 0;
	e->cur.tx_bytes = 0;
	e->cur.rx_bytes = 0;
	e->cur.calls++;

	if (!err && e->run_answer) {
		err = smdsp_modem_answer(e->m);
	} else if (!err) {
		smodem_engine_digits(digits, sizeof(digits), e->run.number,
				     e->run.comma_s != 0);
		err = smdsp_modem_dial(e->m, digits);
	}
	if (err)
		smodem_tty_result(e->sd, AT_RC_NO_CARRIER);
}

static unsigned int run_commands(struct smodem_engine *e)
{
	unsigned long flags;
	unsigned int cmd;

	raw_spin_lock_irqsave(&e->lock, flags);
	cmd = e->cmd;
	e->cmd = 0;
	if (cmd & CMD_CALL) {
		e->run = e->call;
		e->run_answer = e->call_answer;
	}
	raw_spin_unlock_irqrestore(&e->lock, flags);

	if (cmd & CMD_HANGUP) {
		e->connected = false;
		e->ec_wait = false;
		e->stay = false;
		smdsp_modem_hangup(e->m);
	}
	if (cmd & CMD_CALL)
		start_call(e);
	return cmd;
}

void smodem_engine_pre(struct smodem_dev *sd)
{
	struct smodem_engine *e = sd->engine;
	unsigned int room, n, k;

	if (!e)
		return;
	if (run_commands(e))
		e->dirty = true;
	if (smdsp_modem_phase(e->m) != SMDSP_PHASE_CONNECTED)
		return;
	/* What does not fit stays with the tty, which holds CTS down. */
	room = smdsp_modem_write_space(e->m);
	while (room) {
		n = smodem_tty_tx_get(sd, e->buf, min_t(unsigned int, room,
							sizeof(e->buf)));
		if (!n)
			break;
		k = smdsp_modem_write(e->m, e->buf, n);
		e->cur.tx_bytes += k;
		room -= k;
		if (k < n)
			break;
	}
}

static void call_ended(struct smodem_engine *e, u32 cause)
{
	struct smodem_dev *sd = e->sd;
	bool was_connected = e->connected;

	e->connected = false;
	e->ec_wait = false;
	if (cause == SMDSP_CAUSE_LOCAL)
		return;		/* the tty asked: it expects no report */
	if (was_connected) {
		smodem_tty_carrier_lost(sd);
		return;
	}
	switch (cause) {
	case SMDSP_CAUSE_NO_DIALTONE:
		smodem_tty_result(sd, AT_RC_NO_DIALTONE);
		break;
	case SMDSP_CAUSE_BUSY:
		smodem_tty_result(sd, AT_RC_BUSY);
		break;
	case SMDSP_CAUSE_NO_ANSWER:
		smodem_tty_result(sd, AT_RC_NO_ANSWER);
		break;
	default:
		smodem_tty_result(sd, AT_RC_NO_CARRIER);
		break;
	}
}

static void ring_off(struct smodem_engine *e)
{
	if (e->ring_left) {
		e->ring_left = 0;
		smodem_tty_ring(e->sd, false);
	}
}

static void phase_event(struct smodem_engine *e,
			const struct smdsp_modem_event *ev)
{
	struct smodem_dev *sd = e->sd;

	trace_smodem_phase(sd, phase_name(ev->phase), ev->arg);
	if (ev->phase != SMDSP_PHASE_ONHOOK)
		ring_off(e);
	switch (ev->phase) {
	case SMDSP_PHASE_WAITING:
		/* ATD...; : dialed, back to command mode, line kept. */
		if (e->stay) {
			e->stay = false;
			smodem_tty_result(sd, AT_RC_OK);
		}
		break;
	case SMDSP_PHASE_CONNECTED:
		/* Again after a retrain or a carrier loss: nothing to say. */
		if (e->connected || e->ec_wait)
			break;
		e->cur.rate = ev->arg;
		e->cur.connects++;
		if (e->cur.flags & SMDSP_MODEM_FLAG_V42) {
			e->ec_wait = true;
		} else {
			e->connected = true;
			smodem_tty_connected(sd, ev->arg);
		}
		break;
	case SMDSP_PHASE_RETRAIN:
		e->cur.retrains++;
		break;
	case SMDSP_PHASE_HUNGUP:
		e->stay = false;
		call_ended(e, ev->arg);
		break;
	default:
		break;
	}
}

/* CONNECT, held while V.42 negotiates, or NO CARRIER. */
static void ec_settle(struct smodem_engine *e)
{
	enum smodem_ec_verdict v;

	if (!e->ec_wait)
		return;
	v = smodem_engine_ec(e->cur.dsp.link, e->cur.dsp.v42_status,
			     e->cur.ec_required);
	if (v == SMODEM_EC_WAIT)
		return;
	e->ec_wait = false;
	if (v == SMODEM_EC_REFUSE) {
		/* LOCAL: the engine reports nothing, the tty hears it here. */
		smdsp_modem_hangup(e->m);
		smodem_tty_result(e->sd, AT_RC_NO_CARRIER);
		return;
	}
	e->connected = true;
	smodem_tty_connected(e->sd, e->cur.rate);
}

/* Whatever changed this period, for the stats file. */
static void publish(struct smodem_engine *e)
{
	unsigned long flags;

	e->cur.phase = smdsp_modem_phase(e->m);
	smdsp_modem_get_stats(e->m, &e->cur.dsp);
	raw_spin_lock_irqsave(&e->st_lock, flags);
	e->pub = e->cur;
	raw_spin_unlock_irqrestore(&e->st_lock, flags);
}

static void add_hook_dc(s16 *tx, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		tx[i] = clamp_t(s32, tx[i] + SMODEM_HOOK_DC, S16_MIN, S16_MAX);
}

void smodem_engine_post(struct smodem_dev *sd, s16 *tx, u32 n)
{
	struct smodem_engine *e = sd->engine;
	struct smdsp_modem_event ev;
	unsigned int room, k;
	bool changed;

	if (!e)
		return;
	changed = e->dirty;
	if (smdsp_modem_offhook(e->m))
		add_hook_dc(tx, n);

	/* A full tty leaves the rest in the engine, which counts overruns. */
	while ((room = smodem_tty_rx_room(sd)) != 0) {
		k = smdsp_modem_read(e->m, e->buf,
				     min_t(unsigned int, room, sizeof(e->buf)));
		if (!k)
			break;
		e->cur.rx_bytes += k;
		smodem_tty_rx(sd, e->buf, k);
	}

	if (e->ring_left) {
		if (e->ring_left > n)
			e->ring_left -= n;
		else
			ring_off(e);
	}
	while (smdsp_modem_get_event(e->m, &ev)) {
		changed = true;
		if (ev.type == SMDSP_EV_PHASE) {
			phase_event(e, &ev);
		} else if (ev.type == SMDSP_EV_RING) {
			ring_off(e);
			e->ring_left = SMODEM_RING_ON_MS *
				       (SMDSP_MODEM_RATE / 1000);
			smodem_tty_ring(sd, true);
		}
	}
	/*
	 * On hook and quiet nothing moves: the copy would cost every 2.5 ms
	 * for nothing.  A call's last figures come with its hang-up event.
	 */
	if (changed || smdsp_modem_offhook(e->m)) {
		publish(e);
		e->dirty = false;
		ec_settle(e);
	}

	if (e->phase_periods)
		smodem_request_period(sd, smdsp_modem_period(e->m));
}

void smodem_engine_tx_gap(struct smodem_dev *sd, u32 len, u32 late)
{
	struct smodem_engine *e = sd->engine;

	if (!e)
		return;
	e->dirty = true;
	e->cur.tx_gaps++;
	e->cur.tx_gap_filled += len;
	e->cur.tx_gap_late += late;
}

void smodem_engine_tx_fill(struct smodem_dev *sd, s16 *tx, u32 n)
{
	struct smodem_engine *e = sd->engine;

	/* The pump without call control is on hook, or a pass-through. */
	if (!e) {
		memset(tx, 0, n * sizeof(*tx));
		return;
	}
	smdsp_modem_tx_fill(e->m, tx, n);
	if (smdsp_modem_offhook(e->m))
		add_hook_dc(tx, n);
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

static const char *name_of(const char *const *names, size_t n, u32 i)
{
	return i < n && names[i] ? names[i] : "unknown";
}

/* The engine reports a rate; each of its modulations has one of its own. */
static const char *modulation_name(u32 rate)
{
	switch (rate) {
	case 0:
		return "none";
	case 300:
		return "v21";
	case 1200:
		return "v22";
	default:
		return "v22bis";
	}
}

static void show_modulations(struct seq_file *sf, u32 mods)
{
	seq_puts(sf, "engine_cfg_modulations ");
	seq_puts(sf, mods & SMDSP_MODEM_V22BIS ? "v22bis" : "");
	seq_puts(sf, mods & SMDSP_MODEM_V22 ?
		 (mods & SMDSP_MODEM_V22BIS ? ",v22" : "v22") : "");
	seq_puts(sf, mods & SMDSP_MODEM_V21 ?
		 (mods & (SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22) ? ",v21" : "v21") :
		 "");
	seq_puts(sf, mods ? "\n" : "none\n");
}

void smodem_engine_show(struct smodem_dev *sd, struct seq_file *sf)
{
	struct smodem_engine *e = sd->engine;
	const struct smdsp_v42_stats *v42;
	struct smodem_engine_stats st;
	unsigned long flags;

	if (!e)
		return;
	raw_spin_lock_irqsave(&e->st_lock, flags);
	st = e->pub;
	raw_spin_unlock_irqrestore(&e->st_lock, flags);
	v42 = &st.dsp.v42;

	seq_printf(sf, "engine_phase %s\n", phase_name(st.phase));
	seq_printf(sf, "engine_calls %llu\n", st.calls);
	seq_printf(sf, "engine_connects %llu\n", st.connects);
	/* The last call's: what it was set up with, then what it did. */
	seq_printf(sf, "engine_role %s\n",
		   name_of(role_names, ARRAY_SIZE(role_names), st.role));
	show_modulations(sf, st.modulations);
	seq_printf(sf, "engine_cfg_v8 %d\n", !!(st.flags & SMDSP_MODEM_FLAG_V8));
	seq_printf(sf, "engine_cfg_v42 %d\n",
		   !!(st.flags & SMDSP_MODEM_FLAG_V42));
	seq_printf(sf, "engine_cfg_v42_required %d\n", st.ec_required);
	seq_printf(sf, "engine_cfg_blind %d\n",
		   !!(st.flags & SMDSP_MODEM_FLAG_BLIND));
	seq_printf(sf, "engine_rate %u\n", st.rate);
	seq_printf(sf, "engine_modulation %s\n", modulation_name(st.rate));
	seq_printf(sf, "engine_link %s\n",
		   name_of(link_names, ARRAY_SIZE(link_names), st.dsp.link));
	seq_printf(sf, "engine_v42 %d\n", st.dsp.link == SMDSP_LINK_V42 &&
		   st.dsp.v42_status == SMDSP_V42_CONNECTED);
	seq_printf(sf, "engine_v42_status %s\n", st.dsp.v42_status < 0 ?
		   "none" : smdsp_v42_status_name(st.dsp.v42_status));
	seq_printf(sf, "engine_v8 %u\n", st.dsp.v8_used);
	seq_printf(sf, "engine_v8_status %s\n", st.dsp.v8_used ?
		   name_of(v8_names, ARRAY_SIZE(v8_names), st.dsp.v8.status) :
		   "none");
	seq_printf(sf, "engine_tx_bytes %llu\n", st.tx_bytes);
	seq_printf(sf, "engine_rx_bytes %llu\n", st.rx_bytes);
	seq_printf(sf, "engine_rx_overruns %u\n", st.dsp.rx_overruns);
	seq_printf(sf, "engine_framing_errors %u\n",
		   st.dsp.async_rx.framing_errors);
	seq_printf(sf, "engine_retrains %u\n", st.retrains);
	seq_printf(sf, "engine_carrier_losses %u\n", st.dsp.carrier_losses);
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
	seq_printf(sf, "engine_tx_gaps %llu\n", st.tx_gaps);
	seq_printf(sf, "engine_tx_gap_filled %llu\n", st.tx_gap_filled);
	seq_printf(sf, "engine_tx_gap_late %llu\n", st.tx_gap_late);
}

/* -- lifetime ------------------------------------------------------------ */

struct smodem_engine *smodem_engine_create(struct smodem_dev *sd,
					   bool phase_periods)
{
	struct smdsp_modem *m = smdsp_pump_modem(sd->pump);
	struct smodem_engine *e;

	if (!m)
		return NULL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	e->sd = sd;
	e->m = m;
	e->phase_periods = phase_periods;
	raw_spin_lock_init(&e->lock);
	raw_spin_lock_init(&e->st_lock);
	e->cur.phase = smdsp_modem_phase(m);
	e->cur.dsp.v42_status = -1;
	e->pub = e->cur;
	return e;
}

void smodem_engine_attach(struct smodem_dev *sd)
{
	if (sd->engine)
		smodem_tty_set_engine(sd, &smodem_pump_engine);
}

void smodem_engine_free(struct smodem_engine *e)
{
	kfree(e);
}
