// SPDX-License-Identifier: GPL-2.0
/*
 * Our line probing analysis (dsp/v34_probe_rx.c) over real modems' V.34
 * calls: raw 8 kHz s16le files, one direction each (see make
 * check-recordings-v34). For every L1/L2 found in a file it prints where,
 * the levels, the SNR over the band, the frequency offset, and the data rate
 * and symbol rate the analysis would choose (every rate allowed: the calls'
 * INFO0s advertise them all), beside the rate the file's name gives.
 * With --require, fails if a file has no probing signal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v34_probe.h>

static const int sym_rate[6] = { 2400, 2743, 2800, 3000, 3200, 3429 };

/* the first number in the file's base name that is a V.34 data rate: the rate it reached */
static int name_rate(const char *path)
{
	const char *b = strrchr(path, '/'), *p;

	for (p = b ? b + 1 : path; *p; p++) {
		int n = 0, d = 0;

		while (p[d] >= '0' && p[d] <= '9')
			n = n * 10 + p[d++] - '0';
		if (n >= 2400 && n <= 33600 && n % 2400 == 0 && (p == path || p[-1] < '0' || p[-1] > '9'))
			return n;
		if (d)
			p += d - 1;
	}
	return 0;
}

#define MAX_FOUND 8

struct found {
	double at;
	struct smdsp_v34_probe_result r;
	struct smdsp_v34_probe_choice ch[6];
	int best;
};

static void report(const struct found *f, int strongest, int want)
{
	const struct smdsp_v34_probe_result *r = &f->r;
	int m, lo = 999, hi = -999;

	for (m = 2; m < SMDSP_V34_PROBE_TONES; m++) {
		if (!smdsp_v34_probe_sent(m))
			continue;
		lo = r->snr_db10[m] < lo ? r->snr_db10[m] : lo;
		hi = r->snr_db10[m] > hi ? r->snr_db10[m] : hi;
	}
	printf("  probing: L2 from %.2f s, %u periods at %.1f dBm0 (L1: %u periods at %.1f dBm0); tone SNR %.1f-%.1f dB"
	       " (300-3600 Hz); offset %d x 0.02 Hz\n", f->at, r->l2_periods, r->l2_dbm0_10 / 10.0, r->l1_periods,
	       r->l1_dbm0_10 / 10.0, lo / 10.0, hi / 10.0, r->freq_offset);
	if (r->l2_dbm0_10 < strongest - 200) {
		/* each file holds the other direction 30-36 dB down: its probing too */
		printf("  (20 dB or more below this file's own probing: the other direction's, leaked)\n");
		return;
	}
	printf("  per symbol rate:");
	for (m = 0; m < 6; m++)
		printf(" %d:%d(%s,pe%d,%.1fdB)", sym_rate[m], 2400 * f->ch[m].max_rate, f->ch[m].high ? "hi" : "lo",
		       f->ch[m].preemph, f->ch[m].snr_db10 / 10.0);
	printf("\n  choice: %d baud, %d bit/s (the name says %d)\n", f->best >= 0 ? sym_rate[f->best] : 0,
	       f->best >= 0 ? 2400 * f->ch[f->best].max_rate : 0, want);
}

static int one_file(const char *path)
{
	static const uint8_t allowed[6] = { 3, 3, 3, 3, 3, 1 };
	static struct found found[MAX_FOUND];
	FILE *f = fopen(path, "rb");
	struct smdsp_v34_probe_rx *rx = smdsp_v34_probe_rx_create(-120);
	int16_t buf[160];
	size_t got;
	long at = 0, base = 0;
	int n = 0, i, strongest = -999;

	if (!f) {
		perror(path);
		smdsp_v34_probe_rx_free(rx);
		return -1;
	}
	printf("== %s (name: %d bit/s)\n", path, name_rate(path));
	while ((got = fread(buf, sizeof(buf[0]), 160, f)) > 0) {
		smdsp_v34_probe_rx_process(rx, buf, (unsigned int)got);
		at += (long)got;
		if (!smdsp_v34_probe_rx_done(rx))
			continue;
		if (n < MAX_FOUND) {
			struct found *p = &found[n++];

			smdsp_v34_probe_rx_result(rx, &p->r);
			smdsp_v34_probe_choose(&p->r, allowed, p->ch);
			p->best = smdsp_v34_probe_best(p->ch);
			p->at = (base + smdsp_v34_probe_rx_l2_start(rx)) / 8000.0;
			if (p->r.l2_dbm0_10 > strongest)
				strongest = p->r.l2_dbm0_10;
		}
		/* a retrain probes again: listen on (the receiver counts from 0 again) */
		smdsp_v34_probe_rx_reset(rx);
		base = at;
	}
	fclose(f);
	smdsp_v34_probe_rx_free(rx);
	for (i = 0; i < n; i++)
		report(&found[i], strongest, name_rate(path));
	if (!n)
		printf("  no probing signal found\n");
	return n;
}

int main(int argc, char **argv)
{
	int i, require = 0, bad = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--require")) {
			require = 1;
			continue;
		}
		if (!strcmp(argv[i], "--help")) {
			printf("usage: %s [--require] file.raw...\n", argv[0]);
			return 0;
		}
		if (one_file(argv[i]) <= 0)
			bad++;
	}
	return require && bad ? 1 : 0;
}
