/*
 * The HDLC blocks (dsp/hdlc_tx.c, dsp/hdlc_rx.c) at the bit level and on
 * V.21 channel 2, against SpanDSP's hdlc_tx/hdlc_rx and fsk_tx/fsk_rx:
 *
 * - bits: ours -> ours, ours -> SpanDSP's hdlc_rx, SpanDSP's hdlc_tx -> ours,
 *   16- and 32-bit FCS, 1 and 3 flags between frames, 40 frames of 1 to 400
 *   octets (both ends included, many runs of ones); the preamble's length;
 *   the frame-length limit (exactly max_len good, one more TOO_LONG); a bad
 *   FCS delivered with its status; a frame
 *   running dry in progressive mode (abort, seen as an abort by both
 *   receivers, then the next frame good); smdsp_hdlc_tx_abort(); a reset in
 *   mid-frame; the preamble sync (fewer back-to-back flags: no frame);
 *   octet counts of good and bad frames.
 * - V.21 channel 2 (T.30's control channel: 1 s of flags, frames, a closing
 *   flag, 200 ms gaps): our HDLC on our modulator into SpanDSP's fsk_rx +
 *   hdlc_rx and into ours; SpanDSP's hdlc_tx + fsk_tx into both receivers;
 *   clean, at -6..-40 dBm0, with the level stepping by 10-20 dB during a
 *   burst, at +-100 and +1000 ppm of clock, 16- and 32-bit FCS.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hdlcep.h"
#include "line.h"
#include "tutil.h"

/* ---- the bit level ---- */

struct got {
	int n, bad, aborts, too_long, framing;
	uint8_t data[64][SMDSP_HDLC_MAX_LEN + 4];
	unsigned int len[64];
	int status[64];
};

static void got_ours(void *user, const uint8_t *buf, unsigned int len, enum smdsp_hdlc_rx_status st)
{
	struct got *g = user;

	if (st == SMDSP_HDLC_RX_FRAMING_OK) {
		g->framing++;
		return;
	}
	if (st == SMDSP_HDLC_RX_BAD_FCS)
		g->bad++;
	if (st == SMDSP_HDLC_RX_ABORT)
		g->aborts++;
	if (st == SMDSP_HDLC_RX_TOO_LONG)
		g->too_long++;
	if (g->n < 64) {
		memcpy(g->data[g->n], buf, len);
		g->len[g->n] = len;
		g->status[g->n] = st;
		g->n++;
	}
}

static void got_sp(void *user, const uint8_t *buf, int len, int ok)
{
	struct got *g = user;

	if (len < 0) {
		if (len == SIG_STATUS_ABORT)
			g->aborts++;
		if (len == SIG_STATUS_FRAMING_OK)
			g->framing++;
		return;
	}
	if (!ok) {
		g->bad++;
		return;
	}
	if (g->n < 64) {
		memcpy(g->data[g->n], buf, len);
		g->len[g->n] = len;
		g->status[g->n] = 0;
		g->n++;
	}
}

static uint8_t frames[64][SMDSP_HDLC_MAX_LEN];
static unsigned int flen[64];

static void make_frames(int n, unsigned int maxlen, uint64_t seed)
{
	int i;
	unsigned int k;

	for (i = 0; i < n; i++) {
		flen[i] = 1 + (unsigned int)(t_rand64(&seed) % maxlen);
		if (i == 0)
			flen[i] = maxlen;
		if (i == 1)
			flen[i] = 1;
		for (k = 0; k < flen[i]; k++) {
			/* plenty of ones, to exercise the zero insertion */
			frames[i][k] = (uint8_t)((t_rand64(&seed) & 1) ? 0xff : t_rand64(&seed));
		}
	}
}

static int check_frames(const struct got *g, int n, const char *what)
{
	int i, ok = g->n == n;

	for (i = 0; ok && i < n; i++)
		ok = g->len[i] == flen[i] && !memcmp(g->data[i], frames[i], flen[i]) && g->status[i] == 0;
	CHECK(ok, "%s: %d of %d frames intact", what, g->n, n);
	return ok;
}

/* ours -> ours, ours -> SpanDSP, SpanDSP -> ours, on one bit stream each */
static void bits_interop(int crc32, unsigned int inter)
{
	struct smdsp_hdlc_tx_config tc = { .crc32 = crc32, .inter_flags = inter };
	struct smdsp_hdlc_rx_config rc = { .crc32 = crc32, .report_bad = true, .frame = got_ours };
	static struct got g1, g2, g3;
	struct smdsp_hdlc_tx *t = smdsp_hdlc_tx_create(&tc);
	struct smdsp_hdlc_rx *r;
	hdlc_rx_state_t *sr;
	hdlc_tx_state_t *st;
	struct smdsp_hdlc_rx_stats rs;
	struct smdsp_hdlc_tx_stats ts;
	long bits = 0, octets = 0;
	char what[80];
	int i, q = 0;

	memset(&g1, 0, sizeof(g1));
	memset(&g2, 0, sizeof(g2));
	memset(&g3, 0, sizeof(g3));
	make_frames(40, SMDSP_HDLC_MAX_LEN, 7 + crc32 + inter);
	rc.user = &g1;
	r = smdsp_hdlc_rx_create(&rc);
	sr = hdlc_rx_init(NULL, crc32, 1, 1, got_sp, &g2);
	smdsp_hdlc_tx_preamble(t, 5);
	/* queue as space allows, from inside the bit loop */
	while (!(q == 40 && smdsp_hdlc_tx_idle(t)) && bits < 2000000) {
		int b;

		while (q < 40 && smdsp_hdlc_tx_frame(t, frames[q], flen[q]) == 0)
			q++;
		b = smdsp_hdlc_tx_get_bit(t);
		smdsp_hdlc_rx_put_bit(r, b);
		hdlc_rx_put_bit(sr, b);
		bits++;
	}
	for (i = 0; i < 16; i++) {
		int b = smdsp_hdlc_tx_get_bit(t);

		smdsp_hdlc_rx_put_bit(r, b);
		hdlc_rx_put_bit(sr, b);
	}
	snprintf(what, sizeof(what), "bits, CRC-%d, %u flags between: ours -> ours", crc32 ? 32 : 16, inter);
	check_frames(&g1, 40, what);
	for (i = 0; i < 40; i++)
		octets += flen[i];
	smdsp_hdlc_rx_get_stats(r, &rs);
	smdsp_hdlc_tx_get_stats(t, &ts);
	CHECK(rs.good_frames == 40 && rs.good_octets == octets && rs.bad_frames == 0 && rs.aborts == 0 &&
	      rs.runts == 0, "%s: rx stats good %u/%u octets, bad %u, aborts %u, runts %u", what,
	      rs.good_frames, rs.good_octets, rs.bad_frames, rs.aborts, rs.runts);
	CHECK(ts.frames == 40 && ts.octets == octets && ts.underruns == 0, "%s: tx stats %u frames %u octets",
	      what, ts.frames, ts.octets);
	/* the flags: preamble 5 (+ opening), between frames, idle; counted alike on both sides */
	CHECK(rs.flags + 2 >= ts.flags && rs.flags <= ts.flags, "%s: flags sent %u, seen %u", what,
	      ts.flags, rs.flags);
	snprintf(what, sizeof(what), "bits, CRC-%d, %u flags between: ours -> SpanDSP", crc32 ? 32 : 16, inter);
	check_frames(&g2, 40, what);
	CHECK(g2.bad == 0, "%s: %d bad", what, g2.bad);
	smdsp_hdlc_rx_free(r);
	hdlc_rx_free(sr);
	smdsp_hdlc_tx_free(t);

	/* SpanDSP's transmitter into ours */
	rc.user = &g3;
	r = smdsp_hdlc_rx_create(&rc);
	st = hdlc_tx_init(NULL, crc32, (int)inter, 0, NULL, NULL);
	hdlc_tx_flags(st, 5);
	for (q = 0; q < 40; q++) {
		hdlc_tx_frame(st, frames[q], flen[q]);
		for (i = 0; i < (int)(flen[q] + 12) * 10; i++)
			smdsp_hdlc_rx_put_bit(r, hdlc_tx_get_bit(st));
	}
	snprintf(what, sizeof(what), "bits, CRC-%d, %u flags between: SpanDSP -> ours", crc32 ? 32 : 16, inter);
	check_frames(&g3, 40, what);
	CHECK(g3.bad == 0 && g3.aborts == 0, "%s: %d bad, %d aborts", what, g3.bad, g3.aborts);
	smdsp_hdlc_rx_free(r);
	hdlc_tx_free(st);
}

/* bits of t into both receivers until t is idle (+ 16) */
static void run_to_idle(struct smdsp_hdlc_tx *t, struct smdsp_hdlc_rx *r, hdlc_rx_state_t *sr, long max)
{
	long i;

	for (i = 0; i < max && !smdsp_hdlc_tx_idle(t); i++) {
		int b = smdsp_hdlc_tx_get_bit(t);

		smdsp_hdlc_rx_put_bit(r, b);
		if (sr)
			hdlc_rx_put_bit(sr, b);
	}
	for (i = 0; i < 16; i++) {
		int b = smdsp_hdlc_tx_get_bit(t);

		smdsp_hdlc_rx_put_bit(r, b);
		if (sr)
			hdlc_rx_put_bit(sr, b);
	}
}

static int ev_count[4];

static void tx_event(void *user, enum smdsp_hdlc_tx_event ev)
{
	(void)user;
	if (ev > 0 && ev < 4)
		ev_count[ev]++;
}

static void bits_edges(void)
{
	struct smdsp_hdlc_tx_config tc = { .max_len = 100, .event = tx_event };
	struct smdsp_hdlc_rx_config rc = { .max_len = 100, .report_bad = true, .frame = got_ours };
	static struct got g, gs;
	struct smdsp_hdlc_tx *t;
	struct smdsp_hdlc_rx *r;
	hdlc_rx_state_t *sr;
	struct smdsp_hdlc_rx_stats rs;
	struct smdsp_hdlc_tx_stats ts;
	uint8_t buf[120];
	long i, n;
	int k;

	for (k = 0; k < 120; k++)
		buf[k] = (uint8_t)(k * 37 + 1);

	/* the preamble: n flags, then the frame's opening flag */
	memset(&g, 0, sizeof(g));
	t = smdsp_hdlc_tx_create(&tc);
	rc.user = &g;
	r = smdsp_hdlc_rx_create(&rc);
	smdsp_hdlc_tx_preamble(t, 38);
	CHECK(smdsp_hdlc_tx_frame(t, buf, 10) == 0, "queue a frame");
	for (n = 0; g.n == 0 && n < 10000; n++)
		smdsp_hdlc_rx_put_bit(r, smdsp_hdlc_tx_get_bit(t));
	/* 39 flags and the frame, FCS and the closing flag's 0111111 0 */
	/* 39 flags, 12 octets, the closing flag, a few inserted zeros */
	CHECK(n >= 52 * 8 && n <= 52 * 8 + 6, "preamble of 38: frame complete after %ld bits", n);
	smdsp_hdlc_rx_get_stats(r, &rs);
	CHECK(rs.flags == 40, "preamble of 38: %u flags seen", rs.flags);
	CHECK(smdsp_hdlc_tx_frame(t, buf, 101) == -EMSGSIZE, "a frame over max_len is refused");
	CHECK(smdsp_hdlc_tx_put(t, buf, 120) == 100, "put stops at max_len");
	smdsp_hdlc_tx_abort(t);
	CHECK(smdsp_hdlc_tx_frame(t, buf, 100) == 0, "after abort() a new frame is taken");
	run_to_idle(t, r, NULL, 100000);
	CHECK(g.n == 2 && g.len[1] == 100 && g.status[1] == 0, "max_len frame: %d frames, len %u status %d",
	      g.n, g.len[1], g.status[1]);
	smdsp_hdlc_rx_free(r);
	smdsp_hdlc_tx_free(t);

	/* max_len + 1 (a transmitter allowing more) -> TOO_LONG, and the next frame is good */
	memset(&g, 0, sizeof(g));
	tc.max_len = 0;
	t = smdsp_hdlc_tx_create(&tc);
	r = smdsp_hdlc_rx_create(&rc);
	smdsp_hdlc_tx_frame(t, buf, 101);
	smdsp_hdlc_tx_frame(t, buf, 99);
	run_to_idle(t, r, NULL, 100000);
	smdsp_hdlc_rx_get_stats(r, &rs);
	CHECK(g.too_long == 1 && rs.too_long == 1 && g.n == 2 && g.len[0] == 100 && g.status[1] == 0 &&
	      g.len[1] == 99, "overlong: too_long %d, next frame status %d len %u", g.too_long, g.status[1],
	      g.len[1]);
	smdsp_hdlc_rx_free(r);

	/* a corrupted frame: BAD_FCS with its octets; counts of good and bad octets */
	memset(&g, 0, sizeof(g));
	r = smdsp_hdlc_rx_create(&rc);
	memset(buf, 0, 20);	/* a flipped bit cannot make a flag or an abort */
	smdsp_hdlc_tx_preamble(t, 2);
	smdsp_hdlc_tx_frame(t, buf, 20);
	smdsp_hdlc_tx_frame(t, buf, 30);
	for (i = 0; i < 100000 && !smdsp_hdlc_tx_idle(t); i++) {
		int b = smdsp_hdlc_tx_get_bit(t);

		/* flip a bit inside the first frame (after the two flags) */
		smdsp_hdlc_rx_put_bit(r, i == 8 * 7 ? !b : b);
	}
	for (i = 0; i < 16; i++)
		smdsp_hdlc_rx_put_bit(r, smdsp_hdlc_tx_get_bit(t));
	smdsp_hdlc_rx_get_stats(r, &rs);
	CHECK(g.n == 2 && g.status[0] == SMDSP_HDLC_RX_BAD_FCS && g.len[0] == 20 && g.status[1] == 0 &&
	      rs.bad_frames == 1 && rs.bad_octets == 20 && rs.good_frames == 1 && rs.good_octets == 30,
	      "bad FCS: %d frames, status %d/%d, len %u, bad %u/%u good %u/%u", g.n, g.status[0], g.status[1],
	      g.len[0], rs.bad_frames, rs.bad_octets, rs.good_frames, rs.good_octets);
	smdsp_hdlc_rx_free(r);
	smdsp_hdlc_tx_free(t);

	/* progressive: a frame that runs dry -> abort at both receivers, the next frame good */
	memset(&g, 0, sizeof(g));
	memset(&gs, 0, sizeof(gs));
	memset(ev_count, 0, sizeof(ev_count));
	tc.progressive = true;
	t = smdsp_hdlc_tx_create(&tc);
	r = smdsp_hdlc_rx_create(&rc);
	sr = hdlc_rx_init(NULL, 0, 1, 1, got_sp, &gs);
	smdsp_hdlc_tx_put(t, buf, 10);
	for (i = 0; i < 8 * 20; i++) {
		int b = smdsp_hdlc_tx_get_bit(t);

		smdsp_hdlc_rx_put_bit(r, b);
		hdlc_rx_put_bit(sr, b);
	}
	/* the rest of the frame comes too late: dropped; its end too */
	CHECK(smdsp_hdlc_tx_put(t, buf + 10, 10) == 10, "late octets taken (and dropped)");
	smdsp_hdlc_tx_end_frame(t);
	smdsp_hdlc_tx_frame(t, buf, 25);
	run_to_idle(t, r, sr, 100000);
	smdsp_hdlc_tx_get_stats(t, &ts);
	smdsp_hdlc_rx_get_stats(r, &rs);
	CHECK(ts.underruns == 1 && ev_count[SMDSP_HDLC_TX_UNDERRUN] == 1 && ts.frames == 1,
	      "underrun: tx counted %u underruns, %u frames", ts.underruns, ts.frames);
	CHECK(rs.aborts == 1 && g.aborts == 1 && g.n == 2 && g.len[0] == 10 && g.status[1] == 0 &&
	      g.len[1] == 25 && rs.bad_frames == 0,
	      "underrun: ours saw %u aborts (first %u octets), then %d frames, bad %u", rs.aborts, g.len[0],
	      g.n, rs.bad_frames);
	CHECK(gs.aborts == 1 && gs.n == 1 && gs.len[0] == 25 && gs.bad == 0,
	      "underrun: SpanDSP saw %d aborts, %d frames, %d bad", gs.aborts, gs.n, gs.bad);
	CHECK(ev_count[SMDSP_HDLC_TX_SENT] == 1 && ev_count[SMDSP_HDLC_TX_IDLE] >= 1, "events: sent %d, idle %d",
	      ev_count[SMDSP_HDLC_TX_SENT], ev_count[SMDSP_HDLC_TX_IDLE]);

	/* abort() of a frame on the line, then a reset of the receiver in mid-frame */
	memset(&g, 0, sizeof(g));
	smdsp_hdlc_tx_put(t, buf, 50);
	for (i = 0; i < 8 * 30; i++)
		smdsp_hdlc_rx_put_bit(r, smdsp_hdlc_tx_get_bit(t));
	smdsp_hdlc_tx_abort(t);
	smdsp_hdlc_tx_frame(t, buf, 12);
	run_to_idle(t, r, NULL, 100000);
	smdsp_hdlc_rx_get_stats(r, &rs);
	smdsp_hdlc_tx_get_stats(t, &ts);
	CHECK(ts.aborts == 1 && g.aborts == 1 && g.n == 2 && g.status[1] == 0 && g.len[1] == 12,
	      "abort(): tx %u, rx %d aborts, then %d frames (len %u)", ts.aborts, g.aborts, g.n, g.len[1]);
	memset(&g, 0, sizeof(g));
	smdsp_hdlc_tx_frame(t, buf, 40);
	for (i = 0; i < 8 * 30; i++)
		smdsp_hdlc_rx_put_bit(r, smdsp_hdlc_tx_get_bit(t));
	smdsp_hdlc_rx_reset(r);
	CHECK(g.aborts == 1 && !smdsp_hdlc_rx_synced(r), "reset in mid-frame: %d aborts reported", g.aborts);
	smdsp_hdlc_rx_free(r);
	smdsp_hdlc_tx_free(t);
	hdlc_rx_free(sr);

	/* preamble sync: with sync_flags 8, a frame after 4 flags is not taken, after 8 it is */
	for (k = 4; k <= 8; k += 4) {
		struct smdsp_hdlc_tx_config tc2 = { 0 };

		memset(&g, 0, sizeof(g));
		rc.sync_flags = 8;
		t = smdsp_hdlc_tx_create(&tc2);
		r = smdsp_hdlc_rx_create(&rc);
		/* a line idling on ones first */
		for (i = 0; i < 50; i++)
			smdsp_hdlc_rx_put_bit(r, 1);
		smdsp_hdlc_tx_preamble(t, (unsigned int)k - 1);
		smdsp_hdlc_tx_frame(t, buf, 15);
		run_to_idle(t, r, NULL, 100000);
		CHECK(g.n == (k == 8) && g.framing == (k == 8), "sync_flags 8, %d flags: %d frames, framing ok %d", k,
		      g.n, g.framing);
		smdsp_hdlc_rx_free(r);
		smdsp_hdlc_tx_free(t);
	}
	rc.sync_flags = 0;

	/* CRC-32 frames into a CRC-16 receiver: bad, never good */
	memset(&g, 0, sizeof(g));
	tc.progressive = false;
	tc.crc32 = true;
	t = smdsp_hdlc_tx_create(&tc);
	r = smdsp_hdlc_rx_create(&rc);
	for (k = 0; k < 5; k++)
		smdsp_hdlc_tx_frame(t, buf, 10 + k);
	run_to_idle(t, r, NULL, 100000);
	smdsp_hdlc_rx_get_stats(r, &rs);
	CHECK(rs.good_frames == 0 && rs.bad_frames == 5, "CRC-32 into CRC-16: good %u bad %u", rs.good_frames,
	      rs.bad_frames);
	smdsp_hdlc_rx_free(r);
	smdsp_hdlc_tx_free(t);
	/* the queue: 16 frames at most, then -ENOSPC */
	tc.crc32 = false;
	t = smdsp_hdlc_tx_create(&tc);
	for (k = 0; k < SMDSP_HDLC_TX_QFRAMES; k++)
		smdsp_hdlc_tx_frame(t, buf, 3);
	CHECK(smdsp_hdlc_tx_frame(t, buf, 3) == -ENOSPC, "queue full of frames: -ENOSPC");
	smdsp_hdlc_tx_free(t);
}

/* ---- V.21 channel 2 ---- */

/* the level stepping every 300 ms between 0 and step dB down */
static void steps(int16_t *x, long n, double step)
{
	long i;

	for (i = 0; i < n; i++)
		if ((i / 2400) & 1)
			x[i] = t_sat16(x[i] * pow(10, -step / 20));
}

static int16_t *with_ppm(const int16_t *x, long n, double ppm, long *m)
{
	struct line_cfg lc = { .noise_dbm0 = -300, .echo_db = -300, .delay = 1000, .ppm = ppm };
	struct line *l = line_create(&lc);
	int16_t *y = calloc(n, sizeof(int16_t)), zero[160] = { 0 }, junk[160];
	long i;

	for (i = 0; i + 160 <= n; i += 160)
		line_process(l, x + i, junk, zero, y + i, 160);
	CHECK(line_starved(l) == 0, "line starved");
	line_free(l);
	*m = i;
	return y;
}

enum { IMP_NONE, IMP_LEVEL, IMP_STEPS, IMP_PPM };

static void v21(int ours_tx, int crc32, int imp, double arg, const char *what)
{
	struct hdlc_sig_cfg c = { .ours_tx = ours_tx, .crc32 = crc32, .bursts = 6, .frames = 3,
				  .seed = 5 + ours_tx };
	struct hdlc_log log;
	struct hdlc_rx_res r[2];
	long n;
	int16_t *x, *y = NULL;
	int rx;

	if (imp == IMP_LEVEL)
		c.level_dbm0 = arg;
	x = hdlc_make_signal(&c, &n, &log);
	if (imp == IMP_STEPS)
		steps(x, n, arg);
	if (imp == IMP_PPM) {
		y = with_ppm(x, n, arg, &n);
		free(x);
		x = y;
	}
	for (rx = 0; rx < 2; rx++)
		hdlc_receive(x, n, !rx, crc32, 5, &log, &r[rx]);
	printf("V.21 ch2 %-7s CRC-%d %-24s ours: %2d/%d frames, %d bad, %d false  SpanDSP: %2d/%d, %d bad, %d false\n",
	       ours_tx ? "ours tx" : "sp tx", crc32 ? 32 : 16, what, r[0].matched, log.n, r[0].bad,
	       r[0].false_good, r[1].matched, log.n, r[1].bad, r[1].false_good);
	for (rx = 0; rx < 2; rx++) {
		CHECK(r[rx].matched == log.n && r[rx].false_good == 0 && r[rx].good == log.n,
		      "%s tx, %s: %s receiver %d of %d frames (%d good, %d false)", ours_tx ? "our" : "SpanDSP's",
		      what, rx ? "SpanDSP's" : "our", r[rx].matched, log.n, r[rx].good, r[rx].false_good);
	}
	free(x);
	hdlc_log_free(&log);
}

int main(void)
{
	int crc32, t;

	for (crc32 = 0; crc32 <= 1; crc32++) {
		bits_interop(crc32, 1);
		bits_interop(crc32, 3);
	}
	bits_edges();
	for (t = 1; t >= 0; t--) {
		v21(t, 0, IMP_NONE, 0, "clean");
		v21(t, 1, IMP_NONE, 0, "clean");
		v21(t, 0, IMP_LEVEL, -6, "at -6 dBm0");
		v21(t, 0, IMP_LEVEL, -30, "at -30 dBm0");
		v21(t, 0, IMP_LEVEL, -40, "at -40 dBm0");
		v21(t, 0, IMP_STEPS, 10, "level steps of 10 dB");
		v21(t, 0, IMP_STEPS, 20, "level steps of 20 dB");
		v21(t, 0, IMP_PPM, 100, "+100 ppm");
		v21(t, 0, IMP_PPM, -100, "-100 ppm");
		v21(t, 0, IMP_PPM, 1000, "+1000 ppm");
	}
	return t_report("test_hdlc");
}
