// SPDX-License-Identifier: GPL-2.0
/*
 * AT command interpreter.  The dialect is the Hayes one that chat, pppd and
 * minicom scripts expect, with the V.250 +MS/+ES for modulation and error
 * control.  Everything here is bounded: the line editor stores at most
 * AT_LINE_MAX characters and swallows the rest of an overlong line, numbers
 * saturate instead of wrapping, and output is truncated at the buffer end.
 */
#include <linux/types.h>
#include <linux/string.h>
#include <linux/build_bug.h>
#include <linux/array_size.h>
#include "at.h"
#include "smodem_version.h"

#define NS_PER_MS	1000000ULL
/* S1 starts again when rings are further apart than this. */
#define RING_GAP_NS	(8000ULL * NS_PER_MS)
/* Room kept at the end of the output for the final result code. */
#define RESULT_RESERVE	24

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
};

static const u16 mod_max_rate[AT_MOD_COUNT] = {
	[AT_MOD_V21] = 300,
	[AT_MOD_V22] = 1200,
	[AT_MOD_V22B] = 2400,
};

/* ATI0..ATI9; NULL: OK alone (ATI2 is the self test, the rest unused). */
static const char * const info_text[10] = {
	"smodem",
	"V.21 V.22 V.22bis V.42 V.8",
	NULL,
	"smodem " SMODEM_VERSION " soft modem for Linux",
};

/*
 * The V.250 commands that only store numbers: each subparameter's range
 * and factory value, and what "=?" answers.
 */
struct ext_def {
	const char *name;
	u8 n;
	u16 min[AT_X_VALS], max[AT_X_VALS], def[AT_X_VALS];
	const char *range;
};

static const struct ext_def ext_defs[AT_X_COUNT] = {
	[AT_X_ICF] = { "ICF", 2, { 0, 0 }, { 6, 3 }, { 3, 3 },
		       "(0-6),(0-3)" },
	[AT_X_IFC] = { "IFC", 2, { 0, 0 }, { 3, 2 }, { 2, 2 },
		       "(0-3),(0-2)" },
	[AT_X_ILRR] = { "ILRR", 1, { 0 }, { 1 }, { 0 }, "(0,1)" },
	[AT_X_DR] = { "DR", 1, { 0 }, { 1 }, { 0 }, "(0,1)" },
	[AT_X_ER] = { "ER", 1, { 0 }, { 1 }, { 0 }, "(0,1)" },
	[AT_X_MR] = { "MR", 1, { 0 }, { 2 }, { 0 }, "(0-2)" },
	/* No V.42bis: compression in neither direction is all it takes. */
	[AT_X_DS] = { "DS", 4, { 0, 0, 512, 6 }, { 0, 1, 2048, 250 },
		      { 0, 0, 2048, 32 }, "(0),(0,1),(512-2048),(6-250)" },
	[AT_X_FCLASS] = { "FCLASS", 1, { 0 }, { 1 }, { 0 }, "0,1" },
	[AT_X_ETBM] = { "ETBM", 3, { 0, 0, 0 }, { 2, 2, 30 }, { 1, 1, 20 },
			"(0-2),(0-2),(0-30)" },
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
 * "alternative protocol" (MNP) is refused: there is none.
 */
static const u8 ec_es[AT_EC_COUNT][3] = {
	[AT_EC_NORMAL] = { 1, 0, 1 },
	[AT_EC_DIRECT] = { 0, 0, 0 },
	[AT_EC_RELIABLE] = { 3, 2, 4 },
	[AT_EC_AUTO] = { 3, 0, 2 },
	[AT_EC_LAPM] = { 3, 3, 5 },
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

static void put_ch(struct at_out *o, char c, unsigned int reserve)
{
	put_raw(o, &c, 1, reserve);
}

static void put_str(struct at_out *o, const char *s, unsigned int reserve)
{
	put_raw(o, s, strlen(s), reserve);
}

static void put_uint(struct at_out *o, u32 v, unsigned int width,
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
		put_ch(o, d[--n], reserve);
}

static void put_hex2(struct at_out *o, u32 v, unsigned int reserve)
{
	static const char hex[] = "0123456789ABCDEF";

	put_ch(o, hex[(v >> 4) & 0xf], reserve);
	put_ch(o, hex[v & 0xf], reserve);
}

static void put_crlf(const struct at_state *at, struct at_out *o,
		     unsigned int reserve)
{
	put_ch(o, (char)at->cfg.s[3], reserve);
	put_ch(o, (char)at->cfg.s[4], reserve);
}

/* Information text: "<CR><LF>text<CR><LF>" verbose, "text<CR><LF>" not. */
static void info_begin(const struct at_state *at, struct at_out *o)
{
	if (at->cfg.verbose)
		put_crlf(at, o, RESULT_RESERVE);
}

static void info_end(const struct at_state *at, struct at_out *o)
{
	put_crlf(at, o, RESULT_RESERVE);
}

static void info(const struct at_state *at, struct at_out *o, const char *s)
{
	info_begin(at, o);
	put_str(o, s, RESULT_RESERVE);
	info_end(at, o);
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
	default:
		return AT_RC_CONNECT;
	}
}

/* A result code; rate is only used by CONNECT (0: none). */
static void result(const struct at_state *at, struct at_out *o,
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
			put_uint(o, rc == AT_RC_CONNECT && rate ?
				 connect_code(rate) : rc, 0, 0);
		put_ch(o, (char)at->cfg.s[3], 0);
		return;
	}
	put_crlf(at, o, 0);
	put_str(o, name, 0);
	if (rc == AT_RC_CONNECT && rate) {
		put_ch(o, ' ', 0);
		put_uint(o, rate, 0, 0);
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
		memcpy(at->cfg.ext[i], ext_defs[i].def, sizeof(at->cfg.ext[i]));
	at->cfg.echo = true;
	at->cfg.verbose = true;
	at->cfg.quiet = false;
	at->cfg.bell = false;
	at->cfg.xlevel = 4;
	at->cfg.amp_c = 1;
	at->cfg.amp_d = 2;
	at->cfg.amp_k = 3;
	at->cfg.speaker = 1;
	at->cfg.volume = 1;
	at->cfg.mod = AT_MOD_V22B;
	at->cfg.automode = true;
	at->cfg.min_rate = 0;
	at->cfg.max_rate = 0;
	set_ec(at, AT_EC_AUTO);
	/* V.8 off: a V.25 start-up is what every peer understands. */
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

static void editor_reset(struct at_state *at)
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
	editor_reset(at);
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
	c->dialtone_wait_s = at->cfg.s[6];
	c->carrier_wait_s = at->cfg.s[7];
	c->comma_s = at->cfg.s[8];
	c->carrier_loss_ds = at->cfg.s[10];
	c->dtmf_ms = at->cfg.s[11];
	c->fclass = (u8)at->cfg.ext[AT_X_FCLASS][0];
}

/* -- command line parsing --------------------------------------------------- */

struct cur {
	const char *s;
	unsigned int n, p;
};

static bool more(const struct cur *c)
{
	return c->p < c->n;
}

static char peek(const struct cur *c)
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
static bool number(struct cur *c, u32 max, u32 *v)
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
static bool opt_number(struct cur *c, u32 max, u32 *v)
{
	if (!is_digit(peek(c)))
		return true;
	return number(c, max, v);
}

/* A hexadecimal subparameter (V.250 5.4.2.1), empty: unchanged. */
static bool opt_hex(struct cur *c, u32 max, u32 *v)
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

static bool accept(struct cur *c, char ch)
{
	if (peek(c) != ch)
		return false;
	c->p++;
	return true;
}

/* The extended-syntax name after '+', up to '=', '?', ';' or the end. */
static bool ext_name(struct cur *c, const char *name)
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
static bool ext_end(struct cur *c)
{
	return accept(c, ';') || !more(c);
}

static int sreg_set(struct at_state *at, u32 reg, struct cur *c)
{
	u32 v;

	if (reg >= AT_NSTORED || (reg < AT_NREGS && sregs[reg].ro))
		return -1;
	if (!number(c, 255, &v))
		return -1;
	if (reg < AT_NREGS && (v < sregs[reg].min || v > sregs[reg].max))
		return -1;
	at->cfg.s[reg] = (u8)v;
	return 0;
}

static void sreg_show(struct at_state *at, u32 reg, struct at_out *o)
{
	info_begin(at, o);
	put_uint(o, at->cfg.s[reg], 3, RESULT_RESERVE);
	info_end(at, o);
}

/* ATS<n>=<v>, ATS<n>?, ATS<n> (select) */
static int cmd_s(struct at_state *at, struct cur *c, struct at_out *o)
{
	u32 reg;

	if (!number(c, AT_NSTORED - 1, &reg))
		return -1;
	if (accept(c, '='))
		return sreg_set(at, reg, c);
	if (accept(c, '?')) {
		sreg_show(at, reg, o);
		return 0;
	}
	at->sreg_sel = (u8)reg;
	return 0;
}

/* The +MS settings: <mod>,<automode>,<min_rate>,<max_rate>. */
static void put_ms(struct at_state *at, struct at_out *o, unsigned int r)
{
	put_str(o, mod_names[at->cfg.mod], r);
	put_ch(o, ',', r);
	put_uint(o, at->cfg.automode, 0, r);
	put_ch(o, ',', r);
	put_uint(o, at->cfg.min_rate, 0, r);
	put_ch(o, ',', r);
	put_uint(o, at->cfg.max_rate, 0, r);
}

/* The +ES settings: <orig_rqst>,<orig_fbk>,<ans_fbk>. */
static void put_es(struct at_state *at, struct at_out *o, unsigned int r)
{
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (i)
			put_ch(o, ',', r);
		put_uint(o, at->cfg.es[i], 0, r);
	}
}

/* The +A8E settings: <v8o>,<v8a>,<v8cf>. */
static void put_a8e(struct at_state *at, struct at_out *o, unsigned int r)
{
	put_uint(o, at->cfg.a8e[0], 0, r);
	put_ch(o, ',', r);
	put_uint(o, at->cfg.a8e[1], 0, r);
	put_ch(o, ',', r);
	put_hex2(o, at->cfg.a8e[2], r);
}

static void show_config(struct at_state *at, struct at_out *o)
{
	const unsigned int r = RESULT_RESERVE;
	unsigned int i;

	info(at, o, "ACTIVE PROFILE:");
	put_str(o, "E", r);
	put_uint(o, at->cfg.echo, 0, r);
	put_str(o, " L", r);
	put_uint(o, at->cfg.volume, 0, r);
	put_str(o, " M", r);
	put_uint(o, at->cfg.speaker, 0, r);
	put_str(o, " Q", r);
	put_uint(o, at->cfg.quiet, 0, r);
	put_str(o, " V", r);
	put_uint(o, at->cfg.verbose, 0, r);
	put_str(o, " X", r);
	put_uint(o, at->cfg.xlevel, 0, r);
	put_str(o, " B", r);
	put_uint(o, at->cfg.bell, 0, r);
	put_str(o, " &C", r);
	put_uint(o, at->cfg.amp_c, 0, r);
	put_str(o, " &D", r);
	put_uint(o, at->cfg.amp_d, 0, r);
	put_str(o, " &K", r);
	put_uint(o, at->cfg.amp_k, 0, r);
	put_str(o, " &S", r);
	put_uint(o, at->cfg.amp_s, 0, r);
	put_str(o, " W", r);
	put_uint(o, at->cfg.w, 0, r);
	put_str(o, " \\N", r);
	put_uint(o, at->cfg.ec, 0, r);
	put_str(o, " +MS=", r);
	put_ms(at, o, r);
	put_str(o, " +ES=", r);
	put_es(at, o, r);
	put_str(o, " +A8E=", r);
	put_a8e(at, o, r);
	put_crlf(at, o, r);
	for (i = 0; i < AT_NREGS; i++) {
		put_ch(o, 'S', r);
		put_uint(o, i, 2, r);
		put_ch(o, ':', r);
		put_uint(o, at->cfg.s[i], 3, r);
		if (i == 6 || i == AT_NREGS - 1)
			put_crlf(at, o, r);
		else
			put_ch(o, ' ', r);
	}
}

static bool rate_ok(enum at_mod mod, u32 rate)
{
	if (rate != 0 && rate != 300 && rate != 1200 && rate != 2400)
		return false;
	return rate <= mod_max_rate[mod];
}

/* AT+MS=<mod>[,<automode>[,<min_rate>[,<max_rate>]]] */
static int cmd_ms(struct at_state *at, struct cur *c, struct at_out *o)
{
	const unsigned int r = RESULT_RESERVE;
	u32 mod, automode = at->cfg.automode, lo = 0, hi = 0;

	if (accept(c, '?')) {
		info_begin(at, o);
		put_str(o, "+MS: ", r);
		put_ms(at, o, r);
		info_end(at, o);
		return ext_end(c) ? 0 : -1;
	}
	if (!accept(c, '='))
		return -1;
	if (accept(c, '?')) {
		info(at, o, "+MS: (V21,V22,V22B),(0,1),(0-2400),(0-2400)");
		return ext_end(c) ? 0 : -1;
	}
	/* The longest name first: V22 is a prefix of V22B. */
	for (mod = AT_MOD_COUNT; mod-- > 0;) {
		unsigned int len = strlen(mod_names[mod]);

		if (c->n - c->p >= len && !memcmp(c->s + c->p, mod_names[mod], len))
			break;
	}
	if (mod >= AT_MOD_COUNT)
		return -1;
	c->p += strlen(mod_names[mod]);
	if (accept(c, ',') && !opt_number(c, 1, &automode))
		return -1;
	if (accept(c, ',') && !opt_number(c, 65535, &lo))
		return -1;
	if (accept(c, ',') && !opt_number(c, 65535, &hi))
		return -1;
	if (!ext_end(c))
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
static int cmd_es(struct at_state *at, struct cur *c, struct at_out *o)
{
	static const u32 max[3] = { 3, 3, 5 };
	const unsigned int r = RESULT_RESERVE;
	u32 v[3] = { at->cfg.es[0], at->cfg.es[1], at->cfg.es[2] };
	unsigned int i;

	if (accept(c, '?')) {
		info_begin(at, o);
		put_str(o, "+ES: ", r);
		put_es(at, o, r);
		info_end(at, o);
		return ext_end(c) ? 0 : -1;
	}
	if (!accept(c, '='))
		return -1;
	if (accept(c, '?')) {
		info(at, o, "+ES: (0-3),(0-3),(0-5)");
		return ext_end(c) ? 0 : -1;
	}
	for (i = 0; i < 3; i++) {
		if (i && !accept(c, ','))
			break;
		if (!opt_number(c, max[i], &v[i]))
			return -1;
	}
	if (!ext_end(c))
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
static int cmd_a8e(struct at_state *at, struct cur *c, struct at_out *o)
{
	const unsigned int r = RESULT_RESERVE;
	u32 v[3] = { at->cfg.a8e[0], at->cfg.a8e[1], at->cfg.a8e[2] };

	if (accept(c, '?')) {
		info_begin(at, o);
		put_str(o, "+A8E: ", r);
		put_a8e(at, o, r);
		info_end(at, o);
		return ext_end(c) ? 0 : -1;
	}
	if (!accept(c, '='))
		return -1;
	if (accept(c, '?')) {
		info(at, o, "+A8E: (0,1,6),(0,1,5),(C1)");
		return ext_end(c) ? 0 : -1;
	}
	if (!opt_number(c, AT_V8O_IND, &v[0]))
		return -1;
	if (accept(c, ',') && !opt_number(c, AT_V8A_IND, &v[1]))
		return -1;
	if (accept(c, ',') && !opt_hex(c, 0xff, &v[2]))
		return -1;
	if (!ext_end(c))
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

static void put_ext(struct at_state *at, struct at_out *o, unsigned int x)
{
	const unsigned int r = RESULT_RESERVE;
	unsigned int i;

	put_ch(o, '+', r);
	put_str(o, ext_defs[x].name, r);
	put_str(o, ": ", r);
	for (i = 0; i < ext_defs[x].n; i++) {
		if (i)
			put_ch(o, ',', r);
		put_uint(o, at->cfg.ext[x][i], 0, r);
	}
}

/* +X?, +X=?, +X=<v>[,<v>...] (an empty subparameter keeps its value). */
static int cmd_ext_vals(struct at_state *at, unsigned int x, struct cur *c,
			struct at_out *o)
{
	const struct ext_def *d = &ext_defs[x];
	u32 v[AT_X_VALS];
	unsigned int i;

	/* T.31 and the fax programs: +FCLASS answers with the bare values */
	bool bare = x == AT_X_FCLASS;

	if (accept(c, '?')) {
		info_begin(at, o);
		if (bare)
			put_uint(o, at->cfg.ext[x][0], 0, RESULT_RESERVE);
		else
			put_ext(at, o, x);
		info_end(at, o);
		return ext_end(c) ? 0 : -1;
	}
	if (!accept(c, '='))
		return -1;
	if (accept(c, '?')) {
		info_begin(at, o);
		if (!bare) {
			put_ch(o, '+', RESULT_RESERVE);
			put_str(o, d->name, RESULT_RESERVE);
			put_str(o, ": ", RESULT_RESERVE);
		}
		put_str(o, d->range, RESULT_RESERVE);
		info_end(at, o);
		return ext_end(c) ? 0 : -1;
	}
	for (i = 0; i < d->n; i++) {
		v[i] = at->cfg.ext[x][i];
		if (i && !accept(c, ','))
			break;
		if (!opt_number(c, d->max[i], &v[i]) || v[i] < d->min[i])
			return -1;
	}
	if (!ext_end(c))
		return -1;
	for (i = 0; i < d->n; i++)
		at->cfg.ext[x][i] = (u16)v[i];
	return 0;
}

static int cmd_ipr(struct at_state *at, struct cur *c, struct at_out *o)
{
	const unsigned int r = RESULT_RESERVE;
	unsigned int i;
	u32 v;

	if (accept(c, '?')) {
		info_begin(at, o);
		put_str(o, "+IPR: ", r);
		put_uint(o, at->cfg.ipr, 0, r);
		info_end(at, o);
		return ext_end(c) ? 0 : -1;
	}
	if (!accept(c, '='))
		return -1;
	if (accept(c, '?')) {
		info_begin(at, o);
		put_str(o, "+IPR: (", r);
		for (i = 0; i < ARRAY_SIZE(ipr_rates); i++) {
			if (i)
				put_ch(o, ',', r);
			put_uint(o, ipr_rates[i], 0, r);
		}
		put_str(o, "),()", r);
		info_end(at, o);
		return ext_end(c) ? 0 : -1;
	}
	if (!number(c, 1000000, &v) || !ext_end(c))
		return -1;
	for (i = 0; i < ARRAY_SIZE(ipr_rates); i++) {
		if (ipr_rates[i] == v) {
			at->cfg.ipr = v;
			return 0;
		}
	}
	return -1;
}

/* +GMI and the like: information text, no parameters. */
static int ext_info(struct at_state *at, struct cur *c, struct at_out *o,
		    const char *text)
{
	if (accept(c, '=')) {
		/* "=?": the test form of an action command, nothing to list. */
		if (!accept(c, '?'))
			return -1;
	} else {
		info(at, o, text);
	}
	return ext_end(c) ? 0 : -1;
}

/* -- Class 1 (T.31) -------------------------------------------------------- */

/* cmd_ext()'s return for a command that stops the line: an operation runs */
#define EXT_STOP	1

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
	const unsigned int r = RESULT_RESERVE;
	unsigned int i;

	info_begin(at, o);
	if (hdlc) {
		put_ch(o, '3', r);
	} else {
		for (i = 0; i < ARRAY_SIZE(fax_mods); i++) {
			if (i)
				put_ch(o, ',', r);
			put_uint(o, fax_mods[i], 0, r);
		}
	}
	info_end(at, o);
}

/*
 * +FTH, +FRH, +FTM, +FRM, +FTS, +FRS: "=?" lists, "=<n>" starts the
 * operation (the rest of the line waits for its OK).  Class 1 only.
 */
static int cmd_fax(struct at_state *at, enum at_fax_op op, struct cur *c,
		   struct at_out *o)
{
	bool hdlc = op == AT_FAX_TH || op == AT_FAX_RH;
	bool silence = op == AT_FAX_TS || op == AT_FAX_RS;
	u32 v;

	if (at->cfg.ext[AT_X_FCLASS][0] != 1 || !accept(c, '='))
		return -1;
	if (accept(c, '?')) {
		if (silence)
			info(at, o, "0-255");
		else
			fax_list(at, o, hdlc);
		return ext_end(c) ? 0 : -1;
	}
	if (!number(c, 255, &v) || !ext_end(c))
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
	return EXT_STOP;
}

/* +FMI, +FMM, +FMR: as +GMI..., "?" allowed */
static int fax_ident(struct at_state *at, struct cur *c, struct at_out *o,
		     const char *text)
{
	accept(c, '?');
	return ext_info(at, c, o, text);
}

static int cmd_ext(struct at_state *at, struct cur *c, struct at_out *o)
{
	unsigned int x;

	if (ext_name(c, "FTH"))
		return cmd_fax(at, AT_FAX_TH, c, o);
	if (ext_name(c, "FRH"))
		return cmd_fax(at, AT_FAX_RH, c, o);
	if (ext_name(c, "FTM"))
		return cmd_fax(at, AT_FAX_TM, c, o);
	if (ext_name(c, "FRM"))
		return cmd_fax(at, AT_FAX_RM, c, o);
	if (ext_name(c, "FTS"))
		return cmd_fax(at, AT_FAX_TS, c, o);
	if (ext_name(c, "FRS"))
		return cmd_fax(at, AT_FAX_RS, c, o);

	for (x = 0; x < AT_X_COUNT; x++)
		if (ext_name(c, ext_defs[x].name))
			return cmd_ext_vals(at, x, c, o);
	if (ext_name(c, "IPR"))
		return cmd_ipr(at, c, o);
	if (ext_name(c, "MS"))
		return cmd_ms(at, c, o);
	if (ext_name(c, "ES"))
		return cmd_es(at, c, o);
	if (ext_name(c, "A8E"))
		return cmd_a8e(at, c, o);
	if (ext_name(c, "GMI"))
		return ext_info(at, c, o, info_text[0]);
	if (ext_name(c, "GMM"))
		return ext_info(at, c, o, info_text[1]);
	if (ext_name(c, "GMR"))
		return ext_info(at, c, o, SMODEM_VERSION);
	if (ext_name(c, "GSN"))
		return ext_info(at, c, o, "0");
	if (ext_name(c, "GCAP"))
		return ext_info(at, c, o, "+GCAP: +FCLASS,+MS,+ES,+DS");
	/* T.31's identification, also in its read form (efax: +FMI?) */
	if (ext_name(c, "FMI"))
		return fax_ident(at, c, o, info_text[0]);
	if (ext_name(c, "FMM"))
		return fax_ident(at, c, o, info_text[1]);
	if (ext_name(c, "FMR"))
		return fax_ident(at, c, o, SMODEM_VERSION);
	return -1;
}

/*
 * Hayes &-commands for things a soft modem on a tty does not have (guard
 * tones, jacks, leased lines, synchronous modes, clocks, test loops): the
 * value that describes it is accepted, as the chips that ignore them do,
 * so that init strings written for those work; another value is an error.
 */
static int amp_compat(char sub, struct cur *c)
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
		if (!number(c, ok[i].max, &v))
			return -1;
		return 0;
	}
	return -1;
}

static int cmd_amp(struct at_state *at, struct cur *c, struct at_out *o)
{
	char sub;
	u32 v;

	if (!more(c))
		return -1;
	sub = c->s[c->p++];
	switch (sub) {
	case 'C':
		if (!number(c, 1, &v))
			return -1;
		at->cfg.amp_c = (u8)v;
		return 0;
	case 'D':
		if (!number(c, 3, &v))
			return -1;
		at->cfg.amp_d = (u8)v;
		return 0;
	case 'F':
		if (!number(c, 0, &v))
			return -1;
		factory(at);
		return 0;
	case 'K':
		/* Flow control: the tty always does RTS/CTS; kept for &V. */
		if (!number(c, 4, &v) || v == 1 || v == 2)
			return -1;
		at->cfg.amp_k = (u8)v;
		return 0;
	case 'Q':
		/* Hayes' names for \N1 (&Q0), \N3 (&Q5) and \N0 (&Q6). */
		if (!number(c, 6, &v))
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
		if (!number(c, 1, &v))
			return -1;
		at->cfg.amp_s = (u8)v;
		return 0;
	case 'V':
		if (!number(c, 0, &v))
			return -1;
		show_config(at, o);
		return 0;
	case 'W':
		if (!number(c, 1, &v))
			return -1;
		at->profile[v] = at->cfg;
		at->profile[v].s[1] = 0;
		return 0;
	case 'Y':
		if (!number(c, 1, &v))
			return -1;
		at->power_on = (u8)v;
		return 0;
	default:
		return amp_compat(sub, c);
	}
}

/* The rest of the line is the dial string. */
static int cmd_d(struct at_state *at, struct cur *c)
{
	struct at_call *call = &at->callp;
	unsigned int n = 0;
	bool pulse = at->cfg.pulse, stay = false;

	if (at->call != AT_CALL_IDLE)
		return -1;
	if (accept(c, 'L')) {
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

static int set_bool(struct cur *c, bool *dst)
{
	u32 v;

	if (!number(c, 1, &v))
		return -1;
	*dst = v;
	return 0;
}

static int set_u8(struct cur *c, u32 max, u8 *dst)
{
	u32 v;

	if (!number(c, max, &v))
		return -1;
	*dst = (u8)v;
	return 0;
}

static void answer(struct at_state *at, struct at_out *o)
{
	memset(at->callp.number, 0, sizeof(at->callp.number));
	at->callp.pulse = false;
	at->callp.stay_command = false;
	fill_call(at, true);
	at->call = AT_CALL_ANSWERING;
	editor_reset(at);
	o->act |= AT_ACT_ANSWER;
}

/* 1: stop without a final result (an action or a new mode reports). */
static int run(struct at_state *at, const char *line, unsigned int n,
	       u64 now, struct at_out *o)
{
	struct cur c = { line, n, 0 };
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
			if (!number(&c, ARRAY_SIZE(info_text) - 1, &v))
				err = -1;
			else if (info_text[v])
				info(at, o, info_text[v]);
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
			err = number(&c, 0, &v) ? 0 : -1;
			break;
		case '%':
			/* %C0: no MNP5/V.42bis compression, the only kind. */
			if (!accept(&c, 'C') || !number(&c, 0, &v))
				err = -1;
			break;
		case 'H':
			if (!number(&c, 0, &v)) {
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
			if (!number(&c, 1, &v)) {
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
			if (!accept(&c, 'N') || !number(&c, AT_EC_COUNT - 1, &v))
				err = -1;
			else
				set_ec(at, (enum at_ec)v);
			break;
		case '+':
			err = cmd_ext(at, &c, o);
			if (err == EXT_STOP)
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
			if (!number(&c, 1, &v)) {
				err = -1;
				break;
			}
			if (at->call != AT_CALL_ONLINE) {
				result(at, o, AT_RC_NO_CARRIER, 0);
				return 1;
			}
			at->mode = AT_MODE_DATA;
			at->plus = 0;
			at->last_data_ns = now;
			result(at, o, AT_RC_CONNECT, at->rate);
			return 1;
		default:
			err = -1;
			break;
		}
	}
	if (err) {
		result(at, o, AT_RC_ERROR, 0);
		return 1;
	}
	return 0;
}

static void execute(struct at_state *at, const char *line, unsigned int n,
		    u64 now, struct at_out *o)
{
	if (!run(at, line, n, now, o))
		result(at, o, AT_RC_OK, 0);
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
			/*
			 * T.31: a character from the DTE stops a receive (the
			 * modem's OK follows); a transmit takes none here.
			 */
			if ((at->fax_op == AT_FAX_RH || at->fax_op == AT_FAX_RM ||
			     at->fax_op == AT_FAX_RS) && !at->fax_abort) {
				at->fax_abort = true;
				at->fax_op = AT_FAX_ABORT;
				out->act |= AT_ACT_FAX;
			}
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
			result(at, out, AT_RC_NO_CARRIER, 0);
			editor_reset(at);
			return i + 1;
		}
		if (at->cfg.echo)
			put_ch(out, ch, RESULT_RESERVE);
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
					result(at, out, AT_RC_ERROR, 0);
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

/* The modulation of a rate: V.22bis modems fall back to V.22 at 1200. */
static const char *carrier_name(u32 rate)
{
	unsigned int m;

	for (m = 0; m < AT_MOD_COUNT; m++)
		if (rate <= mod_max_rate[m])
			return mod_names[m];
	return mod_names[AT_MOD_V22B];
}

/* "<CR><LF>name value<CR><LF>", as verbose information text. */
static void report(const struct at_state *at, struct at_out *o,
		   const char *name, const char *text, u32 v)
{
	const unsigned int r = RESULT_RESERVE;

	info_begin(at, o);
	put_str(o, name, r);
	if (text)
		put_str(o, text, r);
	else
		put_uint(o, v, 0, r);
	info_end(at, o);
}

/* V.250's intermediate reports, in its order, and Hayes' ATW1 lines. */
static void connect_reports(const struct at_state *at, const struct at_conn *c,
			    struct at_out *o)
{
	const char *ec = c->lapm ? "LAPM" : "NONE";

	if (at->cfg.quiet)
		return;
	if (at->cfg.w == 1) {
		report(at, o, "CARRIER ", NULL, c->rate);
		report(at, o, "PROTOCOL: ", c->lapm ? "LAP-M" : "NONE", 0);
		report(at, o, "COMPRESSION: ", "NONE", 0);
	}
	if (at->cfg.ext[AT_X_MR][0]) {
		report(at, o, "+MCR: ", carrier_name(c->rate), 0);
		report(at, o, "+MRR: ", NULL, c->rate);
	}
	if (at->cfg.ext[AT_X_ER][0])
		report(at, o, "+ER: ", ec, 0);
	if (at->cfg.ext[AT_X_DR][0])
		report(at, o, "+DR: ", "NONE", 0);
	if (at->cfg.ext[AT_X_ILRR][0])
		report(at, o, "+ILRR: ", NULL, at->cfg.ipr ? at->cfg.ipr :
		       at->dte_rate);
}

void at_connected(struct at_state *at, const struct at_conn *conn,
		  u64 now_ns, struct at_out *out)
{
	u32 rate = conn->rate;

	if (at->call != AT_CALL_DIALING && at->call != AT_CALL_ANSWERING)
		return;
	connect_reports(at, conn, out);
	at->call = AT_CALL_ONLINE;
	at->mode = AT_MODE_DATA;
	at->rate = rate;
	at->plus = 0;
	at->last_data_ns = now_ns;
	at->cfg.s[1] = 0;
	editor_reset(at);
	result(at, out, AT_RC_CONNECT, rate);
}

void at_fax_result(struct at_state *at, enum at_fax_rc rc, u64 now_ns,
		   struct at_out *out)
{
	bool dialing = at->call == AT_CALL_DIALING;

	if (rc == AT_FAXRC_CONNECT) {
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
		editor_reset(at);
		result(at, out, AT_RC_CONNECT, 0);
		return;
	}
	if (at->mode != AT_MODE_FAX_WAIT && at->mode != AT_MODE_FAX_TX &&
	    at->mode != AT_MODE_FAX_RX)
		return;
	at->mode = AT_MODE_COMMAND;
	at->fax_op = AT_FAX_NONE;
	editor_reset(at);
	if (rc == AT_FAXRC_OK && !at->fax_abort && at->pend_len) {
		char line[AT_LINE_MAX + 1];
		unsigned int n = at->pend_len;

		/* run() may keep a new rest in pend */
		memcpy(line, at->pend, n);
		at->pend_len = 0;
		if (!run(at, line, n, now_ns, out))
			result(at, out, AT_RC_OK, 0);
		return;
	}
	at->pend_len = 0;
	at->fax_abort = false;
	switch (rc) {
	case AT_FAXRC_OK:
		result(at, out, AT_RC_OK, 0);
		break;
	case AT_FAXRC_NO_CARRIER:
		result(at, out, AT_RC_NO_CARRIER, 0);
		break;
	case AT_FAXRC_FCERROR:
		result(at, out, AT_RC_FCERROR, 0);
		break;
	default:
		result(at, out, AT_RC_ERROR, 0);
		break;
	}
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
	editor_reset(at);
	result(at, out, rc, 0);
}

void at_ring(struct at_state *at, u64 now_ns, struct at_out *out)
{
	if (elapsed(now_ns, at->ring_ns) > RING_GAP_NS)
		at->cfg.s[1] = 0;
	at->ring_ns = now_ns;
	if (at->cfg.s[1] < 255)
		at->cfg.s[1]++;
	result(at, out, AT_RC_RING, 0);
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
	editor_reset(at);
	result(at, out, AT_RC_OK, 0);
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
			editor_reset(at);
			result(at, out, AT_RC_OK, 0);
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
