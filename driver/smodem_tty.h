/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The smodem tty: /dev/ttySM<n>, one per smodem device, with the AT
 * command interpreter (at.c) in front of the modem engine.
 *
 * The engine (the data pump's call control) plugs in through
 * struct smodem_tty_engine and talks back through the smodem_tty_*()
 * callbacks below.  Until an engine is set, ATD and ATA answer NO CARRIER
 * at once and ATH only resets the interpreter.
 *
 * Contexts:
 *  - The engine ops are called with the tty's spinlock held and
 *    interrupts off, from process or softirq context (a line discipline
 *    such as ppp may write from a tasklet): they must not sleep.  They may
 *    call the callbacks.  The struct at_call they get is only valid during
 *    the call: copy what is needed.
 *  - The callbacks are safe in any context, hard IRQ included, also on
 *    PREEMPT_RT: they take a raw spinlock for a few hundred nanoseconds and
 *    defer everything else (result codes, modem-control wakeups, pushes to
 *    the line discipline, hang-ups) to a work item.  None of them sleeps.
 *  - After smodem_tty_unregister() they are harmless no-ops; the engine
 *    may keep calling them until its device is stopped.
 */
#ifndef SMODEM_TTY_H
#define SMODEM_TTY_H

#include <linux/types.h>
#include "at.h"

struct smodem_dev;

#define SMODEM_TTY_NAME		"ttySM"
#define SMODEM_TTY_MINORS	8
/* DTE -> line: CTS drops above HIGH, rises again at or below LOW. */
#define SMODEM_TTY_TX_SIZE	2048
#define SMODEM_TTY_TX_HIGH	(SMODEM_TTY_TX_SIZE - 256)
#define SMODEM_TTY_TX_LOW	(SMODEM_TTY_TX_SIZE / 4)
/* line -> DTE, held while the DTE throttles or is in command mode. */
#define SMODEM_TTY_RX_SIZE	4096

struct smodem_tty_engine {
	/*
	 * Start a call: go off-hook, dial call->number (or originate without
	 * digits when it is empty; with call->stay_command, dial and report
	 * AT_RC_OK through smodem_tty_result() instead of connecting), then
	 * report smodem_tty_connected() or smodem_tty_result().  Non-zero:
	 * refused, the DTE gets NO CARRIER.
	 */
	int (*dial)(struct smodem_dev *sd, const struct at_call *call);
	/* Go off-hook and answer (ATA, or S0 rings with auto-answer). */
	int (*answer)(struct smodem_dev *sd, const struct at_call *call);
	/*
	 * Go on-hook now (ATH, ATZ, DTR drop per AT&D, close, hang-up of the
	 * tty, an aborted call set-up).  Idempotent.  Reports about the
	 * ended call that are still on their way are dropped by the tty.
	 */
	void (*hangup)(struct smodem_dev *sd);
};

/* Module init/exit: the tty_driver. */
int smodem_tty_init(void);
void smodem_tty_exit(void);

/* Per device, from smodem_dev_register()/smodem_dev_unregister(). */
int smodem_tty_register(struct smodem_dev *sd);
void smodem_tty_unregister(struct smodem_dev *sd);

/* Process context.  NULL detaches; no op runs after it returns. */
void smodem_tty_set_engine(struct smodem_dev *sd,
			   const struct smodem_tty_engine *eng);

/* -- engine -> tty, any context ------------------------------------------ */

/* The handshake finished at rate bit/s: CONNECT <rate>, DCD on (AT&C1). */
void smodem_tty_connected(struct smodem_dev *sd, u32 rate);
/* The carrier of a connected call is gone: NO CARRIER, DCD off, SIGHUP. */
void smodem_tty_carrier_lost(struct smodem_dev *sd);
/*
 * A call set-up ended without a connection: AT_RC_BUSY,
 * AT_RC_NO_DIALTONE, AT_RC_NO_ANSWER, AT_RC_NO_CARRIER; or AT_RC_OK when
 * a ';' dial string has been dialed.
 */
void smodem_tty_result(struct smodem_dev *sd, enum at_result rc);
/*
 * Ring cadence: on at the start of each ring burst (RING, S1 counts, RI
 * on, may answer per S0), off at its end (RI off).
 */
void smodem_tty_ring(struct smodem_dev *sd, bool on);

/*
 * Data from the line.  Returns the bytes taken; the rest did not fit
 * (counted as buf_overrun in TIOCGICOUNT).  Check smodem_tty_rx_room()
 * first to flow-control the peer (V.42) instead of losing bytes.
 */
unsigned int smodem_tty_rx(struct smodem_dev *sd, const u8 *buf,
			   unsigned int n);
unsigned int smodem_tty_rx_room(struct smodem_dev *sd);

/*
 * Data for the line: up to max bytes the DTE wrote, removed from the
 * queue.  Meant to be called once per period by the pump.
 */
unsigned int smodem_tty_tx_get(struct smodem_dev *sd, u8 *buf,
			       unsigned int max);
unsigned int smodem_tty_tx_pending(struct smodem_dev *sd);

#endif
