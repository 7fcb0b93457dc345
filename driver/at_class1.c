// SPDX-License-Identifier: GPL-2.0
/*
 * Fax Class 1 (T.31) of the AT interpreter: the commands (+FTH, +FRH,
 * +FTM, +FRM, +FTS, +FRS, the +FMI identification), the fax modes a
 * running operation puts the interpreter in, and the modem's reports on
 * an operation (at_fax_result()).
 *
 * An operation stops its command line: the interpreter asks the modem to
 * run it (AT_ACT_FAX) and keeps the rest of the line, which runs once the
 * modem reports OK (efax's +FTS=8;+FTH=3), as T.31 has it.  A transmit
 * waits for CONNECT and then takes the DTE's bytes as they are, to the
 * line; a receive waits for CONNECT and then gives the DTE the line's,
 * and any character from the DTE stops it.  The class itself is +FCLASS,
 * a stored value of the interpreter (at.c): with 1, ATD and ATA make a
 * fax call (at_call.fclass) and these commands exist.
 */
#include <linux/types.h>
#include <linux/string.h>
#include <linux/build_bug.h>
#include <linux/array_size.h>
#include "at.h"
#include "at_class1.h"
#include "smodem_version.h"

/* T.31's modulations for +FTM/+FRM: V.21, V.27ter, V.29, V.17. */
static const u8 fax_mods[] = { 24, 48, 72, 73, 74, 96, 97, 98, 121, 122, 145,
			       146 };

bool at_fax_mod_ok(u32 mod)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fax_mods); i++)
		if (fax_mods[i] == mod)
			return true;
	return false;
}

static void fax_list(struct at_state *at, struct at_out *o, bool hdlc)
{
	const unsigned int r = AT_RESULT_RESERVE;
	unsigned int i;

	at_info_begin(at, o);
	if (hdlc) {
		at_put_ch(o, '3', r);
	} else {
		for (i = 0; i < ARRAY_SIZE(fax_mods); i++) {
			if (i)
				at_put_ch(o, ',', r);
			at_put_uint(o, fax_mods[i], 0, r);
		}
	}
	at_info_end(at, o);
}

/*
 * +FTH, +FRH, +FTM, +FRM, +FTS, +FRS: "=?" lists, "=<n>" starts the
 * operation (the rest of the line waits for its OK).  Class 1 only.
 */
static int cmd_fax(struct at_state *at, enum at_fax_op op, struct at_cur *c,
		   struct at_out *o)
{
	bool hdlc = op == AT_FAX_TH || op == AT_FAX_RH;
	bool silence = op == AT_FAX_TS || op == AT_FAX_RS;
	u32 v;

	if (at->cfg.ext[AT_X_FCLASS][0] != 1 || !at_accept(c, '='))
		return -1;
	if (at_accept(c, '?')) {
		if (silence)
			at_info(at, o, "0-255");
		else
			fax_list(at, o, hdlc);
		return at_ext_end(c) ? 0 : -1;
	}
	if (!at_number(c, 255, &v) || !at_ext_end(c))
		return -1;
	if ((hdlc && v != 3) || (!hdlc && !silence && !at_fax_mod_ok(v)))
		return -1;
	at->fax_op = op;
	at->fax_arg = (u16)v;
	at->fax_abort = false;
	/* the rest of the line runs after the operation's OK */
	at->pend_len = (u8)(c->n - c->p);
	memcpy(at->pend, c->s + c->p, at->pend_len);
	at->mode = AT_MODE_FAX_WAIT;
	o->act |= AT_ACT_FAX;
	return AT_EXT_STOP;
}

/* +FMI, +FMM, +FMR: as +GMI..., "?" allowed */
static int fax_ident(struct at_state *at, struct at_cur *c, struct at_out *o,
		     const char *text)
{
	at_accept(c, '?');
	return at_ext_info(at, c, o, text);
}

static const struct {
	const char *name;
	enum at_fax_op op;
} fax_ops[] = {
	{ "FTH", AT_FAX_TH },
	{ "FRH", AT_FAX_RH },
	{ "FTM", AT_FAX_TM },
	{ "FRM", AT_FAX_RM },
	{ "FTS", AT_FAX_TS },
	{ "FRS", AT_FAX_RS },
};

int at_class1_ext(struct at_state *at, struct at_cur *c, struct at_out *o)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fax_ops); i++)
		if (at_ext_name(c, fax_ops[i].name))
			return cmd_fax(at, fax_ops[i].op, c, o);
	/* T.31's identification, also in its read form (efax: +FMI?) */
	if (at_ext_name(c, "FMI"))
		return fax_ident(at, c, o, at_info_text[0]);
	if (at_ext_name(c, "FMM"))
		return fax_ident(at, c, o, at_info_text[1]);
	if (at_ext_name(c, "FMR"))
		return fax_ident(at, c, o, SMODEM_VERSION);
	return AT_EXT_UNKNOWN;
}

void at_class1_dte_char(struct at_state *at, struct at_out *o)
{
	/*
	 * T.31: a character from the DTE stops a receive (the modem's OK
	 * follows); a transmit takes none here.
	 */
	if ((at->fax_op == AT_FAX_RH || at->fax_op == AT_FAX_RM ||
	     at->fax_op == AT_FAX_RS) && !at->fax_abort) {
		at->fax_abort = true;
		at->fax_op = AT_FAX_ABORT;
		o->act |= AT_ACT_FAX;
	}
}

/* CONNECT: fax data mode, or (after ATD, ATA) a fax call's first one. */
static void fax_connect(struct at_state *at, struct at_out *out)
{
	bool dialing = at->call == AT_CALL_DIALING;

	/* ATD: as +FRH=3; ATA: as +FTH=3 */
	if (dialing || at->call == AT_CALL_ANSWERING) {
		at->call = AT_CALL_ONLINE;
		at->fax_op = dialing ? AT_FAX_RH : AT_FAX_TH;
		at->fax_abort = false;
		at->pend_len = 0;
		at->cfg.s[1] = 0;
	}
	if (at->mode != AT_MODE_FAX_WAIT && at->mode != AT_MODE_FAX_TX &&
	    at->mode != AT_MODE_COMMAND)
		return;
	if (at->fax_op == AT_FAX_TH || at->fax_op == AT_FAX_TM)
		at->mode = AT_MODE_FAX_TX;
	else if (at->fax_op == AT_FAX_RH || at->fax_op == AT_FAX_RM)
		at->mode = AT_MODE_FAX_RX;
	else
		return;
	at_editor_reset(at);
	at_result(at, out, AT_RC_CONNECT, 0);
}

void at_fax_result(struct at_state *at, enum at_fax_rc rc, u64 now_ns,
		   struct at_out *out)
{
	if (rc == AT_FAXRC_CONNECT) {
		fax_connect(at, out);
		return;
	}
	if (at->mode != AT_MODE_FAX_WAIT && at->mode != AT_MODE_FAX_TX &&
	    at->mode != AT_MODE_FAX_RX)
		return;
	at->mode = AT_MODE_COMMAND;
	at->fax_op = AT_FAX_NONE;
	at_editor_reset(at);
	if (rc == AT_FAXRC_OK && !at->fax_abort && at->pend_len) {
		char line[AT_LINE_MAX + 1];
		unsigned int n = at->pend_len;

		/* at_run() may keep a new rest in pend */
		memcpy(line, at->pend, n);
		at->pend_len = 0;
		if (!at_run(at, line, n, now_ns, out))
			at_result(at, out, AT_RC_OK, 0);
		return;
	}
	at->pend_len = 0;
	at->fax_abort = false;
	switch (rc) {
	case AT_FAXRC_OK:
		at_result(at, out, AT_RC_OK, 0);
		break;
	case AT_FAXRC_NO_CARRIER:
		at_result(at, out, AT_RC_NO_CARRIER, 0);
		break;
	case AT_FAXRC_FCERROR:
		at_result(at, out, AT_RC_FCERROR, 0);
		break;
	default:
		at_result(at, out, AT_RC_ERROR, 0);
		break;
	}
}
