/*
 * Bit error rate in white noise: our V.22bis receiver against SpanDSP's on
 * the very same received samples. A call runs between our calling modem and
 * SpanDSP's answering modem with noise added at both receivers; a passive
 * SpanDSP caller hears exactly what our caller hears, and a passive copy of
 * our answerer hears exactly what SpanDSP's answerer hears. Both directions
 * carry a 2^23-1 PRBS checked by a self-synchronising checker (each line
 * error counts three times, so BER = errors / 3 / bits).
 *
 * The line's noise is continuous: it runs from the first sample, before
 * either modem sends (not gated to the signals), so both receivers hear
 * noise alone first, as on a real line.
 *
 * Writes a table, and out/ber-v22bis.json when run with --json FILE.
 * The call must run at 2400 bit/s for the comparison to mean anything; in
 * -22 dBm0 of noise SpanDSP's answerer sometimes misses S1 (the call then
 * falls back to 1200), so up to five noise seeds are tried.
 *
 * Pass criterion: at each level our receiver is no worse than SpanDSP's by
 * more than a factor that a 1 dB SNR difference gives at that BER (we use
 * 5x, or a 1e-5 floor, which is looser than 1 dB only where both are tiny).
 */
#include <stdio.h>
#include <string.h>
#include "v22ep.h"
#include "line.h"
#include "tutil.h"

struct ber_row {
	double noise;
	double snr_db;
	long ours_bits[2], ours_err[2];	/* [0]: caller side (answerer's signal), [1]: answerer side */
	long sp_bits[2], sp_err[2];
};

static double ber(long err, long bits)
{
	return bits ? err / 3.0 / bits : 1.0;
}

/* Returns true when the call ran at 2400 bit/s (the comparison needs it). */
static bool run_level(double noise_dbm0, double seconds, uint64_t seed, struct ber_row *row)
{
	bool ok;
	struct v22ep a, b, sa, sb;	/* a ours caller, b SpanDSP answerer, shadows */
	struct line_cfg lc = { .loss_db = 0, .noise_dbm0 = noise_dbm0, .echo_db = -200, .delay = 40,
			       .seed = seed };
	struct line *l = line_create(&lc);
	int16_t at[160], ar[160] = { 0 }, bt[160], br[160] = { 0 }, junk[160];
	long blocks = (long)(seconds * 50), i;

	v22ep_init(&a, 1, 1, 2400, 0, 1, 1001);
	v22ep_init(&b, 0, 0, 2400, 0, 1, 2002);
	v22ep_init(&sa, 0, 1, 2400, 0, 1, 3003);
	v22ep_init(&sb, 1, 0, 2400, 0, 1, 4004);
	sa.passive = sb.passive = 1;
	/* SpanDSP's receivers need a raised cutoff when noise is present */
	v22bis_rx_signal_cutoff(b.sp, -28);
	v22bis_rx_signal_cutoff(sa.sp, -28);
	for (i = 0; i < blocks; i++) {
		v22ep_process(&a, ar, at, 160);
		v22ep_process(&b, br, bt, 160);
		v22ep_process(&sa, ar, junk, 160);
		v22ep_process(&sb, br, junk, 160);
		line_process(l, at, ar, bt, br, 160);
	}
	line_free(l);
	row->noise = noise_dbm0;
	/* in-band SNR: the signals are at about -13 dBm0, the noise spreads over 4 kHz */
	row->snr_db = -13.0 - noise_dbm0 + 10 * log10(4000.0 / 600.0);
	row->ours_bits[0] = a.pchk.bits;
	row->ours_err[0] = a.pchk.errors;
	row->sp_bits[0] = sa.pchk.bits;
	row->sp_err[0] = sa.pchk.errors;
	row->sp_bits[1] = b.pchk.bits;
	row->sp_err[1] = b.pchk.errors;
	row->ours_bits[1] = sb.pchk.bits;
	row->ours_err[1] = sb.pchk.errors;
	ok = smdsp_v22bis_rate(a.m) == 2400 && v22bis_get_current_bit_rate(b.sp) == 2400;
	v22ep_free(&a);
	v22ep_free(&b);
	v22ep_free(&sa);
	v22ep_free(&sb);
	return ok;
}

int main(int argc, char **argv)
{
	static const double levels[] = { -30, -25, -22 };
	struct ber_row rows[3];
	const char *json = argc > 2 && !strcmp(argv[1], "--json") ? argv[2] : NULL;
	FILE *f;
	int i, d;

	printf("V.22bis 2400 bit/s, signals at about -13 dBm0, white noise over 0-4 kHz, 40 s calls\n");
	printf("%-10s %-28s %-12s %-12s %-28s %-12s %-12s\n", "noise", "answerer->caller signal",
	       "ours BER", "SpanDSP BER", "caller->answerer signal", "ours BER", "SpanDSP BER");
	for (i = 0; i < 3; i++) {
		struct ber_row *r = &rows[i];

		int attempt;

		/*
		 * In this much noise SpanDSP's answerer sometimes misses our S1 and
		 * the call falls back to 1200 bit/s: try other noise seeds.
		 */
		for (attempt = 1; attempt <= 5; attempt++)
			if (run_level(levels[i], 40, 777 + attempt * 1000, r))
				break;
		CHECK(attempt <= 5, "noise %.0f: no 2400 bit/s call in 5 attempts", levels[i]);
		if (attempt > 1)
			printf("(noise %.0f dBm0: %d attempts before a 2400 bit/s call)\n", levels[i], attempt);
		printf("%-6.0f dBm0 %-28s %-12.2e %-12.2e %-28s %-12.2e %-12.2e\n", r->noise,
		       "(SpanDSP tx)", ber(r->ours_err[0], r->ours_bits[0]), ber(r->sp_err[0], r->sp_bits[0]),
		       "(our tx)", ber(r->ours_err[1], r->ours_bits[1]), ber(r->sp_err[1], r->sp_bits[1]));
		printf("           bits checked: ours %ld/%ld, SpanDSP %ld/%ld\n", r->ours_bits[0],
		       r->ours_bits[1], r->sp_bits[0], r->sp_bits[1]);
		for (d = 0; d < 2; d++) {
			double o = ber(r->ours_err[d], r->ours_bits[d]);
			double s = ber(r->sp_err[d], r->sp_bits[d]);

			CHECK(r->ours_bits[d] > 40000, "noise %.0f dir %d: ours checked only %ld bits",
			      r->noise, d, r->ours_bits[d]);
			CHECK(o <= 5 * s + 1e-5, "noise %.0f dir %d: ours %.2e vs SpanDSP %.2e", r->noise, d,
			      o, s);
		}
	}
	if (json) {
		f = fopen(json, "w");
		if (f) {
			fprintf(f, "{\n \"test\": \"v22bis_ber\", \"rate\": 2400, \"rows\": [\n");
			for (i = 0; i < 3; i++) {
				struct ber_row *r = &rows[i];

				fprintf(f, "  {\"noise_dbm0\": %.0f, \"ours_ber_rx_spandsp_tx\": %.3e, "
					"\"spandsp_ber_rx_spandsp_tx\": %.3e, \"ours_ber_rx_our_tx\": %.3e, "
					"\"spandsp_ber_rx_our_tx\": %.3e, \"bits\": [%ld, %ld, %ld, %ld]}%s\n",
					r->noise, ber(r->ours_err[0], r->ours_bits[0]),
					ber(r->sp_err[0], r->sp_bits[0]), ber(r->ours_err[1], r->ours_bits[1]),
					ber(r->sp_err[1], r->sp_bits[1]), r->ours_bits[0], r->sp_bits[0],
					r->ours_bits[1], r->sp_bits[1], i < 2 ? "," : "");
			}
			fprintf(f, " ]\n}\n");
			fclose(f);
		}
	}
	return t_report("test_v22bis_ber");
}
