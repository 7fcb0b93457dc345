/*
 * User-space tests of the AT command interpreter (driver/at.c and its
 * Class 1, driver/at_class1.c), compiled from the sources the module uses.  Prints one line per failed check and a
 * final "N passed, N failed"; exits non-zero on any failure.
 * Usage: test_at [fuzz-lines [seed]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "at.h"
#include "check.h"

#define MS 1000000ULL
#define SEC (1000 * MS)

static struct at_state at;
static u64 now = 100 * SEC;
static unsigned int last_act;
static char res[65536];

static void escape(const char *s, char *dst, size_t size)
{
	size_t n = 0;

	for (; *s && n + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\r')
			n += sprintf(dst + n, "\\r");
		else if (c == '\n')
			n += sprintf(dst + n, "\\n");
		else if (c < ' ' || c >= 0x7f)
			n += sprintf(dst + n, "\\x%02x", c);
		else
			dst[n++] = (char)c;
	}
	dst[n] = '\0';
}

#define CHECK_STR(got, want) do { \
	const char *g_ = (got), *w_ = (want); \
	static char eg_[4096], ew_[4096]; \
	int same_ = !strcmp(g_, w_); \
	if (!same_) { \
		escape(g_, eg_, sizeof(eg_)); escape(w_, ew_, sizeof(ew_)); \
	} \
	CHECK(same_, "got \"%s\" want \"%s\"", eg_, ew_); \
} while (0)

/*
 * Feed bytes the way the tty does: call at_input() again with the rest
 * until it is all taken or the interpreter leaves command mode.
 */
static const char *feed_n(const u8 *s, size_t n, unsigned int outsize)
{
	static u8 obuf[4096];
	struct at_out out;
	size_t p = 0, rl = 0;

	last_act = 0;
	while (p < n) {
		unsigned int k;

		at_out_init(&out, obuf, outsize);
		k = at_input(&at, s + p, (unsigned int)(n - p), now, &out);
		CHECK(out.len <= outsize, "overrun %u > %u", out.len, outsize);
		if (rl + out.len < sizeof(res) - 1) {
			memcpy(res + rl, obuf, out.len);
			rl += out.len;
		}
		last_act |= out.act;
		if (!k)
			break;
		p += k;
	}
	res[rl] = '\0';
	return res;
}

static const char *feed(const char *s)
{
	return feed_n((const u8 *)s, strlen(s), 1024);
}

/* Output of an event callback. */
static struct at_out ev;
static u8 evbuf[1024];

static const char *evtext(void)
{
	static char t[1100];

	memcpy(t, evbuf, ev.len);
	t[ev.len] = '\0';
	return t;
}

static void fresh(void)
{
	at_init(&at);
	feed("ATE0\r");
}

static unsigned int s_reg(int n)
{
	char q[16];

	snprintf(q, sizeof(q), "ATS%d?\r", n);
	return (unsigned int)strtoul(feed(q) + 2, NULL, 10);
}

static void test_basic(void)
{
	at_init(&at);
	/* Echo is on after a reset: the command comes back. */
	CHECK_STR(feed("AT\r"), "AT\r\r\nOK\r\n");
	CHECK_STR(feed("ATE0\r"), "ATE0\r\r\nOK\r\n");
	CHECK_STR(feed("AT\r"), "\r\nOK\r\n");
	CHECK_STR(feed("at\r"), "\r\nOK\r\n");
	CHECK_STR(feed("aT\r"), "\r\nOK\r\n");
	CHECK_STR(feed("garbage AT\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AAT\r"), "\r\nOK\r\n");
	CHECK_STR(feed("\n\nAT\r\n"), "\r\nOK\r\n");
	CHECK_STR(feed("ATE1\r"), "\r\nOK\r\n");
	CHECK_STR(feed("ATE\r"), "ATE\r\r\nOK\r\n");	/* E = E0 */
	CHECK_STR(feed("ATE2\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATW3\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT&W2\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATH1\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATH\r"), "\r\nOK\r\n");
	CHECK(last_act == AT_ACT_HANGUP);
	CHECK_STR(feed("ATH0\r"), "\r\nOK\r\n");
	CHECK(last_act == AT_ACT_HANGUP);
	CHECK_STR(feed("AT S 7 = 4 5 \r"), "\r\nOK\r\n");
	CHECK(at.cfg.s[7] == 45);
	CHECK_STR(feed("ATM2L3\r"), "\r\nOK\r\n");
	CHECK(at.cfg.speaker == 2 && at.cfg.volume == 3);
	CHECK_STR(feed("ATM4\r"), "\r\nERROR\r\n");
	/* Nothing happens without a terminator. */
	CHECK_STR(feed("ATE1"), "");
	CHECK(at.cfg.echo == false);
	CHECK_STR(feed("\r"), "\r\nOK\r\n");
	CHECK(at.cfg.echo == true);
	feed("ATE0\r");
}

static void test_verbose_quiet(void)
{
	fresh();
	CHECK_STR(feed("ATV0\r"), "0\r");
	CHECK_STR(feed("AT\r"), "0\r");
	CHECK_STR(feed("ATX9\r"), "4\r");
	CHECK_STR(feed("ATI0\r"), "smodem\r\n0\r");
	CHECK_STR(feed("ATS7?\r"), "050\r\n0\r");
	CHECK_STR(feed("ATV1\r"), "\r\nOK\r\n");
	CHECK_STR(feed("ATQ1\r"), "");
	CHECK_STR(feed("AT\r"), "");
	CHECK_STR(feed("ATE5\r"), "");
	/* Information text is not a result code. */
	CHECK_STR(feed("ATS8?\r"), "\r\n002\r\n");
	CHECK_STR(feed("ATQ0\r"), "\r\nOK\r\n");
	CHECK_STR(feed("ATQ2\r"), "\r\nERROR\r\n");
	/* S3 and S4 shape the responses. */
	CHECK_STR(feed("ATS4=33\r"), "\r!OK\r!");
	CHECK_STR(feed("ATS4=10\r"), "\r\nOK\r\n");
}

static void test_info(void)
{
	fresh();
	CHECK_STR(feed("ATI\r"), "\r\nsmodem\r\n\r\nOK\r\n");
	CHECK_STR(feed("ATI0\r"), "\r\nsmodem\r\n\r\nOK\r\n");
	CHECK_STR(feed("ATI1\r"), "\r\nV.21 V.22 V.22bis V.32 V.32bis V.34 V.42 V.8\r\n\r\nOK\r\n");
	CHECK_STR(feed("ATI2\r"), "\r\nOK\r\n");
	CHECK(strstr(feed("ATI3\r"), "smodem 0.1") != NULL);
	CHECK_STR(feed("ATI4\r"), "\r\nOK\r\n");	/* unused: nothing to tell */
	CHECK_STR(feed("ATI9\r"), "\r\nOK\r\n");
	CHECK_STR(feed("ATI10\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATI0I0\r"),
		  "\r\nsmodem\r\n\r\nsmodem\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+GMI\r"), "\r\nsmodem\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+GMR\r"), "\r\n0.1\r\n\r\nOK\r\n");
	CHECK(strstr(feed("AT+GMM\r"), "V.22bis") != NULL);
	CHECK_STR(feed("AT+GCAP\r"), "\r\n+GCAP: +FCLASS,+MS,+ES,+DS\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+GMX\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+\r"), "\r\nERROR\r\n");
}

struct range {
	int reg, def, min, max;
};

static const struct range ranges[] = {
	{ 0, 0, 0, 255 }, { 2, 43, 0, 255 }, { 3, 13, 0, 127 },
	{ 4, 10, 0, 127 }, { 5, 8, 0, 127 }, { 6, 2, 2, 255 },
	{ 7, 50, 1, 255 }, { 8, 2, 0, 255 }, { 9, 6, 1, 255 },
	{ 10, 14, 1, 255 }, { 11, 95, 50, 255 }, { 12, 50, 0, 255 },
};

static void try_set(int reg, long v, bool ok)
{
	char q[64];
	const char *want = ok ? "\r\nOK\r\n" : "\r\nERROR\r\n";

	/* S3 and S4 are the terminator and formatting: restore at once. */
	snprintf(q, sizeof(q), "ATS%d=%ld\r", reg, v);
	if (reg == 3 && ok) {
		char q2[64];

		feed(q);
		snprintf(q2, sizeof(q2), "ATS3=13%c", (char)v);
		feed_n((const u8 *)q2, 8, 1024);
		CHECK(at.cfg.s[3] == 13);
		return;
	}
	if (reg == 4 && ok) {
		feed(q);
		feed("ATS4=10\r");
		CHECK(at.cfg.s[4] == 10);
		return;
	}
	if (reg == 5 && ok && (v == 'S' || v == 'A' || v == 'T')) {
		feed(q);
		feed("ATS5=8\r");
		return;
	}
	CHECK(!strcmp(feed(q), want), "S%d=%ld: want %s", reg, v, ok ? "OK" : "ERROR");
}

static void test_sregs(void)
{
	unsigned int i;

	fresh();
	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		const struct range *r = &ranges[i];

		CHECK(s_reg(r->reg) == (unsigned int)r->def);
		try_set(r->reg, r->min, true);
		try_set(r->reg, r->max, true);
		if (r->min > 0)
			try_set(r->reg, r->min - 1, false);
		if (r->max < 255)
			try_set(r->reg, r->max + 1, false);
		try_set(r->reg, 256, false);
		try_set(r->reg, 300, false);
		try_set(r->reg, 99999999999L, false);
	}
	fresh();
	CHECK_STR(feed("ATS7=200\r"), "\r\nOK\r\n");
	CHECK_STR(feed("ATS7?\r"), "\r\n200\r\n\r\nOK\r\n");
	CHECK_STR(feed("ATS7=300\r"), "\r\nERROR\r\n");
	CHECK(at.cfg.s[7] == 200);
	CHECK_STR(feed("ATS7=0\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATS7=\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATS0=\r"), "\r\nOK\r\n");
	CHECK_STR(feed("ATS1=1\r"), "\r\nERROR\r\n");	/* read-only */
	CHECK_STR(feed("ATS1?\r"), "\r\n000\r\n\r\nOK\r\n");
	/* Registers without a meaning here keep what is written, as reserved
	 * ones do; there are 100. */
	CHECK_STR(feed("ATS13=1\r"), "\r\nOK\r\n");
	CHECK_STR(feed("ATS13?\r"), "\r\n001\r\n\r\nOK\r\n");
	CHECK_STR(feed("ATS95=44S95?\r"), "\r\n044\r\n\r\nOK\r\n");
	CHECK_STR(feed("ATS99=256\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATS100=1\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATS100?\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATS99999999999?\r"), "\r\nERROR\r\n");
	/* ATSn selects, AT? and AT= use the selection. */
	CHECK_STR(feed("ATS8\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT=7\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT?\r"), "\r\n007\r\n\r\nOK\r\n");
	CHECK_STR(feed("ATS12?S8?\r"),
		  "\r\n050\r\n\r\n007\r\n\r\nOK\r\n");
	/* AT&F and ATZ restore every register. */
	feed("ATS0=3S12=9S2=1\r");
	CHECK_STR(feed("AT&F\r"), "\r\nOK\r\n");
	CHECK(at.cfg.s[0] == 0 && at.cfg.s[12] == 50 && at.cfg.s[2] == '+' && at.cfg.s[8] == 2);
	CHECK(at.cfg.echo);		/* &F: echo on again */
	feed("ATE0S7=99V0X0\r");
	CHECK_STR(feed("ATZ\r"), "\r\nOK\r\n");	/* factory V1 reports */
	CHECK(at.cfg.s[7] == 50 && at.cfg.verbose && at.cfg.xlevel == 4 && at.cfg.echo);
	CHECK(last_act == AT_ACT_HANGUP);
	feed("ATE0\r");
	CHECK_STR(feed("ATZ0\r"), "\r\nOK\r\n");
	feed("ATE0\r");
	CHECK_STR(feed("ATZ2\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT&F1\r"), "\r\nERROR\r\n");
	/* What follows Z on the line is not run. */
	feed("ATE0\r");
	CHECK_STR(feed("ATZS7=9\r"), "\r\nOK\r\n");
	CHECK(at.cfg.s[7] == 50);
}

static void test_concat(void)
{
	fresh();
	CHECK_STR(feed("ATV0Q0X3S7=60S8=4&C0&D1\r"), "0\r");
	CHECK(!at.cfg.verbose && at.cfg.xlevel == 3 && at.cfg.s[7] == 60 && at.cfg.s[8] == 4 &&
	      at.cfg.amp_c == 0 && at.cfg.amp_d == 1);
	feed("ATV1\r");
	/* Commands before an error take effect, the rest does not run. */
	CHECK_STR(feed("ATS7=70V9S8=9\r"), "\r\nERROR\r\n");
	CHECK(at.cfg.s[7] == 70 && at.cfg.s[8] == 4);
	CHECK_STR(feed("AT+MS=V21;E1\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V21 && at.cfg.echo);
	feed("ATE0\r");
	CHECK_STR(feed("AT+MS=V22B;+ES=1;\\N3S0=2\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V22B && at.cfg.ec == AT_EC_AUTO && at.cfg.s[0] == 2);
}

static void test_repeat(void)
{
	fresh();
	CHECK_STR(feed("ATS7=33\r"), "\r\nOK\r\n");
	feed("ATS7=40\r");
	CHECK_STR(feed("ATI0\r"), "\r\nsmodem\r\n\r\nOK\r\n");
	CHECK_STR(feed("A/"), "\r\nsmodem\r\n\r\nOK\r\n");
	CHECK_STR(feed("a/"), "\r\nsmodem\r\n\r\nOK\r\n");
	feed("ATS7=33\r");
	feed("ATS7?\r");
	feed("ATS7=41\r");
	CHECK_STR(feed("A/"), "\r\nOK\r\n");
	CHECK(at.cfg.s[7] == 41);
	/* An overlong line is not remembered. */
	feed("ATS7=42\r");
	memset(res, 0, sizeof(res));
	{
		char big[200];

		memset(big, 'E', sizeof(big));
		memcpy(big, "AT", 2);
		big[sizeof(big) - 1] = '\0';
		feed(big);
	}
	CHECK_STR(feed("\r"), "\r\nERROR\r\n");
	feed("ATS7=1\r");
	CHECK_STR(feed("A/"), "\r\nOK\r\n");
	CHECK(at.cfg.s[7] == 1);
	/* Echo shows A/ as typed. */
	feed("ATE1\r");
	CHECK_STR(feed("A/"), "A/\r\nOK\r\n");
}

static void test_line_limit(void)
{
	static char big[8192];
	char line[AT_LINE_MAX + 8];
	size_t i;

	fresh();
	/* 64 characters run, 65 do not. */
	memcpy(line, "AT", 2);
	for (i = 0; i < AT_LINE_MAX; i += 2)
		memcpy(line + 2 + i, "E0", 2);
	line[2 + AT_LINE_MAX] = '\r';
	line[3 + AT_LINE_MAX] = '\0';
	CHECK_STR(feed(line), "\r\nOK\r\n");
	memcpy(line + 2 + AT_LINE_MAX, "E\r", 3);
	line[4 + AT_LINE_MAX] = '\0';
	CHECK_STR(feed(line), "\r\nERROR\r\n");
	/* Spaces do not count. */
	memcpy(big, "AT", 2);
	for (i = 2; i < 300; i++)
		big[i] = ' ';
	memcpy(big + 300, "S7=77\r", 7);
	CHECK_STR(feed(big), "\r\nOK\r\n");
	CHECK(at.cfg.s[7] == 77);
	/* 4 KiB: ERROR, nothing in it runs, the next line works. */
	memcpy(big, "ATS7=99", 7);
	for (i = 7; i < 4096; i++)
		big[i] = (char)('A' + i % 26);
	big[4096] = '\r';
	big[4097] = '\0';
	CHECK_STR(feed(big), "\r\nERROR\r\n");
	CHECK(at.cfg.s[7] == 77);
	CHECK_STR(feed("AT\r"), "\r\nOK\r\n");
	/* With echo the whole 4 KiB comes back, then ERROR. */
	feed("ATE1\r");
	feed(big);
	CHECK(strlen(res) == 4097 + strlen("\r\nERROR\r\n"));
	CHECK(!strcmp(res + 4097, "\r\nERROR\r\n"));
	feed("ATE0\r");
	/* Backspace edits the line. */
	CHECK_STR(feed("ATX9\b4\r"), "\r\nOK\r\n");
	CHECK(at.cfg.xlevel == 4);
	CHECK_STR(feed("AT\b\b\bE0\r"), "\r\nOK\r\n");
}

static void test_small_out(void)
{
	const char *r;

	fresh();
	/* &V does not fit in 64 bytes: cut, but the OK is whole. */
	r = feed_n((const u8 *)"AT&V\r", 5, 64);
	CHECK(strlen(r) <= 64);
	CHECK(strlen(r) > 12 && !strcmp(r + strlen(r) - 6, "\r\nOK\r\n"));
	r = feed_n((const u8 *)"AT&V&V&V&V&V&V&V&V&V&V&V&V&V&V&V&V&V&V\r", 39,
		   AT_OUT_MIN);
	CHECK(strlen(r) <= AT_OUT_MIN);
	CHECK(!strcmp(r + strlen(r) - 6, "\r\nOK\r\n"));
}

static void test_show_config(void)
{
	const char *r;

	fresh();
	feed("ATS7=123X3&C0&D1\\N0+MS=V22,0\r");
	r = feed("AT&V\r");
	CHECK(strstr(r, "E0 ") != NULL);
	CHECK(strstr(r, " X3 ") != NULL);
	CHECK(strstr(r, " &C0 ") != NULL);
	CHECK(strstr(r, " &D1 ") != NULL);
	CHECK(strstr(r, " \\N0 ") != NULL);
	CHECK(strstr(r, " +MS=V22,0,0,0 ") != NULL);
	CHECK(strstr(r, "S07:123") != NULL);
	CHECK(strstr(r, "S12:050") != NULL);
	CHECK(strstr(r, "S00:000") != NULL);
	CHECK(!strcmp(r + strlen(r) - 6, "\r\nOK\r\n"));
	CHECK_STR(feed("AT&V1\r"), "\r\nERROR\r\n");
}

static void test_modulation(void)
{
	fresh();
	CHECK(at.cfg.mod == AT_MOD_V34 && at.cfg.automode);
	CHECK_STR(feed("AT+MS?\r"), "\r\n+MS: V34,1,0,0\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+MS=V21\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V21);
	CHECK_STR(feed("AT+MS=V22,0\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V22 && !at.cfg.automode);
	CHECK_STR(feed("AT+MS=V22B,1,1200,2400\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V22B && at.cfg.automode && at.cfg.min_rate == 1200 &&
	      at.cfg.max_rate == 2400);
	CHECK_STR(feed("AT+MS?\r"), "\r\n+MS: V22B,1,1200,2400\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+MS=V22B,,0,1200\r"), "\r\nOK\r\n");
	CHECK(at.cfg.automode && at.cfg.min_rate == 0 && at.cfg.max_rate == 1200);
	CHECK_STR(feed("AT+MS=V21,0,0,2400\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS=V22B,1,2400,1200\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS=V22B,2\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS=V23\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS=V34B\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS=V32B1\r"), "\r\nERROR\r\n");
	/* numeric carriers (Rockwell's 11 for V.34) are not taken, as for V.32bis */
	CHECK_STR(feed("AT+MS=11,1,300,33600\r"), "\r\nERROR\r\n");
	/* V.32 and V.32bis, their rates and limits */
	CHECK_STR(feed("AT+MS=V32\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V32 && at.cfg.automode && !at.cfg.min_rate && !at.cfg.max_rate);
	CHECK_STR(feed("AT+MS?\r"), "\r\n+MS: V32,1,0,0\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+MS=V32,1,4800,9600\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT+MS=V32,1,2400,14400\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS=V32,1,0,7200\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS=V32B\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V32B && at.cfg.automode && !at.cfg.min_rate && !at.cfg.max_rate);
	CHECK_STR(feed("AT+MS?\r"), "\r\n+MS: V32B,1,0,0\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+MS=V32B,0,7200,12000\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V32B && !at.cfg.automode && at.cfg.min_rate == 7200 &&
	      at.cfg.max_rate == 12000);
	CHECK_STR(feed("AT+MS?\r"), "\r\n+MS: V32B,0,7200,12000\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+MS=V32B,1,300,14400\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT+MS=V32B,1,14400,9600\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS=V32B,1,0,16800\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS=V32B,1,0,10000\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS=V22B,1,0,4800\r"), "\r\nERROR\r\n");
	CHECK(at.cfg.mod == AT_MOD_V32B && at.cfg.min_rate == 300 && at.cfg.max_rate == 14400);
	CHECK(strstr(feed("AT&V\r"), " +MS=V32B,1,300,14400 ") != NULL);
	feed("ATD1\r");
	CHECK(last_act == AT_ACT_DIAL && at.callp.mod == AT_MOD_V32B && at.callp.automode &&
	      at.callp.min_rate == 300 && at.callp.max_rate == 14400);
	/* V.34: every 2400 up to 33600, and its fallbacks' 300 and 1200 */
	fresh();
	CHECK_STR(feed("AT+MS=V34\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V34 && at.cfg.automode && !at.cfg.min_rate && !at.cfg.max_rate);
	CHECK_STR(feed("AT+MS?\r"), "\r\n+MS: V34,1,0,0\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+MS=V34,1,300,33600\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V34 && at.cfg.min_rate == 300 && at.cfg.max_rate == 33600);
	CHECK_STR(feed("AT+MS?\r"), "\r\n+MS: V34,1,300,33600\r\n\r\nOK\r\n");
	CHECK(strstr(feed("AT&V\r"), " +MS=V34,1,300,33600 ") != NULL);
	{
		static const u32 good[] = { 1200, 2400, 4800, 7200, 9600, 12000, 14400, 16800,
					    19200, 21600, 24000, 26400, 28800, 31200, 33600 };
		static const u32 bad[] = { 600, 3600, 16000, 28000, 33601, 36000, 38400, 65535 };
		char cmd[48];
		unsigned int k;

		for (k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
			snprintf(cmd, sizeof(cmd), "AT+MS=V34,0,%u,%u\r", good[k], good[k]);
			CHECK_STR(feed(cmd), "\r\nOK\r\n");
			CHECK(at.cfg.min_rate == good[k] && at.cfg.max_rate == good[k] &&
			      !at.cfg.automode, "%s", cmd);
		}
		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			snprintf(cmd, sizeof(cmd), "AT+MS=V34,1,0,%u\r", bad[k]);
			CHECK_STR(feed(cmd), "\r\nERROR\r\n");
			snprintf(cmd, sizeof(cmd), "AT+MS=V34,1,%u\r", bad[k]);
			CHECK_STR(feed(cmd), "\r\nERROR\r\n");
		}
	}
	CHECK_STR(feed("AT+MS=V34,1,28800,14400\r"), "\r\nERROR\r\n");
	/* V.34's rates are not V.32bis's */
	CHECK_STR(feed("AT+MS=V32B,1,0,28800\r"), "\r\nERROR\r\n");
	CHECK(at.cfg.mod == AT_MOD_V34 && !at.cfg.automode && at.cfg.max_rate == 33600);
	/* a Rockwell-style init string's V.34 part, with the rest of it */
	CHECK_STR(feed("AT&FE0V1&C1&D2+MS=V34,1,2400,33600\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V34 && at.cfg.automode && at.cfg.min_rate == 2400 &&
	      at.cfg.max_rate == 33600);
	feed("ATD1\r");
	CHECK(last_act == AT_ACT_DIAL && at.callp.mod == AT_MOD_V34 && at.callp.automode &&
	      at.callp.min_rate == 2400 && at.callp.max_rate == 33600);
	fresh();
	CHECK_STR(feed("AT+MS=V22B\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT+MS=\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MSX=V21\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+MS=?\r"),
		  "\r\n+MS: (V21,V22,V22B,V32,V32B,V34),(0,1),(0-33600),(0-33600)\r\n\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V22B);
	CHECK_STR(feed("ATB1\r"), "\r\nOK\r\n");
	CHECK(at.cfg.bell);
	CHECK_STR(feed("ATB0\r"), "\r\nOK\r\n");
	CHECK(!at.cfg.bell);
	CHECK_STR(feed("ATB2\r"), "\r\nERROR\r\n");
	/* Error control */
	CHECK(at.cfg.ec == AT_EC_AUTO);
	CHECK_STR(feed("AT\\N0\r"), "\r\nOK\r\n");
	CHECK(at.cfg.ec == AT_EC_NORMAL);
	CHECK_STR(feed("AT+ES?\r"), "\r\n+ES: 1,0,1\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT\\N2\r"), "\r\nOK\r\n");
	CHECK(at.cfg.ec == AT_EC_RELIABLE);
	CHECK_STR(feed("AT\\N1\r"), "\r\nOK\r\n");
	CHECK(at.cfg.ec == AT_EC_DIRECT);
	CHECK_STR(feed("AT\\N3\r"), "\r\nOK\r\n");
	CHECK(at.cfg.ec == AT_EC_AUTO);
	CHECK_STR(feed("AT\\N4\r"), "\r\nOK\r\n");
	CHECK(at.cfg.ec == AT_EC_LAPM);
	CHECK_STR(feed("AT+ES?\r"), "\r\n+ES: 3,3,5\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT\\N6\r"), "\r\nERROR\r\n");
	CHECK(at.cfg.ec == AT_EC_LAPM);
	CHECK_STR(feed("AT\\N3\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT\\X\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+ES=1\r"), "\r\nOK\r\n");
	CHECK(at.cfg.ec == AT_EC_NORMAL);
	CHECK_STR(feed("AT+ES=3,2,4\r"), "\r\nOK\r\n");
	CHECK(at.cfg.ec == AT_EC_RELIABLE);
	CHECK_STR(feed("AT+ES=3,0,2\r"), "\r\nOK\r\n");
	CHECK(at.cfg.ec == AT_EC_AUTO);
	CHECK_STR(feed("AT+ES?\r"), "\r\n+ES: 3,0,2\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+ES=0\r"), "\r\nOK\r\n");
	CHECK(at.cfg.ec == AT_EC_DIRECT);
	CHECK_STR(feed("AT+ES=4\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+ES=3,5\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+ES=?\r"),
		  "\r\n+ES: (0-3),(0-3),(0-5)\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT&K3\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT&K1\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT&\r"), "\r\nERROR\r\n");
	/* The call carries the settings. */
	feed("AT+MS=V22,0;\\N0X2S6=5S7=40S8=3S10=20S11=80B1\r");
	feed("ATDT1\r");
	CHECK(last_act == AT_ACT_DIAL);
	CHECK(at.callp.mod == AT_MOD_V22 && !at.callp.automode &&
	      at.callp.ec == AT_EC_NORMAL && at.callp.detect_dialtone &&
	      !at.callp.detect_busy && at.callp.dialtone_wait_s == 5 &&
	      at.callp.carrier_wait_s == 40 && at.callp.comma_s == 3 &&
	      at.callp.carrier_loss_ds == 20 && at.callp.dtmf_ms == 80 &&
	      at.callp.bell);
}

static void ev_begin(void)
{
	at_out_init(&ev, evbuf, sizeof(evbuf));
}

/* What ATD and ATA hand the engine for error control and V.8. */
static void call_flags(enum at_ec *dial_ec, bool *dial_v8, enum at_ec *ans_ec,
		       bool *ans_v8)
{
	feed("ATD1\r");
	*dial_ec = at.callp.ec;
	*dial_v8 = at.callp.v8;
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);
	feed("ATA\r");
	*ans_ec = at.callp.ec;
	*ans_v8 = at.callp.v8;
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);
}

/*
 * The factory profile is a V.34 modem's: +MS=V34 with its automode over
 * every rate, so that a plain ATDT gets the best the line allows; &F and
 * ATZ (its profiles stored from the factory's) bring it back after
 * another +MS, and every call, either role, carries it.
 */
static void test_factory_profile(void)
{
	const char *r;

	at_init(&at);
	CHECK_STR(feed("AT+MS?\r"), "AT+MS?\r\r\n+MS: V34,1,0,0\r\n\r\nOK\r\n");
	feed("ATE0\r");
	r = feed("AT&V\r");
	CHECK(strstr(r, " \\N3 +MS=V34,1,0,0 +ES=3,0,2 +A8E=0,0,C1\r\n") != NULL,
	      "&V: %s", r);
	CHECK_STR(feed("ATI\r"), "\r\nsmodem\r\n\r\nOK\r\n");
	CHECK_STR(feed("ATI1\r"),
		  "\r\nV.21 V.22 V.22bis V.32 V.32bis V.34 V.42 V.8\r\n\r\nOK\r\n");
	/* +A8E stays off: V.8 is V.34's own (smodem_call_config()) */
	CHECK_STR(feed("AT+A8E?\r"), "\r\n+A8E: 0,0,C1\r\n\r\nOK\r\n");
	feed("ATDT5551234\r");
	CHECK(last_act == AT_ACT_DIAL && at.callp.mod == AT_MOD_V34 && at.callp.automode &&
	      !at.callp.min_rate && !at.callp.max_rate && !at.callp.v8 &&
	      at.callp.ec == AT_EC_AUTO);
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);
	feed("ATA\r");
	CHECK(last_act == AT_ACT_ANSWER && at.callp.mod == AT_MOD_V34 && at.callp.automode &&
	      !at.callp.min_rate && !at.callp.max_rate);
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);
	/* &F after another modulation, its limits and no automode */
	CHECK_STR(feed("AT+MS=V22B,0,1200,2400\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT&F\r"), "\r\nOK\r\n");
	feed("ATE0\r");
	CHECK(at.cfg.mod == AT_MOD_V34 && at.cfg.automode && !at.cfg.min_rate &&
	      !at.cfg.max_rate);
	CHECK_STR(feed("AT+MS?\r"), "\r\n+MS: V34,1,0,0\r\n\r\nOK\r\n");
	/* ATZ loads the stored profile: the factory's until an &W */
	CHECK_STR(feed("AT+MS=V32B,1,300,14400\r"), "\r\nOK\r\n");
	CHECK_STR(feed("ATZ\r"), "\r\nOK\r\n");
	CHECK(at.cfg.mod == AT_MOD_V34 && at.cfg.automode && !at.cfg.min_rate &&
	      !at.cfg.max_rate);
	CHECK_STR(feed("ATE0+MS=V22B;&W\r"), "ATE0+MS=V22B;&W\r\r\nOK\r\n");
	feed("AT&F\r");
	CHECK(at.cfg.mod == AT_MOD_V34);
	feed("ATZ\r");
	CHECK(at.cfg.mod == AT_MOD_V22B);
	/* ATZ1: the other profile, still the factory's */
	feed("ATZ1\r");
	CHECK(at.cfg.mod == AT_MOD_V34 && at.cfg.automode);
}

static void test_error_control(void)
{
	static const struct {
		const char *cmd;
		enum at_ec show, dial, answer;
		const char *es;
	} cases[] = {
		{ "\\N0", AT_EC_NORMAL, AT_EC_NORMAL, AT_EC_NORMAL, "1,0,1" },
		{ "\\N1", AT_EC_DIRECT, AT_EC_DIRECT, AT_EC_DIRECT, "0,0,0" },
		{ "\\N2", AT_EC_RELIABLE, AT_EC_RELIABLE, AT_EC_RELIABLE, "3,2,4" },
		{ "\\N3", AT_EC_AUTO, AT_EC_AUTO, AT_EC_AUTO, "3,0,2" },
		{ "\\N4", AT_EC_LAPM, AT_EC_LAPM, AT_EC_LAPM, "3,3,5" },
		/* Rockwell's MNP required: error control required */
		{ "\\N5", AT_EC_MNP, AT_EC_RELIABLE, AT_EC_RELIABLE, "3,2,4" },
		/* V.250: the roles are set apart by +ES. */
		{ "+ES=1,0,5", AT_EC_NORMAL, AT_EC_NORMAL, AT_EC_LAPM, "1,0,5" },
		{ "+ES=3,3,1", AT_EC_LAPM, AT_EC_LAPM, AT_EC_NORMAL, "3,3,1" },
		{ "+ES=2,1,3", AT_EC_AUTO, AT_EC_AUTO, AT_EC_AUTO, "2,1,3" },
		{ "+ES=2,2,0", AT_EC_RELIABLE, AT_EC_RELIABLE, AT_EC_DIRECT, "2,2,0" },
		{ "+ES=0,3,4", AT_EC_DIRECT, AT_EC_DIRECT, AT_EC_RELIABLE, "0,3,4" },
		/* Empty subparameters keep their values. */
		{ "+ES=,,2", AT_EC_DIRECT, AT_EC_DIRECT, AT_EC_AUTO, "0,3,2" },
		{ "+ES=3", AT_EC_LAPM, AT_EC_LAPM, AT_EC_AUTO, "3,3,2" },
		{ "+ES=", AT_EC_LAPM, AT_EC_LAPM, AT_EC_AUTO, "3,3,2" },
	};
	static const char *const bad[] = {
		"+ES=4", "+ES=3,4", "+ES=3,0,6", "+ES=3,0,2,1", "+ES=3X",
		"+ES=A", "\\N6", "\\N99999999999",
	};
	enum at_ec de, ae;
	bool dv, av;
	unsigned int i;
	char q[64], want[64];

	fresh();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(q, sizeof(q), "AT%s\r", cases[i].cmd);
		CHECK_STR(feed(q), "\r\nOK\r\n");
		CHECK(at.cfg.ec == cases[i].show);
		snprintf(want, sizeof(want), "\r\n+ES: %s\r\n\r\nOK\r\n", cases[i].es);
		CHECK_STR(feed("AT+ES?\r"), want);
		call_flags(&de, &dv, &ae, &av);
		if (de != cases[i].dial || ae != cases[i].answer)
			printf("FAIL %s: dial %d answer %d\n", cases[i].cmd, de, ae);
		CHECK(de == cases[i].dial && ae == cases[i].answer);
	}
	feed("AT\\N2\r");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(q, sizeof(q), "AT%s\r", bad[i]);
		CHECK_STR(feed(q), "\r\nERROR\r\n");
		CHECK(at.cfg.ec == AT_EC_RELIABLE);
		CHECK_STR(feed("AT+ES?\r"), "\r\n+ES: 3,2,4\r\n\r\nOK\r\n");
	}
	/* &V shows \N4 as itself. */
	feed("AT\\N4\r");
	CHECK(strstr(feed("AT&V\r"), " \\N4 +MS=") != NULL);
	CHECK(strstr(res, " +ES=3,3,5 ") != NULL);
	/* The factory setting: V.42 if the peer has it, both ways. */
	feed("AT&F\r");
	feed("ATE0\r");
	CHECK(at.cfg.ec == AT_EC_AUTO);
	call_flags(&de, &dv, &ae, &av);
	CHECK(de == AT_EC_AUTO && ae == AT_EC_AUTO);
	/* Auto-answer carries the answerer's setting too. */
	feed("AT+ES=1,0,4;S0=1\r");
	ev_begin();
	at_ring(&at, now, &ev);
	CHECK(ev.act == AT_ACT_ANSWER && at.call == AT_CALL_ANSWERING);
	CHECK(at.callp.ec == AT_EC_RELIABLE);
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);
}

static void test_v8(void)
{
	enum at_ec de, ae;
	bool dv, av;

	fresh();
	/* Off by default: a V.25 start-up. */
	CHECK_STR(feed("AT+A8E?\r"), "\r\n+A8E: 0,0,C1\r\n\r\nOK\r\n");
	call_flags(&de, &dv, &ae, &av);
	CHECK(!dv && !av);
	CHECK_STR(feed("AT+A8E=?\r"),
		  "\r\n+A8E: (0,1,6),(0,1,5),(C1)\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+A8E=1,1\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT+A8E?\r"), "\r\n+A8E: 1,1,C1\r\n\r\nOK\r\n");
	call_flags(&de, &dv, &ae, &av);
	CHECK(dv && av);
	/* Each role on its own. */
	CHECK_STR(feed("AT+A8E=0\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT+A8E?\r"), "\r\n+A8E: 0,1,C1\r\n\r\nOK\r\n");
	call_flags(&de, &dv, &ae, &av);
	CHECK(!dv && av);
	CHECK_STR(feed("AT+A8E=6,0,C1\r"), "\r\nOK\r\n");
	call_flags(&de, &dv, &ae, &av);
	CHECK(dv && !av);
	CHECK_STR(feed("AT+A8E=,5\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT+A8E?\r"), "\r\n+A8E: 6,5,C1\r\n\r\nOK\r\n");
	/* Lower case hex: the line editor folds it. */
	CHECK_STR(feed("at+a8e=1,1,c1\r"), "\r\nOK\r\n");
	/* Only DCE-controlled V.8, only V-series data. */
	CHECK_STR(feed("AT+A8E=2\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+A8E=7\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+A8E=1,2\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+A8E=1,6\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+A8E=0,0,21\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+A8E=0,0,1C1\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+A8E=0,0,FFFFFFFFFFFF\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+A8E=0,0,C1,0\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+A8E=0X\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+A8E\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+A8EX=1\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+A8E?\r"), "\r\n+A8E: 1,1,C1\r\n\r\nOK\r\n");
	/* With other commands on the line. */
	CHECK_STR(feed("AT+A8E=0,1;+ES=1;S7=33\r"), "\r\nOK\r\n");
	CHECK(at.cfg.a8e[0] == 0 && at.cfg.a8e[1] == 1 && at.cfg.ec == AT_EC_NORMAL &&
	      at.cfg.s[7] == 33);
	CHECK(strstr(feed("AT&V\r"), " +A8E=0,1,C1\r\n") != NULL);
	/* ATZ and AT&F turn it off again. */
	feed("AT+A8E=1,1\r");
	CHECK_STR(feed("ATZ\r"), "\r\nOK\r\n");
	feed("ATE0\r");
	CHECK_STR(feed("AT+A8E?\r"), "\r\n+A8E: 0,0,C1\r\n\r\nOK\r\n");
	feed("AT+A8E=1,1\r");
	feed("AT&F\r");
	feed("ATE0\r");
	CHECK(at.cfg.a8e[0] == 0 && at.cfg.a8e[1] == 0 && at.cfg.a8e[2] == 0xc1);
	/* Auto-answer uses <v8a>. */
	feed("AT+A8E=0,5;S0=1\r");
	ev_begin();
	at_ring(&at, now, &ev);
	CHECK(at.call == AT_CALL_ANSWERING && at.callp.v8);
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);
}

static void test_dial(void)
{
	fresh();
	CHECK_STR(feed("ATDT5551234\r"), "");
	CHECK(last_act == AT_ACT_DIAL && at.call == AT_CALL_DIALING);
	CHECK(!strcmp(at.callp.number, "5551234") && !at.callp.pulse &&
	      !at.callp.stay_command && at.callp.detect_dialtone &&
	      at.callp.detect_busy);
	/* No engine: the tty reports NO CARRIER at once. */
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);
	CHECK_STR(evtext(), "\r\nNO CARRIER\r\n");
	CHECK(at.call == AT_CALL_IDLE && at.mode == AT_MODE_COMMAND);
	/* A second end is not reported. */
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);
	CHECK(ev.len == 0);

	CHECK_STR(feed("ATDP123\r"), "");
	CHECK(at.callp.pulse && !strcmp(at.callp.number, "123"));
	ev_begin();
	at_call_end(&at, AT_RC_BUSY, &ev);
	CHECK_STR(evtext(), "\r\nBUSY\r\n");

	CHECK_STR(feed("ATD T 1,2W3*#ABCD!;\r"), "");
	CHECK(at.callp.stay_command && !strcmp(at.callp.number, "1,2W3*#ABCD!"));
	ev_begin();
	at_call_end(&at, AT_RC_OK, &ev);
	CHECK_STR(evtext(), "\r\nOK\r\n");
	CHECK(at.call == AT_CALL_IDLE);

	CHECK_STR(feed("ATD(555) 123-4567\r"), "");
	CHECK(!strcmp(at.callp.number, "5551234567"));
	ev_begin();
	at_call_end(&at, AT_RC_NO_ANSWER, &ev);
	CHECK_STR(evtext(), "\r\nNO ANSWER\r\n");
	/* ATDL redials. */
	CHECK_STR(feed("ATDL\r"), "");
	CHECK(last_act == AT_ACT_DIAL && !strcmp(at.callp.number, "5551234567"));
	ev_begin();
	at_call_end(&at, AT_RC_NO_DIALTONE, &ev);
	CHECK_STR(evtext(), "\r\nNO DIALTONE\r\n");
	/* A bare ATD originates without digits. */
	CHECK_STR(feed("ATD\r"), "");
	CHECK(last_act == AT_ACT_DIAL && at.callp.number[0] == '\0');
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);

	CHECK_STR(feed("ATDT12;3\r"), "\r\nERROR\r\n");
	CHECK(last_act == 0 && at.call == AT_CALL_IDLE);
	CHECK_STR(feed("ATDT12R\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATDT12@\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATDS=1\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATDT12345678901234567890123456789012345678901\r"),
		  "\r\nERROR\r\n");
	CHECK_STR(feed("ATDT1234567890123456789012345678901234567890\r"), "");
	CHECK(last_act == AT_ACT_DIAL && strlen(at.callp.number) == 40);
	/* Any character aborts, LF does not. */
	CHECK_STR(feed("\n"), "");
	CHECK(at.call == AT_CALL_DIALING);
	CHECK_STR(feed("x"), "\r\nNO CARRIER\r\n");
	CHECK(last_act == AT_ACT_HANGUP && at.call == AT_CALL_IDLE);
	CHECK_STR(feed("AT\r"), "\r\nOK\r\n");
	/* Commands before D run; ATHD hangs up then dials. */
	CHECK_STR(feed("ATS7=45HDT9\r"), "");
	CHECK(last_act == (AT_ACT_HANGUP | AT_ACT_DIAL) && at.cfg.s[7] == 45);
	/* ATD or ATA while a call is being set up: ERROR. */
	CHECK_STR(feed("\n"), "");
	ev_begin();
	at_connected(&at, &(struct at_conn){ .rate = 2400 }, now, &ev);
	CHECK_STR(evtext(), "\r\nCONNECT 2400\r\n");
	CHECK(at.mode == AT_MODE_DATA && at.call == AT_CALL_ONLINE);
	/* No command mode input in data mode. */
	CHECK(at_input(&at, (const u8 *)"AT\r", 3, now, &ev) == 0);
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);
	CHECK_STR(evtext(), "\r\nNO CARRIER\r\n");
	CHECK(at.mode == AT_MODE_COMMAND);
	/* A connection nobody asked for is ignored. */
	ev_begin();
	at_connected(&at, &(struct at_conn){ .rate = 2400 }, now, &ev);
	CHECK(ev.len == 0 && at.mode == AT_MODE_COMMAND);
}

static void test_result_levels(void)
{
	static const struct {
		int x;
		enum at_result in;
		const char *v;
		const char *n;
	} t[] = {
		{ 0, AT_RC_BUSY, "NO CARRIER", "3" },
		{ 1, AT_RC_BUSY, "NO CARRIER", "3" },
		{ 2, AT_RC_BUSY, "NO CARRIER", "3" },
		{ 3, AT_RC_BUSY, "BUSY", "7" },
		{ 4, AT_RC_BUSY, "BUSY", "7" },
		{ 0, AT_RC_NO_DIALTONE, "NO CARRIER", "3" },
		{ 1, AT_RC_NO_DIALTONE, "NO CARRIER", "3" },
		{ 2, AT_RC_NO_DIALTONE, "NO DIALTONE", "6" },
		{ 3, AT_RC_NO_DIALTONE, "NO CARRIER", "3" },
		{ 4, AT_RC_NO_DIALTONE, "NO DIALTONE", "6" },
		{ 0, AT_RC_NO_ANSWER, "NO CARRIER", "3" },
		{ 3, AT_RC_NO_ANSWER, "NO ANSWER", "8" },
		{ 4, AT_RC_NO_ANSWER, "NO ANSWER", "8" },
		{ 0, AT_RC_NO_CARRIER, "NO CARRIER", "3" },
	};
	static const struct {
		int x;
		unsigned int rate;
		const char *v;
		const char *n;
	} c[] = {
		{ 0, 2400, "CONNECT", "1" },
		{ 1, 2400, "CONNECT 2400", "10" },
		{ 4, 2400, "CONNECT 2400", "10" },
		{ 4, 1200, "CONNECT 1200", "5" },
		{ 4, 300, "CONNECT 300", "1" },
		{ 4, 0, "CONNECT", "1" },
		{ 4, 14400, "CONNECT 14400", "15" },
		/* V.34's, Rockwell's numbers */
		{ 4, 16800, "CONNECT 16800", "59" },
		{ 4, 19200, "CONNECT 19200", "16" },
		{ 4, 21600, "CONNECT 21600", "61" },
		{ 4, 24000, "CONNECT 24000", "62" },
		{ 4, 26400, "CONNECT 26400", "63" },
		{ 4, 28800, "CONNECT 28800", "64" },
		{ 1, 31200, "CONNECT 31200", "91" },
		{ 4, 33600, "CONNECT 33600", "84" },
		{ 0, 33600, "CONNECT", "1" },
	};
	char want[64], cmd[32];
	unsigned int i, verbose;

	for (verbose = 0; verbose < 2; verbose++) {
		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			fresh();
			snprintf(cmd, sizeof(cmd), "ATX%dV%u\r", t[i].x, verbose);
			feed(cmd);
			feed("ATD1\r");
			ev_begin();
			at_call_end(&at, t[i].in, &ev);
			if (verbose)
				snprintf(want, sizeof(want), "\r\n%s\r\n", t[i].v);
			else
				snprintf(want, sizeof(want), "%s\r", t[i].n);
			CHECK_STR(evtext(), want);
		}
		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			fresh();
			snprintf(cmd, sizeof(cmd), "ATX%dV%u\r", c[i].x, verbose);
			feed(cmd);
			feed("ATA\r");
			CHECK(last_act == AT_ACT_ANSWER);
			ev_begin();
			at_connected(&at, &(struct at_conn){ .rate = c[i].rate }, now, &ev);
			if (verbose)
				snprintf(want, sizeof(want), "\r\n%s\r\n", c[i].v);
			else
				snprintf(want, sizeof(want), "%s\r", c[i].n);
			CHECK_STR(evtext(), want);
		}
	}
	fresh();
	feed("ATQ1\r");
	feed("ATD1\r");
	ev_begin();
	at_connected(&at, &(struct at_conn){ .rate = 2400 }, now, &ev);
	CHECK(ev.len == 0 && at.mode == AT_MODE_DATA);
}

static void go_online(u64 t)
{
	fresh();
	feed("ATD1\r");
	ev_begin();
	at_connected(&at, &(struct at_conn){ .rate = 2400 }, t, &ev);
}

static bool esc(const char *s, u64 t)
{
	return at_escape_feed(&at, (const u8 *)s, (unsigned int)strlen(s), t);
}

static void test_escape(void)
{
	u64 t = 1000 * SEC;

	/* Guard 1 s (S12=50): silence, "+++", silence -> OK. */
	go_online(t);
	CHECK(!esc("data", t + 100 * MS));
	CHECK(esc("+++", t + 1200 * MS));
	CHECK(at_escape_deadline(&at) == t + 2200 * MS);
	ev_begin();
	CHECK(!at_escape_poll(&at, t + 2199 * MS, &ev));
	CHECK(ev.len == 0 && at.mode == AT_MODE_DATA);
	CHECK(at_escape_poll(&at, t + 2200 * MS, &ev));
	CHECK_STR(evtext(), "\r\nOK\r\n");
	CHECK(at.mode == AT_MODE_COMMAND && at.call == AT_CALL_ONLINE);
	/* Online command mode: commands work, ATO returns to data. */
	CHECK_STR(feed("ATS7?\r"), "\r\n050\r\n\r\nOK\r\n");
	CHECK_STR(feed("ATD1\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("ATA\r"), "\r\nERROR\r\n");
	/*
	 * A retrain's rate (V.34's renegotiation: 33600 down to 26400) in
	 * online command mode: nothing said, ATO gives it.
	 */
	ev_begin();
	at_connected(&at, &(struct at_conn){ .rate = 26400, .v34 = true }, t + 3 * SEC, &ev);
	CHECK(ev.len == 0 && at.mode == AT_MODE_COMMAND && at.call == AT_CALL_ONLINE);
	CHECK_STR(feed("ATO\r"), "\r\nCONNECT 26400\r\n");
	CHECK(at.mode == AT_MODE_DATA);
	/* and in data mode, where the DTE's bytes are data: nothing said either */
	ev_begin();
	at_connected(&at, &(struct at_conn){ .rate = 2400 }, t + 4 * SEC, &ev);
	CHECK(ev.len == 0 && at.mode == AT_MODE_DATA && at.rate == 2400);
	/* Again, one '+' at a time within the guard, then ATH. */
	t += 10 * SEC;
	CHECK(!esc("+", t));
	CHECK(!esc("+", t + 500 * MS));
	CHECK(esc("+", t + 900 * MS));
	ev_begin();
	CHECK(at_escape_poll(&at, t + 1900 * MS, &ev));
	CHECK_STR(feed("ATH\r"), "\r\nOK\r\n");
	CHECK(last_act == AT_ACT_HANGUP && at.call == AT_CALL_IDLE);
	CHECK_STR(feed("ATO\r"), "\r\nNO CARRIER\r\n");

	/* Too soon after data: no escape. */
	t += 10 * SEC;
	go_online(t);
	CHECK(!esc("x", t + 2 * SEC));
	CHECK(!esc("+++", t + 2500 * MS));
	ev_begin();
	CHECK(!at_escape_poll(&at, t + 10 * SEC, &ev));
	/* A gap of a guard time between the '+': no escape. */
	CHECK(!esc("+", t + 20 * SEC));
	CHECK(!esc("+", t + 21 * SEC));
	CHECK(!esc("+", t + 21500 * MS));
	CHECK(!at_escape_poll(&at, t + 30 * SEC, &ev));
	/* Data within the trailing guard cancels it. */
	CHECK(esc("+++", t + 40 * SEC));
	CHECK(!esc("a", t + 40500 * MS));
	CHECK(!at_escape_poll(&at, t + 50 * SEC, &ev));
	/* A fourth '+' is data too. */
	CHECK(esc("+++", t + 60 * SEC));
	CHECK(!esc("+", t + 60 * SEC + MS));
	CHECK(!at_escape_poll(&at, t + 70 * SEC, &ev));
	CHECK(at.mode == AT_MODE_DATA);
	/* "+++" embedded in data of one write: no escape. */
	CHECK(!esc("ab+++cd", t + 80 * SEC));
	CHECK(!esc("+++cd", t + 90 * SEC));
	CHECK(!at_escape_poll(&at, t + 99 * SEC, &ev));

	/* S12 sets the guard: 200 ms. */
	t += 100 * SEC;
	go_online(t);
	CHECK(at.mode == AT_MODE_DATA);
	at.cfg.s[12] = 10;
	CHECK(esc("+++", t + 250 * MS));
	ev_begin();
	CHECK(!at_escape_poll(&at, t + 449 * MS, &ev));
	CHECK(at_escape_poll(&at, t + 450 * MS, &ev));
	CHECK(at.cfg.s[12] == 10);
	/* S12=0: no timing at all. */
	CHECK_STR(feed("ATS12=0O\r"), "\r\nCONNECT 2400\r\n");
	CHECK(esc("+++", t + 451 * MS));
	CHECK(at_escape_poll(&at, t + 451 * MS, &ev));
	/* S2 > 127 disables the escape; S2 picks the character. */
	CHECK_STR(feed("ATS12=50S2=200O\r"), "\r\nCONNECT 2400\r\n");
	CHECK(!esc("+++", t + 5 * SEC));
	CHECK(!esc("\xc8\xc8\xc8", t + 10 * SEC));
	CHECK(!at_escape_poll(&at, t + 20 * SEC, &ev));
	at.cfg.s[2] = '-';
	CHECK(esc("---", t + 30 * SEC));
	CHECK(at_escape_poll(&at, t + 32 * SEC, &ev));
	/* Not in data mode: nothing. */
	CHECK(!esc("+++", t + 50 * SEC));
}

static void test_ring(void)
{
	u64 t = 5000 * SEC;

	fresh();
	ev_begin();
	at_ring(&at, t, &ev);
	CHECK_STR(evtext(), "\r\nRING\r\n");
	CHECK(ev.act == 0 && at.cfg.s[1] == 1);
	ev_begin();
	at_ring(&at, t + 6 * SEC, &ev);
	CHECK(at.cfg.s[1] == 2 && ev.act == 0);
	/* A new call after a long silence counts from 1. */
	at_ring(&at, t + 30 * SEC, &ev);
	CHECK(at.cfg.s[1] == 1);
	CHECK_STR(feed("ATA\r"), "");
	CHECK(last_act == AT_ACT_ANSWER && at.call == AT_CALL_ANSWERING);
	ev_begin();
	at_connected(&at, &(struct at_conn){ .rate = 1200 }, t, &ev);
	CHECK_STR(evtext(), "\r\nCONNECT 1200\r\n");
	CHECK(at.cfg.s[1] == 0);

	/* Auto-answer on the second ring. */
	fresh();
	feed("ATS0=2\r");
	t += 100 * SEC;
	ev_begin();
	at_ring(&at, t, &ev);
	CHECK(ev.act == 0);
	ev_begin();
	at_ring(&at, t + 6 * SEC, &ev);
	CHECK(ev.act == AT_ACT_ANSWER && at.call == AT_CALL_ANSWERING);
	CHECK_STR(evtext(), "\r\nRING\r\n");
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);
	/* Not while DTR is down with &D2. */
	t += 100 * SEC;
	ev_begin();
	at_dtr(&at, false, &ev);
	at_ring(&at, t, &ev);
	at_ring(&at, t + 6 * SEC, &ev);
	CHECK(!(ev.act & AT_ACT_ANSWER) && at.call == AT_CALL_IDLE);
	at_dtr(&at, true, &ev);
	ev_begin();
	at_ring(&at, t + 12 * SEC, &ev);
	CHECK(ev.act == AT_ACT_ANSWER);
	/* The ring count saturates. */
	fresh();
	for (int i = 0; i < 300; i++)
		at_ring(&at, t + i * SEC, &ev);
	CHECK(at.cfg.s[1] == 255);
}

static void test_dtr_dcd(void)
{
	fresh();
	CHECK(at_dcd(&at, false) == false && at_dcd(&at, true) == true);
	feed("AT&C0\r");
	CHECK(at_dcd(&at, false) == true && at_dcd(&at, true) == true);
	feed("AT&C1\r");
	CHECK_STR(feed("AT&C2\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT&D4\r"), "\r\nERROR\r\n");

	/* &D2 (default): drop hangs up. */
	go_online(now);
	ev_begin();
	at_dtr(&at, false, &ev);
	CHECK(ev.act == AT_ACT_HANGUP && at.call == AT_CALL_IDLE);
	CHECK_STR(evtext(), "\r\nNO CARRIER\r\n");
	/* Already low: no new drop. */
	ev_begin();
	at_dtr(&at, false, &ev);
	CHECK(ev.act == 0);
	at_dtr(&at, true, &ev);

	/* &D1: drop goes to online command mode. */
	go_online(now);
	at.cfg.amp_d = 1;
	ev_begin();
	at_dtr(&at, false, &ev);
	CHECK(ev.act == 0 && at.mode == AT_MODE_COMMAND &&
	      at.call == AT_CALL_ONLINE);
	CHECK_STR(evtext(), "\r\nOK\r\n");
	at_dtr(&at, true, &ev);

	/* &D0: ignored. */
	go_online(now);
	at.cfg.amp_d = 0;
	ev_begin();
	at_dtr(&at, false, &ev);
	CHECK(ev.act == 0 && ev.len == 0 && at.mode == AT_MODE_DATA);
	at_dtr(&at, true, &ev);

	/* &D3: hang up and reset. */
	go_online(now);
	at.cfg.amp_d = 3;
	at.cfg.s[7] = 99;
	ev_begin();
	at_dtr(&at, false, &ev);
	CHECK(ev.act == AT_ACT_HANGUP && at.call == AT_CALL_IDLE &&
	      at.cfg.s[7] == 50 && at.cfg.amp_d == 2);
	at_dtr(&at, true, &ev);
}

static void test_session(void)
{
	go_online(now);
	feed("");
	at_reset_session(&at);
	CHECK(at.mode == AT_MODE_COMMAND && at.call == AT_CALL_IDLE);
	CHECK(!at.cfg.echo);	/* settings survive */
	CHECK_STR(feed("AT\r"), "\r\nOK\r\n");
	/* A half-typed line is dropped. */
	feed("ATS7=9");
	at_reset_session(&at);
	CHECK_STR(feed("0\r"), "");
	CHECK(at.cfg.s[7] == 50);
	CHECK(at_result_name(AT_RC_BUSY) && !strcmp(at_result_name(AT_RC_BUSY), "BUSY"));
	CHECK(at_result_name((enum at_result)5) == NULL);
}

/* -- fuzz ------------------------------------------------------------------- */

static u64 rng_state;

static u32 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (u32)(rng_state >> 11);
}

static const char *const fragments[] = {
	"AT", "at", "A/", "\r", "\n", "\b", "+++", "E1", "E0", "V0", "V1",
	"Q1", "Q0", "X", "S", "=", "?", "&F", "&V", "&C", "&D", "Z", "H", "D",
	"DT", "DP", "A", "O", "I", "+MS=", "+ES=", "V22B", ",", ";", "\\N",
	"+A8E=", "+A8E?", "C1", "\\Q", "\\V", "%C", "&K",
	"0", "1", "2", "3", "9", "255", "256", "99999999999", "S7=", "S12=",
	"S2=", "S3=", "S4=", "S5=", "W", "L", "B", "+GMI", " ",
	"+FCLASS=1", "+FCLASS=0", "+FTH=3", "+FRH=3", "+FTM=96", "+FRM=146",
	"+FTS=8", "+FRS=", "=?", "\x10\x03",
};

static bool check_invariants(void)
{

	if (at.len > AT_LINE_MAX || at.in_state > 2 || at.last_len > AT_LINE_MAX)
		return false;
	if (at.mode > AT_MODE_FAX_RX || at.call > AT_CALL_ONLINE)
		return false;
	/* a fax mode has its operation; command and data modes none */
	if ((at.mode >= AT_MODE_FAX_WAIT) != (at.fax_op != AT_FAX_NONE) ||
	    at.pend_len > AT_LINE_MAX)
		return false;
	if (at.mode == AT_MODE_DATA && at.call != AT_CALL_ONLINE)
		return false;
	if (at.cfg.xlevel > 4 || at.cfg.amp_c > 1 || at.cfg.amp_d > 3 || at.cfg.mod >= AT_MOD_COUNT ||
	    at.cfg.ec >= AT_EC_COUNT || at.plus > 3 || at.sreg_sel >= AT_NSTORED ||
	    at.cfg.w > 2 || at.cfg.amp_s > 1 || at.power_on > 1 ||
	    at.cfg.ext[AT_X_FCLASS][0] > 1 || at.cfg.ext[AT_X_DS][0] > 3 ||
	    at.cfg.ext[AT_X_DS][2] < 512 || at.cfg.ext[AT_X_DS][2] > 4096)
		return false;
	/* +DS and %C agree: V.42bis in some direction or none */
	if ((at.cfg.ext[AT_X_DS][0] != 0) !=
	    (at.cfg.pct_c == AT_COMP_V42BIS || at.cfg.pct_c == AT_COMP_BOTH))
		return false;
	if (strlen(at.callp.number) > AT_DIAL_MAX ||
	    strlen(at.last_number) > AT_DIAL_MAX)
		return false;
	if (at.cfg.s[3] > 127 || at.cfg.s[4] > 127 || at.cfg.s[5] > 127 || at.cfg.s[6] < 2 ||
	    at.cfg.s[7] < 1 || at.cfg.s[11] < 50)
		return false;
	if (at.cfg.es[0] > 3 || at.cfg.es[1] > 3 || at.cfg.es[2] > 5)
		return false;
	if ((at.cfg.a8e[0] != 0 && at.cfg.a8e[0] != 1 && at.cfg.a8e[0] != 6) ||
	    (at.cfg.a8e[1] != 0 && at.cfg.a8e[1] != 1 && at.cfg.a8e[1] != 5) ||
	    at.cfg.a8e[2] != 0xc1)
		return false;
	if (at.callp.ec >= AT_EC_COUNT || at.callp.compression >= AT_COMP_COUNT)
		return false;
	/* flow control: &K 0, 3-6, \Q 0-3, agreeing where they can */
	if (at.cfg.amp_k == 1 || at.cfg.amp_k == 2 || at.cfg.amp_k > 6 || at.cfg.bs_q > 3 ||
	    at.cfg.bs_v > 1 || at.cfg.pct_c >= AT_COMP_COUNT)
		return false;
	if ((at.cfg.amp_k == 0) != (at.cfg.bs_q == 0))
		return false;
	return true;
}

static void fuzz(unsigned int lines, u64 seed)
{
	static u8 line[6000];
	unsigned int i, bad = 0, data = 0, escapes = 0, oks = 0, dials = 0, faxes = 0;
	u64 t = 1;

	rng_state = seed | 1;
	at_init(&at);
	for (i = 0; i < lines; i++) {
		unsigned int n = 0, len;
		u32 kind = rnd() % 4;

		len = rnd() % (kind == 3 ? 5000 : 120);
		while (n < len) {
			if (kind == 0) {
				line[n++] = (u8)rnd();
			} else {
				const char *f = fragments[rnd() %
					(sizeof(fragments) / sizeof(fragments[0]))];
				size_t fl = strlen(f);

				if (n + fl > sizeof(line))
					break;
				memcpy(line + n, f, fl);
				n += (unsigned int)fl;
			}
		}
		t += rnd() % (3 * SEC);
		if (at.mode == AT_MODE_DATA) {
			data++;
			if (rnd() % 3 == 0) {
				memcpy(line, "+++", 3);
				n = rnd() % 4;
			}
			if (at_escape_feed(&at, line, n, t)) {
				ev_begin();
				escapes += at_escape_poll(&at, rnd() % 2 ?
					at_escape_deadline(&at) : t, &ev);
			}
		} else {
			/* Tiny buffers must not break the progress rule. */
			unsigned int size = rnd() % 8 ? 1024 : 1 + rnd() % 600;

			feed_n(line, n, size);
			oks += strstr(res, "OK") != NULL;
			dials += !!(last_act & AT_ACT_DIAL);
		}
		ev_begin();
		switch (rnd() % 10) {
		case 0:
			if (at.call == AT_CALL_IDLE && at.mode == AT_MODE_COMMAND &&
			    at.cfg.s[3] == '\r' && rnd() % 2)
				feed("\rATD1\r");
			at_connected(&at, &(struct at_conn){ .rate = rnd() % 3 ? 2400 : rnd() }, t, &ev);
			break;
		case 1:
			at_call_end(&at, (enum at_result)(rnd() % 10), &ev);
			break;
		case 2:
			at_ring(&at, t, &ev);
			break;
		case 3:
			at_dtr(&at, rnd() % 2, &ev);
			break;
		case 4:
			at_reset_session(&at);
			break;
		case 5:
		case 6:
			/* the modem's report on a fax operation, any time */
			faxes += at.mode >= AT_MODE_FAX_WAIT;
			at_fax_result(&at, (enum at_fax_rc)(rnd() % 5), t, &ev);
			break;
		default:
			break;
		}
		if (ev.len > sizeof(evbuf))
			bad++;
		if (!check_invariants()) {
			if (bad++ < 5)
				printf("FAIL fuzz invariants after line %u\n", i);
		}
		/* Class 1 often: the fax commands' fragments then run */
		if (i % 13 == 5 && at.mode == AT_MODE_COMMAND && at.cfg.s[3] == '\r')
			feed("\rAT+FCLASS=1\r");
		/* Recoverable: a reset session and a plain AT answer OK. */
		if (i % 97 == 0) {
			/* Random lines may move the terminator: put it back. */
			at_reset_session(&at);
			at.cfg.s[3] = '\r';
			at.cfg.s[4] = '\n';
			at.cfg.s[5] = '\b';
			feed("ATQ0V1E0\r");
			feed("AT\r");
			if (!strstr(res, "OK")) {
				if (bad++ < 5)
					printf("FAIL fuzz: AT after line %u gave no OK\n", i);
			}
		}
	}
	CHECK(bad == 0);
	printf("fuzz: %u lines, seed %llu: %u in data mode, %u escapes, %u with OK, %u dials\n",
	       lines, (unsigned long long)seed, data, escapes, oks, dials);
	printf("fuzz: %u in a fax mode\n", faxes);
}

static bool ends_with(const char *got, const char *want);

/* The modem's report on a fax operation: what it prints. */
static const char *fax(enum at_fax_rc rc)
{
	ev_begin();
	at_fax_result(&at, rc, now, &ev);
	last_act = ev.act;
	return evtext();
}

/*
 * Class 1 (T.31): +FCLASS, the operations and their "=?" lists, CONNECT
 * and the final results as the modem reports them, compound lines
 * (efax's +FTS=8;+FTH=3), aborts by the DTE, ATD and ATA, and the
 * sequences efax and HylaFAX send.
 */
static void test_class1(void)
{
	static const char *const lists[][2] = {
		{ "AT+FTM=?\r", "\r\n24,48,72,73,74,96,97,98,121,122,145,146\r\n\r\nOK\r\n" },
		{ "AT+FRM=?\r", "\r\n24,48,72,73,74,96,97,98,121,122,145,146\r\n\r\nOK\r\n" },
		{ "AT+FTH=?\r", "\r\n3\r\n\r\nOK\r\n" },
		{ "AT+FRH=?\r", "\r\n3\r\n\r\nOK\r\n" },
		{ "AT+FTS=?\r", "\r\n0-255\r\n\r\nOK\r\n" },
		{ "AT+FRS=?\r", "\r\n0-255\r\n\r\nOK\r\n" },
	};
	static const char *const bad[] = {
		"AT+FTM=95\r", "AT+FRM=144\r", "AT+FTH=1\r", "AT+FRH=2\r", "AT+FTS=256\r",
		"AT+FTM\r", "AT+FTM?\r", "AT+FTM=\r", "AT+FCLASS=2\r", "AT+FTH=3,1\r",
	};
	unsigned int i;

	fresh();
	/* class 0: the fax commands are not there */
	CHECK_STR(feed("AT+FTH=3\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+FTM=?\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+FCLASS=1\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT+FCLASS?\r"), "\r\n1\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+FCLASS=?\r"), "\r\n0,1\r\n\r\nOK\r\n");
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		CHECK_STR(feed(lists[i][0]), lists[i][1]);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_STR(feed(bad[i]), "\r\nERROR\r\n");
	CHECK(at.mode == AT_MODE_COMMAND && at.fax_op == AT_FAX_NONE);

	/* +FTH=3: no result until the modem's CONNECT; frames; OK after the final one */
	CHECK_STR(feed("AT+FTH=3\r"), "");
	CHECK(last_act == AT_ACT_FAX && at.fax_op == AT_FAX_TH && at.fax_arg == 3 &&
	      at.mode == AT_MODE_FAX_WAIT);
	CHECK_STR(fax(AT_FAXRC_CONNECT), "\r\nCONNECT\r\n");
	CHECK(at.mode == AT_MODE_FAX_TX);
	/* fax data goes to the line as it is: the interpreter takes none of it */
	CHECK(at_input(&at, (const u8 *)"\xff\x03\x10\x03", 4, now, &ev) == 0);
	CHECK_STR(fax(AT_FAXRC_CONNECT), "\r\nCONNECT\r\n");	/* after a non-final frame */
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
	CHECK(at.mode == AT_MODE_COMMAND && at.fax_op == AT_FAX_NONE);
	CHECK_STR(feed("AT\r"), "\r\nOK\r\n");

	/* efax: +FTS=8;+FTH=3 runs the second after the first's OK, one result */
	CHECK_STR(feed("AT+FTS=8;+FTH=3\r"), "");
	CHECK(last_act == AT_ACT_FAX && at.fax_op == AT_FAX_TS && at.fax_arg == 8);
	CHECK_STR(fax(AT_FAXRC_OK), "");
	CHECK(last_act == AT_ACT_FAX && at.fax_op == AT_FAX_TH && at.mode == AT_MODE_FAX_WAIT);
	CHECK_STR(fax(AT_FAXRC_CONNECT), "\r\nCONNECT\r\n");
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
	/* +FTS=8;+FTM=96, then a bad rest: ERROR after the silence */
	CHECK_STR(feed("AT+FTS=8;+FTM=96\r"), "");
	CHECK_STR(fax(AT_FAXRC_OK), "");
	CHECK(at.fax_op == AT_FAX_TM && at.fax_arg == 96);
	CHECK_STR(fax(AT_FAXRC_CONNECT), "\r\nCONNECT\r\n");
	CHECK(at.mode == AT_MODE_FAX_TX);
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
	CHECK_STR(feed("AT+FTS=1;+FTM=95\r"), "");
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nERROR\r\n");
	CHECK(at.mode == AT_MODE_COMMAND);

	/* +FRH=3: CONNECT, the frame (the modem's bytes), OK or ERROR by its FCS */
	CHECK_STR(feed("AT+FRH=3\r"), "");
	CHECK(at.fax_op == AT_FAX_RH);
	CHECK_STR(fax(AT_FAXRC_CONNECT), "\r\nCONNECT\r\n");
	CHECK(at.mode == AT_MODE_FAX_RX);
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
	CHECK_STR(feed("AT+FRH=3\r"), "");
	CHECK_STR(fax(AT_FAXRC_CONNECT), "\r\nCONNECT\r\n");
	CHECK_STR(fax(AT_FAXRC_ERROR), "\r\nERROR\r\n");
	/* a character from the DTE stops a receive; the modem's OK ends it */
	CHECK_STR(feed("AT+FRH=3\r"), "");
	CHECK_STR(feed("\x18"), "");
	CHECK(last_act == AT_ACT_FAX && at.fax_op == AT_FAX_ABORT && at.fax_abort);
	CHECK_STR(feed("more"), "");
	CHECK(last_act == 0);	/* one abort only */
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
	CHECK(at.mode == AT_MODE_COMMAND && !at.fax_abort);
	/* ... also after CONNECT of +FRM, and the rest of the line is not run */
	CHECK_STR(feed("AT+FRM=96;+FTH=3\r"), "");
	CHECK_STR(fax(AT_FAXRC_CONNECT), "\r\nCONNECT\r\n");
	CHECK_STR(feed("a"), "");
	CHECK(last_act == AT_ACT_FAX && at.fax_op == AT_FAX_ABORT);
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
	CHECK(last_act == 0 && at.mode == AT_MODE_COMMAND);
	/* +FRS: aborted the same way (HylaFAX: "AT+FRS=7") */
	CHECK_STR(feed("AT+FRS=7\r"), "");
	CHECK(at.fax_op == AT_FAX_RS && at.fax_arg == 7);
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
	/* a transmit is not aborted by the DTE's bytes */
	CHECK_STR(feed("AT+FTS=100\r"), "");
	CHECK_STR(feed("x"), "");
	CHECK(last_act == 0 && at.fax_op == AT_FAX_TS);
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
	/* +FRM: CONNECT, data, NO CARRIER; V.21 flags instead: +FCERROR */
	CHECK_STR(feed("AT+FRM=146\r"), "");
	CHECK_STR(fax(AT_FAXRC_CONNECT), "\r\nCONNECT\r\n");
	CHECK_STR(fax(AT_FAXRC_NO_CARRIER), "\r\nNO CARRIER\r\n");
	CHECK_STR(feed("AT+FRM=96\r"), "");
	CHECK_STR(fax(AT_FAXRC_FCERROR), "\r\n+FCERROR\r\n");
	CHECK_STR(feed("ATV0+FRM=96\r"), "");
	CHECK_STR(fax(AT_FAXRC_FCERROR), "+F4\r");
	CHECK_STR(feed("ATV1\r"), "\r\nOK\r\n");
	/* a report nobody waits for is not printed */
	CHECK_STR(fax(AT_FAXRC_OK), "");
	CHECK_STR(fax(AT_FAXRC_CONNECT), "");
	CHECK(at.mode == AT_MODE_COMMAND);

	/* ATD in class 1: CNG, then CONNECT when the answerer's flags come: +FRH=3 */
	fresh();
	CHECK_STR(feed("AT+FCLASS=1\r"), "\r\nOK\r\n");
	CHECK_STR(feed("ATDT5551234\r"), "");
	CHECK(last_act == AT_ACT_DIAL && at.callp.fclass == 1 && at.call == AT_CALL_DIALING);
	CHECK_STR(fax(AT_FAXRC_CONNECT), "\r\nCONNECT\r\n");
	CHECK(at.call == AT_CALL_ONLINE && at.mode == AT_MODE_FAX_RX && at.fax_op == AT_FAX_RH);
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");	/* the DIS */
	CHECK(at.call == AT_CALL_ONLINE && at.mode == AT_MODE_COMMAND);
	/* HylaFAX/efax go on: +FRH=3 for the rest, then +FTH=3 with the DCS */
	CHECK_STR(feed("AT+FRH=3\r"), "");
	CHECK_STR(fax(AT_FAXRC_CONNECT), "\r\nCONNECT\r\n");
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
	CHECK_STR(feed("ATH\r"), "\r\nOK\r\n");
	CHECK(last_act == AT_ACT_HANGUP && at.call == AT_CALL_IDLE);
	/* nobody answers: the modem's NO CARRIER ends the call */
	CHECK_STR(feed("ATD123\r"), "");
	ev_begin();
	at_call_end(&at, AT_RC_NO_CARRIER, &ev);
	CHECK_STR(evtext(), "\r\nNO CARRIER\r\n");
	/* ATA: CED, then CONNECT and the DTE sends its frames: +FTH=3 */
	CHECK_STR(feed("ATA\r"), "");
	CHECK(last_act == AT_ACT_ANSWER && at.callp.fclass == 1);
	CHECK_STR(fax(AT_FAXRC_CONNECT), "\r\nCONNECT\r\n");
	CHECK(at.call == AT_CALL_ONLINE && at.mode == AT_MODE_FAX_TX && at.fax_op == AT_FAX_TH);
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
	/* DTR drop (&D2) in a fax mode: hang-up, command mode */
	CHECK_STR(feed("AT&D2+FRH=3\r"), "");
	ev_begin();
	at_dtr(&at, true, &ev);
	at_dtr(&at, false, &ev);
	CHECK((ev.act & AT_ACT_HANGUP) && at.mode == AT_MODE_COMMAND && at.fax_op == AT_FAX_NONE);
	/* ATZ: class 0 again */
	CHECK(ends_with(feed("ATZ\r"), "OK"));
	CHECK(at.cfg.ext[AT_X_FCLASS][0] == 0);

	/* efax's Class 1 start (efax.c): its init, the class probe and setting */
	fresh();
	CHECK(ends_with(feed("ATQ0V1\r"), "OK"));
	CHECK(ends_with(feed("AT&FE&D2S7=120\r"), "OK"));
	CHECK(ends_with(feed("ATE0\r"), "OK"));
	CHECK_STR(feed("AT+FCLASS=?\r"), "\r\n0,1\r\n\r\nOK\r\n");
	CHECK(ends_with(feed("AT+FCLASS=1\r"), "OK"));
	CHECK(ends_with(feed("AT+FTM=?\r"), "OK"));
	CHECK(at.cfg.s[7] == 120);
	/* HylaFAX's faxaddmodem/Class1 probe */
	CHECK(ends_with(feed("AT+FCLASS=1;+FTH=?;+FRH=?\r"), "OK"));
	/* efax's identification queries (its binary's strings) */
	CHECK(ends_with(feed("AT+FMI?;+FMM?;+FMR?\r"), "OK"));
	CHECK(strstr(res, "smodem") != NULL);
	CHECK(ends_with(feed("AT+FMI\r"), "OK"));
	CHECK(ends_with(feed("AT+FMFR?\r"), "ERROR"));	/* class 2's */
	/* efax's Class 1 commands (its binary's strings): +FTS=1, +FRS=1, +FRS=20 */
	CHECK_STR(feed("AT+FTS=1\r"), "");
	CHECK(at.fax_op == AT_FAX_TS && at.fax_arg == 1);
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
	CHECK_STR(feed("AT+FRS=20\r"), "");
	CHECK(at.fax_op == AT_FAX_RS && at.fax_arg == 20);
	CHECK_STR(fax(AT_FAXRC_OK), "\r\nOK\r\n");
}

/* Ends with the final result code want ("OK" or "ERROR"), verbose form. */
static bool ends_with(const char *got, const char *want)
{
	char tail[32];
	size_t g = strlen(got), t;

	snprintf(tail, sizeof(tail), "\r\n%s\r\n", want);
	t = strlen(tail);
	return g >= t && !strcmp(got + g - t, tail);
}

/*
 * What real programs send by default, from their sources and shipped
 * configurations, answered as a V.250 modem answers: every command a
 * data modem has must get OK, the rest (fax classes, GSM) a plain ERROR.
 */
static void test_programs(void)
{
	static const char *const ok[] = {
		/* wvdialconf's probe, then the init string it writes */
		"ATQ0 V1 E1", "ATQ0 V1 E1 Z", "ATQ0 V1 E1 S0=0",
		"ATQ0 V1 E1 S0=0 &C1", "ATQ0 V1 E1 S0=0 &C1 &D2",
		"ATQ0 V1 E1 S0=0 &C1 &D2 +FCLASS=0", "ATI",
		/* minicom's default init and reset strings */
		"AT S7=45 S0=0 L1 V1 X4 &c1 E1 Q0", "ATZ",
		/* mgetty: init chat, MODEM_INIT_STRING, identification */
		"ATQ0V1H0", "ATS0=0Q0&D3&C1", "AT+FCLASS=?", "AT+FCLASS=0",
		"ATI0", "ATI1", "ATI3", "ATI4", "ATI9", "ATH0",
		/* ModemManager's probes that a POTS modem has */
		"AT", "AT+GCAP", "AT+GMI", "AT+GMM", "AT+GMR", "AT+GSN",
		/* pppconfig / kppp / gnome-ppp / efax / common init strings */
		"AT&F", "AT&F&C1&D2", "ATM1L1", "AT&K3", "AT\\N3", "AT&Q5",
		"AT%C0", "AT%C2", "AT\\N3\\Q3%C1\\V1", "ATW2", "ATX3", "AT&S0", "AT&R1", "AT&B1", "AT&G0",
		"AT&W", "AT&W0&Y0", "ATS11=55", "ATS95=0", "ATS25=5", "ATN1",
		"AT+IFC=2,2", "AT+ICF=3,3", "AT+IPR=0", "AT+IPR=115200",
		"AT+DS=0", "AT+DR=0", "AT+ER=1", "AT+MR=2", "AT+ILRR=1",
		"AT+ETBM=1,1,20", "AT+FCLASS=0;+MS?", "AT+GMI=?", "ATP", "ATT",
		/* efax's default init, HylaFAX's faxaddmodem probe */
		"AT&FE&D2S7=120", "AT&C0", "ATQ0V1E0", "ATI3",
	};
	static const char *const bad[] = {
		/* fax classes (mgetty's auto probe), GSM and vendor probes */
		"AT+FCLASS=2.0", "AT+FCLASS=2", "AT+FAA=1;+FCR=1", "AT+FTM=96",
		"AT+CGMI", "AT+CGMM", "AT+CPIN?", "AT%IPSYS?", "AT+XACT=?",
		"AT^SCFG?", "AT+DS=4", "AT+IPR=123", "AT&L1", "AT&T1", "ATY1",
		"AT%C4", "AT+ICF=7", "AT+MR=3",
	};
	char line[80];
	unsigned int i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		fresh();
		snprintf(line, sizeof(line), "%s\r", ok[i]);
		CHECK(ends_with(feed(line), "OK"), "%s: not OK: %s", ok[i], res);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fresh();
		snprintf(line, sizeof(line), "%s\r", bad[i]);
		CHECK(ends_with(feed(line), "ERROR"), "%s: not ERROR: %s", bad[i], res);
	}
	/* agetty's manual page's init string: Q1, so nothing comes back */
	fresh();
	CHECK_STR(feed("ATE0Q1&D2&C1S0=1\r"), "");
	CHECK(at.cfg.quiet && at.cfg.s[0] == 1 && at.cfg.amp_d == 2);
	/* mgetty, efax and HylaFAX read the classes: data and Class 1, bare */
	fresh();
	CHECK_STR(feed("AT+FCLASS=?\r"), "\r\n0,1\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+FCLASS?\r"), "\r\n0\r\n\r\nOK\r\n");
	CHECK_STR(feed("ATI9\r"), "\r\nOK\r\n");
}

/*
 * Rockwell's commands, as V.32bis and V.34 modems' init strings carry
 * them: \N0-\N5 (\N5, MNP required, is error control required here),
 * \Q0-\Q3 and &K0, &K3-&K6 (flow control, each setting the other), \V0
 * and \V1, %C0-%C3 (compression, for the modem: at_call.compression).
 * &V shows them, &W and ATZ keep them, a value out of range is ERROR
 * and changes nothing.
 */
static void test_rockwell(void)
{
	static const struct {
		const char *cmd;
		u8 k, q;
	} flow[] = {
		{ "&K0", 0, 0 }, { "&K3", 3, 3 }, { "&K4", 4, 1 }, { "&K5", 5, 1 },
		{ "&K6", 6, 3 }, { "\\Q0", 0, 0 }, { "\\Q1", 4, 1 },
		{ "\\Q2", 3, 2 }, { "\\Q3", 3, 3 }, { "\\Q", 0, 0 },
	};
	static const char *const bad[] = {
		"&K1", "&K2", "&K7", "&K99", "\\Q4", "\\Q9", "\\V2", "%C4",
		"%C9", "\\N6", "\\", "\\X1", "%", "%D1", "%C99999999999",
	};
	struct at_settings saved;
	char q[64], want[64];
	unsigned int i;

	fresh();
	/* the factory's: RTS/CTS both ways of naming it, \V0, %C2 (V.42bis) */
	CHECK(at.cfg.amp_k == 3 && at.cfg.bs_q == 3 && at.cfg.bs_v == 0 &&
	      at.cfg.pct_c == AT_COMP_V42BIS);
	CHECK(strstr(feed("AT&V\r"), " &K3 &S0 W0 \\Q3 \\V0 %C2 \\N3 +MS=") != NULL);
	for (i = 0; i < sizeof(flow) / sizeof(flow[0]); i++) {
		snprintf(q, sizeof(q), "AT%s\r", flow[i].cmd);
		CHECK_STR(feed(q), "\r\nOK\r\n");
		CHECK(at.cfg.amp_k == flow[i].k && at.cfg.bs_q == flow[i].q,
		      "%s: &K%u \\Q%u", flow[i].cmd, at.cfg.amp_k, at.cfg.bs_q);
		snprintf(want, sizeof(want), " &K%u ", flow[i].k);
		CHECK(strstr(feed("AT&V\r"), want) != NULL, "%s: %s", flow[i].cmd, res);
		snprintf(want, sizeof(want), " \\Q%u ", flow[i].q);
		CHECK(strstr(res, want) != NULL, "%s: %s", flow[i].cmd, res);
	}
	CHECK_STR(feed("AT\\V1\r"), "\r\nOK\r\n");
	CHECK(at.cfg.bs_v == 1 && strstr(feed("AT&V\r"), " \\V1 ") != NULL);
	CHECK_STR(feed("AT\\V0\r"), "\r\nOK\r\n");
	CHECK(at.cfg.bs_v == 0 && strstr(feed("AT&V\r"), " \\V0 ") != NULL);
	/* %C: stored, shown, and what a call (dialled or answered) carries */
	for (i = 0; i < AT_COMP_COUNT; i++) {
		snprintf(q, sizeof(q), "AT%%C%u\r", i);
		CHECK_STR(feed(q), "\r\nOK\r\n");
		CHECK(at.cfg.pct_c == i);
		snprintf(want, sizeof(want), " %%C%u ", i);
		CHECK(strstr(feed("AT&V\r"), want) != NULL, "%%C%u: %s", i, res);
		feed("ATD1\r");
		CHECK(last_act == AT_ACT_DIAL && at.callp.compression == i);
		feed("ATH\r");
		feed("ATA\r");
		CHECK(last_act == AT_ACT_ANSWER && at.callp.compression == i);
		feed("ATH\r");
	}
	/* \N5: shown as itself, a call that requires error control */
	CHECK_STR(feed("AT\\N5\r"), "\r\nOK\r\n");
	CHECK(at.cfg.ec == AT_EC_MNP && strstr(feed("AT&V\r"), " \\N5 +MS=") != NULL);
	feed("ATD1\r");
	CHECK(at.callp.ec == AT_EC_RELIABLE);
	feed("ATH\r");
	/* out of range: ERROR, nothing changed */
	feed("AT&K4\\V1%C3\\N2\r");
	saved = at.cfg;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(q, sizeof(q), "AT%s\r", bad[i]);
		CHECK_STR(feed(q), "\r\nERROR\r\n");
		CHECK(!memcmp(&at.cfg, &saved, sizeof(saved)), "%s changed a setting", bad[i]);
	}
	/* &W keeps them, &F is the factory's, ATZ loads them back */
	CHECK_STR(feed("AT&W\r"), "\r\nOK\r\n");
	feed("AT&F\r");
	feed("ATE0\r");
	CHECK(at.cfg.amp_k == 3 && at.cfg.bs_q == 3 && at.cfg.bs_v == 0 &&
	      at.cfg.pct_c == AT_COMP_V42BIS && at.cfg.ec == AT_EC_AUTO);
	feed("ATZ\r");
	CHECK(at.cfg.amp_k == 4 && at.cfg.bs_q == 1 && at.cfg.bs_v == 1 &&
	      at.cfg.pct_c == AT_COMP_BOTH && at.cfg.ec == AT_EC_RELIABLE);
	/* init strings of V.32bis and V.34 modems, whole */
	fresh();
	CHECK_STR(feed("AT&F&C1&D2\\N3\\Q3%C1\\V1\r"), "\r\nOK\r\n");
	/* &F echoes again */
	CHECK(ends_with(feed("AT&FE0V1&C1&D2&K3\\N5%C3S0=0\r"), "OK"));
	CHECK(at.cfg.ec == AT_EC_MNP && at.cfg.pct_c == AT_COMP_BOTH && at.cfg.bs_q == 3);
	CHECK_STR(feed("ATQ0V1E0\\N0%C0&K0\r"), "\r\nOK\r\n");
	CHECK(at.cfg.ec == AT_EC_NORMAL && at.cfg.pct_c == AT_COMP_NONE && at.cfg.bs_q == 0);
}

/* V.250's stored values: query, test, set, an empty subparameter kept. */
static void test_v250(void)
{
	fresh();
	CHECK_STR(feed("AT+ICF?\r"), "\r\n+ICF: 3,3\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+ICF=?\r"), "\r\n+ICF: (0-6),(0-3)\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+ICF=5\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT+ICF?\r"), "\r\n+ICF: 5,3\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+ICF=,1\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT+ICF?\r"), "\r\n+ICF: 5,1\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+ICF=1,2,3\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+ICF?\r"), "\r\n+ICF: 5,1\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+IFC?;+IPR?\r"),
		  "\r\n+IFC: 2,2\r\n\r\n+IPR: 0\r\n\r\nOK\r\n");
	CHECK(strstr(feed("AT+IPR=?\r"), "+IPR: (0,300,") != NULL);
	/* every rate "=?" lists is one "=" takes */
	{
		char list[256], *tok, *save;
		unsigned int n = 0;

		snprintf(list, sizeof(list), "%s", strstr(res, "(") + 1);
		*strchr(list, ')') = '\0';
		for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			char q[32];

			snprintf(q, sizeof(q), "AT+IPR=%s;+IPR?\r", tok);
			CHECK(strstr(feed(q), tok) != NULL && ends_with(res, "OK"), "+IPR=%s", tok);
			n++;
		}
		CHECK(n == 12);
		feed("AT+IPR=0\r");
	}
	CHECK_STR(feed("AT+DS?\r"), "\r\n+DS: 3,0,2048,32\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+DS=0,1,1024,20;+DS?\r"),
		  "\r\n+DS: 0,1,1024,20\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+DS=0,0,4097\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+DS=0,0,511\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+DS=0,2\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+DS=0,0,2048,251\r"), "\r\nERROR\r\n");
	CHECK_STR(feed("AT+DS=?\r"), "\r\n+DS: (0-3),(0,1),(512-4096),(6-250)\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+GSN\r"), "\r\n0\r\n\r\nOK\r\n");
	CHECK_STR(feed("AT+GSN=?\r"), "\r\nOK\r\n");
	CHECK_STR(feed("AT+GSN=1\r"), "\r\nERROR\r\n");

	/* The reports before CONNECT, in V.250's order, and ATW1's. */
	fresh();
	feed("AT+MR=1;+ER=1;+DR=1;+ILRR=1\r");
	at.dte_rate = 115200;
	feed("ATD1\r");
	at_out_init(&ev, evbuf, sizeof(evbuf));
	at_connected(&at, &(struct at_conn){ .rate = 2400, .lapm = true },
		     now, &ev);
	CHECK_STR(evtext(), "\r\n+MCR: V22B\r\n\r\n+MRR: 2400\r\n"
		  "\r\n+ER: LAPM\r\n\r\n+DR: NONE\r\n\r\n+ILRR: 115200\r\n"
		  "\r\nCONNECT 2400\r\n");
	fresh();
	feed("ATW1+IPR=38400;+ILRR=1\r");
	feed("ATD1\r");
	at_out_init(&ev, evbuf, sizeof(evbuf));
	at_connected(&at, &(struct at_conn){ .rate = 1200 }, now, &ev);
	CHECK_STR(evtext(), "\r\nCARRIER 1200\r\n\r\nPROTOCOL: NONE\r\n"
		  "\r\nCOMPRESSION: NONE\r\n\r\n+ILRR: 38400\r\n"
		  "\r\nCONNECT 1200\r\n");
	/*
	 * V.32bis: its rates, +MCR's name by the rate and by what the call
	 * offered; V.34: by what the modem says (its rates up to 14400 are
	 * V.32bis's too), or by a rate only V.34 has; a V.34 call fallen back
	 * to V.32bis or V.22bis is those.
	 */
	{
		static const struct {
			const char *ms;
			u32 rate;
			bool v34;
			const char *mcr;
		} v32[] = {
			{ "V32B", 14400, 0, "V32B" }, { "V32B", 12000, 0, "V32B" },
			{ "V32B", 7200, 0, "V32B" }, { "V32B", 9600, 0, "V32B" },
			{ "V32B", 4800, 0, "V32B" }, { "V32", 9600, 0, "V32" },
			{ "V32", 4800, 0, "V32" }, { "V32B", 2400, 0, "V22B" },
			{ "V34", 33600, 1, "V34" }, { "V34", 28800, 1, "V34" },
			{ "V34", 16800, 1, "V34" }, { "V34", 14400, 1, "V34" },
			{ "V34", 2400, 1, "V34" }, { "V34", 31200, 0, "V34" },
			{ "V34", 14400, 0, "V32B" }, { "V34", 9600, 0, "V32B" },
			{ "V34", 2400, 0, "V22B" }, { "V34", 1200, 0, "V22" },
		};
		char cmd[48], want[160];
		unsigned int k;

		for (k = 0; k < sizeof(v32) / sizeof(v32[0]); k++) {
			fresh();
			snprintf(cmd, sizeof(cmd), "AT+MS=%s;+MR=1;+ER=1\r", v32[k].ms);
			feed(cmd);
			feed("ATD1\r");
			at_out_init(&ev, evbuf, sizeof(evbuf));
			at_connected(&at, &(struct at_conn){ .rate = v32[k].rate, .v34 = v32[k].v34,
							     .lapm = true }, now, &ev);
			snprintf(want, sizeof(want), "\r\n+MCR: %s\r\n\r\n+MRR: %u\r\n"
				 "\r\n+ER: LAPM\r\n\r\nCONNECT %u\r\n", v32[k].mcr, v32[k].rate,
				 v32[k].rate);
			CHECK_STR(evtext(), want);
		}
	}
	/* Q1: no reports either */
	fresh();
	feed("AT+MR=2;Q1\r");
	feed("ATD1\r");
	at_out_init(&ev, evbuf, sizeof(evbuf));
	at_connected(&at, &(struct at_conn){ .rate = 300 }, now, &ev);
	CHECK_STR(evtext(), "");
	CHECK(at.mode == AT_MODE_DATA);
}

/*
 * V.42bis: +DS and %C set one thing (the directions, then P1 and P2) that
 * every call carries; the reports before CONNECT say what XID agreed.
 */
static void test_v42bis(void)
{
	static const struct {
		const char *cmd;
		unsigned int dirs, pct_c;
	} set[] = {
		{ "AT%C2\r", 3, AT_COMP_V42BIS }, { "AT%C0\r", 0, AT_COMP_NONE },
		{ "AT%C3\r", 3, AT_COMP_BOTH }, { "AT%C1\r", 0, AT_COMP_MNP5 },
		{ "AT+DS=1\r", 1, AT_COMP_V42BIS }, { "AT%C2\r", 1, AT_COMP_V42BIS },
		{ "AT+DS=0\r", 0, AT_COMP_NONE }, { "AT+DS=2\r", 2, AT_COMP_V42BIS },
		{ "AT%C3+DS=3\r", 3, AT_COMP_BOTH },
	};
	static const struct {
		u8 v42bis;
		const char *dr, *comp;
	} agreed[] = {
		{ 0, "NONE", "NONE" },
		{ AT_V42BIS_TX, "V42B TD", "V.42BIS" },
		{ AT_V42BIS_RX, "V42B RD", "V.42BIS" },
		{ AT_V42BIS_TX | AT_V42BIS_RX, "V42B", "V.42BIS" },
	};
	char want[160];
	int i;

	fresh();
	feed("ATD1\r");
	CHECK(at.callp.v42bis_dirs == 3 && !at.callp.v42bis_required &&
	      at.callp.v42bis_p1 == 2048 && at.callp.v42bis_p2 == 32 &&
	      at.callp.compression == AT_COMP_V42BIS, "factory: V.42bis both ways, optional");
	feed("ATH\r");
	for (i = 0; i < (int)(sizeof(set) / sizeof(set[0])); i++) {
		CHECK_STR(feed(set[i].cmd), "\r\nOK\r\n");
		CHECK(at.cfg.ext[AT_X_DS][0] == set[i].dirs && at.cfg.pct_c == set[i].pct_c,
		      "%s: +DS %u %%C %u", set[i].cmd, at.cfg.ext[AT_X_DS][0], at.cfg.pct_c);
	}
	CHECK_STR(feed("AT+DS=3,1,4096,250\r"), "\r\nOK\r\n");
	feed("ATD1\r");
	CHECK(at.callp.v42bis_dirs == 3 && at.callp.v42bis_required &&
	      at.callp.v42bis_p1 == 4096 && at.callp.v42bis_p2 == 250);
	feed("ATH\r");
	feed("ATA\r");
	CHECK(last_act == AT_ACT_ANSWER && at.callp.v42bis_dirs == 3);
	feed("ATH\r");
	/* &F and Z (the profile at power-on): the factory's V.42bis again */
	feed("AT%C0&F\r");
	CHECK(at.cfg.ext[AT_X_DS][0] == 3 && at.cfg.ext[AT_X_DS][1] == 0 &&
	      at.cfg.pct_c == AT_COMP_V42BIS);
	feed("AT+DS=0Z\r");
	CHECK(at.cfg.ext[AT_X_DS][0] == 3 && at.cfg.pct_c == AT_COMP_V42BIS);
	feed("AT%C0\r");
	feed("ATD1\r");
	CHECK(at.callp.v42bis_dirs == 0, "%%C0: no V.42bis");
	feed("ATH\r");
	for (i = 0; i < (int)(sizeof(agreed) / sizeof(agreed[0])); i++) {
		fresh();
		feed("ATW1+DR=1\r");
		feed("ATD1\r");
		at_out_init(&ev, evbuf, sizeof(evbuf));
		at_connected(&at, &(struct at_conn){ .rate = 2400, .lapm = true,
			     .v42bis = agreed[i].v42bis }, now, &ev);
		snprintf(want, sizeof(want), "\r\nCARRIER 2400\r\n\r\nPROTOCOL: LAP-M\r\n"
			 "\r\nCOMPRESSION: %s\r\n\r\n+DR: %s\r\n\r\nCONNECT 2400\r\n",
			 agreed[i].comp, agreed[i].dr);
		CHECK_STR(evtext(), want);
	}
}

/* &W stores, Z loads, &F is the factory's, &Y picks what &D3 loads. */
static void test_profiles(void)
{
	fresh();
	CHECK_STR(feed("ATS7=77X3&W\r"), "\r\nOK\r\n");
	CHECK_STR(feed("ATS7=10X1&C0\r"), "\r\nOK\r\n");
	feed("ATZ\r");
	CHECK(at.cfg.s[7] == 77 && at.cfg.xlevel == 3 && at.cfg.amp_c == 1);
	CHECK(!at.cfg.echo);	/* stored after ATE0 */
	feed("AT&F\r");
	CHECK(at.cfg.s[7] == 50 && at.cfg.xlevel == 4 && at.cfg.echo);
	feed("ATE0S7=20&W1\r");
	feed("ATZ1\r");
	CHECK(at.cfg.s[7] == 20);
	feed("ATZ0\r");
	CHECK(at.cfg.s[7] == 77);
	CHECK_STR(feed("ATZ2\r"), "\r\nERROR\r\n");
	/* &D3: a DTR drop loads the &Y profile */
	feed("AT&Y1&D3S7=99\r");
	at_out_init(&ev, evbuf, sizeof(evbuf));
	at_dtr(&at, false, &ev);
	CHECK(at.cfg.s[7] == 20);
	at_dtr(&at, true, &ev);
	/* S1 is a counter, not a setting: no profile changes it */
	fresh();
	at_out_init(&ev, evbuf, sizeof(evbuf));
	feed("AT&D3\r");
	at_ring(&at, now, &ev);
	at_dtr(&at, false, &ev);
	at_dtr(&at, true, &ev);
	feed("ATE0\r");	/* the factory's profile echoes */
	CHECK(s_reg(1) == 1);
	/* ATP makes pulse the default; a T in the string still wins */
	fresh();
	feed("ATP\r");
	feed("ATD123\r");
	CHECK(at.callp.pulse);
	feed("ATH\r");
	feed("ATDT123\r");
	CHECK(!at.callp.pulse);
	feed("ATH\r");
	feed("ATT\r");
	feed("ATD123\r");
	CHECK(!at.callp.pulse);
	feed("ATH\r");
	/* &Q is \N by another name */
	feed("AT&Q0\r");
	CHECK(at.cfg.ec == AT_EC_DIRECT);
	feed("AT&Q6\r");
	CHECK(at.cfg.ec == AT_EC_NORMAL);
	feed("AT&Q5\r");
	CHECK(at.cfg.ec == AT_EC_AUTO);
}

int main(int argc, char **argv)
{
	unsigned int lines = argc > 1 ? (unsigned int)atoi(argv[1]) : 5000;
	u64 seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 12345;

	test_basic();
	test_verbose_quiet();
	test_info();
	test_sregs();
	test_concat();
	test_repeat();
	test_line_limit();
	test_small_out();
	test_show_config();
	test_modulation();
	test_factory_profile();
	test_dial();
	test_error_control();
	test_v8();
	test_result_levels();
	test_escape();
	test_ring();
	test_dtr_dcd();
	test_session();
	test_programs();
	test_v250();
	test_v42bis();
	test_rockwell();
	test_profiles();
	test_class1();
	fuzz(lines, seed);
	return t_report("test_at");
}
