/*
 * V.17 bit error rate in white noise: our receiver and SpanDSP's on the
 * very same samples, for our transmitter and for SpanDSP's, at 14400,
 * 12000, 9600 and 7200 bit/s. The signal is at -14 dBm0; the noise is white over
 * 0-4 kHz, from the first sample of the signal on (SpanDSP's receiver
 * trains on noise heard before the signal). Each run carries a 2^23-1 PRBS
 * checked by a self-synchronising checker (a line error counts three
 * times: BER = errors / 3 / bits).
 *
 * The 1 dB criterion: for each rate and transmitter, the SNR at which each
 * receiver's BER reaches 1e-3 (log BER interpolated between the 1 dB steps)
 * must be no more than 1 dB higher for ours than for SpanDSP's. At every
 * level, ours must train whenever SpanDSP's does and delivers a BER under
 * 5e-2: SpanDSP's receiver checks no ones after its training and goes on
 * to deliver BERs of 0.1-0.15 two or three dB below where ours, which
 * requires two thirds of segment 4's descrambled bits to be ones, gives up.
 */
#include <stdio.h>
#include <string.h>
#include "qamep.h"
#include "tutil.h"

#define UNUSABLE 5e-2	/* a BER at which a receiver that trained is no better than one that did not */

int main(int argc, char **argv)
{
	static const double top[4] = { -38, -35, -32, -29 };	/* noise at the highest SNR */
	static const int rates[4] = { 14400, 12000, 9600, 7200 };
	const char *json = argc > 2 && !strcmp(argv[1], "--json") ? argv[2] : NULL;

	qam_ber_sweep(17, "V.17", "v17_ber", rates, top, 4, UNUSABLE, json);
	return t_report("test_v17_ber");
}
