/*
 * V.27ter bit error rate in white noise: our receiver and SpanDSP's on the
 * very same samples, for our transmitter and for SpanDSP's, at 4800 and 2400
 * bit/s. The signal is at -14 dBm0; the noise is white over 0-4 kHz, from
 * the first sample of the signal on (gated).
 * Each run carries a 2^23-1 PRBS checked by a self-synchronising checker
 * (a line error counts three times: BER = errors / 3 / bits).
 *
 * Pass criterion, as for V.22bis: at each level our receiver is no worse
 * than SpanDSP's by more than 5x (about what 1 dB of SNR gives at these
 * error rates) or a 1e-5 floor, and it trains whenever SpanDSP's does.
 * Each level and transmitter runs again (12 s) with the noise on from
 * 0.7 s before the signal, as on a real line: ours must pass the same rule
 * against SpanDSP's figures in the gated noise (SpanDSP's own receiver
 * trains on the noise and never reaches data).
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
				{
					/*
					 * The noise on from 0.7 s before the signal (not gated; SpanDSP's
					 * receiver trains on it and never reaches data): ours, by the
					 * same rule, against SpanDSP's in the gated noise.
					 */
					struct qamrun_cfg cc = c;
					struct qamrun_res rc;
					double oc;

					cc.gate = 0;
					cc.lead_s = 0.7;
					cc.seconds = 12;
					qam_run(27, &cc, &rc);
					oc = qam_ber(&rc, 0);
					printf("%-5d %-6.0f dBm0 %-5.1f dB %-8s %-9.2e (%6ld)%s  noise first, 12 s\n", c.rate,
					       c.noise_dbm0, -14 - c.noise_dbm0, t ? "ours" : "SpanDSP", oc, rc.bits[0],
					       rc.trained[0] ? "" : " untrained");
					CHECK(rc.trained[0] || !r.trained[1], "%d noise %.0f first: ours not trained",
					      c.rate, c.noise_dbm0);
					CHECK(rc.bits[0] > c.rate * 10, "%d noise %.0f first: ours checked only %ld bits",
					      c.rate, c.noise_dbm0, rc.bits[0]);
					CHECK(oc <= 5 * s + 1e-5, "%d noise %.0f first, tx %s: ours %.2e vs SpanDSP %.2e "
					      "(gated)", c.rate, c.noise_dbm0, t ? "ours" : "SpanDSP", oc, s);
				}
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
	if (f) {
		fprintf(f, "\n ]\n}\n");
		fclose(f);
	}
	return t_report("test_v27ter_ber");
}
