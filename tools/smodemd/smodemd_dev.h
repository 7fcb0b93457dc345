/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What driver/smodem_modem.c needs of its device when smodemd runs it
 * (context=usr): the line's rate, and somewhere to send what it would
 * have given the kernel.  The smodem_link_* functions it calls are
 * smodemd.c's, which write the shared area (driver/smodem_usr.h).
 */
#ifndef SMODEMD_DEV_H
#define SMODEMD_DEV_H

#include <linux/types.h>

struct smodem_usr_area;

struct smodem_dev {
	u32 id;
	struct {
		u32 rate;
	} p;
	struct smodem_usr_area *area;
	u64 reports_lost;	/* more in one period than the area holds */
};

/* The smodem_phase trace event: the kernel emits it at SMODEM_USR_DONE. */
void smodemd_phase(struct smodem_dev *sd, u32 phase, u32 arg);
#define trace_smodem_phase(sd, phase, arg)	smodemd_phase(sd, phase, arg)

#endif
