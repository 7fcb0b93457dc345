// SPDX-License-Identifier: GPL-2.0
/*
 * AT command interpreter.  The dialect is the Hayes one that chat, pppd and
 * minicom scripts expect, with the V.250 +MS/+ES for modulation and error
 * control, and the Rockwell commands (\N, \Q, \V, %C, &K) that V.32bis
 * and V.34 modems' init strings carry.  Fax Class 1 is at_class1.c's.
 * Everything here is bounded: the line editor stores at most
 * AT_LINE_MAX characters and swallows the rest of an overlong line, numbers
 * saturate instead of wrapping, and output is truncated at the buffer end.
 */
#include <linux/types.h>
#include <linux/string.h>
#include <linux/build_bug.h>
#include <linux/array_size.h>
#include "at.h"
#include "at_class1.h"
#include "smodem_version.h"

#define NS_PER_MS	1000000ULL
/* S1 starts again when rings are further apart than this. */
#define RING_GAP_NS	(8000ULL * NS_PER_MS)

enum { IN_IDLE, IN_A, IN_LINE };

struct sreg {
	u8 def, min, max;
	bool ro;
};

static const struct sreg sregs[AT_NREGS] = {
	[0] = { 0, 0, 255 },		/* rings before auto-answer, 0: off */
	[1] = { 0, 0, 255, true },	/* rings counted */
	[2] = { '+', 0, 255 },		/* escape character, > 127: off */
	[3] = { '\r', 0, 127 },		/* line terminator */
	[4] = { '\n', 0, 127 },		/* response formatting */
	[5] = { '\b', 0, 127 },		/* backspace */
	[6] = { 2, 2, 255 },		/* wait for dial tone, s */
	[7] = { 50, 1, 255 },		/* wait for carrier, s */
	[8] = { 2, 0, 255 },		/* comma pause, s */
	[9] = { 6, 1, 255 },		/* carrier detect time, 1/10 s */
	[10] = { 14, 1, 255 },		/* carrier loss to hang-up, 1/10 s */
	[11] = { 95, 50, 255 },		/* DTMF tone duration, ms */
	[12] = { 50, 0, 255 },		/* escape guard time, 1/50 s */
};

static const char * const mod_names[AT_MOD_COUNT] = {
	[AT_MOD_V21] = "V21",
	[AT_MOD_V22] = "V22",
	[AT_MOD_V22B] = "V22B",
	[AT_MOD_V32] = "V32",
	[AT_MOD_V32B] = "V32B",
	[AT_MOD_V34] = "V34",
};

static const u16 mod_max_rate[AT_MOD_COUNT] = {
	[AT_MOD_V21] = 300,
	[AT_MOD_V22] = 1200,
	[AT_MOD_V22B] = 2400,
	[AT_MOD_V32] = 9600,
	[AT_MOD_V32B] = 14400,
	[AT_MOD_V34] = 33600,
};

/* ATI0..ATI9; NULL: OK alone (ATI2 is the self test, the rest unused). */
const char *const at_info_text[10] = {
	"smodem",
	"V.21 V.22 V.22bis V.32 V.32bis V.34 V.42 V.8",
	NULL,
	"smodem " SMODEM_VERSION " soft modem for Linux",
};

/*
 * The V.250 commands that only store numbers (ext_cmds[] names them):
 * each subparameter's range and factory value.
 */
struct ext_val {
	u8 n;
	u16 min[AT_X_VALS], max[AT_X_VALS], def[AT_X_VALS];
};

static const struct ext_val ext_vals[AT_X_COUNT] = {
	[AT_X_ICF] = { 2, { 0, 0 }, { 6, 3 }, { 3, 3 } },
	[AT_X_IFC] = { 2, { 0, 0 }, { 3, 2 }, { 2, 2 } },
	[AT_X_ILRR] = { 1, { 0 }, { 1 }, { 0 } },
	[AT_X_DR] = { 1, { 0 }, { 1 }, { 0 } },
	[AT_X_ER] = { 1, { 0 }, { 1 }, { 0 } },
	[AT_X_MR] = { 1, { 0 }, { 2 }, { 0 } },
	/*
	 * V.42bis: offered both ways by default, as %C2 says, used when the
	 * peer agrees (P1 up to what the engine allocates,
	 * SMDSP_MODEM_V42BIS_MAX_P1); AT%C0 or AT+DS=0 turns it off.
	 */
	[AT_X_DS] = { 4, { 0, 0, 512, 6 }, { 3, 1, 4096, 250 },
		      { 3, 0, 2048, 32 } },
	[AT_X_FCLASS] = { 1, { 0 }, { 1 }, { 0 } },
	[AT_X_ETBM] = { 3, { 0, 0, 0 }, { 2, 2, 30 }, { 1, 1, 20 } },
};

/* +IPR: the rates a DTE may fix; 0 follows the DTE (autobaud). */
static const u32 ipr_rates[] = {
	0, 300, 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400,
	460800,
};

/*
 * \N modes as V.250 +ES triples: <orig_rqst> (0 direct, 1 buffered, 2 and
 * 3 V.42 without and with detection), <orig_fbk> (0 and 1 error control
 * optional, 2 required, 3 LAPM required), <ans_fbk> (0 direct, 1 buffered,
 * 2 and 3 optional, 4 required, 5 LAPM required).  What V.250 adds for an
 * "alternative protocol" (MNP) is refused: there is none, and \N5's MNP
 * required is error control required.
 */
static const u8 ec_es[AT_EC_COUNT][3] = {
	[AT_EC_NORMAL] = { 1, 0, 1 },
	[AT_EC_DIRECT] = { 0, 0, 0 },
	[AT_EC_RELIABLE] = { 3, 2, 4 },
	[AT_EC_AUTO] = { 3, 0, 2 },
	[AT_EC_LAPM] = { 3, 3, 5 },
	[AT_EC_MNP] = { 3, 2, 4 },
};

static u64 elapsed(u64 now, u64 then)
{
	return now > then ? now - then : 0;
}

static u64 guard_ns(const struct at_state *at)
{
	return (u64)at->cfg.s[12] * 20 * NS_PER_MS;
}

/* -- output ---------------------------------------------------------------- */

static void put_raw(struct at_out *o, const char *s, unsigned int n,
		    unsigned int reserve)
{
	unsigned int lim = o->size > reserve ? o->size - reserve : 0;

	while (n-- && o->len < lim)
		o->buf[o->len++] = (u8)*s++;
}

void at_put_ch(struct at_out *o, char c, unsigned int reserve)
{
	put_raw(o, &c, 1, reserve);
}

static void put_str(struct at_out *o, const char *s, unsigned int reserve)
{
	put_raw(o, s, strlen(s), reserve);
}

void at_put_uint(struct at_out *o, u32 v, unsigned int width,
		 unsigned int reserve)
{
	char d[10];
	unsigned int n = 0;

	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < sizeof(d));
	while (n < width && n < sizeof(d))
		d[n++] = '0';
	while (n)
		at_put_ch(o, d[--n], reserve);
}

static void put_hex2(struct at_out *o, u32 v, unsigned int reserve)
{
	static const char hex[] = "0123456789ABCDEF";

	at_put_ch(o, hex[(v >> 4) & 0xf], reserve);
	at_put_ch(o, hex[v & 0xf], reserve);
}

static void put_crlf(const struct at_state *at, struct at_out *o,
		     unsigned int reserve)
{
	at_put_ch(o, (char)at->cfg.s[3], reserve);
	at_put_ch(o, (char)at->cfg.s[4], reserve);
}

/* Information text: "<CR><LF>text<CR><LF>" verbose, "text<CR><LF>" not. */
void at_info_begin(const struct at_state *at, struct at_out *o)
{
	if (at->cfg.verbose)
		put_crlf(at, o, AT_RESULT_RESERVE);
}

void at_info_end(const struct at_state *at, struct at_out *o)
{
	put_crlf(at, o, AT_RESULT_RESERVE);
}

void at_info(const struct at_state *at, struct at_out *o, const char *s)
{
	at_info_begin(at, o);
	put_str(o, s, AT_RESULT_RESERVE);
	at_info_end(at, o);
}

const char *at_result_name(enum at_result rc)
{
	switch (rc) {
	case AT_RC_OK:
		return "OK";
	case AT_RC_CONNECT:
		return "CONNECT";
	case AT_RC_RING:
		return "RING";
	case AT_RC_NO_CARRIER:
		return "NO CARRIER";
	case AT_RC_ERROR:
		return "ERROR";
	case AT_RC_NO_DIALTONE:
		return "NO DIALTONE";
	case AT_RC_BUSY:
		return "BUSY";
	case AT_RC_NO_ANSWER:
		return "NO ANSWER";
	case AT_RC_FCERROR:
		return "+FCERROR";
	case AT_RC_FAX_CONNECT:
	case AT_RC_FAX_FCERROR:
		/* reports for at_fax_result(), never printed as they are */
		break;
	}
	return NULL;
}

/* Which codes ATX allows; the others read NO CARRIER. */
static enum at_result x_filter(const struct at_state *at, enum at_result rc)
{
	switch (rc) {
	case AT_RC_NO_DIALTONE:
		return at->cfg.xlevel == 2 || at->cfg.xlevel == 4 ? rc : AT_RC_NO_CARRIER;
	case AT_RC_BUSY:
	case AT_RC_NO_ANSWER:
		return at->cfg.xlevel >= 3 ? rc : AT_RC_NO_CARRIER;
	default:
		return rc;
	}
}

static u32 connect_code(u32 rate)
{
	switch (rate) {
	case 1200:
		return 5;
	case 2400:
		return 10;
	case 4800:
		return 11;
	case 9600:
		return 12;
	case 7200:
		return 13;
	case 12000:
		return 14;
	case 14400:
		return 15;
	/* V.34's, as Rockwell's chips number them (19200 shares the DTE rate's) */
	case 16800:
		return 59;
	case 19200:
		return 16;
	case 21600:
		return 61;
	case 24000:
		return 62;
	case 26400:
		return 63;
	case 28800:
		return 64;
	case 31200:
		return 91;
	case 33600:
		return 84;
	default:
		return AT_RC_CONNECT;
	}
}

/* A result code; rate is only used by CONNECT (0: none). */
void at_result(const struct at_state *at, struct at_out *o,
	       enum at_result rc, u32 rate)
{
	const char *name;

	if (at->cfg.quiet)
		return;
	rc = x_filter(at, rc);
	if (rc == AT_RC_CONNECT && at->cfg.xlevel == 0)
		rate = 0;
	name = at_result_name(rc);
	if (!name)
		return;
	if (!at->cfg.verbose) {
		if (rc == AT_RC_FCERROR)
			put_str(o, "+F4", 0);
		else
			at_put_uint(o, rc == AT_RC_CONNECT && rate ?
				    connect_code(rate) : rc, 0, 0);
		at_put_ch(o, (char)at->cfg.s[3], 0);
		return;
	}
	put_crlf(at, o, 0);
	put_str(o, name, 0);
	if (rc == AT_RC_CONNECT && rate) {
		at_put_ch(o, ' ', 0);
		at_put_uint(o, rate, 0, 0);
	}
	put_crlf(at, o, 0);
}

/* -- settings ------------------------------------------------------------- */

static void set_ec(struct at_state *at, enum at_ec ec)
{
	at->cfg.ec = ec;
	memcpy(at->cfg.es, ec_es[ec], sizeof(at->cfg.es));
}

/* The originator's error control from <orig_rqst>, <orig_fbk>. */
static enum at_ec orig_ec(const u8 *es)
{
	static const enum at_ec fbk[4] = {
		AT_EC_AUTO, AT_EC_AUTO, AT_EC_RELIABLE, AT_EC_LAPM
	};

	if (es[0] == 0)
		return AT_EC_DIRECT;
	if (es[0] == 1)
		return AT_EC_NORMAL;
	return fbk[es[1] & 3];
}

/* The answerer's from <ans_fbk>. */
static enum at_ec ans_ec(const u8 *es)
{
	static const enum at_ec fbk[6] = {
		AT_EC_DIRECT, AT_EC_NORMAL, AT_EC_AUTO, AT_EC_AUTO,
		AT_EC_RELIABLE, AT_EC_LAPM
	};

	return es[2] < 6 ? fbk[es[2]] : AT_EC_NORMAL;
}

static void factory(struct at_state *at)
{
	unsigned int i;

	memset(&at->cfg, 0, sizeof(at->cfg));
	for (i = 0; i < AT_NREGS; i++)
		at->cfg.s[i] = sregs[i].def;
	for (i = 0; i < AT_X_COUNT; i++)
		memcpy(at->cfg.ext[i], ext_vals[i].def, sizeof(at->cfg.ext[i]));
	at->cfg.echo = true;
	at->cfg.verbose = true;
	at->cfg.quiet = false;
	at->cfg.bell = false;
	at->cfg.xlevel = 4;
	at->cfg.amp_c = 1;
	at->cfg.amp_d = 2;
	at->cfg.amp_k = 3;
	at->cfg.bs_q = 3;
	at->cfg.speaker = 1;
	at->cfg.volume = 1;
	/*
	 * V.34 with its automode over each modulation's full range: ATD gets
	 * the best rate the line and the far end allow, down to V.21.
	 */
	at->cfg.mod = AT_MOD_V34;
	at->cfg.automode = true;
	at->cfg.min_rate = 0;
	at->cfg.max_rate = 0;
	set_ec(at, AT_EC_AUTO);
	/* +DS's factory direction (both) is what %C2 says */
	at->cfg.pct_c = AT_COMP_V42BIS;
	/*
	 * +A8E off: a modulation that can start without V.8 starts with
	 * V.25's answer tone, which every peer understands.  V.34 cannot, so
	 * +MS=V34 (this profile's) runs V.8 whatever +A8E says
	 * (smodem_call_config()): the caller's V.8 hears a V.25 answerer's
	 * plain ANS and falls back through the automode, the answerer's
	 * ANSam takes a caller that sends no CM for a V.25 one.
	 */
	at->cfg.a8e[0] = 0;
	at->cfg.a8e[1] = 0;
	at->cfg.a8e[2] = AT_V8CF_DATA;
	at->sreg_sel = 0;
}

/* ATZ<n>, and a reset by DTR (&D3): S1 counts rings, it is no setting. */
static void load_profile(struct at_state *at, unsigned int n)
{
	u8 rings = at->cfg.s[1];

	at->cfg = at->profile[n];
	at->cfg.s[1] = rings;
	at->sreg_sel = 0;
}

void at_editor_reset(struct at_state *at)
{
	at->in_state = IN_IDLE;
	at->len = 0;
	at->overflow = false;
}

void at_reset_session(struct at_state *at)
{
	at->mode = AT_MODE_COMMAND;
	at->fax_op = AT_FAX_NONE;
	at->fax_abort = false;
	at->pend_len = 0;
	at->call = AT_CALL_IDLE;
	at->rate = 0;
	at->plus = 0;
	at->cfg.s[1] = 0;
	at_editor_reset(at);
}

void at_init(struct at_state *at)
{
	memset(at, 0, sizeof(*at));
	factory(at);
	at->profile[0] = at->cfg;
	at->profile[1] = at->cfg;
	at->dtr = true;
	at_reset_session(at);
}

/* %C: MNP 5 does not exist here, so %C1 compresses nothing (see set_ds) */
static void set_pct_c(struct at_state *at, enum at_comp v)
{
	u16 *ds = at->cfg.ext[AT_X_DS];

	at->cfg.pct_c = v;
	if (v == AT_COMP_V42BIS || v == AT_COMP_BOTH)
		ds[0] = ds[0] ? ds[0] : 3;
	else
		ds[0] = 0;
}

static void fill_call(struct at_state *at, bool answering)
{
	struct at_call *c = &at->callp;

	c->detect_dialtone = at->cfg.xlevel == 2 || at->cfg.xlevel == 4;
	c->detect_busy = at->cfg.xlevel >= 3;
	c->bell = at->cfg.bell;
	c->mod = at->cfg.mod;
	c->automode = at->cfg.automode;
	c->min_rate = at->cfg.min_rate;
	c->max_rate = at->cfg.max_rate;
	c->ec = answering ? ans_ec(at->cfg.es) : orig_ec(at->cfg.es);
	c->v8 = answering ? at->cfg.a8e[1] != 0 : at->cfg.a8e[0] != 0;
	c->compression = at->cfg.pct_c;
	c->v42bis_dirs = at->cfg.ext[AT_X_DS][0];
	c->v42bis_required = at->cfg.ext[AT_X_DS][1] != 0;
	c->v42bis_p1 = at->cfg.ext[AT_X_DS][2];
	c->v42bis_p2 = at->cfg.ext[AT_X_DS][3];
	c->dialtone_wait_s = at->cfg.s[6];
	c->carrier_wait_s = at->cfg.s[7];
	c->comma_s = at->cfg.s[8];
	c->carrier_loss_ds = at->cfg.s[10];
	c->dtmf_ms = at->cfg.s[11];
	c->fclass = (u8)at->cfg.ext[AT_X_FCLASS][0];
}

/* -- command line parsing --------------------------------------------------- */

static bool more(const struct at_cur *c)
{
	return c->p < c->n;
}

static char peek(const struct at_cur *c)
{
	return more(c) ? c->s[c->p] : '\0';
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int hex_val(char ch)
{
	if (is_digit(ch))
		return ch - '0';
	return ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* A decimal number, 0 when absent (Hayes); false above max. */
bool at_number(struct at_cur *c, u32 max, u32 *v)
{
	u32 x = 0;
	bool big = false;

	while (is_digit(peek(c))) {
		if (x > 100000)
			big = true;
		else
			x = x * 10 + (u32)(c->s[c->p] - '0');
		c->p++;
	}
	*v = x;
	return !big && x <= max;
}

/* A subparameter: an empty one leaves *v as it was. */
static bool opt_number(struct at_cur *c, u32 max, u32 *v)
{
	if (!is_digit(peek(c)))
		return true;
	return at_number(c, max, v);
}

/* A hexadecimal subparameter (V.250 5.4.2.1), empty: unchanged. */
static bool opt_hex(struct at_cur *c, u32 max, u32 *v)
{
	u32 x = 0;
	bool any = false, big = false;
	int d;

	while ((d = hex_val(peek(c))) >= 0) {
		if (x > 0xffff)
			big = true;
		else
			x = x * 16 + (u32)d;
		any = true;
		c->p++;
	}
	if (!any)
		return true;
	*v = x;
	return !big && x <= max;
}

bool at_accept(struct at_cur *c, char ch)
{
	if (peek(c) != ch)
		return false;
	c->p++;
	return true;
}

/* The extended-syntax name after '+', up to '=', '?', ';' or the end. */
bool at_ext_name(struct at_cur *c, const char *name)
{
	unsigned int len = strlen(name);

	if (c->n - c->p < len || memcmp(c->s + c->p, name, len))
		return false;
	switch (c->p + len < c->n ? c->s[c->p + len] : '\0') {
	case '=':
	case '?':
	case ';':
	case '\0':
		c->p += len;
		return true;
	default:
		return false;
	}
}

/* End of an extended command: ';' or the end of the line. */
bool at_ext_end(struct at_cur *c)
{
	return at_accept(c, ';') || !more(c);
}

static int sreg_set(struct at_state *at, u32 reg, struct at_cur *c)
{
	u32 v;

	if (reg >= AT_NSTORED || (reg < AT_NREGS && sregs[reg].ro))
		return -1;
	if (!at_number(c, 255, &v))
		return -1;
	if (reg < AT_NREGS && (v < sregs[reg].min || v > sregs[reg].max))
		return -1;
	at->cfg.s[reg] = (u8)v;
	return 0;
}

static void sreg_show(struct at_state *at, u32 reg, struct at_out *o)
{
	at_info_begin(at, o);
	at_put_uint(o, at->cfg.s[reg], 3, AT_RESULT_RESERVE);
	at_info_end(at, o);
}

/* ATS<n>=<v>, ATS<n>?, ATS<n> (select) */
static int cmd_s(struct at_state *at, struct at_cur *c, struct at_out *o)
{
	u32 reg;

	if (!at_number(c, AT_NSTORED - 1, &reg))
		return -1;
	if (at_accept(c, '='))
		return sreg_set(at, reg, c);
	if (at_accept(c, '?')) {
		sreg_show(at, reg, o);
		return 0;
	}
	at->sreg_sel = (u8)reg;
	return 0;
}

/* A setting as &V shows it: its command, then its value. */
static void put_setting(struct at_out *o, const char *cmd, u32 v)
{
	put_str(o, cmd, AT_RESULT_RESERVE);
	at_put_uint(o, v, 0, AT_RESULT_RESERVE);
}

/* The values of an extended command, as its read form ("?") answers. */
static void put_ms(const struct at_state *at, struct at_out *o)
{
	put_str(o, mod_names[at->cfg.mod], AT_RESULT_RESERVE);
	put_setting(o, ",", at->cfg.automode);
	put_setting(o, ",", at->cfg.min_rate);
	put_setting(o, ",", at->cfg.max_rate);
}

static void put_list(struct at_out *o, const u16 *v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		put_setting(o, i ? "," : "", v[i]);
}

static void put_es(const struct at_state *at, struct at_out *o)
{
	const u16 v[3] = { at->cfg.es[0], at->cfg.es[1], at->cfg.es[2] };

	put_list(o, v, ARRAY_SIZE(v));
}

static void put_a8e(const struct at_state *at, struct at_out *o)
{
	put_setting(o, "", at->cfg.a8e[0]);
	put_setting(o, ",", at->cfg.a8e[1]);
	at_put_ch(o, ',', AT_RESULT_RESERVE);
	put_hex2(o, at->cfg.a8e[2], AT_RESULT_RESERVE);
}

static void put_ipr(const struct at_state *at, struct at_out *o)
{
	put_setting(o, "", at->cfg.ipr);
}

static void show_config(struct at_state *at, struct at_out *o)
{
	const struct at_settings *s = &at->cfg;
	const unsigned int r = AT_RESULT_RESERVE;
	unsigned int i;

	at_info(at, o, "ACTIVE PROFILE:");
	put_setting(o, "E", s->echo);
	put_setting(o, " L", s->volume);
	put_setting(o, " M", s->speaker);
	put_setting(o, " Q", s->quiet);
	put_setting(o, " V", s->verbose);
	put_setting(o, " X", s->xlevel);
	put_setting(o, " B", s->bell);
	put_setting(o, " &C", s->amp_c);
	put_setting(o, " &D", s->amp_d);
	put_setting(o, " &K", s->amp_k);
	put_setting(o, " &S", s->amp_s);
	put_setting(o, " W", s->w);
	put_setting(o, " \\Q", s->bs_q);
	put_setting(o, " \\V", s->bs_v);
	put_setting(o, " %C", s->pct_c);
	put_setting(o, " \\N", s->ec);
	put_str(o, " +MS=", r);
	put_ms(at, o);
	put_str(o, " +ES=", r);
	put_es(at, o);
	put_str(o, " +A8E=", r);
	put_a8e(at, o);
	put_crlf(at, o, r);
	for (i = 0; i < AT_NREGS; i++) {
		at_put_ch(o, 'S', r);
		at_put_uint(o, i, 2, r);
		at_put_ch(o, ':', r);
		at_put_uint(o, s->s[i], 3, r);
		if (i == 6 || i == AT_NREGS - 1)
			put_crlf(at, o, r);
		else
			at_put_ch(o, ' ', r);
	}
}

/*
 * A +MS <min_rate> or <max_rate>: one of the rates of the modulation or of
 * those it falls back to (V.32's 4800 and 9600; 7200, 12000 and 14400 are
 * V.32bis's only; V.34's every 2400 up to 33600).
 */
static bool rate_ok(enum at_mod mod, u32 rate)
{
	if (mod == AT_MOD_V34 && rate && rate % 2400 == 0)
		return rate <= mod_max_rate[mod];
	switch (rate) {
	case 0:
	case 300:
	case 1200:
	case 2400:
	case 4800:
	case 9600:
		break;
	case 7200:
	case 12000:
	case 14400:
		if (mod != AT_MOD_V32B && mod != AT_MOD_V34)
			return false;
		break;
	default:
		return false;
	}
	return rate <= mod_max_rate[mod];
}

/*
 * The set forms, after '=': the values up to the end of the command, or
 * -1 and nothing changed.
 */

/* AT+MS=<mod>[,<automode>[,<min_rate>[,<max_rate>]]] */
static int set_ms(struct at_state *at, struct at_cur *c)
{
	u32 mod, automode = at->cfg.automode, lo = 0, hi = 0;

	/* The longest name first: V22 is a prefix of V22B, V32 of V32B. */
	for (mod = AT_MOD_COUNT; mod-- > 0;) {
		unsigned int len = strlen(mod_names[mod]);

		if (c->n - c->p >= len && !memcmp(c->s + c->p, mod_names[mod], len))
			break;
	}
	if (mod >= AT_MOD_COUNT)
		return -1;
	c->p += strlen(mod_names[mod]);
	if (at_accept(c, ',') && !opt_number(c, 1, &automode))
		return -1;
	if (at_accept(c, ',') && !opt_number(c, 65535, &lo))
		return -1;
	if (at_accept(c, ',') && !opt_number(c, 65535, &hi))
		return -1;
	if (!at_ext_end(c))
		return -1;
	if (!rate_ok(mod, lo) || !rate_ok(mod, hi) || (hi && lo > hi))
		return -1;
	at->cfg.mod = mod;
	at->cfg.automode = automode;
	at->cfg.min_rate = (u16)lo;
	at->cfg.max_rate = (u16)hi;
	return 0;
}

/* AT+ES=<orig_rqst>[,<orig_fbk>[,<ans_fbk>]]; see ec_es[]. */
static int set_es(struct at_state *at, struct at_cur *c)
{
	static const u32 max[3] = { 3, 3, 5 };
	u32 v[3] = { at->cfg.es[0], at->cfg.es[1], at->cfg.es[2] };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (i && !at_accept(c, ','))
			break;
		if (!opt_number(c, max[i], &v[i]))
			return -1;
	}
	if (!at_ext_end(c))
		return -1;
	for (i = 0; i < 3; i++)
		at->cfg.es[i] = (u8)v[i];
	/* \N shows the originator's side, as &V always did. */
	at->cfg.ec = orig_ec(at->cfg.es);
	return 0;
}

/*
 * AT+A8E=<v8o>[,<v8a>[,<v8cf>]] (V.250 6.6.1): V.8 when dialing, when
 * answering.  Only the DCE-controlled modes exist (the DTE-controlled ones
 * need +A8x indications and commands); 6 and 5 are taken as 1, without
 * the indications.  The call function is V-series data, nothing else.
 */
static int set_a8e(struct at_state *at, struct at_cur *c)
{
	u32 v[3] = { at->cfg.a8e[0], at->cfg.a8e[1], at->cfg.a8e[2] };

	if (!opt_number(c, AT_V8O_IND, &v[0]))
		return -1;
	if (at_accept(c, ',') && !opt_number(c, AT_V8A_IND, &v[1]))
		return -1;
	if (at_accept(c, ',') && !opt_hex(c, 0xff, &v[2]))
		return -1;
	if (!at_ext_end(c))
		return -1;
	if ((v[0] != 0 && v[0] != AT_V8O_ON && v[0] != AT_V8O_IND) ||
	    (v[1] != 0 && v[1] != AT_V8A_ON && v[1] != AT_V8A_IND) ||
	    v[2] != AT_V8CF_DATA)
		return -1;
	at->cfg.a8e[0] = (u8)v[0];
	at->cfg.a8e[1] = (u8)v[1];
	at->cfg.a8e[2] = (u8)v[2];
	return 0;
}

static int set_ipr(struct at_state *at, struct at_cur *c)
{
	unsigned int i;
	u32 v;

	if (!at_number(c, 1000000, &v) || !at_ext_end(c))
		return -1;
	for (i = 0; i < ARRAY_SIZE(ipr_rates); i++) {
		if (ipr_rates[i] == v) {
			at->cfg.ipr = v;
			return 0;
		}
	}
	return -1;
}

/* <v>[,<v>...]: an empty subparameter keeps its value. */
static int set_vals(struct at_state *at, struct at_cur *c, unsigned int x)
{
	const struct ext_val *d = &ext_vals[x];
	u32 v[AT_X_VALS];
	unsigned int i;

	for (i = 0; i < d->n; i++) {
		v[i] = at->cfg.ext[x][i];
		if (i && !at_accept(c, ','))
			break;
		if (!opt_number(c, d->max[i], &v[i]) || v[i] < d->min[i])
			return -1;
	}
	if (!at_ext_end(c))
		return -1;
	for (i = 0; i < d->n; i++)
		at->cfg.ext[x][i] = (u16)v[i];
	return 0;
}

/*
 * The extended commands with settings: "+NAME?" reads them, "+NAME=?"
 * lists their ranges, "+NAME=<values>" sets them.
 */
struct ext_cmd {
	const char *name;
	const char *range;	/* what "=?" answers after "+NAME: " */
	/* NULL: a stored-values command, x its AT_X_* */
	void (*show)(const struct at_state *at, struct at_out *o);
	int (*set)(struct at_state *at, struct at_cur *c);
	u8 x;
	bool bare;		/* T.31's form: the answers without "+NAME: " */
};

/*
 * +DS and %C say the same thing twice (V.250's and Rockwell's way): +DS's
 * direction turns %C to V.42bis or off, and %C turns the direction to both
 * or none, so AT&V never shows the two disagreeing.
 */
static int set_ds(struct at_state *at, struct at_cur *c)
{
	int err = set_vals(at, c, AT_X_DS);

	if (!err)
		at->cfg.pct_c = at->cfg.ext[AT_X_DS][0] ?
				(at->cfg.pct_c == AT_COMP_BOTH ? AT_COMP_BOTH :
				 AT_COMP_V42BIS) : AT_COMP_NONE;
	return err;
}

/* A stored-values command: its name, its ranges, its AT_X_* */
#define EXT_VALS(n, r, i)	{ .name = n, .range = r, .x = i }

static const struct ext_cmd ext_cmds[] = {
	EXT_VALS("ICF", "(0-6),(0-3)", AT_X_ICF),
	EXT_VALS("IFC", "(0-3),(0-2)", AT_X_IFC),
	EXT_VALS("ILRR", "(0,1)", AT_X_ILRR),
	EXT_VALS("DR", "(0,1)", AT_X_DR),
	EXT_VALS("ER", "(0,1)", AT_X_ER),
	EXT_VALS("MR", "(0-2)", AT_X_MR),
	{ .name = "DS", .range = "(0-3),(0,1),(512-4096),(6-250)",
	  .x = AT_X_DS, .set = set_ds },
	/* mgetty, efax and HylaFAX read the classes bare, as T.31 has it */
	{ .name = "FCLASS", .range = "0,1", .x = AT_X_FCLASS, .bare = true },
	EXT_VALS("ETBM", "(0-2),(0-2),(0-30)", AT_X_ETBM),
	/* the rates of ipr_rates[] */
	{ .name = "IPR",
	  .range = "(0,300,1200,2400,4800,9600,19200,38400,57600,115200,230400,460800),()",
	  .show = put_ipr, .set = set_ipr },
	{ .name = "MS", .range = "(V21,V22,V22B,V32,V32B,V34),(0,1),(0-33600),(0-33600)",
	  .show = put_ms, .set = set_ms },
	{ .name = "ES", .range = "(0-3),(0-3),(0-5)", .show = put_es,
	  .set = set_es },
	{ .name = "A8E", .range = "(0,1,6),(0,1,5),(C1)", .show = put_a8e,
	  .set = set_a8e },
};

static int cmd_ext_set(struct at_state *at, const struct ext_cmd *e,
		       struct at_cur *c, struct at_out *o)
{
	const unsigned int r = AT_RESULT_RESERVE;
	bool read = at_accept(c, '?');

	if (!read && !at_accept(c, '='))
		return -1;
	if (!read && !at_accept(c, '?'))
		return e->set ? e->set(at, c) : set_vals(at, c, e->x);
	at_info_begin(at, o);
	if (!e->bare) {
		at_put_ch(o, '+', r);
		put_str(o, e->name, r);
		put_str(o, ": ", r);
	}
	if (read && e->show)
		e->show(at, o);
	else if (read)
		put_list(o, at->cfg.ext[e->x], ext_vals[e->x].n);
	else
		put_str(o, e->range, r);
	at_info_end(at, o);
	return at_ext_end(c) ? 0 : -1;
}

int at_ext_info(struct at_state *at, struct at_cur *c, struct at_out *o,
		const char *text)
{
	if (at_accept(c, '=')) {
		/* "=?": the test form of an action command, nothing to list. */
		if (!at_accept(c, '?'))
			return -1;
	} else {
		at_info(at, o, text);
	}
	return at_ext_end(c) ? 0 : -1;
}

static int cmd_ext(struct at_state *at, struct at_cur *c, struct at_out *o)
{
	unsigned int i;
	int err = at_class1_ext(at, c, o);

	if (err != AT_EXT_UNKNOWN)
		return err;
	for (i = 0; i < ARRAY_SIZE(ext_cmds); i++)
		if (at_ext_name(c, ext_cmds[i].name))
			return cmd_ext_set(at, &ext_cmds[i], c, o);
	if (at_ext_name(c, "GMI"))
		return at_ext_info(at, c, o, at_info_text[0]);
	if (at_ext_name(c, "GMM"))
		return at_ext_info(at, c, o, at_info_text[1]);
	if (at_ext_name(c, "GMR"))
		return at_ext_info(at, c, o, SMODEM_VERSION);
	if (at_ext_name(c, "GSN"))
		return at_ext_info(at, c, o, "0");
	if (at_ext_name(c, "GCAP"))
		return at_ext_info(at, c, o, "+GCAP: +FCLASS,+MS,+ES,+DS");
	return -1;
}

static int set_bool(struct at_cur *c, bool *dst)
{
	u32 v;

	if (!at_number(c, 1, &v))
		return -1;
	*dst = v;
	return 0;
}

static int set_u8(struct at_cur *c, u32 max, u8 *dst)
{
	u32 v;

	if (!at_number(c, max, &v))
		return -1;
	*dst = (u8)v;
	return 0;
}

/*
 * Flow control: &K's value for each \Q, and \Q's for each &K (NO_FLOW:
 * &K1 and &K2, reserved).  \Q2 (CTS only) is the half of &K3 that the
 * modem drives.
 */
#define NO_FLOW	0xff
static const u8 q_to_k[4] = { 0, 4, 3, 3 };
static const u8 k_to_q[7] = { 0, NO_FLOW, NO_FLOW, 3, 1, 1, 3 };

/*
 * Hayes &-commands for things a soft modem on a tty does not have (guard
 * tones, jacks, leased lines, synchronous modes, clocks, test loops): the
 * value that describes it is accepted, as the chips that ignore them do,
 * so that init strings written for those work; another value is an error.
 */
static int amp_compat(char sub, struct at_cur *c)
{
	static const struct {
		char cmd;
		u8 max;
	} ok[] = {
		{ 'B', 1 },	/* DTE rate fixed or following the line */
		{ 'G', 2 },	/* guard tone */
		{ 'J', 1 },	/* telephone jack */
		{ 'L', 0 },	/* dial-up line, not leased */
		{ 'M', 0 },	/* asynchronous */
		{ 'P', 1 },	/* pulse make/break ratio */
		{ 'R', 1 },	/* CTS follows RTS or is always on */
		{ 'T', 0 },	/* end a test: there is none running */
		{ 'X', 2 },	/* synchronous clock source */
	};
	unsigned int i;
	u32 v;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		if (ok[i].cmd != sub)
			continue;
		if (!at_number(c, ok[i].max, &v))
			return -1;
		return 0;
	}
	return -1;
}

static int cmd_amp(struct at_state *at, struct at_cur *c, struct at_out *o)
{
	char sub;
	u32 v;

	if (!more(c))
		return -1;
	sub = c->s[c->p++];
	switch (sub) {
	case 'C':
		return set_u8(c, 1, &at->cfg.amp_c);
	case 'D':
		return set_u8(c, 3, &at->cfg.amp_d);
	case 'F':
		if (!at_number(c, 0, &v))
			return -1;
		factory(at);
		return 0;
	case 'K':
		/* 0 none, 3 RTS/CTS, 4 XON/XOFF, 5 transparent XON/XOFF, 6 both */
		if (!at_number(c, ARRAY_SIZE(k_to_q) - 1, &v) ||
		    k_to_q[v] == NO_FLOW)
			return -1;
		at->cfg.amp_k = (u8)v;
		at->cfg.bs_q = k_to_q[v];
		return 0;
	case 'Q':
		/* Hayes' names for \N1 (&Q0), \N3 (&Q5) and \N0 (&Q6). */
		if (!at_number(c, 6, &v))
			return -1;
		if (v == 0)
			set_ec(at, AT_EC_DIRECT);
		else if (v == 5)
			set_ec(at, AT_EC_AUTO);
		else if (v == 6)
			set_ec(at, AT_EC_NORMAL);
		else
			return -1;
		return 0;
	case 'S':
		/* DSR: 0 always on, 1 on while a connection is up. */
		return set_u8(c, 1, &at->cfg.amp_s);
	case 'V':
		if (!at_number(c, 0, &v))
			return -1;
		show_config(at, o);
		return 0;
	case 'W':
		if (!at_number(c, 1, &v))
			return -1;
		at->profile[v] = at->cfg;
		at->profile[v].s[1] = 0;
		return 0;
	case 'Y':
		return set_u8(c, 1, &at->power_on);
	default:
		return amp_compat(sub, c);
	}
}

/* Rockwell's: \N error control, \Q flow control, \V CONNECT's form. */
static int cmd_bs(struct at_state *at, struct at_cur *c)
{
	u32 v;

	if (!more(c))
		return -1;
	switch (c->s[c->p++]) {
	case 'N':
		if (!at_number(c, AT_EC_COUNT - 1, &v))
			return -1;
		set_ec(at, (enum at_ec)v);
		return 0;
	case 'Q':
		if (!at_number(c, ARRAY_SIZE(q_to_k) - 1, &v))
			return -1;
		at->cfg.bs_q = (u8)v;
		at->cfg.amp_k = q_to_k[v];
		return 0;
	case 'V':
		return set_u8(c, 1, &at->cfg.bs_v);
	default:
		return -1;
	}
}

/* The rest of the line is the dial string. */
static int cmd_d(struct at_state *at, struct at_cur *c)
{
	struct at_call *call = &at->callp;
	unsigned int n = 0;
	bool pulse = at->cfg.pulse, stay = false;

	if (at->call != AT_CALL_IDLE)
		return -1;
	if (at_accept(c, 'L')) {
		n = strlen(at->last_number);
		memcpy(call->number, at->last_number, n);
	}
	while (more(c)) {
		char ch = c->s[c->p++];

		if (stay)
			return -1;	/* ';' must end the line */
		switch (ch) {
		case 'T':
			pulse = false;
			break;
		case 'P':
			pulse = true;
			break;
		case ';':
			stay = true;
			break;
		case '-':
		case '(':
		case ')':
			break;
		case '0' ... '9':
		case '*':
		case '#':
		case 'A' ... 'D':
		case ',':
		case 'W':
		case '!':
			if (n >= AT_DIAL_MAX)
				return -1;
			call->number[n++] = ch;
			break;
		default:
			return -1;
		}
	}
	/* All of it: the tail of a longer number would go to the modem. */
	memset(call->number + n, 0, sizeof(call->number) - n);
	memcpy(at->last_number, call->number, n + 1);
	call->pulse = pulse;
	call->stay_command = stay;
	fill_call(at, false);
	at->call = AT_CALL_DIALING;
	return 0;
}

static void answer(struct at_state *at, struct at_out *o)
{
	memset(at->callp.number, 0, sizeof(at->callp.number));
	at->callp.pulse = false;
	at->callp.stay_command = false;
	fill_call(at, true);
	at->call = AT_CALL_ANSWERING;
	at_editor_reset(at);
	o->act |= AT_ACT_ANSWER;
}

/* 1: stop without a final result (an action or a new mode reports). */
int at_run(struct at_state *at, const char *line, unsigned int n,
	   u64 now, struct at_out *o)
{
	struct at_cur c = { line, n, 0 };
	u32 v;
	int err = 0;

	while (!err && more(&c)) {
		char cmd = c.s[c.p++];

		switch (cmd) {
		case 'E':
			err = set_bool(&c, &at->cfg.echo);
			break;
		case 'V':
			err = set_bool(&c, &at->cfg.verbose);
			break;
		case 'Q':
			err = set_bool(&c, &at->cfg.quiet);
			break;
		case 'B':
			err = set_bool(&c, &at->cfg.bell);
			break;
		case 'X':
			err = set_u8(&c, 4, &at->cfg.xlevel);
			break;
		case 'M':
			err = set_u8(&c, 3, &at->cfg.speaker);
			break;
		case 'L':
			err = set_u8(&c, 3, &at->cfg.volume);
			break;
		case 'I':
			if (!at_number(&c, ARRAY_SIZE(at_info_text) - 1, &v))
				err = -1;
			else if (at_info_text[v])
				at_info(at, o, at_info_text[v]);
			break;
		case 'N':
			/* Rockwell's automode switch: +MS <automode> */
			err = set_bool(&c, &at->cfg.automode);
			break;
		case 'P':
		case 'T':
			/* The dial method ATD uses when its string names none. */
			at->cfg.pulse = cmd == 'P';
			break;
		case 'W':
			err = set_u8(&c, 2, &at->cfg.w);
			break;
		case 'Y':
			/* Long space disconnect: not sent, not honoured. */
			err = at_number(&c, 0, &v) ? 0 : -1;
			break;
		case '%':
			/* %C: compression, for the modem (enum at_comp) */
			if (!at_accept(&c, 'C') ||
			    !at_number(&c, AT_COMP_COUNT - 1, &v))
				err = -1;
			else
				set_pct_c(at, (enum at_comp)v);
			break;
		case 'H':
			if (!at_number(&c, 0, &v)) {
				err = -1;
				break;
			}
			/* Idle too: a ';' dial may have left the line off-hook. */
			o->act |= AT_ACT_HANGUP;
			at->call = AT_CALL_IDLE;
			at->mode = AT_MODE_COMMAND;
			at->fax_op = AT_FAX_NONE;
			at->rate = 0;
			break;
		case 'Z':
			if (!at_number(&c, 1, &v)) {
				err = -1;
				break;
			}
			o->act |= AT_ACT_HANGUP;
			load_profile(at, v);
			at_reset_session(at);
			c.p = c.n;	/* the rest of the line is not run */
			break;
		case 'S':
			err = cmd_s(at, &c, o);
			break;
		case '?':
			sreg_show(at, at->sreg_sel, o);
			break;
		case '=':
			err = sreg_set(at, at->sreg_sel, &c);
			break;
		case '&':
			err = cmd_amp(at, &c, o);
			break;
		case '\\':
			err = cmd_bs(at, &c);
			break;
		case '+':
			err = cmd_ext(at, &c, o);
			if (err == AT_EXT_STOP)
				return 1;
			break;
		case 'D':
			err = cmd_d(at, &c);
			if (err)
				break;
			o->act |= AT_ACT_DIAL;
			return 1;
		case 'A':
			if (at->call != AT_CALL_IDLE) {
				err = -1;
				break;
			}
			answer(at, o);
			return 1;
		case 'O':
			if (!at_number(&c, 1, &v)) {
				err = -1;
				break;
			}
			if (at->call != AT_CALL_ONLINE) {
				at_result(at, o, AT_RC_NO_CARRIER, 0);
				return 1;
			}
			at->mode = AT_MODE_DATA;
			at->plus = 0;
			at->last_data_ns = now;
			at_result(at, o, AT_RC_CONNECT, at->rate);
			return 1;
		default:
			err = -1;
			break;
		}
	}
	if (err) {
		at_result(at, o, AT_RC_ERROR, 0);
		return 1;
	}
	return 0;
}

static void execute(struct at_state *at, const char *line, unsigned int n,
		    u64 now, struct at_out *o)
{
	if (!at_run(at, line, n, now, o))
		at_result(at, o, AT_RC_OK, 0);
}

static char upper(char ch)
{
	return ch >= 'a' && ch <= 'z' ? (char)(ch - 'a' + 'A') : ch;
}

unsigned int at_input(struct at_state *at, const u8 *buf, unsigned int n,
		      u64 now_ns, struct at_out *out)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		char ch = (char)buf[i];

		if (at->mode == AT_MODE_FAX_WAIT || at->mode == AT_MODE_FAX_RX) {
			at_class1_dte_char(at, out);
			continue;
		}
		if (at->mode != AT_MODE_COMMAND)
			break;
		if (out->len && out->size - out->len < AT_OUT_MIN)
			break;
		if (at->call == AT_CALL_DIALING || at->call == AT_CALL_ANSWERING) {
			if (buf[i] == at->cfg.s[4] || buf[i] == 0)
				continue;
			at->call = AT_CALL_IDLE;
			out->act |= AT_ACT_HANGUP;
			at_result(at, out, AT_RC_NO_CARRIER, 0);
			at_editor_reset(at);
			return i + 1;
		}
		if (at->cfg.echo)
			at_put_ch(out, ch, AT_RESULT_RESERVE);
		switch (at->in_state) {
		case IN_IDLE:
			if (upper(ch) == 'A')
				at->in_state = IN_A;
			break;
		case IN_A:
			if (upper(ch) == 'T') {
				at->in_state = IN_LINE;
				at->len = 0;
				at->overflow = false;
			} else if (ch == '/') {
				at->in_state = IN_IDLE;
				execute(at, at->last, at->last_len, now_ns, out);
				return i + 1;
			} else if (upper(ch) != 'A') {
				at->in_state = IN_IDLE;
			}
			break;
		default:
			if (buf[i] == at->cfg.s[3]) {
				at->in_state = IN_IDLE;
				if (at->overflow) {
					at_result(at, out, AT_RC_ERROR, 0);
					return i + 1;
				}
				memcpy(at->last, at->line, at->len);
				at->last_len = at->len;
				execute(at, at->line, at->len, now_ns, out);
				return i + 1;
			}
			if (buf[i] == at->cfg.s[5]) {
				if (at->len && !at->overflow)
					at->len--;
				break;
			}
			/* Spaces and control characters are not part of it. */
			if (buf[i] <= ' ' || buf[i] >= 0x7f)
				break;
			if (at->len >= AT_LINE_MAX)
				at->overflow = true;
			else
				at->line[at->len++] = upper(ch);
			break;
		}
	}
	return i;
}

/*
 * The modulation of a rate: V.22bis modems fall back to V.22 at 1200;
 * 7200, 12000 and 14400 are V.32bis's, 4800 and 9600 V.32bis's when the
 * call offered it (+MS=V32B, or V34 falling back), V.32's otherwise.
 * V.34's rates up to 14400 are those too, so the modem says when the call
 * is V.34; above, only V.34 has them.
 */
static const char *carrier_name(const struct at_state *at, const struct at_conn *c)
{
	u32 rate = c->rate;
	unsigned int m;

	if (c->v34 || rate > mod_max_rate[AT_MOD_V32B])
		return mod_names[AT_MOD_V34];
	if (rate > 2400 && rate != 4800 && rate != 9600)
		return mod_names[AT_MOD_V32B];
	if (rate > 2400)
		return mod_names[at->callp.mod >= AT_MOD_V32B ? AT_MOD_V32B : AT_MOD_V32];
	for (m = 0; m < AT_MOD_COUNT; m++)
		if (rate <= mod_max_rate[m])
			return mod_names[m];
	return mod_names[AT_MOD_V22B];
}

/* "<CR><LF>name value<CR><LF>", as verbose information text. */
static void report(const struct at_state *at, struct at_out *o,
		   const char *name, const char *text, u32 v)
{
	const unsigned int r = AT_RESULT_RESERVE;

	at_info_begin(at, o);
	put_str(o, name, r);
	if (text)
		put_str(o, text, r);
	else
		at_put_uint(o, v, 0, r);
	at_info_end(at, o);
}

/* V.250's intermediate reports, in its order, and Hayes' ATW1 lines. */
static void connect_reports(const struct at_state *at, const struct at_conn *c,
			    struct at_out *o)
{
	static const char *const dr[] = { "NONE", "V42B TD", "V42B RD", "V42B" };
	const char *ec = c->lapm ? "LAPM" : "NONE";
	const char *comp = dr[c->v42bis & (AT_V42BIS_TX | AT_V42BIS_RX)];

	if (at->cfg.quiet)
		return;
	if (at->cfg.w == 1) {
		report(at, o, "CARRIER ", NULL, c->rate);
		report(at, o, "PROTOCOL: ", c->lapm ? "LAP-M" : "NONE", 0);
		report(at, o, "COMPRESSION: ", c->v42bis ? "V.42BIS" : "NONE", 0);
	}
	if (at->cfg.ext[AT_X_MR][0]) {
		report(at, o, "+MCR: ", carrier_name(at, c), 0);
		report(at, o, "+MRR: ", NULL, c->rate);
	}
	if (at->cfg.ext[AT_X_ER][0])
		report(at, o, "+ER: ", ec, 0);
	if (at->cfg.ext[AT_X_DR][0])
		report(at, o, "+DR: ", comp, 0);
	if (at->cfg.ext[AT_X_ILRR][0])
		report(at, o, "+ILRR: ", NULL, at->cfg.ipr ? at->cfg.ipr :
		       at->dte_rate);
}

void at_connected(struct at_state *at, const struct at_conn *conn,
		  u64 now_ns, struct at_out *out)
{
	u32 rate = conn->rate;

	/*
	 * Again in a call: a retrain or a rate renegotiation settled a new
	 * rate, which ATO's CONNECT gives from now on; the DTE hears nothing.
	 */
	if (at->call == AT_CALL_ONLINE) {
		if (rate)
			at->rate = rate;
		return;
	}
	if (at->call != AT_CALL_DIALING && at->call != AT_CALL_ANSWERING)
		return;
	connect_reports(at, conn, out);
	at->call = AT_CALL_ONLINE;
	at->mode = AT_MODE_DATA;
	at->rate = rate;
	at->plus = 0;
	at->last_data_ns = now_ns;
	at->cfg.s[1] = 0;
	at_editor_reset(at);
	at_result(at, out, AT_RC_CONNECT, rate);
}

void at_call_end(struct at_state *at, enum at_result rc, struct at_out *out)
{
	if (at->call == AT_CALL_IDLE)
		return;
	at->call = AT_CALL_IDLE;
	at->mode = AT_MODE_COMMAND;
	at->fax_op = AT_FAX_NONE;
	at->pend_len = 0;
	at->rate = 0;
	at->plus = 0;
	at->cfg.s[1] = 0;
	at_editor_reset(at);
	at_result(at, out, rc, 0);
}

void at_ring(struct at_state *at, u64 now_ns, struct at_out *out)
{
	if (elapsed(now_ns, at->ring_ns) > RING_GAP_NS)
		at->cfg.s[1] = 0;
	at->ring_ns = now_ns;
	if (at->cfg.s[1] < 255)
		at->cfg.s[1]++;
	at_result(at, out, AT_RC_RING, 0);
	/* &D2/&D3: no answering while the DTE says it is not ready. */
	if (at->cfg.s[0] && at->cfg.s[1] >= at->cfg.s[0] && at->call == AT_CALL_IDLE &&
	    at->mode == AT_MODE_COMMAND && (at->dtr || at->cfg.amp_d < 2))
		answer(at, out);
}

bool at_escape_feed(struct at_state *at, const u8 *buf, unsigned int n,
		    u64 now_ns)
{
	u64 guard = guard_ns(at);
	unsigned int i;

	if (at->mode != AT_MODE_DATA)
		return false;
	for (i = 0; i < n; i++) {
		bool timely;

		if (at->cfg.s[2] > 127 || buf[i] != at->cfg.s[2] || at->plus >= 3)
			timely = false;
		else if (!guard)
			timely = true;
		else if (at->plus)
			timely = elapsed(now_ns, at->plus_ns) < guard;
		else
			timely = elapsed(now_ns, at->last_data_ns) >= guard;
		if (timely) {
			at->plus++;
			at->plus_ns = now_ns;
		} else {
			at->plus = 0;
		}
		at->last_data_ns = now_ns;
	}
	return at->plus == 3;
}

u64 at_escape_deadline(const struct at_state *at)
{
	return at->plus_ns + guard_ns(at);
}

bool at_escape_poll(struct at_state *at, u64 now_ns, struct at_out *out)
{
	if (at->mode != AT_MODE_DATA || at->plus != 3 ||
	    elapsed(now_ns, at->plus_ns) < guard_ns(at))
		return false;
	at->plus = 0;
	at->mode = AT_MODE_COMMAND;
	at_editor_reset(at);
	at_result(at, out, AT_RC_OK, 0);
	return true;
}

void at_dtr(struct at_state *at, bool on, struct at_out *out)
{
	bool drop = at->dtr && !on;

	at->dtr = on;
	if (!drop)
		return;
	switch (at->cfg.amp_d) {
	case 1:
		if (at->mode == AT_MODE_DATA) {
			at->mode = AT_MODE_COMMAND;
			at->plus = 0;
			at_editor_reset(at);
			at_result(at, out, AT_RC_OK, 0);
		}
		break;
	case 2:
	case 3:
		out->act |= AT_ACT_HANGUP;
		at_call_end(at, AT_RC_NO_CARRIER, out);
		/* a fax operation without a call (+FTS after a manual dial) */
		at->mode = AT_MODE_COMMAND;
		at->fax_op = AT_FAX_NONE;
		if (at->cfg.amp_d == 3)
			load_profile(at, at->power_on);
		break;
	default:
		break;
	}
}

bool at_dcd(const struct at_state *at, bool carrier)
{
	return at->cfg.amp_c ? carrier : true;
}
