/*
 * V.29 bit error rate in white noise: our receiver and SpanDSP's on the
 * very same samples, for our transmitter and for SpanDSP's, at 9600, 7200
 * and 4800 bit/s. The signal is at -14 dBm0; the noise is white over
 * 0-4 kHz, from the first sample of the signal on (SpanDSP's receiver
 * trains on noise heard before the signal). Each run carries a 2^23-1 PRBS
 * checked by a self-synchronising checker (a line error counts three
 * times: BER = errors / 3 / bits).
 *
 * The 1 dB criterion: for each rate and transmitter, the SNR at which each
 * receiver's BER reaches 1e-3 (log BER interpolated between the 1 dB steps)
 * must be no more than 1 dB higher for ours than for SpanDSP's. At every
 * level, ours must train whenever SpanDSP's does.
 */
#include <stdio.h>
#include <string.h>
#include "qamep.h"
#include "tutil.h"

int main(int argc, char **argv)
{
	static const double top[3] = { -37, -33, -29 };	/* noise at the highest SNR */
	static const int rates[3] = { 9600, 7200, 4800 };
	const char *json = argc > 2 && !strcmp(argv[1], "--json") ? argv[2] : NULL;

	qam_ber_sweep(29, "V.29", "v29_ber", rates, top, 3, 0, json);
	return t_report("test_v29_ber");
}
