/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AT command interpreter of the smodem tty: a byte-fed state machine
 * with no kernel services, so the same source is unit-tested in user space
 * (tests/unit/test_at.c).  The caller owns the locking, the clock (every
 * timestamp is passed in) and the modem: the interpreter only says
 * what to do next through at_out.act.
 *
 * Output (echo, information text, result codes) goes into a caller buffer
 * and is truncated, never overrun, when it does not fit; result codes keep
 * a reserve at the end of the buffer so a line always ends with one.
 */
#ifndef SMODEM_AT_H
#define SMODEM_AT_H

#include <linux/types.h>

/* Characters of a command line after "AT", spaces not counted. */
#define AT_LINE_MAX	64
/* Dial string characters kept for the modem (digits and modifiers). */
#define AT_DIAL_MAX	40
/* S0..S12: the registers that mean something */
#define AT_NREGS	13
/* at_input() stops taking bytes while less than this is free in out. */
#define AT_OUT_MIN	512

/* Numeric forms are the enum values; CONNECT <rate> has its own numbers. */
enum at_result {
	AT_RC_OK = 0,
	AT_RC_CONNECT = 1,
	AT_RC_RING = 2,
	AT_RC_NO_CARRIER = 3,
	AT_RC_ERROR = 4,
	AT_RC_NO_DIALTONE = 6,
	AT_RC_BUSY = 7,
	AT_RC_NO_ANSWER = 8,
	AT_RC_FCERROR = 40,	/* T.31 +FCERROR; numeric form "+F4" */
	/*
	 * The modem's Class 1 reports travel as results too (the link's
	 * smodem_link_result()): AT_RC_FAX_CONNECT + enum at_fax_rc.
	 */
	AT_RC_FAX_CONNECT = 0x80,
	AT_RC_FAX_FCERROR = 0x84,
};

/* Bits of at_out.act, to be done in this order. */
#define AT_ACT_HANGUP	0x1
#define AT_ACT_DIAL	0x2
#define AT_ACT_ANSWER	0x4
#define AT_ACT_FAX	0x8	/* a Class 1 operation: at_state.fax_op, fax_arg */

enum at_mode {
	AT_MODE_COMMAND,
	AT_MODE_DATA,
	/*
	 * Class 1 (T.31): a fax operation runs, no CONNECT yet (a receive
	 * is aborted by any character from the DTE); then after CONNECT
	 * the DTE's bytes go to the line as they are (DLE shielded, no
	 * escape sequence), or the line's to the DTE (any character from
	 * the DTE aborts).
	 */
	AT_MODE_FAX_WAIT,
	AT_MODE_FAX_TX,
	AT_MODE_FAX_RX,
};

/* T.31's operations, as the modem carries them out. */
enum at_fax_op {
	AT_FAX_NONE,
	AT_FAX_TH,		/* +FTH=3 (also after ATA) */
	AT_FAX_RH,		/* +FRH=3 (also after ATD) */
	AT_FAX_TM,		/* +FTM=<mod> */
	AT_FAX_RM,		/* +FRM=<mod> */
	AT_FAX_TS,		/* +FTS=<10 ms units> */
	AT_FAX_RS,		/* +FRS=<10 ms units> */
	AT_FAX_ABORT,		/* the DTE stopped a receive */
};

/* What the modem reports of a fax operation (at_fax_result()). */
enum at_fax_rc {
	AT_FAXRC_CONNECT,
	AT_FAXRC_OK,
	AT_FAXRC_ERROR,
	AT_FAXRC_NO_CARRIER,
	AT_FAXRC_FCERROR,
};

enum at_call_state {
	AT_CALL_IDLE,
	AT_CALL_DIALING,	/* ATD sent to the modem, no result yet */
	AT_CALL_ANSWERING,
	AT_CALL_ONLINE,		/* connected, in data or online command mode */
};

enum at_mod {
	AT_MOD_V21,		/* 300 bit/s FSK */
	AT_MOD_V22,		/* 1200 bit/s */
	AT_MOD_V22B,		/* 2400 bit/s, falls back to 1200 */
	AT_MOD_V32,		/* 9600 and 4800 bit/s */
	AT_MOD_V32B,		/* 14400 down to 4800 bit/s */
	AT_MOD_V34,		/* 33600 down to 2400 bit/s */
	AT_MOD_COUNT
};

/*
 * Error control, as AT\N sets it.  LAPM is the only protocol there is, so
 * "reliable", "LAPM only" and "MNP only" differ in what +ES and &V report,
 * not on the line: each is an error-corrected link or no call.
 */
enum at_ec {
	AT_EC_NORMAL,		/* \N0: buffered, no error control */
	AT_EC_DIRECT,		/* \N1: unbuffered */
	AT_EC_RELIABLE,		/* \N2: V.42 required, hang up without it */
	AT_EC_AUTO,		/* \N3: V.42 if the peer has it, else normal */
	AT_EC_LAPM,		/* \N4: LAPM required, hang up without it */
	AT_EC_MNP,		/* \N5: MNP required (Rockwell's): as \N2 */
	AT_EC_COUNT
};

/*
 * Data compression, as AT%C sets it (with +DS: see set_pct_c()); %C2, V.42bis
 * when the peer agrees, is the factory's.  There is no MNP 5: %C1 compresses
 * nothing and %C3 is %C2.  +DR and ATW1 report what XID agreed.
 */
enum at_comp {
	AT_COMP_NONE,		/* %C0 */
	AT_COMP_MNP5,		/* %C1 */
	AT_COMP_V42BIS,		/* %C2 */
	AT_COMP_BOTH,		/* %C3: MNP 5 and V.42bis */
	AT_COMP_COUNT
};

/* +A8E <v8o> and <v8a> values that enable V.8 (DCE-controlled). */
#define AT_V8O_ON	1
#define AT_V8O_IND	6	/* with +A8x indications (not sent) */
#define AT_V8A_ON	1
#define AT_V8A_IND	5
/* +A8E <v8cf>: the call function octet of CI/CM, V-series data. */
#define AT_V8CF_DATA	0xc1

/* What the modem needs for one call, from the settings at ATD/ATA time. */
struct at_call {
	/*
	 * Digits 0-9 * # A-D, ',' (pause of comma_s seconds), 'W' (wait for
	 * a dial tone again, as long as for the first one) and '!' (hook
	 * flash).  Empty for ATA and for a bare ATD (originate without
	 * dialing).
	 */
	char number[AT_DIAL_MAX + 1];
	bool pulse;		/* ATDP; one signalling mode per call */
	bool stay_command;	/* ';': dial, report OK, no handshake */
	bool detect_dialtone;	/* X2, X4: else dial blind */
	bool detect_busy;	/* X3, X4 */
	bool bell;		/* ATB1: Bell 103/212A conventions asked */
	enum at_mod mod;
	bool automode;		/* fall back to slower modulations */
	u16 min_rate, max_rate;	/* bit/s, 0: the modulation's own */
	/* For this call's role: +ES's originator or answerer settings. */
	enum at_ec ec;
	bool v8;		/* +A8E: <v8o> dialing, <v8a> answering */
	u8 dialtone_wait_s;	/* S6 */
	u8 carrier_wait_s;	/* S7 */
	u8 comma_s;		/* S8 */
	u8 carrier_loss_ds;	/* S10, tenths of a second */
	u8 dtmf_ms;		/* S11 */
	u8 fclass;		/* +FCLASS: 0 data, 1 fax Class 1 (T.31) */
	u8 compression;		/* enum at_comp (%C), for the modem to use */
	/* V.42bis as +DS (and %C) ask: directions 0-3 (0: none), P1, P2 */
	u8 v42bis_dirs;
	u8 v42bis_p2;
	u16 v42bis_p1;
	bool v42bis_required;	/* +DS <compression_negotiation> 1 */
};

/* V.250 settings that are stored values only: a list of numbers each. */
enum at_ext {
	AT_X_ICF,		/* +ICF <format>,<parity> */
	AT_X_IFC,		/* +IFC <by_dte>,<by_dce> */
	AT_X_ILRR,		/* +ILRR: report the DTE rate before CONNECT */
	AT_X_DR,		/* +DR: report compression before CONNECT */
	AT_X_ER,		/* +ER: report error control before CONNECT */
	AT_X_MR,		/* +MR: report the modulation before CONNECT */
	AT_X_DS,		/* +DS V.42bis: only "none" (direction 0) */
	AT_X_FCLASS,		/* +FCLASS: 0 data, 1 fax Class 1 (T.31) */
	AT_X_ETBM,		/* +ETBM buffer handling at call end */
	AT_X_COUNT
};
#define AT_X_VALS	4

/*
 * Everything AT&W stores in a profile and ATZ loads from it (AT&F: from
 * the factory's).  S registers above AT_NREGS keep what is written to them
 * and mean nothing here, as a modem's reserved ones.
 */
#define AT_NSTORED	100
struct at_settings {
	u8 s[AT_NSTORED];
	bool echo, verbose, quiet, bell;
	u8 xlevel, amp_c, amp_d, amp_k, amp_s, speaker, volume;
	/*
	 * Flow control, by Hayes' &K (amp_k) and Rockwell's \Q (bs_q), each
	 * setting the other.  Stored for &V: the tty's own flow control
	 * always works (CTS falls while its buffer toward the line is full,
	 * RTS holds the line's data under CRTSCTS, XON/XOFF is the line
	 * discipline's).
	 */
	u8 bs_q;
	u8 bs_v;		/* \V1: single-line CONNECT (stored only) */
	enum at_comp pct_c;	/* %C */
	u8 w;			/* ATW1: CARRIER/PROTOCOL/COMPRESSION lines */
	bool pulse;		/* ATP: dial pulse unless the string says T */
	enum at_mod mod;
	bool automode;
	u16 min_rate, max_rate;
	u8 es[3];		/* AT+ES values; ec follows them */
	enum at_ec ec;
	u8 a8e[3];		/* AT+A8E <v8o>, <v8a>, <v8cf> */
	u32 ipr;		/* +IPR, 0: the DTE's rate (autobaud) */
	u16 ext[AT_X_COUNT][AT_X_VALS];
};

/* What the modem connected with, as the reports before CONNECT say. */
struct at_conn {
	u32 rate;		/* bit/s */
	bool v34;		/* V.34 (its rates up to 14400 are V.32bis's too) */
	bool lapm;		/* V.42 error control */
	u8 v42bis;		/* V.42bis agreed: AT_V42BIS_TX | AT_V42BIS_RX */
};

/* at_conn.v42bis, seen from this modem: what it compresses, decompresses */
#define AT_V42BIS_TX	0x1
#define AT_V42BIS_RX	0x2

struct at_state {
	struct at_settings cfg;
	struct at_settings profile[2];
	u8 power_on;		/* AT&Y: the profile ATZ (no digit) loads */
	u8 sreg_sel;		/* ATSn without = or ? selects */
	u32 dte_rate;		/* the tty's speed, for +ILRR */

	/* The call as the DTE sees it. */
	enum at_mode mode;
	enum at_call_state call;
	u32 rate;
	bool dtr;
	struct at_call callp;
	char last_number[AT_DIAL_MAX + 1];
	u64 ring_ns;

	/* Command line editor. */
	u8 in_state;
	u8 len;
	bool overflow;
	char line[AT_LINE_MAX + 1];
	char last[AT_LINE_MAX + 1];
	u8 last_len;

	/* "+++" detection in data mode. */
	u8 plus;
	u64 last_data_ns, plus_ns;

	/*
	 * Class 1: the operation the modem runs (or, with AT_ACT_FAX, is to
	 * start), and what is left of its command line to run after it.
	 */
	enum at_fax_op fax_op;
	u16 fax_arg;
	bool fax_abort;		/* the DTE aborted: OK ends it, the rest not run */
	u8 pend_len;
	char pend[AT_LINE_MAX + 1];
};

struct at_out {
	u8 *buf;
	unsigned int size, len;
	unsigned int act;	/* AT_ACT_* */
};

static inline void at_out_init(struct at_out *o, u8 *buf, unsigned int size)
{
	o->buf = buf;
	o->size = size;
	o->len = 0;
	o->act = 0;
}

/* Factory settings, command mode, no call. */
void at_init(struct at_state *at);
/* Open or last close of the port: command mode, no call, settings kept. */
void at_reset_session(struct at_state *at);

/*
 * Command mode input from the DTE.  Returns how many bytes were taken:
 * it stops after a command line ran (act may be set, the mode may now be
 * data) or when out is short of AT_OUT_MIN, so call it again with the rest
 * after acting on out.  Takes nothing in data mode.  Any byte but LF or
 * NUL while a call is being set up aborts it (NO CARRIER, AT_ACT_HANGUP).
 */
unsigned int at_input(struct at_state *at, const u8 *buf, unsigned int n,
		      u64 now_ns, struct at_out *out);

/*
 * The modem connected: the reports +MR, +ER, +DR, +ILRR and ATW1 ask for,
 * then CONNECT <rate>, data mode.
 */
void at_connected(struct at_state *at, const struct at_conn *conn,
		  u64 now_ns, struct at_out *out);
/*
 * A call set-up or a connection ended with rc (NO CARRIER, BUSY,
 * NO DIALTONE, NO ANSWER), or a ';' dial finished (OK).  Ignored when no
 * call is in progress: a hangup the DTE asked for is reported by ATH.
 */
void at_call_end(struct at_state *at, enum at_result rc, struct at_out *out);
/* A ring burst: RING, S1 counts; may ask to answer (S0). */
void at_ring(struct at_state *at, u64 now_ns, struct at_out *out);

/*
 * Data mode bytes from the DTE, all written at now_ns (they still go to
 * the line).  Returns true while a complete escape sequence waits for its
 * trailing guard time: call at_escape_poll() at at_escape_deadline().
 */
bool at_escape_feed(struct at_state *at, const u8 *buf, unsigned int n,
		    u64 now_ns);
u64 at_escape_deadline(const struct at_state *at);
/* True when the guard time passed: online command mode, OK written. */
bool at_escape_poll(struct at_state *at, u64 now_ns, struct at_out *out);

/*
 * Class 1: the modem's report on the running fax operation.  CONNECT:
 * fax data mode (the DTE's frames or data to the line, or the line's to
 * the DTE; after ATD, as +FRH=3; after ATA, as +FTH=3); OK: the rest of
 * the command line runs (it may start another operation: AT_ACT_FAX), or
 * OK; ERROR, NO CARRIER, +FCERROR: the result, command mode.
 */
void at_fax_result(struct at_state *at, enum at_fax_rc rc, u64 now_ns,
		   struct at_out *out);
/* A Class 1 report carried as a result (AT_RC_FAX_*). */
static inline bool at_rc_fax(u32 rc)
{
	return rc >= AT_RC_FAX_CONNECT && rc <= AT_RC_FAX_FCERROR;
}

/* Whether T.31 lists a modulation for +FTM/+FRM. */
bool at_fax_mod_ok(u32 mod);

/* DTR from the DTE (AT&D decides what a drop does). */
void at_dtr(struct at_state *at, bool on, struct at_out *out);
/* DCD as AT&C says it should be, given the carrier. */
bool at_dcd(const struct at_state *at, bool carrier);

/* Text of a result code, NULL if unknown. */
const char *at_result_name(enum at_result rc);

#endif
