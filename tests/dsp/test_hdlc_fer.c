/*
 * Frame error rate of T.30-style HDLC frames on V.21 channel 2 in white
 * noise: our receiver (smdsp_fsk_rx + smdsp_hdlc_rx) and SpanDSP's (fsk_rx in
 * synchronous mode + hdlc_rx) decode the very same samples, sent by our
 * transmitter and by SpanDSP's. Bursts as T.30 sends them: 1 s of flags,
 * three frames of 30 octets, 200 ms of silence (the noise goes on through
 * it); both receivers want 5 back-to-back flags before frames. A frame
 * counts only if it arrives intact with a good FCS; a good FCS on anything
 * that was not sent counts as a false frame.
 *
 * The table gives the FER per SNR (signal power against the noise in
 * 0-4 kHz), and the SNR each receiver needs for a FER of 10 % (log-FER
 * interpolated); ours must need no more than SpanDSP's + 1 dB, and never
 * deliver a false frame.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hdlcep.h"
#include "tutil.h"

#define NPTS 9
static const double snr_db[NPTS] = { -2, -1, 0, 1, 2, 3, 4, 5, 6 };

static double need(const double *fer, double target)
{
	int i;

	if (fer[0] <= target)
		return snr_db[0];
	for (i = 1; i < NPTS; i++) {
		if (fer[i] <= target) {
			double a = log10(fer[i - 1] > 1e-4 ? fer[i - 1] : 1e-4);
			double b = log10(fer[i] > 1e-4 ? fer[i] : 1e-4);
			double t = log10(target);

			return snr_db[i - 1] + (snr_db[i] - snr_db[i - 1]) * (a - t) / (a - b);
		}
	}
	return 99;
}

int main(void)
{
	int t;

	printf("V.21 ch2 HDLC frame error rate, 30-octet frames, both receivers on the same samples\n");
	printf("%-8s %6s %7s %12s %12s %8s %8s\n", "tx", "SNR", "frames", "FER ours", "FER SpanDSP", "bad ours",
	       "bad sp");
	for (t = 1; t >= 0; t--) {
		struct hdlc_sig_cfg c = { .ours_tx = t, .bursts = 70, .frames = 3, .frame_len = 30,
					  .seed = 21 + t };
		struct hdlc_log log;
		double fer[2][NPTS], p = 0, cpu[2] = { 0, 0 }, need_o, need_s;
		long n, i, act = 0;
		int16_t *x = hdlc_make_signal(&c, &n, &log), *y = malloc(n * sizeof(int16_t));
		int k, rx, falses = 0;

		/* the signal's power while it is on */
		for (i = 0; i < n; i++) {
			if (x[i]) {
				p += (double)x[i] * x[i];
				act++;
			}
		}
		p /= act;
		for (k = 0; k < NPTS; k++) {
			double sigma = sqrt(p / pow(10, snr_db[k] / 10));
			uint64_t seed = 1000 + k;
			struct hdlc_rx_res r[2];

			for (i = 0; i < n; i++)
				y[i] = t_sat16(x[i] + sigma * t_gauss(&seed));
			for (rx = 0; rx < 2; rx++) {
				hdlc_receive(y, n, !rx, 0, 5, &log, &r[rx]);
				fer[rx][k] = 1.0 - (double)r[rx].matched / log.n;
				cpu[rx] += r[rx].cpu;
				falses += r[rx].false_good;
			}
			printf("%-8s %4.0f dB %7d %12.4f %12.4f %8d %8d%s\n", t ? "ours" : "SpanDSP", snr_db[k], log.n,
			       fer[0][k], fer[1][k], r[0].bad, r[1].bad,
			       r[0].false_good || r[1].false_good ? "  FALSE FRAMES" : "");
			CHECK(r[0].false_good == 0, "%s tx %.0f dB: our receiver passed %d false frames",
			      t ? "our" : "SpanDSP's", snr_db[k], r[0].false_good);
		}
		need_o = need(fer[0], 0.1);
		need_s = need(fer[1], 0.1);
		printf("%-8s SNR for FER 10 %%: ours %.1f dB, SpanDSP %.1f dB (ours better by %.1f dB); "
		       "receiver CPU per second of signal: ours %.0f us, SpanDSP %.0f us\n",
		       t ? "ours" : "SpanDSP", need_o, need_s, need_s - need_o, cpu[0] / (NPTS * n / 8000.0) * 1e6,
		       cpu[1] / (NPTS * n / 8000.0) * 1e6);
		CHECK(need_o <= need_s + 1.0, "%s tx: ours needs %.1f dB for FER 10%%, SpanDSP %.1f dB",
		      t ? "our" : "SpanDSP's", need_o, need_s);
		CHECK(fer[0][NPTS - 1] == 0, "%s tx: our receiver lost frames at %.0f dB",
		      t ? "our" : "SpanDSP's", snr_db[NPTS - 1]);
		(void)falses;
		free(x);
		free(y);
		hdlc_log_free(&log);
	}
	return t_report("test_hdlc_fer");
}
