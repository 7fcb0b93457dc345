/*
 * The Class 1 (T.31) stack in user space as the driver runs it: the AT
 * interpreter (driver/at.c) in front, the DTE side of the DCE
 * (dsp/faxdte.c: DLE shielding, final frames, results in order) and the
 * fax pump (dsp/faxmodem.c) behind, a harness moving bytes and reports
 * between them as the tty and smodem_modem.c do, and SpanDSP on the line:
 * - +FTH=3: the DTE's DLE-shielded frames (DLE DLE inside, DLE ETX at the
 *   end), CONNECT after each non-final frame, OK after the final one;
 *   SpanDSP's hdlc_rx gets them intact
 * - +FRH=3: SpanDSP's frames to the DTE DLE-shielded, ended by DLE ETX,
 *   OK after a good FCS, ERROR after a bad one
 * - efax's +FTS=8;+FTM=96 and data with DLEs in it: SpanDSP's V.29
 *   receiver gets the octets; +FRM=96 from SpanDSP's V.29: CONNECT, the
 *   octets shielded, DLE ETX, NO CARRIER
 * - a character from the DTE aborts +FRH (OK); +FRM on V.21 flags gives
 *   +FCERROR and the +FRH=3 after it the frame
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* SpanDSP has an at_init() of its own (its T.31 interpreter's) */
#define at_init spandsp_at_init
#include <spandsp.h>
#undef at_init
#include <smdsp/faxdte.h>
#include "check.h"
#include "at.h"

#define BLK 100		/* 12.5 ms periods, as the driver's */

static struct at_state at;
static struct smdsp_faxmodem *fm;
static struct smdsp_faxdte *dte;
static uint8_t got[65536];	/* what the DTE received */
static unsigned int ngot;
static uint8_t txq[65536];	/* what the DTE wrote in fax data mode */
static unsigned int txq_in, txq_out;
static long now_ns = 1000000000;

static void put_dte(const uint8_t *b, unsigned int n)
{
	if (ngot + n < sizeof(got)) {
		memcpy(got + ngot, b, n);
		ngot += n;
	}
}

static const unsigned int op_of[] = {
	[AT_FAX_TH] = SMDSP_FAXDTE_FTH, [AT_FAX_RH] = SMDSP_FAXDTE_FRH,
	[AT_FAX_TM] = SMDSP_FAXDTE_FTM, [AT_FAX_RM] = SMDSP_FAXDTE_FRM,
	[AT_FAX_TS] = SMDSP_FAXDTE_FTS, [AT_FAX_RS] = SMDSP_FAXDTE_FRS,
	[AT_FAX_ABORT] = SMDSP_FAXDTE_ABORT,
};

/* what the tty and the modem do with the interpreter's actions */
static void act(struct at_out *o)
{
	unsigned int a = o->act;

	o->act = 0;
	if (a & AT_ACT_HANGUP)
		smdsp_faxdte_hangup(dte);
	if (a & AT_ACT_DIAL)
		smdsp_faxdte_call(dte, at.callp.number, at.callp.carrier_wait_s * 1000);
	if (a & AT_ACT_ANSWER)
		smdsp_faxdte_command(dte, SMDSP_FAXDTE_ANSWER, 0);
	if (a & AT_ACT_FAX)
		smdsp_faxdte_command(dte, op_of[at.fax_op], at.fax_arg);
}

static void dte_write(const void *p, unsigned int n)
{
	const uint8_t *b = p;
	static uint8_t obuf[4096];
	struct at_out o;

	while (n) {
		unsigned int k;

		if (at.mode == AT_MODE_FAX_TX || at.mode == AT_MODE_DATA) {
			memcpy(txq + txq_in, b, n);
			txq_in += n;
			return;
		}
		at_out_init(&o, obuf, sizeof(obuf));
		k = at_input(&at, b, n, now_ns, &o);
		put_dte(o.buf, o.len);
		act(&o);
		if (!k)
			break;
		b += k;
		n -= k;
	}
}

static const enum at_fax_rc rc_of[] = {
	[SMDSP_FAXDTE_RC_CONNECT] = AT_FAXRC_CONNECT, [SMDSP_FAXDTE_RC_OK] = AT_FAXRC_OK,
	[SMDSP_FAXDTE_RC_ERROR] = AT_FAXRC_ERROR, [SMDSP_FAXDTE_RC_NO_CARRIER] = AT_FAXRC_NO_CARRIER,
	[SMDSP_FAXDTE_RC_FCERROR] = AT_FAXRC_FCERROR,
};

/* one period of the modem: the DTE's bytes in, the line, bytes and results out */
static void period(const int16_t *rx, int16_t *tx)
{
	static uint8_t obuf[4096];
	uint8_t b[512];
	struct at_out o;
	unsigned int room = smdsp_faxdte_room(dte), k;
	enum smdsp_faxdte_rc rc;

	if (room > txq_in - txq_out)
		room = txq_in - txq_out;
	if (room) {
		k = smdsp_faxdte_from_dte(dte, txq + txq_out, room);
		txq_out += k;
	}
	/* a finished transmission leaves the rest where it was: dropped */
	if (!smdsp_faxdte_room(dte) && smdsp_faxdte_done(dte))
		txq_out = txq_in;
	smdsp_faxmodem_process(fm, rx, tx, BLK);
	do {
		k = smdsp_faxdte_to_dte(dte, b, sizeof(b), &rc);
		put_dte(b, k);
		if (rc != SMDSP_FAXDTE_RC_NONE) {
			at_out_init(&o, obuf, sizeof(obuf));
			at_fax_result(&at, rc_of[rc], now_ns, &o);
			put_dte(o.buf, o.len);
			act(&o);
		}
	} while (k || rc != SMDSP_FAXDTE_RC_NONE);
	now_ns += 12500000;
}

static void reset_got(void)
{
	ngot = 0;
}

static bool got_has(const char *s)
{
	size_t n = strlen(s), i;

	for (i = 0; i + n <= ngot; i++)
		if (!memcmp(got + i, s, n))
			return true;
	return false;
}

/* ---- SpanDSP's HDLC receiver on our line ---- */

struct sp_frames {
	int n, bad;
	int len[8];
	uint8_t b[8][300];
};

static void sp_frame_cb(void *user, const uint8_t *buf, int len, int ok)
{
	struct sp_frames *s = user;

	if (len < 0)
		return;
	if (!ok) {
		s->bad++;
		return;
	}
	if (s->n < 8) {
		s->len[s->n] = len;
		memcpy(s->b[s->n], buf, len < 300 ? len : 300);
		s->n++;
	}
}

/* the DTE's form of a frame: DLE doubled, DLE ETX */
static unsigned int shielded(const uint8_t *f, unsigned int n, uint8_t *out)
{
	unsigned int i, w = 0;

	for (i = 0; i < n; i++) {
		out[w++] = f[i];
		if (f[i] == 0x10)
			out[w++] = 0x10;
	}
	out[w++] = 0x10;
	out[w++] = 0x03;
	return w;
}

static void test_fth(void)
{
	static const uint8_t f1[] = { 0xff, 0x03, 0x10, 0x10, 0x43, 0x20, 0x10 };	/* non-final: TSI-like */
	static const uint8_t f2[] = { 0xff, 0x13, 0x83, 0x00, 0x10, 0x46 };		/* final: DCS-like */
	struct sp_frames sp = { 0 };
	hdlc_rx_state_t *h = hdlc_rx_init(NULL, 0, 1, 4, sp_frame_cb, &sp);
	fsk_rx_state_t *fr = fsk_rx_init(NULL, &preset_fsk_specs[FSK_V21CH2], FSK_FRAME_MODE_SYNC,
					 (put_bit_func_t)hdlc_rx_put_bit, h);
	int16_t rx[BLK] = { 0 }, tx[BLK];
	uint8_t w[64];
	int i, sent = 0;

	reset_got();
	dte_write("AT+FTH=3\r", 9);
	for (i = 0; i < 800 && !got_has("OK"); i++) {
		if (sent == 0 && got_has("CONNECT")) {
			dte_write(w, shielded(f1, sizeof(f1), w));
			sent = 1;
		} else if (sent == 1 && ngot >= 2 * 11) {
			/* the second CONNECT came (after the first frame's DLE ETX) */
			dte_write(w, shielded(f2, sizeof(f2), w));
			sent = 2;
		}
		period(rx, tx);
		fsk_rx(fr, tx, BLK);
	}
	CHECK(!memcmp(got, "\r\nCONNECT\r\n\r\nCONNECT\r\n\r\nOK\r\n", 28) && ngot == 28,
	      "DTE saw %.*s", (int)ngot, got);
	CHECK(sp.n == 2 && sp.bad == 0, "SpanDSP got %d frames, %d bad", sp.n, sp.bad);
	CHECK(sp.n == 2 && sp.len[0] == sizeof(f1) && !memcmp(sp.b[0], f1, sizeof(f1)) &&
	      sp.len[1] == sizeof(f2) && !memcmp(sp.b[1], f2, sizeof(f2)), "frames with their DLEs intact");
	CHECK(at.mode == AT_MODE_COMMAND, "command mode after OK");
	printf("+FTH=3: CONNECT, frame, CONNECT, final frame, OK; SpanDSP got both with their DLEs\n");
	fsk_rx_free(fr);
	hdlc_rx_free(h);
}

/* ---- SpanDSP's frames to +FRH ---- */

struct sp_src {
	hdlc_tx_state_t *h;
	const uint8_t *const *fb;
	const int *fl;
	int n, next, bad_at, done;
};

static void sp_underflow(void *user)
{
	struct sp_src *s = user;

	if (s->next < s->n) {
		hdlc_tx_frame(s->h, s->fb[s->next], s->fl[s->next]);
		if (s->next == s->bad_at)
			hdlc_tx_corrupt_frame(s->h);
		s->next++;
	} else {
		s->done++;
	}
}

static long sp_burst(int16_t *x, long cap, const uint8_t *const *fb, const int *fl, int n, int bad_at)
{
	struct sp_src s = { .fb = fb, .fl = fl, .n = n, .bad_at = bad_at };
	fsk_tx_state_t *ft;
	long pos = 0;

	s.h = hdlc_tx_init(NULL, 0, 1, 0, sp_underflow, &s);
	hdlc_tx_flags(s.h, 38);
	sp_underflow(&s);
	ft = fsk_tx_init(NULL, &preset_fsk_specs[FSK_V21CH2], (get_bit_func_t)hdlc_tx_get_bit, s.h);
	fsk_tx_power(ft, -12);
	/* after the last frame: its closing flag and a little more */
	while (pos + BLK <= cap - 8000 && s.done < 12) {
		fsk_tx(ft, x + pos, BLK);
		pos += BLK;
		if (s.done)
			s.done++;
	}
	memset(x + pos, 0, (cap - pos) * sizeof(*x));
	fsk_tx_free(ft);
	hdlc_tx_free(s.h);
	return pos;
}

static void test_frh(void)
{
	static const uint8_t f1[] = { 0xff, 0x03, 0x40, 0x10, 0x10, 0x31 };	/* CSI with DLEs */
	static const uint8_t f2[] = { 0xff, 0x13, 0x80, 0x00, 0xce, 0xf4 };	/* DIS */
	static const uint8_t *const fb[] = { f1, f2, f2 };
	static const int fl[] = { sizeof(f1), sizeof(f2), sizeof(f2) };
	static int16_t x[8000 * 6];
	int16_t tx[BLK];
	uint8_t want[64];
	unsigned int wl;
	long n, t;
	int frames = 0;

	/* the second copy of f2 goes with a bad FCS: ERROR, then the third OK */
	n = sp_burst(x, 8000 * 6, fb, fl, 3, 1);
	reset_got();
	dte_write("AT+FRH=3\r", 9);
	for (t = 0; t + BLK <= n + 8000; t += BLK) {
		period(t + BLK <= n ? x + t : x + 8000 * 6 - BLK, tx);
		if (at.mode == AT_MODE_COMMAND && frames < 2) {
			frames++;
			dte_write("AT+FRH=3\r", 9);
		}
	}
	/* CONNECT, f1 shielded with its FCS, DLE ETX, OK; CONNECT, f2 ..., ERROR; CONNECT, f2, OK */
	memcpy(want, "\r\nCONNECT\r\n", 11);
	CHECK(ngot > 11 && !memcmp(got, want, 11), "CONNECT first");
	/* f1: ff 03 40 10 10 10 10 31, then 2 FCS octets (each maybe a DLE, doubled), DLE ETX */
	wl = 0;
	want[wl++] = 0xff; want[wl++] = 0x03; want[wl++] = 0x40;
	want[wl++] = 0x10; want[wl++] = 0x10; want[wl++] = 0x10; want[wl++] = 0x10; want[wl++] = 0x31;
	CHECK(ngot > 11 + wl && !memcmp(got + 11, want, wl), "the frame's DLEs doubled");
	CHECK(got_has("\x10\x03\r\nOK\r\n") && got_has("\x10\x03\r\nERROR\r\n"),
	      "DLE ETX then OK, and DLE ETX then ERROR for the bad FCS");
	{
		/* the order: OK, ERROR, OK */
		const char *p = memmem(got, ngot, "\r\nOK\r\n", 6), *e = memmem(got, ngot, "\r\nERROR\r\n", 9);

		CHECK(p && e && p < e && memmem(e, ngot - (e - (char *)got), "\r\nOK\r\n", 6),
		      "OK, ERROR, OK in that order");
		if (getenv("C1DEBUG"))
			for (unsigned int q = 0; q < ngot; q++)
				printf("%02x%c", got[q], q + 1 == ngot ? 10 : 32);
	}
	printf("+FRH=3: three frames from SpanDSP to the DTE (DLEs doubled, DLE ETX, OK / ERROR / OK)\n");

	/* a character from the DTE aborts +FRH=3: OK */
	reset_got();
	dte_write("AT+FRH=3\r", 9);
	period(x + 8000 * 6 - BLK, tx);
	dte_write("x", 1);
	period(x + 8000 * 6 - BLK, tx);
	CHECK(ngot == 6 && !memcmp(got, "\r\nOK\r\n", 6) && at.mode == AT_MODE_COMMAND,
	      "abort: %.*s", (int)ngot, got);

	/* +FRM=96 on V.21 flags: +FCERROR, then +FRH=3 gets the frame */
	n = sp_burst(x, 8000 * 6, fb + 1, fl + 1, 1, -1);
	reset_got();
	dte_write("AT+FRM=96\r", 10);
	for (t = 0; t + BLK <= n + 4000; t += BLK) {
		period(t + BLK <= n ? x + t : x + 8000 * 6 - BLK, tx);
		if (got_has("+FCERROR") && at.mode == AT_MODE_COMMAND && !got_has("CONNECT"))
			dte_write("AT+FRH=3\r", 9);
	}
	CHECK(got_has("\r\n+FCERROR\r\n") && got_has("\r\nCONNECT\r\n\xff\x13\x80") &&
	      got_has("\x10\x03\r\nOK\r\n"), "+FCERROR, then the frame: %.*s", (int)ngot, got);
	printf("abort of +FRH=3: OK; +FRM=96 on flags: +FCERROR, +FRH=3 then the frame\n");
}

/* ---- +FTM / +FRM with SpanDSP's V.29 ---- */

struct bytes_sink {
	uint8_t b[8192];
	int n, nbits, sh, trained;
};

static void sink_bit(void *user, int bit)
{
	struct bytes_sink *s = user;

	if (bit < 0) {
		if (bit == SIG_STATUS_TRAINING_SUCCEEDED)
			s->trained++;
		return;
	}
	if (!s->trained)
		return;
	s->sh |= (bit & 1) << s->nbits;
	if (++s->nbits == 8) {
		if (s->n < (int)sizeof(s->b))
			s->b[s->n++] = (uint8_t)s->sh;
		s->nbits = 0;
		s->sh = 0;
	}
}

struct src {
	const uint8_t *d;
	int len, pos, nbits;
};

static int src_bit(void *user)
{
	struct src *s = user;
	int bit;

	if (s->pos >= s->len)
		return SIG_STATUS_END_OF_DATA;
	bit = (s->d[s->pos] >> s->nbits) & 1;
	if (++s->nbits == 8) {
		s->nbits = 0;
		s->pos++;
	}
	return bit;
}

static void test_ftm_frm(void)
{
	static uint8_t d[3000], w[8000];
	static int16_t x[8000 * 8];
	struct bytes_sink sink = { 0 };
	v29_rx_state_t *vr = v29_rx_init(NULL, 9600, sink_bit, &sink);
	int16_t rx[BLK] = { 0 }, tx[BLK];
	unsigned int i, wl = 0;
	uint64_t seed = 1;
	int k, sent = 0;
	long n, t;

	for (i = 0; i < sizeof(d); i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		d[i] = i % 50 == 7 ? 0x10 : (uint8_t)(seed >> 33);
	}
	for (i = 0; i < sizeof(d); i++) {
		w[wl++] = d[i];
		if (d[i] == 0x10)
			w[wl++] = 0x10;
	}
	w[wl++] = 0x10;
	w[wl++] = 0x03;
	/* efax: +FTS=8;+FTM=96, the page data, DLE ETX, OK */
	reset_got();
	dte_write("AT+FTS=8;+FTM=96\r", 17);
	for (k = 0; k < 1200 && !got_has("OK"); k++) {
		if (!sent && got_has("CONNECT")) {
			dte_write(w, wl);
			sent = 1;
		}
		period(rx, tx);
		v29_rx(vr, tx, BLK);
	}
	CHECK(ngot == 17 && !memcmp(got, "\r\nCONNECT\r\n\r\nOK\r\n", 17), "DTE saw %.*s", (int)ngot, got);
	CHECK(sink.n >= (int)sizeof(d) && !memcmp(sink.b, d, sizeof(d)),
	      "SpanDSP's V.29 got %d octets, the DLEs undone", sink.n);
	v29_rx_free(vr);
	printf("+FTS=8;+FTM=96: CONNECT, %u octets (DLE DLE inside), DLE ETX, OK; SpanDSP's V.29 got them\n",
	       (unsigned int)sizeof(d));

	/* +FRM=96 from SpanDSP's V.29: CONNECT, the octets shielded, DLE ETX, NO CARRIER */
	{
		struct src s = { .d = d, .len = sizeof(d) };
		v29_tx_state_t *vt = v29_tx_init(NULL, 9600, 0, src_bit, &s);
		long pos = 0;

		v29_tx_power(vt, -12);
		while (pos + BLK <= 8000 * 7) {
			int m = v29_tx(vt, x + pos, BLK);

			if (m < BLK) {
				memset(x + pos + m, 0, (BLK - m) * sizeof(*x));
				pos += BLK;
				break;
			}
			pos += BLK;
		}
		memset(x + pos, 0, (8000 * 8 - pos) * sizeof(*x));
		n = pos + 8000;
		v29_tx_free(vt);
	}
	reset_got();
	dte_write("AT+FRM=96\r", 10);
	for (t = 0; t + BLK <= n; t += BLK)
		period(x + t, tx);
	CHECK(ngot > 11 + wl && !memcmp(got, "\r\nCONNECT\r\n", 11) && !memcmp(got + 11, w, wl - 2),
	      "the octets, DLEs doubled, right after CONNECT");
	CHECK(ngot > 20 && !memcmp(got + ngot - 16, "\x10\x03\r\nNO CARRIER\r\n", 16),
	      "DLE ETX and NO CARRIER at the end");
	printf("+FRM=96: CONNECT, %u octets shielded, DLE ETX, NO CARRIER\n", (unsigned int)sizeof(d));
}

int main(void)
{
	fm = smdsp_faxmodem_create(NULL);
	dte = smdsp_faxdte_create(fm);
	at_init(&at);
	dte_write("ATE0\r", 5);
	reset_got();
	dte_write("AT+FCLASS=1\r", 12);
	CHECK(ngot == 6 && !memcmp(got, "\r\nOK\r\n", 6), "+FCLASS=1");
	test_fth();
	test_frh();
	test_ftm_frm();
	smdsp_faxdte_free(dte);
	smdsp_faxmodem_free(fm);
	return t_report("test_class1");
}
