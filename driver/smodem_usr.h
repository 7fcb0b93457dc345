/* SPDX-License-Identifier: GPL-2.0 */
/*
 * context=usr: the interface between smodem.ko and the process that does
 * a modem's per-period work (tools/smodemd).  Built into both: the same
 * header, the same compiler, so the layout is checked at attach by size
 * and version, not frozen as a uapi.
 *
 * /dev/smodem<n> (one per modem; one opener at a time, -EBUSY for a
 * second) is mmap()ed: one struct smodem_usr_area, then the sample arrays
 * at the offsets it names.  Each period is one upcall:
 *
 *   SMODEM_USR_WAIT   blocks until a complete period is handed out (or
 *                     -EAGAIN with O_NONBLOCK; poll() says POLLIN when one
 *                     is ready): n frames in rx, a gap to fill, the DTE's
 *                     command, bytes for the line, room for bytes from it
 *   ...               the daemon runs the modem (driver/smodem_modem.c and
 *                     dsp/, built for user space) on them: n frames to tx,
 *                     gap_len frames to fill, reports, bytes, next period
 *   SMODEM_USR_DONE   the kernel takes it all: bytes and reports to the
 *                     tty (driver/smodem_link.h), the output to the ring
 *
 * SMODEM_USR_DONE_WAIT is both in one system call.  Between WAIT and DONE
 * the area is the daemon's; otherwise the kernel's, which reads each field
 * the daemon wrote once and checks it.  The daemon closing the device
 * (exit, SIGKILL) ends the call it had: NO CARRIER at the tty.  One
 * detached for stalling, or whose modem went away, gets -EPIPE or -ENODEV
 * from every ioctl and POLLERR | POLLHUP from poll(), never a sleep.
 *
 * A PHASE report is the smodem_phase event's phase and argument as the
 * modem traces them (driver/smodem_call.h); any other is refused and
 * counted (usr_bad_phase), as is every field out of its range.
 */
#ifndef SMODEM_USR_H
#define SMODEM_USR_H

#include <linux/types.h>
#include <linux/ioctl.h>
#include "smodem_link.h"

#define SMODEM_USR_MAGIC	0x31554d53	/* "SMU1" */
#define SMODEM_USR_VERSION	2

/* Bytes each way per period (2400 bit/s moves 4 in 12.5 ms). */
#define SMODEM_USR_TX_BYTES	128
#define SMODEM_USR_RX_BYTES	512
/* Reports per period (a ring, a phase, a result: a handful at most). */
#define SMODEM_USR_REPORTS	16
/* The modem's lines of the stats file (engine_*), as it renders them. */
#define SMODEM_USR_SHOW_BYTES	4096

/* area.flags: how the module was loaded */
#define SMODEM_USR_F_CALLS	0x1	/* engine=1: call control */
#define SMODEM_USR_F_PHASE	0x2	/* phase_periods=1 */

/* struct smodem_usr_report.type: the smodem_link_* call it stands for */
enum smodem_usr_report_type {
	SMODEM_USR_CONNECTED = 1,	/* id, a: rate, b: SMODEM_CONN_* */
	SMODEM_USR_RESULT,		/* id, a: enum at_result */
	SMODEM_USR_RING,		/* a: on */
	SMODEM_USR_PHASE,		/* a: phase, b: arg (the trace event) */
};

struct smodem_usr_report {
	u32 type;
	u32 id;
	u32 a;
	u32 b;
};

struct smodem_usr_area {
	/* Set at load; the daemon checks them. */
	u32 magic;
	u32 version;
	u32 size;		/* bytes mapped, the sample arrays included */
	u32 area_size;	/* sizeof(struct smodem_usr_area) */
	u32 cmd_size;		/* sizeof(struct smodem_cmd) */
	u32 dev_id;		/* the traces' dev= */
	u32 rate;
	u32 ring;
	u32 max_frames;	/* rx, tx: the longest period */
	u32 fill_frames;	/* fill: the longest gap */
	u32 flags;		/* SMODEM_USR_F_* */
	u32 rx_off;		/* byte offsets from the area's start, s16 each */
	u32 tx_off;
	u32 fill_off;

	/* The kernel's, at each WAIT. */
	u64 seq;		/* upcalls so far, this one included */
	u64 pos;		/* the period's first frame */
	u32 n;		/* frames in rx, and to write to tx */
	u32 gap;		/* 1: the output lead grew (the modem's gap()) */
	u32 gap_len;		/* fill this many frames first */
	u32 gap_late;		/* frames of the gap already played */
	u32 tx_len;		/* bytes for the line: tx_bytes[0, tx_len) */
	u32 rx_room;		/* bytes the tty can take now */
	u32 attach;		/* this open()'s number, from 1 */
	u32 lead;		/* the output lead from this period on (frames) */
	struct smodem_cmd cmd;	/* what == 0: no command */

	/* The daemon's, read at DONE. */
	u32 tx_used;		/* bytes of tx_bytes the modem took */
	u32 rx_len;		/* bytes for the DTE in rx_bytes */
	u32 next;		/* the period wanted from the next one on */
	u32 nrep;		/* reports in rep[], in order */
	struct smodem_usr_report rep[SMODEM_USR_REPORTS];
	u8 tx_bytes[SMODEM_USR_TX_BYTES];
	u8 rx_bytes[SMODEM_USR_RX_BYTES];

	/*
	 * The daemon's, any time: the modem's stats lines (its ops->show),
	 * refreshed every few periods into the buffer show_cur does not name,
	 * which it then names.  The kernel's stats file prints show_cur's.
	 */
	u32 show_cur;
	u32 show_len[2];
	char show[2][SMODEM_USR_SHOW_BYTES];
};

/*
 * The kernel's rule for a stalled daemon (not part of the interface): the
 * first interrupt it has not answered (no WAIT or DONE since) at since,
 * more than limit_ns before now.  Signed: a DONE on another CPU may stamp
 * a time later than the now an interrupt read just before it, which is no
 * stall.
 */
static inline bool smodem_usr_stalled(u64 now, u64 since, u64 limit_ns)
{
	return (s64)(now - since) > (s64)limit_ns;
}

#define SMODEM_USR_WAIT		_IO('S', 0x40)
#define SMODEM_USR_DONE		_IO('S', 0x41)
#define SMODEM_USR_DONE_WAIT	_IO('S', 0x42)

#endif
