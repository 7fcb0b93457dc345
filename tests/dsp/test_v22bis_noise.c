/*
 * The V.22bis receiver against noise on the line, seeded runs (the checks
 * of test_v17_noise, for V.22bis). Our modem calls or answers,
 * SpanDSP's or ours at the far end; the line's white noise (0-4 kHz) runs
 * from the first sample, and for the first lead_s only our modem is on the
 * line (the far one starts after it: our receiver hears noise alone).
 *
 * - noise from before the signal at 20-30 dB SNR, 0.3-1.5 s of it: a call
 *   at 2400 bit/s every time, its PRBS intact;
 * - signals at -42 dBm0 (the carrier goes off below -48), 22 dB SNR:
 *   no carrier loss in 8 s of data (hold_on_loss, as the engine has it);
 * - noise alone around a call, at -43 dBm0 and at the levels (-35 to -38
 *   dBm0 over 0-4 kHz) that put its power in the receiver's band at the
 *   carrier thresholds (-43 on, -48 off): on the noise before the far modem
 *   the carrier comes up at most once, and after the far modem stops it
 *   goes down once and stays down (no flipping).
 *
 * The default (the pytest run) takes a few seeds; --full runs every seed
 * (-v prints every run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "v22ep.h"
#include "line.h"
#include "tutil.h"

static int full, verbose;

struct vrun {
	int ours_caller;	/* our modem calls (else answers) */
	int far_ours;		/* the far modem is ours (else SpanDSP's) */
	double loss_db, noise_dbm0;
	double lead_s;		/* our modem alone on the line first */
	double data_s;		/* then the far modem: its call, this long */
	double tail_s;		/* then the far modem silent, this long */
	uint64_t seed;
};

struct vres {
	int rate;		/* ours, at the end of the call */
	long bits, errors;	/* ours, PRBS from the far modem */
	int ups_lead, downs_lead;	/* ours, on the noise before the far modem */
	int downs_call;		/* ours, during the call */
	int flips_tail;		/* ours, carrier changes after the far modem stopped */
	int trained;
};

/* the end of the call: ours's results so far */
static void snapshot(struct v22ep *a, struct vres *r)
{
	r->rate = smdsp_v22bis_rate(a->m);
	r->trained = a->trained;
	r->bits = a->pchk.bits;
	r->errors = a->pchk.errors;
	r->downs_call = a->carrier_downs - r->downs_lead;
	r->flips_tail = -(a->carrier_ups + a->carrier_downs);
}

static void run(const struct vrun *c, struct vres *r)
{
	struct line_cfg lc = { .loss_db = c->loss_db, .noise_dbm0 = c->noise_dbm0, .echo_db = -200, .delay = 40,
			       .seed = c->seed };
	struct line *l = line_create(&lc);
	struct v22ep a, b;	/* a: ours; b: the far modem */
	int16_t at[160], ar[160] = { 0 }, bt[160], br[160] = { 0 };
	long lead = (long)(c->lead_s * 50), call = (long)(c->data_s * 50), tail = (long)(c->tail_s * 50), i;

	v22ep_init(&a, 1, c->ours_caller, 2400, 0, 1, c->seed * 7 + 1);
	v22ep_init(&b, c->far_ours, !c->ours_caller, 2400, 0, 1, c->seed * 7 + 2);
	/* what the engine sets (modem.c): a loss in data mode is reported, the call goes on */
	v22ep_hold_on_loss(&a);
	if (!c->far_ours)
		v22bis_rx_signal_cutoff(b.sp, -28 - (c->loss_db > 20 ? 25 : 0));
	memset(r, 0, sizeof(*r));
	for (i = 0; i < lead + call + tail; i++) {
		v22ep_process(&a, ar, at, 160);
		if (i < lead) {
			memset(bt, 0, sizeof(bt));
		} else {
			v22ep_process(&b, br, bt, 160);
			if (i >= lead + call)
				memset(bt, 0, sizeof(bt));
		}
		if (i == lead) {
			r->ups_lead = a.carrier_ups;
			r->downs_lead = a.carrier_downs;
		}
		if (i == lead + call - 1)
			snapshot(&a, r);
		line_process(l, at, ar, bt, br, 160);
	}
	r->flips_tail += a.carrier_ups + a.carrier_downs;
	line_free(l);
	v22ep_free(&a);
	v22ep_free(&b);
}

static void show(const char *what, const struct vrun *c, const struct vres *r)
{
	if (!verbose)
		return;
	printf("%-24s %s %-7s seed %3llu loss %2.0f noise %5.1f lead %.2f: rate %d bits %ld err %ld, carrier "
	       "%d up/%d down before, %d down in the call, %d changes after\n", what,
	       c->ours_caller ? "ours calling" : "ours answering", c->far_ours ? "ours" : "SpanDSP",
	       (unsigned long long)c->seed, c->loss_db, c->noise_dbm0, c->lead_s, r->rate, r->bits, r->errors,
	       r->ups_lead, r->downs_lead, r->downs_call, r->flips_tail);
}

static unsigned int seed_of(int i, const unsigned int *fast)
{
	return full ? (unsigned int)i + 1 : fast[i];
}

/* Noise at 20-30 dB SNR from 0.3-1.5 s before the far modem: 2400 bit/s, PRBS intact. */
static void noise_first(const unsigned int *fast, int nfast, int nseeds)
{
	int i, n = full ? nseeds : nfast, bad = 0;

	for (i = 0; i < n; i++) {
		unsigned int sd = seed_of(i, fast);
		struct vrun c = { .ours_caller = (int)(sd & 1), .far_ours = (int)((sd >> 1) & 1), .seed = sd,
				  .noise_dbm0 = -13 - (20 + (int)(sd % 11)), .lead_s = 0.3 + (sd % 7) * 0.2,
				  .data_s = 8 };
		struct vres r;
		int ok;

		run(&c, &r);
		show("noise first", &c, &r);
		ok = r.rate == 2400 && r.trained && r.bits > 4000 && r.errors == 0 && r.downs_call == 0;
		bad += !ok;
		CHECK(ok, "noise first (%s, far %s, seed %u, SNR %.0f dB, %.1f s): rate %d, %ld bits %ld errors, "
		      "%d carrier losses", c.ours_caller ? "ours calling" : "ours answering",
		      c.far_ours ? "ours" : "SpanDSP", sd, -13 - c.noise_dbm0, c.lead_s, r.rate, r.bits, r.errors,
		      r.downs_call);
	}
	printf("V.22bis, noise from 0.3-1.5 s before the far modem at 20-30 dB SNR: %d of %d runs bad\n", bad, n);
}

/* Signals at -42 dBm0 (29 dB of loss), 22 dB SNR: no carrier loss in the call. */
static void weak(const unsigned int *fast, int nfast, int nseeds)
{
	int i, n = full ? nseeds : nfast, drops = 0;

	for (i = 0; i < n; i++) {
		unsigned int sd = seed_of(i, fast);
		struct vrun c = { .ours_caller = (int)(sd & 1), .far_ours = (int)((sd >> 1) & 1), .seed = sd,
				  .loss_db = 29, .noise_dbm0 = -64, .lead_s = 0.1, .data_s = 12 };
		struct vres r;

		run(&c, &r);
		show("-42 dBm0", &c, &r);
		drops += r.downs_call > 0;
		CHECK(r.trained && r.downs_call == 0, "-42 dBm0 (%s, far %s, seed %u): %s, %d carrier losses in "
		      "the call", c.ours_caller ? "ours calling" : "ours answering", c.far_ours ? "ours" : "SpanDSP",
		      sd, r.trained ? "trained" : "not trained", r.downs_call);
	}
	printf("V.22bis at -42 dBm0, 22 dB SNR: ours lost the carrier in the call in %d of %d runs\n", drops, n);
}

/* Noise alone before and after a call: the carrier detector keeps still. */
static void quiet_noise(double noise, const unsigned int *fast, int nfast, int nseeds)
{
	int i, n = full ? nseeds : nfast, bad = 0, flips = 0;

	for (i = 0; i < n; i++) {
		unsigned int sd = seed_of(i, fast);
		struct vrun c = { .ours_caller = (int)(sd & 1), .far_ours = (int)((sd >> 1) & 1), .seed = sd,
				  .loss_db = (sd % 3) * 4, .noise_dbm0 = noise, .lead_s = 0.5, .data_s = 6,
				  .tail_s = 1 };
		struct vres r;
		int ok;

		run(&c, &r);
		show("noise around", &c, &r);
		ok = r.trained && r.ups_lead + r.downs_lead <= 1 && r.downs_call == 0 && r.flips_tail == 1;
		bad += !ok;
		flips += r.flips_tail;
		CHECK(ok, "noise %.0f dBm0 around a call (%s, far %s, seed %u, loss %.0f dB): %s, carrier %d up "
		      "and %d down on the noise before, %d losses in the call, %d changes in 1 s of noise after",
		      noise, c.ours_caller ? "ours calling" : "ours answering", c.far_ours ? "ours" : "SpanDSP", sd,
		      c.loss_db, r.trained ? "trained" : "not trained", r.ups_lead, r.downs_lead, r.downs_call,
		      r.flips_tail);
	}
	printf("V.22bis, noise at %.0f dBm0 around a call: %d of %d runs bad, %d carrier changes after the call "
	       "in all\n", noise, bad, n, flips);
}

int main(int argc, char **argv)
{
	static const unsigned int nf_fast[] = { 1, 2, 3, 4 };
	static const unsigned int weak_fast[] = { 1, 2, 3, 4 };
	/*
	 * 7 and 14 flipped on the noise before the far modem at -38 dBm0 (up on its peaks, down on
	 * a dip) before the slower average had its say in the carrier's onset
	 */
	static const unsigned int quiet_fast[] = { 1, 2, 7, 14 };
	static const double quiet[] = { -43, -38, -37, -36, -35 };
	unsigned int k;
	int i;

	for (i = 1; i < argc; i++) {
		full |= !strcmp(argv[i], "--full");
		verbose |= !strcmp(argv[i], "-v");
	}
	noise_first(nf_fast, 4, 60);
	weak(weak_fast, 4, 40);
	for (k = 0; k < sizeof(quiet) / sizeof(quiet[0]); k++)
		quiet_noise(quiet[k], quiet_fast, 4, 24);
	return t_report("test_v22bis_noise");
}
