/*
 * V.27ter bit error rate in white noise: our receiver and SpanDSP's on the
 * very same samples, for our transmitter and for SpanDSP's, at 4800 and 2400
 * bit/s. The signal is at -14 dBm0; the noise is white over 0-4 kHz and runs
 * from the first sample (both receivers hear noise before the training).
 * Each run carries a 2^23-1 PRBS checked by a self-synchronising checker
 * (a line error counts three times: BER = errors / 3 / bits).
 *
 * Pass criterion, as for V.22bis: at each level our receiver is no worse
 * than SpanDSP's by more than 5x (about what 1 dB of SNR gives at these
 * error rates) or a 1e-5 floor, and it trains whenever SpanDSP's does.
 */
#include <stdio.h>
#include <string.h>
#include "qamep.h"
#include "tutil.h"

#define LEVELS 4

int main(int argc, char **argv)
{
	static const double noise[2][LEVELS] = { { -30, -28, -26, -24 }, { -24, -22, -20, -18 } };
	static const int rates[2] = { 4800, 2400 };
	const char *json = argc > 2 && !strcmp(argv[1], "--json") ? argv[2] : NULL;
	FILE *f = json ? fopen(json, "w") : NULL;
	int ri, li, t, first = 1;

	if (f)
		fprintf(f, "{\n \"test\": \"v27ter_ber\", \"rows\": [\n");
	printf("V.27ter, signal at -14 dBm0, white noise over 0-4 kHz, 40 s per run\n");
	printf("%-5s %-11s %-8s %-8s %-22s %-22s\n", "rate", "noise", "SNR", "tx",
	       "ours BER (bits)", "SpanDSP BER (bits)");
	for (ri = 0; ri < 2; ri++) {
		for (li = 0; li < LEVELS; li++) {
			for (t = 1; t >= 0; t--) {
				struct qamrun_cfg c = { .rate = rates[ri], .ours_tx = t, .seconds = 40,
							.noise_dbm0 = noise[ri][li], .seed = 4242 + li,
							.gate = 1 };
				struct qamrun_res r;
				double o, s;

				qam_run(27, &c, &r);
				o = qam_ber(&r, 0);
				s = qam_ber(&r, 1);
				printf("%-5d %-6.0f dBm0 %-5.1f dB %-8s %-9.2e (%6ld)%s %-9.2e (%6ld)%s\n",
				       c.rate, c.noise_dbm0, -14 - c.noise_dbm0, t ? "ours" : "SpanDSP",
				       o, r.bits[0], r.trained[0] ? "" : " untrained", s, r.bits[1],
				       r.trained[1] ? "" : " untrained");
				CHECK(r.trained[0] || !r.trained[1], "%d noise %.0f: SpanDSP trained, ours not",
				      c.rate, c.noise_dbm0);
				CHECK(r.bits[0] > c.rate * 35, "%d noise %.0f: ours checked only %ld bits",
				      c.rate, c.noise_dbm0, r.bits[0]);
				CHECK(o <= 5 * s + 1e-5, "%d noise %.0f tx %s: ours %.2e vs SpanDSP %.2e", c.rate,
				      c.noise_dbm0, t ? "ours" : "SpanDSP", o, s);
				if (f) {
					fprintf(f, "%s  {\"rate\": %d, \"noise_dbm0\": %.0f, \"tx\": \"%s\", "
						"\"ours_ber\": %.3e, \"spandsp_ber\": %.3e, \"bits\": [%ld, %ld]}",
						first ? "" : ",\n", c.rate, c.noise_dbm0, t ? "ours" : "spandsp",
						o, s, r.bits[0], r.bits[1]);
					first = 0;
				}
			}
		}
	}
	/*
	 * Noise from the first sample on (not gated): SpanDSP's receiver trains
	 * on the noise and never reaches data (LAB-FACTS); ours re-acquires
	 * when the signal comes 6 dB above what its AGC was set on.
	 */
	for (ri = 0; ri < 2; ri++) {
		struct qamrun_cfg c = { .rate = rates[ri], .ours_tx = 0, .seconds = 10,
					.noise_dbm0 = noise[ri][0], .seed = 777 };
		struct qamrun_res r;

		qam_run(27, &c, &r);
		printf("%-5d %-6.0f dBm0 not gated, SpanDSP tx: ours %s BER %.2e (%ld bits), SpanDSP %s (%ld bits)\n",
		       c.rate, c.noise_dbm0, r.trained[0] ? "trained" : "NOT trained", qam_ber(&r, 0),
		       r.bits[0], r.trained[1] ? "trained" : "not trained", r.bits[1]);
		CHECK(r.trained[0] && qam_ber(&r, 0) < 1e-3, "%d: ours in continuous noise", c.rate);
	}
	if (f) {
		fprintf(f, "\n ]\n}\n");
		fclose(f);
	}
	return t_report("test_v27ter_ber");
}
