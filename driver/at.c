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
#include "at.h"

#define AT_VERSION	"0.1"
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

static const char * const info_text[] = {
	"smodem",
	"V.21 V.22 V.22bis V.42 V.8",
	NULL,		/* ATI2: the self test, OK alone */
	"smodem " AT_VERSION " soft modem for Linux",
};

#define N_INFO 4

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
	return (u64)at->s[12] * 20 * NS_PER_MS;
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
	put_ch(o, (char)at->s[3], reserve);
	put_ch(o, (char)at->s[4], reserve);
}

/* Information text: "<CR><LF>text<CR><LF>" verbose, "text<CR><LF>" not. */
static void info_begin(const struct at_state *at, struct at_out *o)
{
	if (at->verbose)
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
	}
	return NULL;
}

/* Which codes ATX allows; the others read NO CARRIER. */
static enum at_result x_filter(const struct at_state *at, enum at_result rc)
{
	switch (rc) {
	case AT_RC_NO_DIALTONE:
		return at->xlevel == 2 || at->xlevel == 4 ? rc : AT_RC_NO_CARRIER;
	case AT_RC_BUSY:
	case AT_RC_NO_ANSWER:
		return at->xlevel >= 3 ? rc : AT_RC_NO_CARRIER;
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

	if (at->quiet)
		return;
	rc = x_filter(at, rc);
	if (rc == AT_RC_CONNECT && at->xlevel == 0)
		rate = 0;
	name = at_result_name(rc);
	if (!name)
		return;
	if (!at->verbose) {
		put_uint(o, rc == AT_RC_CONNECT && rate ? connect_code(rate) : rc,
			 0, 0);
		put_ch(o, (char)at->s[3], 0);
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
	at->ec = ec;
	memcpy(at->es, ec_es[ec], sizeof(at->es));
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

	for (i = 0; i < AT_NREGS; i++)
		at->s[i] = sregs[i].def;
	at->echo = true;
	at->verbose = true;
	at->quiet = false;
	at->bell = false;
	at->xlevel = 4;
	at->amp_c = 1;
	at->amp_d = 2;
	at->amp_k = 3;
	at->speaker = 1;
	at->volume = 1;
	at->mod = AT_MOD_V22B;
	at->automode = true;
	at->min_rate = 0;
	at->max_rate = 0;
	set_ec(at, AT_EC_AUTO);
	/* V.8 off: a V.25 start-up is what every peer understands. */
	at->a8e[0] = 0;
	at->a8e[1] = 0;
	at->a8e[2] = AT_V8CF_DATA;
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
	at->call = AT_CALL_IDLE;
	at->rate = 0;
	at->plus = 0;
	at->s[1] = 0;
	editor_reset(at);
}

void at_init(struct at_state *at)
{
	memset(at, 0, sizeof(*at));
	factory(at);
	at->dtr = true;
	at_reset_session(at);
}

static void fill_call(struct at_state *at, bool answering)
{
	struct at_call *c = &at->callp;

	c->detect_dialtone = at->xlevel == 2 || at->xlevel == 4;
	c->detect_busy = at->xlevel >= 3;
	c->bell = at->bell;
	c->mod = at->mod;
	c->automode = at->automode;
	c->min_rate = at->min_rate;
	c->max_rate = at->max_rate;
	c->ec = answering ? ans_ec(at->es) : orig_ec(at->es);
	c->v8 = answering ? at->a8e[1] != 0 : at->a8e[0] != 0;
	c->dialtone_wait_s = at->s[6];
	c->carrier_wait_s = at->s[7];
	c->comma_s = at->s[8];
	c->carrier_loss_ds = at->s[10];
	c->dtmf_ms = at->s[11];
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

	if (reg >= AT_NREGS || sregs[reg].ro)
		return -1;
	if (!number(c, 255, &v) || v < sregs[reg].min || v > sregs[reg].max)
		return -1;
	at->s[reg] = (u8)v;
	return 0;
}

static void sreg_show(struct at_state *at, u32 reg, struct at_out *o)
{
	info_begin(at, o);
	put_uint(o, at->s[reg], 3, RESULT_RESERVE);
	info_end(at, o);
}

/* ATS<n>=<v>, ATS<n>?, ATS<n> (select) */
static int cmd_s(struct at_state *at, struct cur *c, struct at_out *o)
{
	u32 reg;

	if (!number(c, AT_NREGS - 1, &reg))
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
	put_str(o, mod_names[at->mod], r);
	put_ch(o, ',', r);
	put_uint(o, at->automode, 0, r);
	put_ch(o, ',', r);
	put_uint(o, at->min_rate, 0, r);
	put_ch(o, ',', r);
	put_uint(o, at->max_rate, 0, r);
}

/* The +ES settings: <orig_rqst>,<orig_fbk>,<ans_fbk>. */
static void put_es(struct at_state *at, struct at_out *o, unsigned int r)
{
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (i)
			put_ch(o, ',', r);
		put_uint(o, at->es[i], 0, r);
	}
}

/* The +A8E settings: <v8o>,<v8a>,<v8cf>. */
static void put_a8e(struct at_state *at, struct at_out *o, unsigned int r)
{
	put_uint(o, at->a8e[0], 0, r);
	put_ch(o, ',', r);
	put_uint(o, at->a8e[1], 0, r);
	put_ch(o, ',', r);
	put_hex2(o, at->a8e[2], r);
}

static void show_config(struct at_state *at, struct at_out *o)
{
	const unsigned int r = RESULT_RESERVE;
	unsigned int i;

	info(at, o, "ACTIVE PROFILE:");
	put_str(o, "E", r);
	put_uint(o, at->echo, 0, r);
	put_str(o, " L", r);
	put_uint(o, at->volume, 0, r);
	put_str(o, " M", r);
	put_uint(o, at->speaker, 0, r);
	put_str(o, " Q", r);
	put_uint(o, at->quiet, 0, r);
	put_str(o, " V", r);
	put_uint(o, at->verbose, 0, r);
	put_str(o, " X", r);
	put_uint(o, at->xlevel, 0, r);
	put_str(o, " B", r);
	put_uint(o, at->bell, 0, r);
	put_str(o, " &C", r);
	put_uint(o, at->amp_c, 0, r);
	put_str(o, " &D", r);
	put_uint(o, at->amp_d, 0, r);
	put_str(o, " &K", r);
	put_uint(o, at->amp_k, 0, r);
	put_str(o, " \\N", r);
	put_uint(o, at->ec, 0, r);
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
		put_uint(o, at->s[i], 3, r);
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
	u32 mod, automode = at->automode, lo = 0, hi = 0;

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
	at->mod = mod;
	at->automode = automode;
	at->min_rate = (u16)lo;
	at->max_rate = (u16)hi;
	return 0;
}

/* AT+ES=<orig_rqst>[,<orig_fbk>[,<ans_fbk>]]; see ec_es[]. */
static int cmd_es(struct at_state *at, struct cur *c, struct at_out *o)
{
	static const u32 max[3] = { 3, 3, 5 };
	const unsigned int r = RESULT_RESERVE;
	u32 v[3] = { at->es[0], at->es[1], at->es[2] };
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
		at->es[i] = (u8)v[i];
	/* \N shows the originator's side, as &V always did. */
	at->ec = orig_ec(at->es);
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
	u32 v[3] = { at->a8e[0], at->a8e[1], at->a8e[2] };

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
	at->a8e[0] = (u8)v[0];
	at->a8e[1] = (u8)v[1];
	at->a8e[2] = (u8)v[2];
	return 0;
}

static int cmd_ext(struct at_state *at, struct cur *c, struct at_out *o)
{
	if (ext_name(c, "MS"))
		return cmd_ms(at, c, o);
	if (ext_name(c, "ES"))
		return cmd_es(at, c, o);
	if (ext_name(c, "A8E"))
		return cmd_a8e(at, c, o);
	if (ext_name(c, "GMI")) {
		info(at, o, info_text[0]);
		return ext_end(c) ? 0 : -1;
	}
	if (ext_name(c, "GMM")) {
		info(at, o, info_text[1]);
		return ext_end(c) ? 0 : -1;
	}
	if (ext_name(c, "GMR")) {
		info(at, o, AT_VERSION);
		return ext_end(c) ? 0 : -1;
	}
	if (ext_name(c, "GCAP")) {
		info(at, o, "+GCAP: +MS,+ES");
		return ext_end(c) ? 0 : -1;
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
		at->amp_c = (u8)v;
		return 0;
	case 'D':
		if (!number(c, 3, &v))
			return -1;
		at->amp_d = (u8)v;
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
		at->amp_k = (u8)v;
		return 0;
	case 'V':
		if (!number(c, 0, &v))
			return -1;
		show_config(at, o);
		return 0;
	default:
		/* &W and the like: no stored profiles. */
		return -1;
	}
}

/* The rest of the line is the dial string. */
static int cmd_d(struct at_state *at, struct cur *c)
{
	struct at_call *call = &at->callp;
	unsigned int n = 0;
	bool pulse = false, stay = false;

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
	call->number[n] = '\0';
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
	at->callp.number[0] = '\0';
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
			err = set_bool(&c, &at->echo);
			break;
		case 'V':
			err = set_bool(&c, &at->verbose);
			break;
		case 'Q':
			err = set_bool(&c, &at->quiet);
			break;
		case 'B':
			err = set_bool(&c, &at->bell);
			break;
		case 'X':
			err = set_u8(&c, 4, &at->xlevel);
			break;
		case 'M':
			err = set_u8(&c, 3, &at->speaker);
			break;
		case 'L':
			err = set_u8(&c, 3, &at->volume);
			break;
		case 'I':
			if (!number(&c, N_INFO - 1, &v))
				err = -1;
			else if (info_text[v])
				info(at, o, info_text[v]);
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
			at->rate = 0;
			break;
		case 'Z':
			if (!number(&c, 1, &v)) {
				err = -1;
				break;
			}
			o->act |= AT_ACT_HANGUP;
			factory(at);
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

		if (at->mode != AT_MODE_COMMAND)
			break;
		if (out->len && out->size - out->len < AT_OUT_MIN)
			break;
		if (at->call == AT_CALL_DIALING || at->call == AT_CALL_ANSWERING) {
			if (buf[i] == at->s[4] || buf[i] == 0)
				continue;
			at->call = AT_CALL_IDLE;
			out->act |= AT_ACT_HANGUP;
			result(at, out, AT_RC_NO_CARRIER, 0);
			editor_reset(at);
			return i + 1;
		}
		if (at->echo)
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
			if (buf[i] == at->s[3]) {
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
			if (buf[i] == at->s[5]) {
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

void at_connected(struct at_state *at, u32 rate, u64 now_ns,
		  struct at_out *out)
{
	if (at->call != AT_CALL_DIALING && at->call != AT_CALL_ANSWERING)
		return;
	at->call = AT_CALL_ONLINE;
	at->mode = AT_MODE_DATA;
	at->rate = rate;
	at->plus = 0;
	at->last_data_ns = now_ns;
	at->s[1] = 0;
	editor_reset(at);
	result(at, out, AT_RC_CONNECT, rate);
}

void at_call_end(struct at_state *at, enum at_result rc, struct at_out *out)
{
	if (at->call == AT_CALL_IDLE)
		return;
	at->call = AT_CALL_IDLE;
	at->mode = AT_MODE_COMMAND;
	at->rate = 0;
	at->plus = 0;
	at->s[1] = 0;
	editor_reset(at);
	result(at, out, rc, 0);
}

void at_ring(struct at_state *at, u64 now_ns, struct at_out *out)
{
	if (elapsed(now_ns, at->ring_ns) > RING_GAP_NS)
		at->s[1] = 0;
	at->ring_ns = now_ns;
	if (at->s[1] < 255)
		at->s[1]++;
	result(at, out, AT_RC_RING, 0);
	/* &D2/&D3: no answering while the DTE says it is not ready. */
	if (at->s[0] && at->s[1] >= at->s[0] && at->call == AT_CALL_IDLE &&
	    at->mode == AT_MODE_COMMAND && (at->dtr || at->amp_d < 2))
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

		if (at->s[2] > 127 || buf[i] != at->s[2] || at->plus >= 3)
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
	switch (at->amp_d) {
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
		if (at->amp_d == 3)
			factory(at);
		break;
	default:
		break;
	}
}

bool at_dcd(const struct at_state *at, bool carrier)
{
	return at->amp_c ? carrier : true;
}
