/*
 * Our engine against smline's far modem (tools/line/modem.c: SpanDSP 0.0.6's
 * V.22bis and V.42, with SpanDSP's V.42bis glued on by
 * tools/line/v42bis_far.c), over the in-memory line: the very code the
 * guest's calls meet, without a guest. Per case: what XID agreed at both
 * ends (directions, P1, P2), text (or random bytes) both ways intact, and
 * what each end's compressor made of it. smline's V.42bis off (nov42bis),
 * lowered (v42bis_p1=, v42bis_p2=), ours offering one direction only, and
 * both roles (smline's modem calling ours).
 *
 * Every case prints one "RESULT" line (tests/dsp/test_v42_v8.py judges it).
 * Usage: test_v42bis_far [name-substring]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/modem.h>
#include "check.h"
#include "line.h"
#include "chars.h"
#include "modem.h"

#define BLK	160
#define NB	8192
#define TEXT	"README.md"

struct far {
	struct sml_modem *m;
	struct sml_fifo tx, rx;
	const uint8_t *out;
	size_t nout;
	uint8_t in[NB];
	size_t nin;
	int bad;
};

struct ours {
	struct smdsp_modem *m;
	const uint8_t *out;
	size_t nout;
	uint8_t in[NB];
	size_t nin;
	int bad;
	int hung;
	struct smdsp_modem_stats st;
};

static const char *filter;
static uint8_t text[2 * NB];
static uint8_t noise[2 * NB];

static void load_text(void)
{
	FILE *f = fopen(TEXT, "rb");
	size_t got = 0;

	if (f) {
		got = fread(text, 1, sizeof(text), f);
		fclose(f);
	}
	CHECK(got == sizeof(text), TEXT ": %zu bytes of text", got);
	fill_random(noise, sizeof(noise), 77);
}

static void take(uint8_t *in, size_t *nin, const uint8_t *want, int *bad,
		 const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && *nin < NB; i++, (*nin)++) {
		in[*nin] = p[i];
		if (p[i] != want[*nin])
			*bad = 1;
	}
	if (i < n)
		*bad = 1;	/* more than was sent */
}

static void far_block(struct far *f, const uint8_t *want, const int16_t *rx, int16_t *tx)
{
	uint8_t buf[256];
	size_t n;

	sml_modem_process(f->m, rx, tx, BLK);
	if (sml_modem_phase(f->m) == SML_PH_DATA && f->nout < NB) {
		n = sml_fifo_space(&f->tx);
		if (n > NB - f->nout)
			n = NB - f->nout;
		f->nout += sml_fifo_put(&f->tx, f->out + f->nout, n);
	}
	while ((n = sml_fifo_get(&f->rx, buf, sizeof(buf))) > 0)
		take(f->in, &f->nin, want, &f->bad, buf, n);
}

static void ours_block(struct ours *o, const uint8_t *want, const int16_t *rx, int16_t *tx)
{
	struct smdsp_modem_event ev;
	uint8_t buf[256];
	unsigned int n;

	CHECK(smdsp_modem_process(o->m, rx, tx, BLK) == 0, "process");
	if (o->nout < NB && smdsp_modem_rate(o->m))
		o->nout += smdsp_modem_write(o->m, o->out + o->nout, (unsigned int)(NB - o->nout));
	while ((n = smdsp_modem_read(o->m, buf, sizeof(buf))) > 0)
		take(o->in, &o->nin, want, &o->bad, buf, n);
	while (smdsp_modem_get_event(o->m, &ev))
		if (ev.type == SMDSP_EV_PHASE && ev.phase == SMDSP_PHASE_HUNGUP)
			o->hung = 1;
}

/*
 * One call. ours_calls: our engine dials smline's answering modem, else
 * smline's modem calls our answering engine. words: smline's modem
 * (sml_modem_cfg_parse_word()). dirs/p1/p2: our +DS. Wants: the
 * directions our end agreed (SMDSP_V42BIS_DIR_*), P1, P2.
 */
static void run(const char *name, int ours_calls, const char *words, unsigned int dirs,
		unsigned int p1, unsigned int p2, int use_text, unsigned int want_dirs,
		unsigned int want_p1, unsigned int want_p2)
{
	struct smdsp_modem_config c;
	struct sml_modem_cfg fc;
	struct line_cfg lc = { .loss_db = 10, .noise_dbm0 = -200, .echo_db = -200, .delay = 80 };
	struct line *l;
	struct ours o;
	struct far f;
	const struct sml_modem_stats *fs;
	const struct smdsp_v42_stats *v;
	const uint8_t *a = use_text ? text : noise, *b = use_text ? text + NB : noise + NB;
	int16_t ot[BLK], orx[BLK] = { 0 }, ft[BLK], frx[BLK] = { 0 };
	char buf[256], *w, *save = NULL;
	long now, drain, limit = 8000L * 120;
	unsigned int far_dirs;
	int ok;

	if (filter && !strstr(name, filter))
		return;
	memset(&o, 0, sizeof(o));
	memset(&f, 0, sizeof(f));
	memset(&c, 0, sizeof(c));
	c.sample_rate = 8000;
	c.modulations = SMDSP_MODEM_V22BIS;
	c.flags = SMDSP_MODEM_FLAG_V42 | SMDSP_MODEM_FLAG_BLIND;
	c.tone_plan = SMDSP_CALLPROG_PLAN_NA;
	c.v42bis_dirs = dirs;
	c.v42bis_p1 = p1;
	c.v42bis_p2 = p2;
	o.m = smdsp_modem_create(&c);
	if (!o.m) {
		printf("FAIL smdsp_modem_create\n");
		exit(1);
	}
	o.out = a;
	f.out = b;
	sml_modem_cfg_default(&fc);
	fc.answer = ours_calls;
	fc.v42 = true;
	snprintf(buf, sizeof(buf), "%s", words);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		CHECK(!sml_modem_cfg_parse_word(&fc, w), "%s: word %s", name, w);
	/* as smline's exchange: the service's FIFOs */
	sml_fifo_init(&f.tx, 512);
	sml_fifo_init(&f.rx, 65536);
	f.m = sml_modem_new(&fc, &f.tx, &f.rx, "far", NULL, NULL);
	if (ours_calls)
		CHECK(smdsp_modem_dial(o.m, "") == 0, "dial");
	else
		CHECK(smdsp_modem_answer(o.m) == 0, "answer");
	l = line_create(&lc);
	for (now = 0; now < limit; now += BLK) {
		ours_block(&o, b, orx, ot);
		far_block(&f, a, frx, ft);
		line_process(l, ot, orx, ft, frx, BLK);
		if ((o.nin == NB && f.nin == NB) || o.hung || o.bad || f.bad ||
		    sml_modem_phase(f.m) >= SML_PH_FAILED)
			break;
	}
	/*
	 * Both got everything: a second more of the line, for what is still in
	 * flight (the last frame's flush, its acknowledgement) to arrive before
	 * the two ends' counts are compared
	 */
	for (drain = 0; o.nin == NB && f.nin == NB && !o.hung && drain < 8000; drain += BLK) {
		ours_block(&o, b, orx, ot);
		far_block(&f, a, frx, ft);
		line_process(l, ot, orx, ft, frx, BLK);
	}
	smdsp_modem_get_stats(o.m, &o.st);
	v = &o.st.v42;
	fs = sml_modem_stats(f.m);
	far_dirs = (fs->v42bis.tx ? SMDSP_V42BIS_DIR_TX : 0) | (fs->v42bis.rx ? SMDSP_V42BIS_DIR_RX : 0);
	ok = o.nin == NB && f.nin == NB && !o.bad && !f.bad && !o.hung;
	CHECK(ok, "%s: ours got %zu%s, smline got %zu%s, hung %d", name, o.nin,
	      o.bad ? " (bad)" : "", f.nin, f.bad ? " (bad)" : "", o.hung);
	CHECK(o.st.link == SMDSP_LINK_V42 && fs->v42, "%s: V.42 both ends", name);
	CHECK(v->v42bis_dirs == want_dirs, "%s: ours agreed directions %u, want %u", name,
	      v->v42bis_dirs, want_dirs);
	/* the far end's view is the mirror of ours */
	CHECK(far_dirs == ((want_dirs & 1) << 1 | (want_dirs & 2) >> 1),
	      "%s: smline agreed directions %u, ours %u", name, far_dirs, want_dirs);
	if (want_dirs) {
		CHECK(v->v42bis_p1 == want_p1 && v->v42bis_p2 == want_p2 &&
		      (unsigned int)fs->v42bis.p1 == want_p1 && (unsigned int)fs->v42bis.p2 == want_p2,
		      "%s: P1/P2 ours %u/%u, smline %d/%d, want %u/%u", name, v->v42bis_p1,
		      v->v42bis_p2, fs->v42bis.p1, fs->v42bis.p2, want_p1, want_p2);
	}
	/* what one end compressed the other decompressed, byte for byte */
	CHECK(v->v42bis_tx_out == fs->v42bis.rx_in && v->v42bis_tx_in == fs->v42bis.rx_out &&
	      fs->v42bis.tx_out == v->v42bis_rx_in && fs->v42bis.tx_in == v->v42bis_rx_out,
	      "%s: byte counts ours tx %u->%u rx %u->%u, smline tx %llu->%llu rx %llu->%llu", name,
	      v->v42bis_tx_in, v->v42bis_tx_out, v->v42bis_rx_in, v->v42bis_rx_out,
	      (unsigned long long)fs->v42bis.tx_in, (unsigned long long)fs->v42bis.tx_out,
	      (unsigned long long)fs->v42bis.rx_in, (unsigned long long)fs->v42bis.rx_out);
	CHECK(v->v42bis_errors == 0, "%s: decoder errors %u", name, v->v42bis_errors);
	/*
	 * smline's last XID (its offer when it calls, its answer when it
	 * answers) says what it does: the agreement when it answers, and no
	 * group at all when it has V.42bis off.
	 */
	if (ours_calls && want_dirs)
		/* P0 from the initiator's (our) side: bit 0 is our transmit direction */
		CHECK(fs->v42bis.xid_p0 == (int)want_dirs && (unsigned int)fs->v42bis.xid_p1 == want_p1 &&
		      (unsigned int)fs->v42bis.xid_p2 == want_p2,
		      "%s: smline answered P0 %d P1 %d P2 %d", name, fs->v42bis.xid_p0,
		      fs->v42bis.xid_p1, fs->v42bis.xid_p2);
	if (strstr(words, "nov42bis") || (ours_calls && !dirs))
		CHECK(fs->v42bis.xid_p0 == -1, "%s: smline's XID has V.42bis (P0 %d)", name,
		      fs->v42bis.xid_p0);
	printf("RESULT name=%s ok=%d got=%zu/%zu dirs=%u far_dirs=%u p1=%u p2=%u far_p1=%d "
	       "far_p2=%d tx_in=%u tx_out=%u rx_in=%u rx_out=%u far_tx_in=%llu far_tx_out=%llu "
	       "secs=%.1f errors=%u far_xid=%d/%d/%d\n",
	       name, ok, o.nin, f.nin, v->v42bis_dirs, far_dirs, v->v42bis_p1, v->v42bis_p2,
	       fs->v42bis.p1, fs->v42bis.p2, v->v42bis_tx_in, v->v42bis_tx_out, v->v42bis_rx_in,
	       v->v42bis_rx_out, (unsigned long long)fs->v42bis.tx_in,
	       (unsigned long long)fs->v42bis.tx_out, now / 8000.0, v->v42bis_errors,
	       fs->v42bis.xid_p0, fs->v42bis.xid_p1, fs->v42bis.xid_p2);
	smdsp_modem_free(o.m);
	sml_modem_free(f.m);
	sml_fifo_free(&f.tx);
	sml_fifo_free(&f.rx);
	line_free(l);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		filter = argv[1];
	sml_log_level = getenv("SML_DEBUG") ? SML_LOG_DEBUG : SML_LOG_ERR;
	load_text();
	/* our factory +DS (3, 2048, 32) against smline's offer (3, 4096, 250) */
	run("ours_calls_text", 1, "v22bis,v42", 3, 2048, 32, 1, 3, 2048, 32);
	run("far_calls_text", 0, "v22bis,v42", 3, 2048, 32, 1, 3, 2048, 32);
	run("ours_calls_random", 1, "v22bis,v42", 3, 2048, 32, 0, 3, 2048, 32);
	/* smline lowers P1 and P2; we offer more than it takes */
	run("ours_calls_far_lower", 1, "v22bis,v42,v42bis_p1=1024,v42bis_p2=16", 3, 4096, 250, 1,
	    3, 1024, 16);
	run("far_calls_far_lower", 0, "v22bis,v42,v42bis_p1=512,v42bis_p2=6", 3, 2048, 32, 1,
	    3, 512, 6);
	/* one direction of ours only, both roles */
	run("ours_calls_ours_tx_only", 1, "v22bis,v42", SMDSP_V42BIS_DIR_TX, 2048, 32, 1,
	    SMDSP_V42BIS_DIR_TX, 2048, 32);
	run("far_calls_ours_rx_only", 0, "v22bis,v42", SMDSP_V42BIS_DIR_RX, 2048, 32, 1,
	    SMDSP_V42BIS_DIR_RX, 2048, 32);
	/* smline without V.42bis: no group in its XID, none agreed, plain V.42 */
	run("ours_calls_nov42bis", 1, "v22bis,v42,nov42bis", 3, 2048, 32, 1, 0, 0, 0);
	run("far_calls_nov42bis", 0, "v22bis,v42,nov42bis", 3, 2048, 32, 1, 0, 0, 0);
	/* ours without V.42bis: smline's offer is refused */
	run("ours_calls_ours_off", 1, "v22bis,v42", 0, 0, 0, 1, 0, 0, 0);
	return t_report("test_v42bis_far");
}
