/*
 * Benchmark (prints numbers, never fails): CPU time per 10 ms of line signal
 * for our V.22bis receiver and transmitter against SpanDSP's, measured in the
 * same run on the same signal; the whole engine in a connected call; memory
 * per instance. Usage: bench_dsp [--json FILE]
 *
 * The fax blocks likewise (V.27ter 4800, V.29 9600, V.17 14400, V.21 channel 2 with
 * HDLC, the T.30 control channel): each receiver over 30 s of our
 * transmitter's signal after a line (6 dB loss, noise at -45 dBm0), ours
 * and SpanDSP's on the same samples; each transmitter making 30 s of signal
 * (PRBS data; back-to-back 64-octet frames for HDLC).
 *
 * V.42bis (P1 2048, P2 32): the compression ratio and the encoder's and
 * decoder's speed in MB/s, ours and SpanDSP's on the same bytes: English
 * text (the project's README, docs and dsp sources) and random bytes.
 *
 * V.34 at each symbol rate (2400 to 3429 baud) at its fastest data rate:
 * the receiver and the transmitter of one end per 10 ms, in the data and
 * through the whole link, memory, and the whole modem with an echo
 * canceller at 33,600 bit/s as a share of one core (v34_bench() says how);
 * the data mode's Viterbi decoder alone for the 16-, 32- and 64-state codes
 * per 10 ms at 3429 baud (v34_viterbi_bench()).
 */
/* for sizeof(v22bis_state_t): SpanDSP's allocation does not show in mallinfo2() */
#define SPANDSP_EXPOSE_INTERNAL_STRUCTURES
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include "v22ep.h"
#include "hdlcep.h"
#include "line.h"
#include "tutil.h"
#include <smdsp/modem.h>
#include <smdsp/pump.h>
#include <smdsp/v27ter.h>
#include <smdsp/v29.h>
#include <smdsp/v17.h>
#include <smdsp/v32bis.h>
#include <smdsp/fsk.h>
#include <smdsp/hdlc.h>
#include <smdsp/v42bis.h>
#include <dirent.h>
#include <smdsp/echo.h>
#include <smdsp/v34_train.h>
#include <smdsp/v34_frame.h>
#include <smdsp/v34_trellis.h>

#define SECONDS 30
#define NS (8000 * SECONDS)
#define REPS 5

static int16_t to_caller[NS], to_answerer[NS];

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Record both directions of an ours/SpanDSP call in data mode (BERT traffic). */
static void record(void)
{
	struct v22ep a, b;
	struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -45, .echo_db = -200, .delay = 40 };
	struct line *l = line_create(&lc);
	int16_t at[80], bt[80];
	long i;

	v22ep_init(&a, 1, 1, 2400, 0, 1, 1);
	v22ep_init(&b, 0, 0, 2400, 0, 1, 2);
	memset(to_caller, 0, 80 * sizeof(int16_t));
	memset(to_answerer, 0, 80 * sizeof(int16_t));
	for (i = 0; i + 80 <= NS; i += 80) {
		v22ep_process(&a, i ? to_caller + i - 80 : to_caller, at, 80);
		v22ep_process(&b, i ? to_answerer + i - 80 : to_answerer, bt, 80);
		line_process(l, at, to_caller + i, bt, to_answerer + i, 80);
	}
	line_free(l);
	v22ep_free(&a);
	v22ep_free(&b);
}

static long bits_seen;

static int one_bit(void *user)
{
	(void)user;
	return 1;
}

static void count_bit(void *user, int bit)
{
	(void)user;
	if (bit >= 0)
		bits_seen++;
}

/*
 * Seconds of CPU for one pass of a receiver over the recorded caller-side
 * signal. Our calling modem's handshake needs its transmitter to run too, so
 * both transmitters run, outside the timed part.
 */
static double rx_pass(int ours)
{
	static int16_t out[80];
	double t = 0, t0;
	long i;

	bits_seen = 0;
	if (ours) {
		struct smdsp_v22bis_config c = { .calling = 1, .max_rate = 2400, .put_bit = count_bit };
		struct smdsp_v22bis *m = smdsp_v22bis_create(&c);

		for (i = 0; i + 80 <= NS; i += 80) {
			t0 = cpu_now();
			smdsp_v22bis_rx(m, to_caller + i, 80);
			t += cpu_now() - t0;
			smdsp_v22bis_tx(m, out, 80);
		}
		smdsp_v22bis_free(m);
	} else {
		v22bis_state_t *s = v22bis_init(NULL, 2400, 0, 1, one_bit, NULL, count_bit, NULL);

		for (i = 0; i + 80 <= NS; i += 80) {
			t0 = cpu_now();
			v22bis_rx(s, to_caller + i, 80);
			t += cpu_now() - t0;
			v22bis_tx(s, out, 80);
		}
		v22bis_free(s);
	}
	return t;
}

/* the cost of reading the clock twice, taken off the per-block timings */
static double clock_cost(void)
{
	double t0 = cpu_now(), t = 0, a;
	int i;

	for (i = 0; i < 100000; i++) {
		a = cpu_now();
		t += cpu_now() - a;
	}
	(void)t0;
	return t / 100000;
}


static double tx_pass(int ours)
{
	static int16_t out[80];
	double t0, t;
	long i;

	if (ours) {
		struct smdsp_v22bis_tx *tx = smdsp_v22bis_tx_create(false, -130, SMDSP_V22BIS_GUARD_1800,
								   one_bit, NULL);

		smdsp_v22bis_tx_set_mode(tx, SMDSP_V22BIS_TX_DATA_2400);
		t0 = cpu_now();
		for (i = 0; i + 80 <= NS; i += 80)
			smdsp_v22bis_tx_process(tx, out, 80);
		t = cpu_now() - t0;
		smdsp_v22bis_tx_free(tx);
	} else {
		v22bis_state_t *s = v22bis_init(NULL, 2400, V22BIS_GUARD_TONE_1800HZ, 0, one_bit, NULL, NULL, NULL);

		t0 = cpu_now();
		for (i = 0; i + 80 <= NS; i += 80)
			v22bis_tx(s, out, 80);
		t = cpu_now() - t0;
		v22bis_free(s);
	}
	return t;
}

/*
 * Two engines back to back (10 dB loss, one period of delay), V.22bis (mods
 * 0) or what mods and V.8 choose, 4 KiB of data each way: CPU time of the
 * caller's smdsp_modem_process() per 10 ms of line signal while connected
 * (data flowing), V.42 or plain async.
 */
static double engine_pair(uint32_t flags, uint32_t mods, unsigned int *frames)
{
	struct smdsp_modem_config ca = { .sample_rate = 8000, .flags = flags | SMDSP_MODEM_FLAG_BLIND,
					 .modulations = mods };
	struct smdsp_modem_config cb = { .sample_rate = 8000, .flags = flags, .modulations = mods };
	struct smdsp_modem *a = smdsp_modem_create(&ca), *b = smdsp_modem_create(&cb);
	static uint8_t data[4096], sink[4096];
	int16_t ab[100] = { 0 }, ba[100] = { 0 }, at[100], bt[100];
	size_t na = 0, nb = 0, ra = 0, rb = 0;
	double t_conn = 0, t0;
	long i, n_conn = 0;
	int k;
	struct smdsp_modem_stats st;

	fill_random(data, sizeof(data), 7);
	smdsp_modem_dial(a, "");
	smdsp_modem_answer(b);
	for (i = 0; i < 8000L * 60 / 100 && (ra < 4096 || rb < 4096); i++) {
		t0 = cpu_now();
		smdsp_modem_process(a, ba, at, 100);
		if (smdsp_modem_rate(a)) {
			t_conn += cpu_now() - t0;
			n_conn++;
		}
		smdsp_modem_process(b, ab, bt, 100);
		for (k = 0; k < 100; k++) {
			ab[k] = (int16_t)(at[k] / 3);
			ba[k] = (int16_t)(bt[k] / 3);
		}
		if (smdsp_modem_rate(a))
			na += smdsp_modem_write(a, data + na, (unsigned int)(sizeof(data) - na));
		if (smdsp_modem_rate(b))
			nb += smdsp_modem_write(b, data + nb, (unsigned int)(sizeof(data) - nb));
		ra += smdsp_modem_read(a, sink, sizeof(sink));
		rb += smdsp_modem_read(b, sink, sizeof(sink));
	}
	smdsp_modem_get_stats(a, &st);
	*frames = st.v42.frames_tx + st.v42.frames_rx;
	smdsp_modem_free(a);
	smdsp_modem_free(b);
	return n_conn ? t_conn / (n_conn * 100 / 80.0) : 0;
}

static size_t heap_used(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* ---- the fax blocks ---- */

enum { FX_V27, FX_V29, FX_V17, FX_V21H, NFX };
static const char *const fx_name[NFX] = { "V.27ter 4800", "V.29 9600", "V.17 14400", "V.21 HDLC" };
static const char *const fx_key[NFX] = { "v27ter_4800", "v29_9600", "v17_14400", "v21ch2_hdlc" };
static int16_t fx_sig[NFX][NS];
static long fx_n[NFX];
static uint32_t prbs = 1;
static long frames_seen;

static int prbs_bit(void *user)
{
	(void)user;
	prbs = (prbs << 1) | (((prbs >> 22) ^ (prbs >> 17)) & 1);
	return prbs & 1;
}

static void fx_frame(void *user, const uint8_t *buf, unsigned int len, enum smdsp_hdlc_rx_status st)
{
	(void)user;
	(void)buf;
	(void)len;
	if (st == SMDSP_HDLC_RX_OK)
		frames_seen++;
}

static void fx_sp_frame(void *user, const uint8_t *buf, int len, int ok)
{
	(void)user;
	(void)buf;
	if (len >= 0 && ok)
		frames_seen++;
}

static void fx_sp_put_bit(void *user, int bit)
{
	hdlc_rx_put_bit(user, bit);
}

/* our transmitter's signal after the line, for the receivers */
static void fx_record(void)
{
	static int16_t raw[NS], zero[80], junk[80];
	int k;

	for (k = 0; k < NFX; k++) {
		struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -45, .echo_db = -200, .delay = 40 };
		struct line *l;
		long i, n = NS;

		memset(raw, 0, sizeof(raw));
		if (k == FX_V27) {
			struct smdsp_v27ter_tx *t = smdsp_v27ter_tx_create(4800, 0, false, prbs_bit, NULL, NULL);

			smdsp_v27ter_tx_process(t, raw, NS);
			smdsp_v27ter_tx_free(t);
		} else if (k == FX_V29) {
			struct smdsp_v29_tx *t = smdsp_v29_tx_create(9600, 0, false, prbs_bit, NULL, NULL);

			smdsp_v29_tx_process(t, raw, NS);
			smdsp_v29_tx_free(t);
		} else if (k == FX_V17) {
			struct smdsp_v17_tx *t = smdsp_v17_tx_create(14400, 0, false, false, prbs_bit, NULL,
								     NULL);

			smdsp_v17_tx_process(t, raw, NS);
			smdsp_v17_tx_free(t);
		} else {
			struct hdlc_sig_cfg c = { .ours_tx = 1, .bursts = 1, .frames = 15, .frame_len = 64,
						  .seed = 3 };
			struct hdlc_log log;
			int16_t *x = hdlc_make_signal(&c, &n, &log);

			n = n < NS ? n : NS;
			memcpy(raw, x, n * sizeof(int16_t));
			free(x);
			hdlc_log_free(&log);
		}
		l = line_create(&lc);
		fx_n[k] = n / 80 * 80;
		for (i = 0; i + 80 <= fx_n[k]; i += 80)
			line_process(l, raw + i, junk, zero, fx_sig[k] + i, 80);
		line_free(l);
	}
}

/* seconds of CPU for one receiver over its recorded signal */
static double fx_rx_pass(int k, int ours)
{
	const int16_t *x = fx_sig[k];
	long i, n = fx_n[k];
	double t0, t;

	bits_seen = 0;
	frames_seen = 0;
	if (k == FX_V27 && ours) {
		struct smdsp_v27ter_rx *r = smdsp_v27ter_rx_create(4800, count_bit, NULL, NULL);

		t0 = cpu_now();
		for (i = 0; i < n; i += 80)
			smdsp_v27ter_rx_process(r, x + i, 80);
		t = cpu_now() - t0;
		smdsp_v27ter_rx_free(r);
	} else if (k == FX_V27) {
		v27ter_rx_state_t *r = v27ter_rx_init(NULL, 4800, count_bit, NULL);

		t0 = cpu_now();
		for (i = 0; i < n; i += 80)
			v27ter_rx(r, x + i, 80);
		t = cpu_now() - t0;
		v27ter_rx_free(r);
	} else if (k == FX_V29 && ours) {
		struct smdsp_v29_rx *r = smdsp_v29_rx_create(9600, count_bit, NULL, NULL);

		t0 = cpu_now();
		for (i = 0; i < n; i += 80)
			smdsp_v29_rx_process(r, x + i, 80);
		t = cpu_now() - t0;
		smdsp_v29_rx_free(r);
	} else if (k == FX_V29) {
		v29_rx_state_t *r = v29_rx_init(NULL, 9600, count_bit, NULL);

		t0 = cpu_now();
		for (i = 0; i < n; i += 80)
			v29_rx(r, x + i, 80);
		t = cpu_now() - t0;
		v29_rx_free(r);
	} else if (k == FX_V17 && ours) {
		struct smdsp_v17_rx *r = smdsp_v17_rx_create(14400, count_bit, NULL, NULL);

		t0 = cpu_now();
		for (i = 0; i < n; i += 80)
			smdsp_v17_rx_process(r, x + i, 80);
		t = cpu_now() - t0;
		smdsp_v17_rx_free(r);
	} else if (k == FX_V17) {
		v17_rx_state_t *r = v17_rx_init(NULL, 14400, count_bit, NULL);

		t0 = cpu_now();
		for (i = 0; i < n; i += 80)
			v17_rx(r, x + i, 80);
		t = cpu_now() - t0;
		v17_rx_free(r);
	} else if (ours) {
		struct smdsp_hdlc_rx_config hc = { .sync_flags = 5, .frame = fx_frame };
		struct smdsp_hdlc_rx *h = smdsp_hdlc_rx_create(&hc);
		struct smdsp_fsk_rx *r = smdsp_fsk_rx_create(SMDSP_V21_CH2, smdsp_hdlc_rx_bit_cb, NULL, h);

		t0 = cpu_now();
		for (i = 0; i < n; i += 80)
			smdsp_fsk_rx_process(r, x + i, 80);
		t = cpu_now() - t0;
		smdsp_fsk_rx_free(r);
		smdsp_hdlc_rx_free(h);
	} else {
		hdlc_rx_state_t *h = hdlc_rx_init(NULL, 0, 0, 5, fx_sp_frame, NULL);
		fsk_rx_state_t *r = fsk_rx_init(NULL, &preset_fsk_specs[FSK_V21CH2], FSK_FRAME_MODE_SYNC,
						fx_sp_put_bit, h);

		t0 = cpu_now();
		for (i = 0; i < n; i += 80)
			fsk_rx(r, x + i, 80);
		t = cpu_now() - t0;
		fsk_rx_free(r);
		hdlc_rx_free(h);
	}
	return t;
}

/* ---- V.32bis 14400: one direction, S to the data, after the line ---- */

static int16_t v32_sig[NS];

static void v32_queue(struct smdsp_v32bis_tx *t)
{
	smdsp_v32bis_tx_queue(t, SMDSP_V32BIS_S, 256, 0);
	smdsp_v32bis_tx_queue(t, SMDSP_V32BIS_SBAR, 16, 0);
	smdsp_v32bis_tx_queue(t, SMDSP_V32BIS_TRN, 1280, 0);
	smdsp_v32bis_tx_queue(t, SMDSP_V32BIS_R, 64, smdsp_v32bis_rword(SMDSP_V32BIS_ALL, false));
	smdsp_v32bis_tx_queue(t, SMDSP_V32BIS_E, 8, smdsp_v32bis_rword(SMDSP_V32BIS_14400, true));
	smdsp_v32bis_tx_queue(t, SMDSP_V32BIS_B1, 128, 14400);
	smdsp_v32bis_tx_queue(t, SMDSP_V32BIS_DATA, 0, 0);
}

static void v32_record(void)
{
	static int16_t raw[NS], zero[80], junk[80];
	struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -45, .echo_db = -200, .delay = 40 };
	struct smdsp_v32bis_tx *t = smdsp_v32bis_tx_create(true, 0, prbs_bit, NULL, NULL);
	struct line *l = line_create(&lc);
	long i;

	v32_queue(t);
	smdsp_v32bis_tx_process(t, raw, NS);
	smdsp_v32bis_tx_free(t);
	for (i = 0; i + 80 <= NS; i += 80)
		line_process(l, raw + i, junk, zero, v32_sig + i, 80);
	line_free(l);
}

static double v32_rx_pass(void)
{
	struct smdsp_v32bis_rx *r = smdsp_v32bis_rx_create(false, count_bit, NULL, NULL);
	double t0, t;
	long i;

	bits_seen = 0;
	t0 = cpu_now();
	for (i = 0; i + 80 <= NS; i += 80)
		smdsp_v32bis_rx_process(r, v32_sig + i, 80);
	t = cpu_now() - t0;
	smdsp_v32bis_rx_free(r);
	return t;
}

static double v32_tx_pass(void)
{
	static int16_t out[80];
	struct smdsp_v32bis_tx *s = smdsp_v32bis_tx_create(true, 0, prbs_bit, NULL, NULL);
	double t0, t;
	long i;

	v32_queue(s);
	t0 = cpu_now();
	for (i = 0; i + 80 <= NS; i += 80)
		smdsp_v32bis_tx_process(s, out, 80);
	t = cpu_now() - t0;
	smdsp_v32bis_tx_free(s);
	return t;
}

/*
 * ---- The V.32bis duplex modem with its echo canceller, 14400 over a 2-wire
 * line (G.168 m3 at ERL 10 dB, far echo 12 dB down at 204 ms, +2 Hz):
 * a call between our caller and our answerer records what the caller
 * heard; a fresh caller given the same samples does the same (the modem
 * is deterministic and its echo comes from what it sends), so the timed
 * pass replays them, the start-up (with the canceller's training) and
 * the data (tracking) timed apart ----
 */
#define DX_SECONDS 20
#define DX_NS (8000 * DX_SECONDS)

static int16_t dx_rx[DX_NS];
static long dx_data_at = -1;	/* the block from which both were in data */

static void dx_put_bit(void *user, int bit)
{
	(void)user;
	(void)bit;
}

/* each end's own data, the same in the replay as in the call (the echo the replay hears is of it) */
static uint32_t dx_prbs[2];

static int dx_get_bit(void *user)
{
	uint32_t *r = user;

	*r = (*r >> 1) ^ (-(*r & 1) & 0xd0000001u);
	return (int)(*r & 1);
}

static struct smdsp_v32bis *dx_create(bool caller)
{
	struct smdsp_v32bis_config c = { .caller = caller, .get_bit = dx_get_bit, .put_bit = dx_put_bit,
					 .user = &dx_prbs[caller] };

	dx_prbs[caller] = caller ? 0x1234567 : 0x7654321;
	return smdsp_v32bis_create(&c);
}

static void dx_record(void)
{
	static int16_t atx[80], btx[80], brx[80];
	struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -60, .echo_db = -300, .delay = 800, .seed = 9,
			       .hybrid = 3, .hybrid_erl_db = 10, .far_echo_db = 12, .far_echo_delay = 2 * 816,
			       .far_echo_hz = 2, .far_hybrid = 1 };
	struct smdsp_v32bis *a = dx_create(true), *b = dx_create(false);
	struct line *l = line_create(&lc);
	int16_t arx[80] = { 0 };
	long i;

	memset(brx, 0, sizeof(brx));
	for (i = 0; i + 80 <= DX_NS; i += 80) {
		memcpy(dx_rx + i, arx, sizeof(arx));
		smdsp_v32bis_process(a, arx, atx, 80);
		smdsp_v32bis_process(b, brx, btx, 80);
		line_process(l, atx, arx, btx, brx, 80);
		if (dx_data_at < 0 && smdsp_v32bis_phase(a) == SMDSP_V32BIS_PH_DATA &&
		    smdsp_v32bis_phase(b) == SMDSP_V32BIS_PH_DATA)
			dx_data_at = i / 80 + 1;
	}
	/* never in data (a regression): the data row reads 0, not a division by zero */
	if (dx_data_at < 0 || dx_data_at >= DX_NS / 80)
		dx_data_at = DX_NS / 80 - 1;
	smdsp_v32bis_free(a);
	smdsp_v32bis_free(b);
	line_free(l);
}

/* the caller over the recorded samples: CPU seconds before the data and in it; its rate at the end */
static void dx_pass(double *startup, double *data, unsigned int *rate)
{
	static int16_t out[80];
	struct smdsp_v32bis *a = dx_create(true);
	double t0, t1;
	long i;

	t0 = cpu_now();
	for (i = 0; i / 80 < dx_data_at && i + 80 <= DX_NS; i += 80)
		smdsp_v32bis_process(a, dx_rx + i, out, 80);
	t1 = cpu_now();
	for (; i + 80 <= DX_NS; i += 80)
		smdsp_v32bis_process(a, dx_rx + i, out, 80);
	*startup = t1 - t0;
	*data = cpu_now() - t1;
	*rate = smdsp_v32bis_phase(a) == SMDSP_V32BIS_PH_DATA ? smdsp_v32bis_rate(a) : 0;
	smdsp_v32bis_free(a);
}

/*
 * ---- V.34: phases 3 and 4 and the data mode (v34_train_tx.c,
 * v34_train_rx.c, over v34_mod, v34_demod and v34_data), our caller and
 * answerer 4-wire over a clean line (6 dB loss, noise at -65 dBm0, 5 ms),
 * at each symbol rate at the fastest data rate Table 7 allows there. A
 * link records what the caller heard; the caller replayed over it (its
 * transmitter follows its own receiver, which hears the same samples, so
 * the replay sends what the link sent: checked) times its receiver and
 * its transmitter apart, through the start-up and in the data. V.34 has
 * no echo canceller of its own yet: echo.c at V.32bis's size (near 128 +
 * far 256 taps, tracking) is timed on the replay's signals and added for
 * the whole modem. Also the fastest rate each symbol rate carried without
 * a bit error on that line (links tried from the top down) ----
 */
#define V34_SECONDS 6
#define V34_NS (8000 * V34_SECONDS)
#define V34_BLK 80
#define V34_RATES 6

static int16_t v34_heard[V34_NS], v34_sent[V34_NS];

struct v34_bits {
	uint64_t s;		/* the source (xorshift) */
	uint64_t ref;		/* the checker: the far end's source */
	unsigned long bits, errors;
};

static int v34_prng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (int)(*s >> 63);
}

static int v34_get_bit(void *user)
{
	return v34_prng(&((struct v34_bits *)user)->s);
}

static void v34_put_bit(void *user, int bit)
{
	struct v34_bits *b = user;

	b->errors += (unsigned long)(v34_prng(&b->ref) != bit);
	b->bits++;
}

struct v34_end {
	struct smdsp_v34_train_tx *tx;
	struct smdsp_v34_train_rx *rx;
	struct v34_bits b;
};

static const uint64_t v34_seed[2] = { 0x7654321ULL, 0x1234567ULL };	/* the answerer's, the caller's */

/* one end at symbol rate sr with data_rate both ways; false if refused */
static bool v34_end(struct v34_end *e, unsigned int sr, unsigned int rate, bool caller)
{
	struct smdsp_v34_train_config c = { .symrate = (enum smdsp_v34_symrate)sr, .data_rate = rate,
					    .caller = caller };

	memset(e, 0, sizeof(*e));
	e->b.s = v34_seed[caller];
	e->b.ref = v34_seed[!caller];
	e->tx = smdsp_v34_train_tx_create(&c, v34_get_bit, &e->b);
	e->rx = smdsp_v34_train_rx_create(&c, v34_put_bit, &e->b);
	if (e->tx && e->rx)
		smdsp_v34_train_tx_attach(e->tx, e->rx);
	return e->tx && e->rx;
}

static void v34_end_free(struct v34_end *e)
{
	smdsp_v34_train_tx_free(e->tx);
	smdsp_v34_train_rx_free(e->rx);
}

struct v34_row {
	unsigned int rate;		/* the data rate both ways */
	bool data;			/* both receivers in data at the end of the link */
	unsigned long bits, errors;	/* both directions */
	int mse_db10;			/* the caller's receiver, in the data */
	bool same;			/* the replay sent what the link sent */
	long data_blocks;		/* 10 ms blocks of the replay with the caller's tx and rx in data */
	double rx_all, rx_data, tx_all, tx_data;	/* s of CPU: the whole replay, in the data */
	unsigned int clean_rate;	/* the fastest without a bit error, 0: none */
	size_t mem_tx, mem_rx;
};

/* a link at sr and rate: what the caller sent and heard into v34_sent, v34_heard */
static void v34_link(unsigned int sr, unsigned int rate, struct v34_row *r)
{
	struct line_cfg lc = { .loss_db = 6, .noise_dbm0 = -65, .echo_db = -300, .delay = 40, .seed = 1 };
	struct v34_end e[2];
	struct line *l = line_create(&lc);
	int16_t btx[V34_BLK], brx[V34_BLK];
	struct smdsp_v34_train_stats st;
	bool ok = v34_end(&e[0], sr, rate, true);
	long i;
	int k;

	ok &= v34_end(&e[1], sr, rate, false);
	r->rate = rate;
	for (i = 0; ok && i + V34_BLK <= V34_NS; i += V34_BLK) {
		smdsp_v34_train_tx_process(e[0].tx, v34_sent + i, V34_BLK);
		smdsp_v34_train_tx_process(e[1].tx, btx, V34_BLK);
		line_process(l, v34_sent + i, v34_heard + i, btx, brx, V34_BLK);
		smdsp_v34_train_rx_process(e[0].rx, v34_heard + i, V34_BLK);
		smdsp_v34_train_rx_process(e[1].rx, brx, V34_BLK);
	}
	r->data = ok;
	r->bits = 0;
	r->errors = 0;
	smdsp_v34_train_rx_get_stats(e[0].rx, &st);
	r->mse_db10 = ok ? st.mse_db10 : 0;
	for (k = 0; k < 2; k++) {
		r->data &= ok && smdsp_v34_train_rx_state(e[k].rx) == SMDSP_V34_T_DATA;
		r->bits += e[k].b.bits;
		r->errors += e[k].b.errors;
		v34_end_free(&e[k]);
	}
	line_free(l);
}

/* the caller replayed over what it heard: seconds of CPU of its rx and tx, in all and in the data */
static void v34_replay(unsigned int sr, struct v34_row *r, double cc)
{
	struct v34_end a;
	int16_t out[V34_BLK];
	double t0, d;
	bool data;
	long i;

	r->same = v34_end(&a, sr, r->rate, true);
	r->rx_all = r->rx_data = r->tx_all = r->tx_data = 0;
	r->data_blocks = 0;
	for (i = 0; r->same && i + V34_BLK <= V34_NS; i += V34_BLK) {
		data = smdsp_v34_train_tx_state(a.tx) == SMDSP_V34_T_DATA &&
		       smdsp_v34_train_rx_state(a.rx) == SMDSP_V34_T_DATA;
		r->data_blocks += data;
		t0 = cpu_now();
		smdsp_v34_train_tx_process(a.tx, out, V34_BLK);
		d = cpu_now() - t0 - cc;
		r->tx_all += d;
		r->tx_data += data ? d : 0;
		r->same &= !memcmp(out, v34_sent + i, sizeof(out));
		t0 = cpu_now();
		smdsp_v34_train_rx_process(a.rx, v34_heard + i, V34_BLK);
		d = cpu_now() - t0 - cc;
		r->rx_all += d;
		r->rx_data += data ? d : 0;
	}
	v34_end_free(&a);
}

/* echo.c at V.32bis's size, tracking, over the last replay's tx and its rx with an echo: us per 10 ms */
static double v34_ec_pass(size_t *mem)
{
	struct smdsp_echo_config c = { 128, 256, 5600 };
	static int16_t rx[V34_NS], out[V34_NS];
	size_t h0 = heap_used();
	struct smdsp_echo *ec = smdsp_echo_create(&c);
	double t0, t;
	long i;

	*mem = heap_used() - h0;
	for (i = 0; i < V34_NS; i++)
		rx[i] = t_sat16(v34_heard[i] + (i >= 20 ? 0.3 * v34_sent[i - 20] : 0));
	smdsp_echo_set_far_delay(ec, 1632);
	smdsp_echo_set_adapt(ec, SMDSP_ECHO_TRACK);
	t0 = cpu_now();
	smdsp_echo_process_block(ec, v34_sent, rx, out, V34_NS);
	t = cpu_now() - t0;
	smdsp_echo_free(ec);
	return t / (V34_NS / V34_BLK) * 1e6;
}

/* every symbol rate: its rows (best of REPS replays), the canceller's cost and memory */
static void v34_bench(struct v34_row row[V34_RATES], double *ec_us, size_t *ec_mem, double cc)
{
	unsigned int sr, rate;
	int k;

	for (sr = 0; sr < V34_RATES; sr++) {
		struct v34_row *r = &row[sr], t;

		memset(r, 0, sizeof(*r));
		/* without a bit error: from the top down, each link 6 s */
		for (rate = 33600; rate >= 2400; rate -= 2400) {
			if (!smdsp_v34_frame_rate_ok(sr, rate))
				continue;
			if (!r->rate)
				r->rate = rate;
			v34_link(sr, rate, &t);
			if (t.data && !t.errors && t.bits > 10000) {
				r->clean_rate = rate;
				break;
			}
		}
		v34_link(sr, r->rate, r);
		for (k = 0; k < REPS; k++) {
			t.rate = r->rate;
			v34_replay(sr, &t, cc);
			r->same = k ? r->same && t.same : t.same;
			r->data_blocks = t.data_blocks;
			r->rx_all = !k || t.rx_all < r->rx_all ? t.rx_all : r->rx_all;
			r->rx_data = !k || t.rx_data < r->rx_data ? t.rx_data : r->rx_data;
			r->tx_all = !k || t.tx_all < r->tx_all ? t.tx_all : r->tx_all;
			r->tx_data = !k || t.tx_data < r->tx_data ? t.tx_data : r->tx_data;
		}
		{
			struct smdsp_v34_train_config c = { .symrate = (enum smdsp_v34_symrate)sr,
							    .data_rate = r->rate, .caller = true };
			size_t h0 = heap_used();
			struct smdsp_v34_train_tx *tx = smdsp_v34_train_tx_create(&c, NULL, NULL);
			struct smdsp_v34_train_rx *rx;

			r->mem_tx = heap_used() - h0;
			h0 = heap_used();
			rx = smdsp_v34_train_rx_create(&c, NULL, NULL);
			r->mem_rx = heap_used() - h0;
			smdsp_v34_train_tx_free(tx);
			smdsp_v34_train_rx_free(rx);
		}
	}
	/* on the last (3429 baud) replay's signals */
	*ec_us = 1e9;
	for (k = 0; k < REPS; k++) {
		double t = v34_ec_pass(ec_mem);

		*ec_us = t < *ec_us ? t : *ec_us;
	}
}

/*
 * The data mode's Viterbi decoder alone (v34_trellis.c) for each code: the
 * 4D symbols of 10 ms at 3429 baud (1714.5 a second) of 33,600's points with
 * noise about its need, best of REPS passes over V34_VIT_SYMS symbols: us per
 * 10 ms, and the decoder's state (the same struct for every code).
 */
#define V34_VIT_SYMS 20000
static void v34_viterbi_bench(double us[3], size_t *mem)
{
	static int32_t rx[V34_VIT_SYMS][4];
	uint64_t seed = 0x7e4b1ULL;
	unsigned int c, i, k;

	for (i = 0; i < V34_VIT_SYMS; i++)
		for (k = 0; k < 4; k++)
			rx[i][k] = (int32_t)((2 * (int)(t_rand64(&seed) % 32) - 31) * 128 + 46 * t_gauss(&seed));
	for (c = 0; c < 3; c++) {
		us[c] = 1e9;
		for (k = 0; k < REPS; k++) {
			size_t h0 = heap_used();
			struct smdsp_v34_viterbi *v = smdsp_v34_viterbi_create(16u << c);
			int out[4];
			double t0, t;

			*mem = heap_used() - h0;
			t0 = cpu_now();
			for (i = 0; i < V34_VIT_SYMS; i++)
				smdsp_v34_viterbi_step(v, rx[i], (i % 30) == 0, out);
			t = (cpu_now() - t0) / V34_VIT_SYMS * 17.145 * 1e6;
			us[c] = t < us[c] ? t : us[c];
			smdsp_v34_viterbi_free(v);
		}
	}
}

static uint8_t fx_frame_data[64];

static void fx_sp_underflow(void *user)
{
	hdlc_tx_frame(user, fx_frame_data, sizeof(fx_frame_data));
}

static int fx_sp_get_bit(void *user)
{
	return hdlc_tx_get_bit(user);
}

/* seconds of CPU for one transmitter making NS samples */
static double fx_tx_pass(int k, int ours)
{
	static int16_t out[80];
	double t0, t;
	long i;

	if (k == FX_V27 && ours) {
		struct smdsp_v27ter_tx *s = smdsp_v27ter_tx_create(4800, 0, false, prbs_bit, NULL, NULL);

		t0 = cpu_now();
		for (i = 0; i + 80 <= NS; i += 80)
			smdsp_v27ter_tx_process(s, out, 80);
		t = cpu_now() - t0;
		smdsp_v27ter_tx_free(s);
	} else if (k == FX_V27) {
		v27ter_tx_state_t *s = v27ter_tx_init(NULL, 4800, 0, prbs_bit, NULL);

		t0 = cpu_now();
		for (i = 0; i + 80 <= NS; i += 80)
			v27ter_tx(s, out, 80);
		t = cpu_now() - t0;
		v27ter_tx_free(s);
	} else if (k == FX_V29 && ours) {
		struct smdsp_v29_tx *s = smdsp_v29_tx_create(9600, 0, false, prbs_bit, NULL, NULL);

		t0 = cpu_now();
		for (i = 0; i + 80 <= NS; i += 80)
			smdsp_v29_tx_process(s, out, 80);
		t = cpu_now() - t0;
		smdsp_v29_tx_free(s);
	} else if (k == FX_V29) {
		v29_tx_state_t *s = v29_tx_init(NULL, 9600, 0, prbs_bit, NULL);

		t0 = cpu_now();
		for (i = 0; i + 80 <= NS; i += 80)
			v29_tx(s, out, 80);
		t = cpu_now() - t0;
		v29_tx_free(s);
	} else if (k == FX_V17 && ours) {
		struct smdsp_v17_tx *s = smdsp_v17_tx_create(14400, 0, false, false, prbs_bit, NULL, NULL);

		t0 = cpu_now();
		for (i = 0; i + 80 <= NS; i += 80)
			smdsp_v17_tx_process(s, out, 80);
		t = cpu_now() - t0;
		smdsp_v17_tx_free(s);
	} else if (k == FX_V17) {
		v17_tx_state_t *s = v17_tx_init(NULL, 14400, 0, prbs_bit, NULL);

		t0 = cpu_now();
		for (i = 0; i + 80 <= NS; i += 80)
			v17_tx(s, out, 80);
		t = cpu_now() - t0;
		v17_tx_free(s);
	} else if (ours) {
		struct smdsp_hdlc_tx_config hc = { 0 };
		struct smdsp_hdlc_tx *h = smdsp_hdlc_tx_create(&hc);
		struct smdsp_fsk_tx *s = smdsp_fsk_tx_create(SMDSP_V21_CH2, -120, smdsp_hdlc_tx_bit_cb, h);

		smdsp_hdlc_tx_preamble(h, 38);
		t0 = cpu_now();
		for (i = 0; i + 80 <= NS; i += 80) {
			/* the queue kept full, as a T.31 DCE's would be */
			while (smdsp_hdlc_tx_frame(h, fx_frame_data, sizeof(fx_frame_data)) == 0)
				;
			smdsp_fsk_tx_process(s, out, 80);
		}
		t = cpu_now() - t0;
		smdsp_fsk_tx_free(s);
		smdsp_hdlc_tx_free(h);
	} else {
		hdlc_tx_state_t *h = malloc(sizeof(*h));
		fsk_tx_state_t *s = fsk_tx_init(NULL, &preset_fsk_specs[FSK_V21CH2], fx_sp_get_bit, h);

		/* the next frame from the underflow handler, as SpanDSP's T.30 does */
		hdlc_tx_init(h, 0, 1, 0, fx_sp_underflow, h);
		fsk_tx_power(s, -12);
		hdlc_tx_flags(h, 38);
		hdlc_tx_frame(h, fx_frame_data, sizeof(fx_frame_data));
		t0 = cpu_now();
		for (i = 0; i + 80 <= NS; i += 80)
			fsk_tx(s, out, 80);
		t = cpu_now() - t0;
		fsk_tx_free(s);
		hdlc_tx_free(h);
	}
	return t;
}

/* heap taken by our blocks (tx, rx) and SpanDSP's state sizes */
static void fx_memory(size_t mem[NFX][4])
{
	size_t h0;
	int k;

	for (k = 0; k < NFX; k++) {
		void *a = NULL, *b = NULL, *c = NULL, *d = NULL;

		h0 = heap_used();
		if (k == FX_V27)
			a = smdsp_v27ter_tx_create(4800, 0, false, prbs_bit, NULL, NULL);
		else if (k == FX_V29)
			a = smdsp_v29_tx_create(9600, 0, false, prbs_bit, NULL, NULL);
		else if (k == FX_V17)
			a = smdsp_v17_tx_create(14400, 0, false, false, prbs_bit, NULL, NULL);
		else {
			struct smdsp_hdlc_tx_config hc = { 0 };

			a = smdsp_hdlc_tx_create(&hc);
			c = smdsp_fsk_tx_create(SMDSP_V21_CH2, -120, smdsp_hdlc_tx_bit_cb, a);
		}
		mem[k][0] = heap_used() - h0;
		h0 = heap_used();
		if (k == FX_V27)
			b = smdsp_v27ter_rx_create(4800, count_bit, NULL, NULL);
		else if (k == FX_V29)
			b = smdsp_v29_rx_create(9600, count_bit, NULL, NULL);
		else if (k == FX_V17)
			b = smdsp_v17_rx_create(14400, count_bit, NULL, NULL);
		else {
			struct smdsp_hdlc_rx_config hc = { 0 };

			b = smdsp_hdlc_rx_create(&hc);
			d = smdsp_fsk_rx_create(SMDSP_V21_CH2, smdsp_hdlc_rx_bit_cb, NULL, b);
		}
		mem[k][1] = heap_used() - h0;
		if (k == FX_V27) {
			smdsp_v27ter_tx_free(a);
			smdsp_v27ter_rx_free(b);
			mem[k][2] = sizeof(v27ter_tx_state_t);
			mem[k][3] = sizeof(v27ter_rx_state_t);
		} else if (k == FX_V29) {
			smdsp_v29_tx_free(a);
			smdsp_v29_rx_free(b);
			mem[k][2] = sizeof(v29_tx_state_t);
			mem[k][3] = sizeof(v29_rx_state_t);
		} else if (k == FX_V17) {
			smdsp_v17_tx_free(a);
			smdsp_v17_rx_free(b);
			mem[k][2] = sizeof(v17_tx_state_t);
			mem[k][3] = sizeof(v17_rx_state_t);
		} else {
			smdsp_fsk_tx_free(c);
			smdsp_fsk_rx_free(d);
			smdsp_hdlc_tx_free(a);
			smdsp_hdlc_rx_free(b);
			mem[k][2] = sizeof(hdlc_tx_state_t) + sizeof(fsk_tx_state_t);
			mem[k][3] = sizeof(hdlc_rx_state_t) + sizeof(fsk_rx_state_t);
		}
	}
}

/* ---- V.42bis ---- */

#define BIS_MAX	(1 << 20)
enum { BIS_TEXT, BIS_RANDOM, NBIS };
static const char *const bis_key[NBIS] = { "text", "random" };
static uint8_t bis_in[NBIS][BIS_MAX], bis_line[BIS_MAX + BIS_MAX / 8], bis_out[BIS_MAX + 256];
static size_t bis_len[NBIS], bis_line_len, bis_out_len;

struct bis_res {
	double ratio[2];		/* [0] SpanDSP, [1] ours */
	double enc_mbps[2];
	double dec_mbps[2];
	int exact[2];
};

static void bis_add_file(const char *path)
{
	FILE *fp = fopen(path, "rb");

	if (!fp)
		return;
	bis_len[BIS_TEXT] += fread(bis_in[BIS_TEXT] + bis_len[BIS_TEXT], 1,
				   BIS_MAX - bis_len[BIS_TEXT], fp);
	fclose(fp);
}

static void bis_add_dir(const char *dir, const char *suffix)
{
	struct dirent **list;
	char path[512];
	int n, i;

	n = scandir(dir, &list, NULL, alphasort);
	for (i = 0; i < n; i++) {
		size_t l = strlen(list[i]->d_name), sl = strlen(suffix);

		if (l > sl && !strcmp(list[i]->d_name + l - sl, suffix)) {
			snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
			bis_add_file(path);
		}
		free(list[i]);
	}
	if (n >= 0)
		free(list);
}

static void bis_span_line(void *user, const uint8_t *buf, int len)
{
	(void)user;
	if (len > 0 && bis_line_len + (size_t)len <= sizeof(bis_line)) {
		memcpy(bis_line + bis_line_len, buf, (size_t)len);
		bis_line_len += (size_t)len;
	}
}

static void bis_span_out(void *user, const uint8_t *buf, int len)
{
	(void)user;
	if (len > 0 && bis_out_len + (size_t)len <= sizeof(bis_out)) {
		memcpy(bis_out + bis_out_len, buf, (size_t)len);
		bis_out_len += (size_t)len;
	}
}

/* one encode and one decode pass of d (ours or SpanDSP's); CPU seconds of each */
static void bis_pass(int k, int ours, double *enc, double *dec)
{
	const uint8_t *in = bis_in[k];
	size_t len = bis_len[k], pos = 0;
	double t0;

	bis_line_len = 0;
	bis_out_len = 0;
	if (ours) {
		struct smdsp_v42bis_config c = { .dirs = SMDSP_V42BIS_DIR_BOTH };
		struct smdsp_v42bis *e = smdsp_v42bis_create(&c), *d = smdsp_v42bis_create(&c);

		t0 = cpu_now();
		while (pos < len) {
			pos += smdsp_v42bis_encode(e, in + pos, (unsigned int)(len - pos));
			bis_line_len += smdsp_v42bis_read(e, bis_line + bis_line_len, 64);
		}
		smdsp_v42bis_flush(e);
		bis_line_len += smdsp_v42bis_read(e, bis_line + bis_line_len, 64);
		*enc = cpu_now() - t0;
		t0 = cpu_now();
		for (pos = 0; pos < bis_line_len;) {
			unsigned int used;
			int n = smdsp_v42bis_decode(d, bis_line + pos, (unsigned int)(bis_line_len - pos),
						    bis_out + bis_out_len,
						    (unsigned int)(sizeof(bis_out) - bis_out_len), &used);

			if (n < 0 || !used)
				break;
			bis_out_len += (size_t)n;
			pos += used;
		}
		*dec = cpu_now() - t0;
		smdsp_v42bis_free(e);
		smdsp_v42bis_free(d);
	} else {
		v42bis_state_t *s = v42bis_init(NULL, V42BIS_P0_BOTH_DIRECTIONS, 2048, 32, bis_span_line,
						NULL, 1024, bis_span_out, NULL, 1024);

		t0 = cpu_now();
		v42bis_compress(s, in, (int)len);
		v42bis_compress_flush(s);
		*enc = cpu_now() - t0;
		t0 = cpu_now();
		v42bis_decompress(s, bis_line, (int)bis_line_len);
		v42bis_decompress_flush(s);
		*dec = cpu_now() - t0;
		v42bis_free(s);
	}
}

static void bench_v42bis(struct bis_res res[NBIS])
{
	uint64_t seed = 7;
	int k, o, r;
	size_t i;

	bis_add_file("README.md");
	bis_add_dir("doc", ".md");
	bis_add_dir("dsp", ".c");
	for (i = 0; i < BIS_MAX; i++)
		bis_in[BIS_RANDOM][i] = (uint8_t)t_rand64(&seed);
	bis_len[BIS_RANDOM] = BIS_MAX;
	for (k = 0; k < NBIS; k++) {
		for (o = 0; o < 2; o++) {
			double be = 1e9, bd = 1e9, e, d;

			for (r = 0; r < REPS; r++) {
				bis_pass(k, o, &e, &d);
				be = e < be ? e : be;
				bd = d < bd ? d : bd;
			}
			res[k].ratio[o] = bis_line_len ? (double)bis_len[k] / bis_line_len : 0;
			res[k].enc_mbps[o] = bis_len[k] / be / 1e6;
			res[k].dec_mbps[o] = bis_len[k] / bd / 1e6;
			res[k].exact[o] = bis_out_len == bis_len[k] &&
					  !memcmp(bis_out, bis_in[k], bis_len[k]);
		}
	}
}

/*
 * The echo canceller: ours with a near FIR of 128 taps and a far FIR of 128
 * taps (600 ms bulk delay), in TRAIN and in TRACK (data), beside SpanDSP's
 * echo_can_update() (adaption on, 0.0.6) and modem_echo_can_update() at 128
 * and at 256 taps (the same number of taps in all), on 10 s of white tx and
 * rx: ns per sample. Debian's 0.0.6 echo_can_update() prints a debug line
 * about every sample: its stdout goes to /dev/null while it runs (the
 * formatting stays in its time).
 */
#define EC_N (8000 * 10)

static double ec_pass(int which, int taps, int16_t *tx, int16_t *rx, int16_t *out)
{
	double t0, t = 0;
	int i;

	if (which < 2) {
		struct smdsp_echo_config c = { 128, 128, 4800 };
		struct smdsp_echo *ec = smdsp_echo_create(&c);

		smdsp_echo_set_far_delay(ec, 4000);
		smdsp_echo_set_adapt(ec, which ? SMDSP_ECHO_TRACK : SMDSP_ECHO_TRAIN);
		t0 = cpu_now();
		smdsp_echo_process_block(ec, tx, rx, out, EC_N);
		t = cpu_now() - t0;
		smdsp_echo_free(ec);
	} else if (which == 2) {
		int save, fd = open("/dev/null", O_WRONLY);
		echo_can_state_t *ec = echo_can_init(taps, ECHO_CAN_USE_ADAPTION);

		fflush(stdout);
		save = dup(1);
		if (fd >= 0) {
			dup2(fd, 1);
			close(fd);
		}
		t0 = cpu_now();
		for (i = 0; i < EC_N; i++)
			out[i] = echo_can_update(ec, tx[i], rx[i]);
		t = cpu_now() - t0;
		fflush(stdout);
		if (save >= 0) {
			dup2(save, 1);
			close(save);
		}
		echo_can_free(ec);
	} else {
		modem_echo_can_state_t *ec = modem_echo_can_init(taps);

		modem_echo_can_adaption_mode(ec, 1);
		t0 = cpu_now();
		for (i = 0; i < EC_N; i++)
			out[i] = modem_echo_can_update(ec, tx[i], rx[i]);
		t = cpu_now() - t0;
		modem_echo_can_free(ec);
	}
	return t / EC_N * 1e9;
}

/* ours TRAIN, TRACK; SpanDSP echo_can 128, 256; modem_echo_can 128, 256 */
#define EC_ROWS 6

static void ec_bench(double ns[EC_ROWS])
{
	static const int which[EC_ROWS] = { 0, 1, 2, 2, 3, 3 }, taps[EC_ROWS] = { 0, 0, 128, 256, 128, 256 };
	int16_t *tx = calloc(EC_N, sizeof(int16_t)), *rx = calloc(EC_N, sizeof(int16_t));
	int16_t *out = calloc(EC_N, sizeof(int16_t));
	uint64_t s = 99;
	int i, k, r;

	for (i = 0; i < EC_N; i++) {
		tx[i] = t_sat16(3000 * t_gauss(&s));
		rx[i] = t_sat16(tx[i > 20 ? i - 20 : 0] * 0.3 + 300 * t_gauss(&s));
	}
	for (k = 0; k < EC_ROWS; k++) {
		ns[k] = 1e9;
		for (r = 0; r < REPS; r++) {
			double t = ec_pass(which[k], taps[k], tx, rx, out);

			ns[k] = t < ns[k] ? t : ns[k];
		}
	}
	free(tx);
	free(rx);
	free(out);
}

int main(int argc, char **argv)
{
	const char *json = argc > 2 && !strcmp(argv[1], "--json") ? argv[2] : NULL;
	double rx_o = 1e9, rx_s = 1e9, tx_o = 1e9, tx_s = 1e9, eng = 1e9;
	double eng_v42 = 1e9, eng_async = 1e9, eng_v34 = 1e9;
	unsigned int v42_frames = 0, r_frames = 0, v34_frames = 0;
	long bits_o = 0, bits_s = 0;
	size_t mem_v22, mem_modem, mem_pump, mem_sp;
	int r;
	double blocks = NS / 80.0;
	FILE *f;

	double cc;
	double fx_rx[NFX][2], fx_tx[NFX][2];
	long fx_out[NFX][2];
	size_t fx_mem[NFX][4];
	struct bis_res bis[NBIS];
	double ec_ns[EC_ROWS];
	double v32_rx = 1e9, v32_tx = 1e9;
	long v32_bits = 0;
	size_t v32_mem[2];
	double dx_up = 1e9, dx_data = 1e9;
	unsigned int dx_rate = 0;
	size_t dx_mem;
	struct v34_row v34[V34_RATES];
	double v34_ec, v34_top, v34_vit[3];
	size_t v34_ec_mem, v34_vit_mem;
	int k, o;

	record();
	fx_record();
	v32_record();
	dx_record();
	cc = clock_cost() * blocks;
	for (r = 0; r < REPS; r++) {
		double t;

		t = rx_pass(1) - cc;
		bits_o = bits_seen;
		rx_o = t < rx_o ? t : rx_o;
		t = rx_pass(0) - cc;
		bits_s = bits_seen;
		rx_s = t < rx_s ? t : rx_s;
		t = tx_pass(1);
		tx_o = t < tx_o ? t : tx_o;
		t = tx_pass(0);
		tx_s = t < tx_s ? t : tx_s;
	}
	/* the whole engine, caller side, over the recorded call (12.5 ms periods) */
	for (r = 0; r < REPS; r++) {
		struct smdsp_modem_config c = { .sample_rate = 8000, .flags = SMDSP_MODEM_FLAG_BLIND };
		struct smdsp_modem *m = smdsp_modem_create(&c);
		static int16_t out[100];
		double t0, t;
		long i;

		smdsp_modem_dial(m, "1");
		t0 = cpu_now();
		for (i = 0; i + 100 <= NS; i += 100)
			smdsp_modem_process(m, to_caller + i, out, 100);
		t = cpu_now() - t0;
		eng = t < eng ? t : eng;
		smdsp_modem_free(m);
	}
	for (r = 0; r < REPS; r++) {
		double t = engine_pair(SMDSP_MODEM_FLAG_V42, 0, &v42_frames);

		eng_v42 = t < eng_v42 ? t : eng_v42;
		t = engine_pair(0, 0, &r_frames);
		eng_async = t < eng_async ? t : eng_async;
		/* V.34 after V.8, 2-wire (its echo canceller running), V.42 */
		t = engine_pair(SMDSP_MODEM_FLAG_V42 | SMDSP_MODEM_FLAG_V8, SMDSP_MODEM_DEFAULT | SMDSP_MODEM_V34,
				&v34_frames);
		eng_v34 = t < eng_v34 ? t : eng_v34;
	}
	for (k = 0; k < NFX; k++) {
		for (o = 0; o < 2; o++) {
			fx_rx[k][o] = 1e9;
			fx_tx[k][o] = 1e9;
		}
		for (r = 0; r < REPS; r++) {
			for (o = 1; o >= 0; o--) {
				double t = fx_rx_pass(k, o);

				fx_out[k][o] = k == FX_V21H ? frames_seen : bits_seen;
				fx_rx[k][o] = t < fx_rx[k][o] ? t : fx_rx[k][o];
				t = fx_tx_pass(k, o);
				fx_tx[k][o] = t < fx_tx[k][o] ? t : fx_tx[k][o];
			}
		}
	}
	for (r = 0; r < REPS; r++) {
		double t = v32_rx_pass();

		v32_bits = bits_seen;
		v32_rx = t < v32_rx ? t : v32_rx;
		t = v32_tx_pass();
		v32_tx = t < v32_tx ? t : v32_tx;
	}
	{
		size_t h0 = heap_used();
		struct smdsp_v32bis_rx *vr = smdsp_v32bis_rx_create(false, NULL, NULL, NULL);
		struct smdsp_v32bis_tx *vt;

		v32_mem[1] = heap_used() - h0;
		h0 = heap_used();
		vt = smdsp_v32bis_tx_create(true, 0, NULL, NULL, NULL);
		v32_mem[0] = heap_used() - h0;
		smdsp_v32bis_rx_free(vr);
		smdsp_v32bis_tx_free(vt);
	}
	fx_memory(fx_mem);
	bench_v42bis(bis);
	for (k = 0; k < REPS; k++) {
		double u, d;

		dx_pass(&u, &d, &dx_rate);
		dx_up = u < dx_up ? u : dx_up;
		dx_data = d < dx_data ? d : dx_data;
	}
	{
		size_t h0 = heap_used();
		struct smdsp_v32bis *a = dx_create(true);

		dx_mem = heap_used() - h0;
		smdsp_v32bis_free(a);
	}
	v34_bench(v34, &v34_ec, &v34_ec_mem, cc / blocks);
	v34_viterbi_bench(v34_vit, &v34_vit_mem);
	{
		const struct v34_row *t = &v34[V34_RATES - 1];

		/* the fastest symbol rate's end in the data, and the canceller it will need */
		v34_top = t->data_blocks ? (t->rx_data + t->tx_data) / t->data_blocks * 1e6 + v34_ec : 0;
	}
	{
		size_t h0 = heap_used();
		struct smdsp_v22bis_config c = { .calling = 1 };
		struct smdsp_v22bis *v = smdsp_v22bis_create(&c);
		struct smdsp_modem_config mc = { .sample_rate = 8000 };
		struct smdsp_modem *m;
		struct smdsp_pump_config pc = { .sample_rate = 8000 };
		struct smdsp_pump *p;
		v22bis_state_t *s;

		mem_v22 = heap_used() - h0;
		h0 = heap_used();
		m = smdsp_modem_create(&mc);
		mem_modem = heap_used() - h0;
		h0 = heap_used();
		p = smdsp_pump_create(&pc);
		mem_pump = heap_used() - h0;
		s = v22bis_init(NULL, 2400, 0, 1, NULL, NULL, NULL, NULL);
		mem_sp = sizeof(v22bis_state_t);
		smdsp_v22bis_free(v);
		smdsp_modem_free(m);
		smdsp_pump_free(p);
		v22bis_free(s);
	}
	printf("V.22bis 2400 bit/s, %d s of a recorded call, 10 ms blocks, best of %d runs (CPU time)\n",
	       SECONDS, REPS);
	printf("%-34s %12s %12s %8s\n", "", "ours", "SpanDSP", "ratio");
	printf("%-34s %9.2f us %9.2f us %8.2f\n", "receiver per 10 ms", rx_o / blocks * 1e6,
	       rx_s / blocks * 1e6, rx_o / rx_s);
	printf("%-34s %9.2f us %9.2f us %8.2f\n", "transmitter per 10 ms", tx_o / blocks * 1e6,
	       tx_s / blocks * 1e6, tx_o / tx_s);
	printf("%-34s %9.2f us\n", "whole engine (rx+tx) per 10 ms", eng / blocks * 1e6);
	printf("%-34s %9.2f us   (engine pair, 4 KiB each way)\n", "  connected, async 8N1", eng_async * 1e6);
	printf("%-34s %9.2f us   (%u frames)\n", "  connected, V.42 LAPM", eng_v42 * 1e6, v42_frames);
	printf("%-34s %9.2f us   (%u frames)\n", "  connected, V.34 2-wire, V.42", eng_v34 * 1e6, v34_frames);
	printf("%-34s %9zu B  %9zu B\n", "V.22bis modem instance", mem_v22, mem_sp);
	printf("%-34s %9zu B\n", "modem engine instance", mem_modem);
	printf("%-34s %9zu B\n", "pump instance", mem_pump);
	printf("bits delivered by the receivers over the run: ours %ld, SpanDSP %ld\n", bits_o, bits_s);
	printf("\nFax blocks (V.21 HDLC: channel 2 with HDLC framing, T.30's control channel), %d s of signal each\n"
	       "(receivers: our transmitter's after the line, the same samples for both), 10 ms blocks, best of %d\n"
	       "runs (CPU time)\n", SECONDS, REPS);
	printf("%-34s %12s %12s %8s\n", "", "ours", "SpanDSP", "ratio");
	for (k = 0; k < NFX; k++) {
		double b = fx_n[k] / 80.0;
		char row[64];

		snprintf(row, sizeof(row), "%s receiver per 10 ms", fx_name[k]);
		printf("%-34s %9.2f us %9.2f us %8.2f\n", row, fx_rx[k][1] / b * 1e6, fx_rx[k][0] / b * 1e6,
		       fx_rx[k][1] / fx_rx[k][0]);
		snprintf(row, sizeof(row), "%s transmitter per 10 ms", fx_name[k]);
		printf("%-34s %9.2f us %9.2f us %8.2f\n", row, fx_tx[k][1] / blocks * 1e6,
		       fx_tx[k][0] / blocks * 1e6, fx_tx[k][1] / fx_tx[k][0]);
	}
	for (k = 0; k < NFX; k++) {
		char row[64];

		snprintf(row, sizeof(row), "%s transmitter instance", fx_name[k]);
		printf("%-34s %9zu B  %9zu B\n", row, fx_mem[k][0], fx_mem[k][2]);
		snprintf(row, sizeof(row), "%s receiver instance", fx_name[k]);
		printf("%-34s %9zu B  %9zu B\n", row, fx_mem[k][1], fx_mem[k][3]);
	}
	printf("\nV.42bis, P1 2048, P2 32, one flush at the end, best of %d runs (CPU time)\n", REPS);
	printf("%-34s %12s %12s\n", "", "ours", "SpanDSP");
	for (k = 0; k < NBIS; k++) {
		char row[64];

		snprintf(row, sizeof(row), "%s (%zu bytes): ratio", bis_key[k], bis_len[k]);
		printf("%-34s %12.3f %12.3f%s\n", row, bis[k].ratio[1], bis[k].ratio[0],
		       bis[k].exact[0] && bis[k].exact[1] ? "" : "  (NOT decoded back exactly)");
		snprintf(row, sizeof(row), "%s: encoder", bis_key[k]);
		printf("%-34s %7.2f MB/s %7.2f MB/s\n", row, bis[k].enc_mbps[1], bis[k].enc_mbps[0]);
		snprintf(row, sizeof(row), "%s: decoder", bis_key[k]);
		printf("%-34s %7.2f MB/s %7.2f MB/s\n", row, bis[k].dec_mbps[1], bis[k].dec_mbps[0]);
	}
	printf("delivered over the run: V.27ter bits ours %ld, SpanDSP %ld; V.29 bits ours %ld, SpanDSP %ld; "
	       "V.17 bits ours %ld, SpanDSP %ld; HDLC frames ours %ld, SpanDSP %ld\n", fx_out[FX_V27][1],
	       fx_out[FX_V27][0], fx_out[FX_V29][1], fx_out[FX_V29][0], fx_out[FX_V17][1], fx_out[FX_V17][0],
	       fx_out[FX_V21H][1], fx_out[FX_V21H][0]);
	ec_bench(ec_ns);
	printf("\nEcho canceller, 10 s of white tx and rx, best of %d runs (CPU time per sample)\n", REPS);
	{
		static const char *const rows[EC_ROWS] = {
			"ours, near 128 + far 128 taps, TRAIN", "ours, near 128 + far 128 taps, TRACK",
			"SpanDSP echo_can_update, 128 taps", "SpanDSP echo_can_update, 256 taps",
			"SpanDSP modem_echo_can_update, 128 taps", "SpanDSP modem_echo_can_update, 256 taps",
		};

		for (k = 0; k < EC_ROWS; k++)
			printf("%-44s %9.0f ns  (%.2f us per 10 ms)\n", rows[k], ec_ns[k], ec_ns[k] * 80 / 1000);
	}
	printf("\nV.32bis 14400 (one direction: S, S-bar, TRN, R, E, B1, data; our transmitter's signal after the\n"
	       "line), %d s, 10 ms blocks, best of %d runs (CPU time), beside the V.17 14400 receivers above\n",
	       SECONDS, REPS);
	printf("%-34s %9.2f us   (V.17: ours %.2f us, SpanDSP %.2f us)\n", "V.32bis 14400 receiver per 10 ms",
	       v32_rx / blocks * 1e6, fx_rx[FX_V17][1] / (fx_n[FX_V17] / 80.0) * 1e6,
	       fx_rx[FX_V17][0] / (fx_n[FX_V17] / 80.0) * 1e6);
	printf("%-34s %9.2f us\n", "V.32bis 14400 transmitter per 10 ms", v32_tx / blocks * 1e6);
	printf("%-34s %9zu B  (receiver %zu B)\n", "V.32bis transmitter instance", v32_mem[0], v32_mem[1]);
	printf("V.32bis bits delivered over the run: %ld\n", v32_bits);
	printf("\nV.32bis duplex modem with its echo canceller (near 128 + far 256 taps), the caller of a call at\n"
	       "14400 over a 2-wire line (m3 ERL 10 dB, far echo 12 dB at 204 ms, +2 Hz), %d s, 10 ms blocks,\n"
	       "best of %d runs (CPU time); its rate at the end %u, both in data after %.2f s\n", DX_SECONDS, REPS,
	       dx_rate, dx_data_at * 0.01);
	printf("%-34s %9.2f us   (V.17 14400 receiver: ours %.2f us, SpanDSP %.2f us)\n",
	       "V.32bis modem per 10 ms, data", dx_data / (DX_NS / 80.0 - dx_data_at) * 1e6,
	       fx_rx[FX_V17][1] / (fx_n[FX_V17] / 80.0) * 1e6, fx_rx[FX_V17][0] / (fx_n[FX_V17] / 80.0) * 1e6);
	printf("%-34s %9.2f us\n", "V.32bis modem per 10 ms, start-up", dx_up / dx_data_at * 1e6);
	printf("%-34s %9zu B  (V.17 receiver: ours %zu B, SpanDSP %zu B)\n", "V.32bis modem instance", dx_mem,
	       fx_mem[FX_V17][1], fx_mem[FX_V17][3]);
	printf("\nV.34 (phases 3 and 4 and the data mode; our caller and answerer 4-wire, 6 dB loss, noise at -65 dBm0,\n"
	       "5 ms; the same rate both ways): the caller's end over its %d s link replayed, 10 ms blocks, best of %d\n"
	       "runs (CPU time), per 10 ms of signal\n", V34_SECONDS, REPS);
	printf("%5s %6s %9s %9s %9s %9s %8s %17s %6s %9s %7s %7s\n", "baud", "bit/s", "rx data", "rx all", "tx data",
	       "tx all", "data at", "errors / bits", "MSE", "0 errors", "tx B", "rx B");
	for (k = 0; k < V34_RATES; k++) {
		const struct v34_row *t = &v34[k];
		double nb = V34_NS / V34_BLK, db = t->data_blocks ? t->data_blocks : 1;

		printf("%5u %6u %6.2f us %6.2f us %6.2f us %6.2f us %6.2f s %7lu / %7lu %4.1f dB %9u %7zu %7zu%s\n",
		       smdsp_v34_symbol_rate(k), t->rate, t->rx_data / db * 1e6, t->rx_all / nb * 1e6,
		       t->tx_data / db * 1e6, t->tx_all / nb * 1e6, (nb - t->data_blocks) * 0.01, t->errors, t->bits,
		       t->mse_db10 / 10.0, t->clean_rate, t->mem_tx, t->mem_rx,
		       !t->data ? "  (NOT in data)" : !t->same ? "  (replay differed)" : "");
	}
	printf("%-44s %7.2f us per 10 ms, %zu B\n", "echo.c canceller, near 128 + far 256, tracking", v34_ec, v34_ec_mem);
	for (k = 0; k < 3; k++) {
		char what[64];

		snprintf(what, sizeof(what), "Viterbi decoder, %u states, at 3429 baud", 16u << k);
		printf("%-44s %7.2f us per 10 ms, %zu B\n", what, v34_vit[k], v34_vit_mem);
	}
	printf("whole V.34 modem at %u baud, %u bit/s (rx + tx in the data + that canceller): %.2f us per 10 ms, "
	       "%.3f %% of one core (goal < 1 %%)\n", smdsp_v34_symbol_rate(V34_RATES - 1), v34[V34_RATES - 1].rate, v34_top,
	       v34_top / 100);
	if (json) {
		f = fopen(json, "w");
		if (!f)
			return 1;
		fprintf(f, "{\n \"command\": \"make bench-dsp\",\n \"signal_seconds\": %d,\n \"reps\": %d,\n", SECONDS,
			REPS);
		fprintf(f, " \"v22bis_rx_us_per_10ms\": {\"ours\": %.3f, \"spandsp\": %.3f},\n",
			rx_o / blocks * 1e6, rx_s / blocks * 1e6);
		fprintf(f, " \"echo_ns_per_sample\": {\"ours_train_128_128\": %.1f, \"ours_track_128_128\": %.1f, "
			"\"spandsp_echo_can_128\": %.1f, \"spandsp_echo_can_256\": %.1f, \"spandsp_modem_echo_can_128\": %.1f, "
			"\"spandsp_modem_echo_can_256\": %.1f},\n", ec_ns[0], ec_ns[1], ec_ns[2], ec_ns[3], ec_ns[4], ec_ns[5]);
		fprintf(f, " \"v22bis_tx_us_per_10ms\": {\"ours\": %.3f, \"spandsp\": %.3f},\n",
			tx_o / blocks * 1e6, tx_s / blocks * 1e6);
		fprintf(f, " \"engine_us_per_10ms\": %.3f,\n", eng / blocks * 1e6);
		fprintf(f, " \"engine_connected_us_per_10ms\": {\"async\": %.3f, \"v42\": %.3f, \"v34_v42\": %.3f},\n",
			eng_async * 1e6, eng_v42 * 1e6, eng_v34 * 1e6);
		fprintf(f, " \"memory_bytes\": {\"v22bis_ours\": %zu, \"v22bis_spandsp\": %zu, \"modem_engine\": %zu, "
			"\"pump\": %zu},\n", mem_v22, mem_sp, mem_modem, mem_pump);
		for (k = 0; k < NFX; k++) {
			fprintf(f, " \"%s_rx_us_per_10ms\": {\"ours\": %.3f, \"spandsp\": %.3f},\n", fx_key[k],
				fx_rx[k][1] / (fx_n[k] / 80.0) * 1e6, fx_rx[k][0] / (fx_n[k] / 80.0) * 1e6);
			fprintf(f, " \"%s_tx_us_per_10ms\": {\"ours\": %.3f, \"spandsp\": %.3f},\n", fx_key[k],
				fx_tx[k][1] / blocks * 1e6, fx_tx[k][0] / blocks * 1e6);
			fprintf(f, " \"%s_memory_bytes\": {\"tx_ours\": %zu, \"tx_spandsp\": %zu, \"rx_ours\": %zu, "
				"\"rx_spandsp\": %zu},\n", fx_key[k], fx_mem[k][0], fx_mem[k][2], fx_mem[k][1],
				fx_mem[k][3]);
			fprintf(f, " \"%s_rx_delivered\": {\"ours\": %ld, \"spandsp\": %ld},\n", fx_key[k],
				fx_out[k][1], fx_out[k][0]);
		}
		for (k = 0; k < NBIS; k++)
			fprintf(f, " \"v42bis_%s\": {\"bytes\": %zu, \"ratio\": {\"ours\": %.4f, \"spandsp\": %.4f}, "
				"\"encode_mb_per_s\": {\"ours\": %.3f, \"spandsp\": %.3f}, "
				"\"decode_mb_per_s\": {\"ours\": %.3f, \"spandsp\": %.3f}, \"exact\": %d},\n",
				bis_key[k], bis_len[k], bis[k].ratio[1], bis[k].ratio[0], bis[k].enc_mbps[1],
				bis[k].enc_mbps[0], bis[k].dec_mbps[1], bis[k].dec_mbps[0],
				bis[k].exact[0] && bis[k].exact[1]);
		fprintf(f, " \"v32bis_14400_rx_us_per_10ms\": {\"ours\": %.3f},\n", v32_rx / blocks * 1e6);
		fprintf(f, " \"v32bis_14400_tx_us_per_10ms\": {\"ours\": %.3f},\n", v32_tx / blocks * 1e6);
		fprintf(f, " \"v32bis_memory_bytes\": {\"tx_ours\": %zu, \"rx_ours\": %zu},\n", v32_mem[0],
			v32_mem[1]);
		fprintf(f, " \"v32bis_14400_rx_delivered\": {\"ours\": %ld},\n", v32_bits);
		fprintf(f, " \"v32bis_modem_2wire_us_per_10ms\": {\"data\": %.3f, \"startup\": %.3f, \"rate\": %u, "
			"\"data_at_s\": %.2f},\n", dx_data / (DX_NS / 80.0 - dx_data_at) * 1e6, dx_up / dx_data_at * 1e6,
			dx_rate, dx_data_at * 0.01);
		fprintf(f, " \"v32bis_modem_memory_bytes\": %zu,\n", dx_mem);
		fprintf(f, " \"v34\": {\"line\": \"4-wire, 6 dB loss, noise -65 dBm0, 5 ms\", \"seconds\": %d, \"rows\": [",
			V34_SECONDS);
		for (k = 0; k < V34_RATES; k++) {
			const struct v34_row *t = &v34[k];
			double nb = V34_NS / V34_BLK, db = t->data_blocks ? t->data_blocks : 1;

			fprintf(f, "%s\n  {\"baud\": %u, \"bit_s\": %u, \"rx_us_per_10ms\": {\"data\": %.3f, \"all\": %.3f}, "
				"\"tx_us_per_10ms\": {\"data\": %.3f, \"all\": %.3f}, \"data_at_s\": %.2f, \"in_data\": %d, "
				"\"replay_identical\": %d, \"bits\": %lu, \"errors\": %lu, \"mse_db\": %.1f, "
				"\"error_free_bit_s\": %u, \"memory_bytes\": {\"tx\": %zu, \"rx\": %zu}}", k ? "," : "",
				smdsp_v34_symbol_rate(k), t->rate, t->rx_data / db * 1e6, t->rx_all / nb * 1e6,
				t->tx_data / db * 1e6, t->tx_all / nb * 1e6, (nb - t->data_blocks) * 0.01, t->data, t->same,
				t->bits, t->errors, t->mse_db10 / 10.0, t->clean_rate, t->mem_tx, t->mem_rx);
		}
		fprintf(f, "],\n  \"viterbi_us_per_10ms_3429\": {\"16\": %.3f, \"32\": %.3f, \"64\": %.3f},",
			v34_vit[0], v34_vit[1], v34_vit[2]);
		fprintf(f, " \"viterbi_memory_bytes\": %zu,", v34_vit_mem);
		fprintf(f, "\n  \"echo_us_per_10ms\": %.3f, \"echo_memory_bytes\": %zu, \"modem_top\": {\"baud\": %u, "
			"\"bit_s\": %u, \"us_per_10ms\": %.3f, \"core_percent\": %.4f}},\n", v34_ec, v34_ec_mem,
			smdsp_v34_symbol_rate(V34_RATES - 1), v34[V34_RATES - 1].rate, v34_top, v34_top / 100);
		fprintf(f, " \"rx_bits\": {\"ours\": %ld, \"spandsp\": %ld}\n}\n", bits_o, bits_s);
		fclose(f);
	}
	return 0;
}
