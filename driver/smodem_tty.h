/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The smodem tty: /dev/ttySM<n>, one per smodem device, with the AT
 * command interpreter (at.c) in front of the modem.  The modem talks to it
 * through the link (smodem_link.h) only.
 */
#ifndef SMODEM_TTY_H
#define SMODEM_TTY_H

#include <linux/types.h>

struct smodem_dev;

#define SMODEM_TTY_NAME		"ttySM"
#define SMODEM_TTY_MINORS	8
/* DTE -> line: CTS drops above HIGH, rises again at or below LOW. */
#define SMODEM_TTY_TX_SIZE	2048
#define SMODEM_TTY_TX_HIGH	(SMODEM_TTY_TX_SIZE - 256)
#define SMODEM_TTY_TX_LOW	(SMODEM_TTY_TX_SIZE / 4)
/* line -> DTE, held while the DTE throttles or is in command mode. */
#define SMODEM_TTY_RX_SIZE	4096

/* Module init/exit: the tty_driver. */
int smodem_tty_init(void);
void smodem_tty_exit(void);

/*
 * Per device, from smodem_dev_register()/smodem_dev_unregister(), process
 * context.  calls: the modem has call control (ATD and ATA become commands
 * for it); without, they answer NO CARRIER at once.  Unregistering hangs
 * up whoever has the port open; the port itself lives on until closed.
 */
int smodem_tty_register(struct smodem_dev *sd, bool calls);
void smodem_tty_unregister(struct smodem_dev *sd);

#endif
