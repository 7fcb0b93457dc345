// SPDX-License-Identifier: GPL-2.0
/*
 * Our V.34 training receiver (dsp/v34_train_rx.c) on one direction of real
 * modems' calls: raw 8 kHz s16le files (see make check-recordings-v34).
 *
 * Listen only. The phase 2 controller follows the file and the call's other
 * file to their INFO1s (as tests/dsp/v34_phase2_recordings does): INFO1a
 * names both symbol rates and the caller's carrier, INFO1c the answerer's
 * carrier at its symbol rate. The samples after the file's phase 2 go to a
 * receiver configured as dsp/v34.c's hand_over() configures it for the far
 * transmitter, 4-wire and without a canceller: an answer modem's for
 * *_L_caller (whose TRN is scrambled with GPC), a call modem's for
 * *_R_answerer (GPA). As v34.c's answer modem does (md_hold()), the
 * caller's file is not searched for S before the answerer's J, found in
 * the other file: the answerer's own S, S-bar and PP leak into it 30-36 dB
 * down, above the receiver's -50 dBm0. The answerer's phase 4 (after its J
 * a silence, then S, S-bar, TRN, MP: no J') is followed as v34_train_rx's
 * 2-wire call modem follows it (p4wait).
 *
 * It prints where S, its reversal and PP were found (PP's correlation with
 * one period: 1 on a flat channel), the equaliser's error over PP and at
 * TRN's end, TRN's length, the fraction of TRN's descrambled bits that are
 * ones, J (and the TRN it asks of the other modem), phase 4's signals
 * (TRN's length and points to the first MP taken), MP frames taken or
 * refused, the first MP's fields, and a table. With --require, fails if a
 * file's PP correlated under MIN_PP_CORR, or its TRN was not found or its
 * bits after the equaliser's first 512 symbols (the fast step's span)
 * descrambled to under 99 % ones (and 96 symbols before J was taken): a
 * wrong scrambler, rotation or mapping gives about 50 % (as our first
 * reading did), while one symbol error in a thousand, three bit errors
 * through the descrambler, is already 99.85 %; 99 % leaves room for a line
 * worse than these. It fails a file, too, with no MP taken after a 4-point
 * phase-4 TRN (after a 16-point one it reports it), or whose first
 * MP's maximum rate for the direction its sender receives (an MP says what
 * its sender can receive) is more than one 2400 bit/s step from that
 * direction's rate in the file's name (read as caller to answerer, then
 * answerer to caller: the recordings' README leaves the order open, and
 * the three calls' two numbers are equal).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <smdsp/v34_phase2.h>
#include <smdsp/v34_train.h>
#include <smdsp/private/v34_train.h>

static bool verbose;
static const int sym_rate[6] = { 2400, 2743, 2800, 3000, 3200, 3429 };
static const char *const state_names[] = { "idle", "S", "S-bar", "PP", "TRN", "J", "J'", "TRN4",
					   "MP", "MP'", "E", "B1", "data", "cleared", "failed" };

#define TRN_SKIP 512		/* TRN symbols left out of the bound: the equaliser's fast start */
#define TRN_TAIL 96		/* ... and its last: J's first words, before J is taken */
#define TAIL_SNAPS (TRN_TAIL / 32 + 1)
#define MIN_ONES_PPM 990000
/*
 * PP's correlation with one period, the channel's main tap's share: 0.85-0.96
 * on these calls, 0.66-0.74 against our first reading of PP (whose TRN the
 * decision-directed equaliser still trained on in five of the six)
 */
#define MIN_PP_CORR 0.8
#define MAX_FILES 16

struct rec {
	int16_t *x;
	long n;
};

/* one file's line in the table */
struct row {
	char name[64];
	int baud;
	double t_s, t_pp, t_j;
	int pp_lag;
	double pp_corr;
	int mse_pp, mse_trn, pred_gain;
	unsigned int trn_len;
	uint32_t bits, bad;
	bool j16, phase4;
	uint32_t mp_good, mp_bad;
	/* the first MP taken (has_mp), phase 4's TRN before it: symbols, 16 points */
	bool has_mp;
	struct smdsp_v34_mp mp;
	uint32_t trn4_syms;
	bool trn4_16;
	unsigned int name_rate;		/* the direction's rate in the file's name, bit/s (0: none) */
	bool ok, mp_rate_ok, mp_judged;
};

static struct row rows[MAX_FILES];
static int nrows;

static int load(const char *path, struct rec *r)
{
	FILE *f = fopen(path, "rb");
	long len;

	r->x = NULL;
	r->n = 0;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	r->x = malloc((size_t)len + 2);
	if (!r->x) {
		fclose(f);
		return -1;
	}
	r->n = (long)fread(r->x, sizeof(int16_t), (size_t)len / 2, f);
	fclose(f);
	return 0;
}

/* phase 2 listened to: the sample after its end (0: not followed to INFO1) */
static long phase2(const struct rec *r, bool answerer, struct smdsp_v34_phase2_result *res)
{
	struct smdsp_v34_phase2_config cfg = { .calling = answerer, .level_dbm0_10 = -120,
					       .far_level_dbm0_10 = -120, .listen_only = true };
	struct smdsp_v34_phase2 *s = smdsp_v34_phase2_create(&cfg);
	int16_t y[80];
	long n = 0, end = 0;

	memset(res, 0, sizeof(*res));
	if (!s)
		return 0;
	while (n < r->n) {
		unsigned int m = r->n - n > 80 ? 80 : (unsigned int)(r->n - n);

		smdsp_v34_phase2_process(s, &r->x[n], y, m);
		n += m;
		if (smdsp_v34_phase2_state(s) == SMDSP_V34P2_DONE)
			break;
	}
	if (smdsp_v34_phase2_steps(s) & SMDSP_V34P2_HEARD_INFO1)
		end = n;
	smdsp_v34_phase2_result(s, res);
	smdsp_v34_phase2_free(s);
	return end;
}

/* |one period of what the receiver took for PP against PP|, normalised: 1 for a flat channel */
static double pp_corr(const struct smdsp_v34_train_rx *rx)
{
	double re = 0, im = 0, ey = 0, ep = 0;
	unsigned int k;

	for (k = 0; k < SMDSP_V34_PP_PERIOD; k++) {
		const struct smdsp_cplx *y = &rx->ring[(rx->pp_t2 + 2 * k) % SMDSP_V34_RX_RING];
		struct smdsp_cplx p;

		smdsp_v34_train_pp(k, 1000, &p);
		re += (double)y->re * p.re + (double)y->im * p.im;
		im += (double)y->im * p.re - (double)y->re * p.im;
		ey += (double)y->re * y->re + (double)y->im * y->im;
		ep += (double)p.re * p.re + (double)p.im * p.im;
	}
	return ey > 0 ? sqrt((re * re + im * im) / (ey * ep)) : 0;
}

static double t_of(long n)
{
	return n / 8000.0;
}

/* the receiver for one direction (the answerer's if answerer) after phase 2's end */
static void configure(struct smdsp_v34_train_config *rc, bool answerer, const struct smdsp_v34_info1a *i1a,
		      const struct smdsp_v34_info1c *i1c)
{
	memset(rc, 0, sizeof(*rc));
	if (answerer) {
		rc->symrate = (enum smdsp_v34_symrate)(i1a->rate_a_to_c % 6);
		rc->high = i1c->rate[rc->symrate].high_carrier;
		rc->data_rate = 2400u * i1c->rate[rc->symrate].max_rate;
	} else {
		rc->symrate = (enum smdsp_v34_symrate)(i1a->rate_c_to_a % 6);
		rc->high = i1a->high_carrier;
		rc->data_rate = 2400u * i1a->max_rate;
	}
	if (!rc->data_rate)
		rc->data_rate = 2400;
	/* the receiving end's role: a call modem hears the answerer */
	rc->caller = answerer;
	rc->trellis = 16;
}

/*
 * Runs the receiver over r from sample 'from', S not looked for before
 * 'hold'; fills row (if print, says each step); returns the sample after
 * which J was taken twice (0: never)
 */
static long run(const struct rec *r, long from, long hold, const struct smdsp_v34_train_config *rc, bool answerer,
		bool print, struct row *row)
{
	struct smdsp_v34_train_rx *rx = smdsp_v34_train_rx_create(rc, NULL, NULL);
	struct smdsp_v34_train_stats st;
	enum smdsp_v34_train_state prev = SMDSP_V34_T_IDLE, now;
	uint32_t bits0 = 0, bad0 = 0, snap[TAIL_SNAPS][2] = { { 0 } };
	unsigned int sn = 0;
	bool skipped = false;
	long n, j_at = 0;
	int last_mse = 0;

	if (!rx)
		return 0;
	if (hold > from)
		smdsp_v34_train_rx_hold_s(rx, (uint32_t)(hold - from));
	for (n = from; n < r->n; n++) {
		smdsp_v34_train_rx_process(rx, &r->x[n], 1);
		now = smdsp_v34_train_rx_state(rx);
		smdsp_v34_train_rx_get_stats(rx, &st);
		/* the first 256 symbols' error: PP's, against the known symbols */
		if (!row->mse_pp && st.mse_db10)
			row->mse_pp = st.mse_db10;
		if (now == SMDSP_V34_T_TRN && !skipped && rx->sym >= SMDSP_V34_PP_SYMS + TRN_SKIP) {
			skipped = true;
			bits0 = st.trn_bits;
			bad0 = st.trn_bad;
		}
		/* the counts every 32 symbols, the oldest of them TRN_TAIL symbols back */
		if (now == SMDSP_V34_T_TRN && skipped && rx->sym % 32 == 0 && st.trn_bits != snap[sn % TAIL_SNAPS][0]) {
			sn++;
			snap[sn % TAIL_SNAPS][0] = st.trn_bits;
			snap[sn % TAIL_SNAPS][1] = st.trn_bad;
		}
		if (verbose && print && st.mse_db10 != last_mse) {
			printf("  %7.3f s  symbol %u (%s): error %.1f dB, %u TRN bits %u not ones\n", t_of(n + 1),
			       rx->sym, state_names[now], st.mse_db10 / 10.0, st.trn_bits, st.trn_bad);
			last_mse = st.mse_db10;
		}
		if (now == prev)
			continue;
		prev = now;
		switch (now) {
		case SMDSP_V34_T_S:
			if (!row->t_s)
				row->t_s = t_of(n + 1);
			break;
		case SMDSP_V34_T_PP:
			row->t_pp = t_of(n + 1);
			row->pp_lag = st.pp_lag;
			row->pp_corr = pp_corr(rx);
			break;
		case SMDSP_V34_T_J:
			j_at = n + 1;
			row->t_j = t_of(n + 1);
			/* to J's taking less two J words (the receiver's rule: within a word or two) */
			row->trn_len = rx->sym - SMDSP_V34_PP_SYMS - 16;
			row->mse_trn = st.trn_mse_db10;
			row->pred_gain = st.pred_gain_db10;
			row->j16 = rx->trn16;
			/* TRN's last TRN_TAIL symbols left out: J's first words before J's descrambler filled */
			if (skipped && sn >= TAIL_SNAPS) {
				row->bits = snap[(sn + 1) % TAIL_SNAPS][0] - bits0;
				row->bad = snap[(sn + 1) % TAIL_SNAPS][1] - bad0;
			}
			/* the answerer's phase 4, as our 2-wire call modem waits for it */
			if (answerer)
				rx->p4wait = true;
			break;
		case SMDSP_V34_T_TRN4:
			row->phase4 = true;
			break;
		case SMDSP_V34_T_MP:
			if (!row->has_mp) {
				bool ack;

				row->has_mp = smdsp_v34_train_rx_far_mp(rx, &row->mp, &ack);
				row->trn4_syms = st.trn4_syms;
				row->trn4_16 = st.trn4_16;
			}
			break;
		default:
			break;
		}
		if (!print)
			continue;
		switch (now) {
		case SMDSP_V34_T_S:
			printf("  %7.3f s  S (its two-symbol period, 32 symbols)\n", t_of(n + 1));
			break;
		case SMDSP_V34_T_SBAR:
			printf("  %7.3f s  S-bar: the reversal at T/2 output %u\n", t_of(n + 1), rx->rev_t2);
			break;
		case SMDSP_V34_T_PP:
			printf("  %7.3f s  PP at T/2 output %u (%d half symbols from S-bar's estimate), one period "
			       "correlating to %.2f\n", t_of(n + 1), rx->pp_t2, row->pp_lag, row->pp_corr);
			break;
		case SMDSP_V34_T_J:
			printf("  %7.3f s  J twice (0x%04x: asks for a %s TRN in phase 4): TRN %u symbols, error %.1f dB "
			       "with the noise predictor (its gain %.1f dB), timing moved %d ticks\n", t_of(n + 1),
			       rx->jreg, rx->trn16 ? "16-point" : "4-point", row->trn_len, row->mse_trn / 10.0,
			       row->pred_gain / 10.0, st.timing_ticks);
			break;
		case SMDSP_V34_T_MP:
			printf("  %7.3f s  MP taken after phase 4's TRN of %u symbols (%s at its end)\n", t_of(n + 1),
			       st.trn4_syms, st.trn4_16 ? "16-point" : "4-point");
			break;
		case SMDSP_V34_T_FAILED:
			printf("  %7.3f s  failed%s\n", t_of(n + 1),
			       st.trn4_long ? ": phase 4's TRN longer than SMDSP_V34_TRN4_MAX symbols, no MP taken" : "");
			break;
		default:
			printf("  %7.3f s  %s\n", t_of(n + 1), state_names[now]);
			break;
		}
	}
	smdsp_v34_train_rx_get_stats(rx, &st);
	if (prev == SMDSP_V34_T_TRN && skipped) {
		/* no J: TRN to the end */
		row->trn_len = rx->sym - SMDSP_V34_PP_SYMS;
		row->bits = st.trn_bits - bits0;
		row->bad = st.trn_bad - bad0;
	}
	row->mp_good = st.mp_good;
	row->mp_bad = st.mp_bad;
	smdsp_v34_train_rx_free(rx);
	return j_at;
}

/* the rate of the direction the file's modem receives, from a name's "-R1-R2": R1 caller to answerer */
static unsigned int name_rate(const char *name, bool answerer)
{
	const char *p;
	unsigned int r1, r2;

	for (p = name; *p; p++)
		if (*p == '-' && sscanf(p, "-%u-%u", &r1, &r2) == 2 && r1 >= 2400 && r2 >= 2400)
			return answerer ? r1 : r2;
	return 0;
}

/* the first MP's fields, and whether its rate for what its sender receives is within a step of the name's */
static bool check_mp(struct row *row, bool answerer)
{
	const struct smdsp_v34_mp *mp = &row->mp;
	unsigned int got;
	char buf[200];

	row->name_rate = name_rate(row->name, answerer);
	if (!row->has_mp) {
		printf("  no MP taken\n");
		return false;
	}
	smdsp_v34_mp_print(mp, buf, sizeof(buf));
	printf("  first MP: %s\n", buf);
	printf("  type %u; max rates c>a %u, a>c %u bit/s; trellis %u states; nonlinear %d, expanded shaping %d; "
	       "h(1)-h(3) %.3f%+.3fi %.3f%+.3fi %.3f%+.3fi\n", mp->type, mp->rate_c_to_a * 2400, mp->rate_a_to_c * 2400,
	       16u << mp->trellis, mp->nonlinear, mp->expanded, mp->h[0] / 16384.0, mp->h[1] / 16384.0,
	       mp->h[2] / 16384.0, mp->h[3] / 16384.0, mp->h[4] / 16384.0, mp->h[5] / 16384.0);
	/* the answerer receives caller to answerer */
	got = 2400 * (answerer ? mp->rate_c_to_a : mp->rate_a_to_c);
	printf("  the %s receives at most %u bit/s, the name says %u\n", answerer ? "answerer" : "caller", got,
	       row->name_rate);
	return row->name_rate && got + 2400 >= row->name_rate && got <= row->name_rate + 2400;
}

static int train_file(const char *path)
{
	bool answerer = strstr(path, "_R_answerer") != NULL;
	char other[4096];
	struct rec r, ro;
	struct smdsp_v34_phase2_result res, reso;
	struct smdsp_v34_train_config rc, orc;
	struct row *row = &rows[nrows < MAX_FILES - 1 ? nrows++ : nrows], dummy;
	long end, oend, hold = 0;
	const char *p, *base = strrchr(path, '/');

	memset(row, 0, sizeof(*row));
	snprintf(row->name, sizeof(row->name), "%s", base ? base + 1 : path);
	printf("== %s: %s's signal\n", path, answerer ? "the answer modem" : "the call modem");
	p = strstr(path, answerer ? "_R_answerer" : "_L_caller");
	if (!p || load(path, &r))
		return 0;
	snprintf(other, sizeof(other), "%.*s%s", (int)(p - path), path, answerer ? "_L_caller.raw" : "_R_answerer.raw");
	if (load(other, &ro)) {
		printf("  no %s: its INFO1 is needed too\n", other);
		free(r.x);
		return 0;
	}
	end = phase2(&r, answerer, &res);
	oend = phase2(&ro, !answerer, &reso);
	if (!end || !oend) {
		printf("  phase 2 not followed to INFO1 in both files\n");
		free(r.x);
		free(ro.x);
		return 0;
	}
	configure(&rc, answerer, answerer ? &res.info1a : &reso.info1a, answerer ? &reso.info1c : &res.info1c);
	row->baud = sym_rate[rc.symrate];
	printf("  phase 2 ended %.3f s: %d baud, %s carrier, projected %u bit/s; %s's scrambler\n", t_of(end),
	       row->baud, rc.high ? "high" : "low", rc.data_rate, answerer ? "GPA" : "GPC");
	if (!answerer) {
		/* the answerer's J in its own file: the caller's S comes after it */
		configure(&orc, true, &reso.info1a, &res.info1c);
		memset(&dummy, 0, sizeof(dummy));
		hold = run(&ro, oend, 0, &orc, true, false, &dummy);
		if (hold)
			printf("  S not looked for before %.3f s, the answerer's J\n", t_of(hold));
	} else {
		/* the caller's J (in its file, found after this file's J as above) */
		long own;

		memset(&dummy, 0, sizeof(dummy));
		own = run(&r, end, 0, &rc, true, false, &dummy);
		configure(&orc, false, &res.info1a, &reso.info1c);
		memset(&dummy, 0, sizeof(dummy));
		run(&ro, oend, own, &orc, false, false, &dummy);
	}
	/* our receiver stands for the other modem: it expects the TRN that modem's J asked for */
	rc.trn16 = dummy.j16;
	printf("  the other modem's J asks for a %s phase-4 TRN\n", !dummy.t_j ? "(no J found: 4-point)" :
	       dummy.j16 ? "16-point" : "4-point");
	run(&r, end, hold, &rc, answerer, true, row);
	row->ok = row->bits && (uint64_t)(row->bits - row->bad) * 1000000 >= (uint64_t)row->bits * MIN_ONES_PPM &&
		  row->pp_corr >= MIN_PP_CORR;
	printf("  equaliser's error: %.1f dB over PP's first 256 symbols\n", row->mse_pp / 10.0);
	printf("  TRN less its first %d and last %d symbols: %u bits descrambled, %u not a one (%.3f %% ones)\n",
	       TRN_SKIP, TRN_TAIL, row->bits, row->bad, row->bits ? 100.0 * (row->bits - row->bad) / row->bits : 0.0);
	printf("  MP frames: %u taken, %u refused (sync found, CRC or fields bad)\n", row->mp_good, row->mp_bad);
	row->mp_rate_ok = check_mp(row, answerer);
	/*
	 * MP is judged after a 4-point phase-4 TRN, which our receiver follows:
	 * what a real modem sends during and after a 16-point one is not read
	 * yet (doc/v34.md), so there an MP missing is reported, not failed; an
	 * MP taken there is judged all the same.
	 */
	row->mp_judged = !rc.trn16 || row->mp_good;
	printf("  %s; %s\n", row->ok ? "PP found, TRN descrambled to ones" : "NOT trained (PP or TRN)",
	       row->mp_rate_ok ? "MP taken, its rate the name's" :
	       row->mp_judged ? "NO MP with the name's rate" :
	       "no MP after a 16-point TRN (not judged: its mapping is not known)");
	row->ok = row->ok && (row->mp_rate_ok || !row->mp_judged);
	free(r.x);
	free(ro.x);
	return row->ok;
}

int main(int argc, char **argv)
{
	bool require = false;
	int i, files = 0, trained = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--require")) {
			require = true;
			continue;
		}
		if (!strcmp(argv[i], "-v")) {
			verbose = true;
			continue;
		}
		if (!strcmp(argv[i], "--help")) {
			printf("usage: %s [--require] [-v] file_L_caller.raw|file_R_answerer.raw ...\n", argv[0]);
			return 0;
		}
		files++;
		trained += train_file(argv[i]);
	}
	printf("\n%-46s %5s %7s %7s %5s %6s %6s %5s %9s %4s %7s %5s %9s %11s\n", "file", "baud", "S at", "PP at",
	       "corr", "PP dB", "TRN dB", "TRN", "ones %", "J", "TRN4", "MP", "MP rates", "MP h(1)");
	for (i = 0; i < nrows; i++) {
		const struct row *w = &rows[i];
		char t4[16] = "-", rates[16] = "-", h1[24] = "-";

		if (w->has_mp) {
			snprintf(t4, sizeof(t4), "%u/%d", w->trn4_syms, w->trn4_16 ? 16 : 4);
			snprintf(rates, sizeof(rates), "%u/%u", w->mp.rate_c_to_a * 24, w->mp.rate_a_to_c * 24);
			snprintf(h1, sizeof(h1), "%.2f%+.2fi", w->mp.h[0] / 16384.0, w->mp.h[1] / 16384.0);
		} else if (w->phase4) {
			snprintf(t4, sizeof(t4), "TRN");
		}
		printf("%-46s %5d %7.3f %7.3f %5.2f %6.1f %6.1f %5u %9.3f %4s %7s %2u/%-2u %9s %11s\n", w->name, w->baud,
		       w->t_s, w->t_pp, w->pp_corr, w->mse_pp / 10.0, w->mse_trn / 10.0, w->trn_len,
		       w->bits ? 100.0 * (w->bits - w->bad) / w->bits : 0.0, w->t_j ? (w->j16 ? "16" : "4") : "-", t4,
		       w->mp_good, w->mp_bad, rates, h1);
	}
	printf("(TRN4: phase 4's TRN to the first MP, symbols/points; MP rates: c>a/a>c, hundreds of bit/s)\n");
	printf("v34_train_recordings: %d files, %d with PP found, TRN descrambled to ones and an MP with the name's "
	       "rate where judged (after a 4-point phase-4 TRN, or taken)\n", files, trained);
	return require && trained < files ? 1 : 0;
}
