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
	bool connected;
	u32 ring_left;			/* samples until RI drops, 0: off */
	u8 buf[SMODEM_ENGINE_CHUNK];
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

static u32 modulations(const struct at_call *c)
{
	switch (c->mod) {
	case AT_MOD_V21:
		return SMDSP_MODEM_V21;
	case AT_MOD_V22:
		return SMDSP_MODEM_V22 | (c->automode ? SMDSP_MODEM_V21 : 0);
	default:
		return SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22 |
		       (c->automode ? SMDSP_MODEM_V21 : 0);
	}
}

/*
 * Only what the engine dials: digits.  Pauses, 'W' and hook flashes are
 * dropped (the engine waits for the dial tone once, before the first).
 */
static void copy_digits(char *dst, size_t size, const char *src)
{
	size_t n = 0;

	for (; *src && n + 1 < size; src++)
		if (strchr("0123456789*#ABCD", *src))
			dst[n++] = *src;
	dst[n] = '\0';
}

static void start_call(struct smodem_engine *e)
{
	struct smdsp_modem_config cfg = {
		.sample_rate = SMDSP_MODEM_RATE,
		.modulations = modulations(&e->run),
		.flags = e->run.detect_dialtone ? 0 : SMDSP_MODEM_FLAG_BLIND,
	};
	char digits[AT_DIAL_MAX + 1];
	int err;

	/*
	 * +MS picks the modulations; V.8 and V.42 (\N) stay off until the
	 * engine's own have been proven against the line's far modem.
	 */
	err = smdsp_modem_configure(e->m, &cfg);
	e->connected = false;
	e->stay = !e->run_answer && e->run.stay_command;
	if (!err && e->run_answer) {
		err = smdsp_modem_answer(e->m);
	} else if (!err) {
		copy_digits(digits, sizeof(digits), e->run.number);
		err = smdsp_modem_dial(e->m, digits);
	}
	if (err)
		smodem_tty_result(e->sd, AT_RC_NO_CARRIER);
}

static void run_commands(struct smodem_engine *e)
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
		e->stay = false;
		smdsp_modem_hangup(e->m);
	}
	if (cmd & CMD_CALL)
		start_call(e);
}

void smodem_engine_pre(struct smodem_dev *sd)
{
	struct smodem_engine *e = sd->engine;
	unsigned int room, n, k;

	if (!e)
		return;
	run_commands(e);
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
		if (!e->connected) {
			e->connected = true;
			smodem_tty_connected(sd, ev->arg);
		}
		break;
	case SMDSP_PHASE_HUNGUP:
		e->stay = false;
		call_ended(e, ev->arg);
		break;
	default:
		break;
	}
}

void smodem_engine_post(struct smodem_dev *sd, s16 *tx, u32 n)
{
	struct smodem_engine *e = sd->engine;
	struct smdsp_modem_event ev;
	unsigned int room, k;
	u32 i;

	if (!e)
		return;
	if (smdsp_modem_offhook(e->m))
		for (i = 0; i < n; i++)
			tx[i] = clamp_t(s32, tx[i] + SMODEM_HOOK_DC,
					S16_MIN, S16_MAX);

	/* A full tty leaves the rest in the engine, which counts overruns. */
	while ((room = smodem_tty_rx_room(sd)) != 0) {
		k = smdsp_modem_read(e->m, e->buf,
				     min_t(unsigned int, room, sizeof(e->buf)));
		if (!k)
			break;
		smodem_tty_rx(sd, e->buf, k);
	}

	if (e->ring_left) {
		if (e->ring_left > n)
			e->ring_left -= n;
		else
			ring_off(e);
	}
	while (smdsp_modem_get_event(e->m, &ev)) {
		if (ev.type == SMDSP_EV_PHASE) {
			phase_event(e, &ev);
		} else if (ev.type == SMDSP_EV_RING) {
			ring_off(e);
			e->ring_left = SMODEM_RING_ON_MS *
				       (SMDSP_MODEM_RATE / 1000);
			smodem_tty_ring(sd, true);
		}
	}

	if (e->phase_periods)
		smodem_request_period(sd, smdsp_modem_period(e->m));
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
