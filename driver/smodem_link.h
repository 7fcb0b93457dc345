/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The link between /dev/ttySM<n> and the modem behind it: commands from the
 * DTE one way (dial, answer, hang up), reports from the modem the other way
 * (connected, call ended, ring), and a byte queue each way.  This is the
 * modem's side of it (driver/smodem_link.c); the tty's side is
 * driver/smodem_tty.c, and neither calls the other.
 *
 * Every function here is safe in any context, hard IRQ included, also on
 * PREEMPT_RT: a raw spinlock for a short copy, the tty work it causes
 * (result codes, pushes to the line discipline, wakeups, hang-ups) deferred
 * to a work item.  Once the tty is unregistered they do nothing: the modem
 * may go on calling them until its device is stopped.
 *
 * Each call attempt the DTE makes has an id.  A command carries the id of
 * the call it starts or ends, and the modem stamps every report with the id
 * of the call that produced it: a report of an older call that arrives
 * after a new command is dropped, never taken for the new call's.
 */
#ifndef SMODEM_LINK_H
#define SMODEM_LINK_H

#include <linux/types.h>
#include "at.h"

struct smodem_dev;

#define SMODEM_CMD_HANGUP	BIT(0)	/* go on hook first */
#define SMODEM_CMD_CALL		BIT(1)	/* then start this call */
#define SMODEM_CMD_FAX		BIT(2)	/* then this Class 1 operation */

/**
 * struct smodem_cmd - what the DTE asked for since the modem last looked
 * @what: SMODEM_CMD_* bits; 0: nothing
 * @id: the call the command belongs to (the newest call attempt)
 * @answer: with SMODEM_CMD_CALL: answer (ATA, auto-answer) instead of dial
 * @call: with SMODEM_CMD_CALL: the call's settings.  Empty number and not
 *	@answer: originate without dialling; call.stay_command: dial, report
 *	AT_RC_OK, stay in command mode
 * @fax_op: with SMODEM_CMD_FAX: enum at_fax_op (+FTH, +FRM, ..., the DTE's
 *	abort), answered by AT_RC_FAX_* results
 * @fax_arg: with SMODEM_CMD_FAX: the operation's value (3, a modulation,
 *	10 ms units)
 */
struct smodem_cmd {
	unsigned int what;
	u32 id;
	bool answer;
	u8 fax_op;
	u16 fax_arg;
	struct at_call call;
};

struct smodem_link;

/**
 * struct smodem_link_ops - the link as the modem (smodem_modem.c) sees it
 * @take: the pending command, taken (a hang-up cancels a call not yet
 *	started); @cmd->what 0: nothing
 * @connected: smodem_link_connected()
 * @result: smodem_link_result()
 * @ring: smodem_link_ring()
 * @phase: the call's phase changed (enum smdsp_modem_phase or
 *	SMODEM_PHASE_FAX_*, arg as the smodem_phase tracepoint has it)
 * @rx: smodem_link_rx()
 * @rx_room: smodem_link_rx_room()
 * @tx_get: smodem_link_tx_get()
 *
 * Each is called from the modem's periods only, in whatever context they
 * run, and must be safe there (hard IRQ included).  The kernel's is the
 * tty's (smodem_link.c: smodem_link_tty()); smodemd's writes the shared
 * area of context=usr (driver/smodem_usr.h), whose reports the kernel
 * gives the tty's link in turn.
 */
struct smodem_link_ops {
	void (*take)(struct smodem_link *l, struct smodem_cmd *cmd);
	void (*connected)(struct smodem_link *l, u32 id, u32 rate, u32 conn);
	void (*result)(struct smodem_link *l, u32 id, enum at_result rc);
	void (*ring)(struct smodem_link *l, bool on);
	void (*phase)(struct smodem_link *l, u32 phase, u32 arg);
	unsigned int (*rx)(struct smodem_link *l, const u8 *buf, unsigned int n);
	unsigned int (*rx_room)(struct smodem_link *l);
	unsigned int (*tx_get)(struct smodem_link *l, u8 *buf, unsigned int max);
};

/* Embedded in whatever provides it, which its ops reach by container_of. */
struct smodem_link {
	const struct smodem_link_ops *ops;
};

/* The kernel's side: the tty's link of a device (sd->link). */
void smodem_link_init(struct smodem_dev *sd);

/* Takes the pending command (a hang-up cancels a call not yet started). */
void smodem_link_take(struct smodem_dev *sd, struct smodem_cmd *cmd);

/*
 * The handshake finished at rate bit/s, with what conn says (SMODEM_CONN_*):
 * CONNECT <rate> (and the reports asked for before it), DCD on (AT&C1).
 */
#define SMODEM_CONN_LAPM	0x1	/* V.42 error control */
#define SMODEM_CONN_V42BIS_TX	0x2	/* V.42bis on what this modem sends */
#define SMODEM_CONN_V42BIS_RX	0x4	/* and on what it receives */
#define SMODEM_CONN_V34		0x8	/* V.34 (+MCR cannot tell it by its rate) */
#define SMODEM_CONN_MASK	0xf
void smodem_link_connected(struct smodem_dev *sd, u32 id, u32 rate, u32 conn);
/*
 * The call ended.  Connected: AT_RC_NO_CARRIER, DCD off, SIGHUP.  While
 * setting up: AT_RC_BUSY, AT_RC_NO_DIALTONE, AT_RC_NO_ANSWER,
 * AT_RC_NO_CARRIER; or AT_RC_OK when a ';' dial string has been dialled.
 * Class 1: AT_RC_FAX_* (at_fax_result()) for the operation running.
 */
void smodem_link_result(struct smodem_dev *sd, u32 id, enum at_result rc);
/*
 * Ring cadence, of no call yet: on at the start of each ring burst (RING,
 * S1 counts, RI on, may answer per S0), off at its end (RI off).
 */
void smodem_link_ring(struct smodem_dev *sd, bool on);
/*
 * The modem went away (context=usr: its daemon exited or was detached): the
 * call the DTE has, if any, ends as if the modem had reported
 * AT_RC_NO_CARRIER for it (DCD off, SIGHUP per &C1), and a ring stops.  A
 * state, not a queued report: it is never dropped, however full the queue,
 * and it stands for the newest call attempt when it was set (the modem
 * need not know the id), after the reports queued before it.
 */
void smodem_link_gone(struct smodem_dev *sd);

/*
 * Data from the line.  Returns the bytes taken; the rest did not fit
 * (counted as buf_overrun in TIOCGICOUNT).  While a hang-up or a call the
 * modem has not taken yet is pending, the bytes are the call before's:
 * taken and dropped (a new call also drops what was held from before).  Check smodem_link_rx_room()
 * first to flow-control the peer (V.42) instead of losing bytes.
 */
unsigned int smodem_link_rx(struct smodem_dev *sd, const u8 *buf,
			    unsigned int n);
unsigned int smodem_link_rx_room(struct smodem_dev *sd);
/* Data for the line: up to max bytes the DTE wrote, removed from the queue. */
unsigned int smodem_link_tx_get(struct smodem_dev *sd, u8 *buf,
				unsigned int max);

#endif
