/*
 * v32bis_follow: our V.32bis receiver on a recording of one direction of a
 * call (raw 8 kHz s16le). Prints the start-up it follows: AA (1800 Hz) and
 * AC (600 + 3000 Hz) from tone detectors over 50 ms blocks, then the
 * receiver's stages (S, S-bar, TRN), the rate words it decodes (R1/R2/R3,
 * E) and whether B1 trains it.
 *
 *   v32bis_follow [--caller|--answerer] FILE.raw
 *
 * --caller: the recording is what the calling modem sent (our answerer's
 * receiver hears it, GPC); --answerer (the default): what the answering
 * modem sent. The recording is only read, never copied anywhere.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v32bis.h>

static long now;
static long bits;
static int down;	/* the carrier went: a fresh receiver for the next S */

static void put_bit(void *u, int b)
{
	(void)u;
	(void)b;
	bits++;
}

static void status(void *u, enum smdsp_status st)
{
	static const char *const name[] = { "", "carrier up", "carrier down", "training", "trained",
					    "training failed", "retrain" };

	(void)u;
	printf("%7.3f s  status: %s\n", now / 8000.0, st < 7 ? name[st] : "?");
	if (st == SMDSP_STATUS_CARRIER_DOWN)
		down = 1;
}

static double tone(const int16_t *x, int n, double f)
{
	double w = 2 * M_PI * f / 8000, c = 2 * cos(w), s1 = 0, s2 = 0, s0;

	for (int i = 0; i < n; i++) {
		s0 = x[i] + c * s1 - s2;
		s2 = s1;
		s1 = s0;
	}
	return 2 * (s1 * s1 + s2 * s2 - c * s1 * s2) / n / n;
}

static const char *rates_str(uint16_t w)
{
	static char buf[64];
	bool e;
	int r = smdsp_v32bis_rword_rates(w, &e);

	buf[0] = 0;
	if (r < 0)
		return "not a rate word";
	snprintf(buf, sizeof(buf), "%s%s%s%s%s%s", e ? "E: " : "", r & 1 ? "4800 " : "", r & 2 ? "7200 " : "",
		 r & 4 ? "9600 " : "", r & 8 ? "12000 " : "", r & 16 ? "14400 " : "");
	return buf;
}

int main(int argc, char **argv)
{
	static const char *const st_name[] = { "idle", "S", "S-bar", "TRN", "R", "B1", "data" };
	bool caller_sent = false;
	const char *path = NULL;
	struct smdsp_v32bis_rx *rx;
	int16_t x[400];
	FILE *f;
	int i, last_st = -1, last_tone = -1;
	uint16_t last_w = 0;
	unsigned int last_rate = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--caller"))
			caller_sent = true;
		else if (!strcmp(argv[i], "--answerer"))
			caller_sent = false;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			path = NULL, i = argc;
		else
			path = argv[i];
	}
	if (!path) {
		fprintf(stderr, "usage: %s [--caller|--answerer] FILE.raw (8 kHz s16le, one direction)\n",
			argv[0]);
		return 2;
	}
	f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	/* the recording's sender's role: our receiver is of the other */
	rx = smdsp_v32bis_rx_create(!caller_sent, put_bit, status, NULL);
	while (fread(x, 2, 400, f) == 400) {
		double p1800 = tone(x, 400, 1800), p600 = tone(x, 400, 600), p3000 = tone(x, 400, 3000);
		double p2100 = tone(x, 400, 2100), tot = 0;
		int t = -1;
		enum smdsp_v32bis_rx_state st;

		for (i = 0; i < 400; i++)
			tot += (double)x[i] * x[i];
		tot /= 400;
		/* a tone holding most of the block's power */
		if (p2100 > 0.6 * tot)
			t = 0;
		else if (p1800 > 0.6 * tot)
			t = 1;
		else if (p600 + p3000 > 0.6 * tot && p600 > 0.1 * tot && p3000 > 0.1 * tot)
			t = 2;
		/*
		 * S follows AC at once (and the caller's after CC and a
		 * silence), and each training follows a silence: a fresh
		 * receiver, as the start-up's controller would start it,
		 * without the carrier detector's memory of the tone or of the
		 * signal before
		 */
		if ((last_tone > 0 && t < 0 && smdsp_v32bis_rx_state(rx) == SMDSP_V32BIS_RX_IDLE) || down) {
			printf("%7.3f s  %s: receiver started for S\n", now / 8000.0, down ? "carrier gone" : "tone ended");
			smdsp_v32bis_rx_reset(rx);
			down = 0;
		}
		if (t != last_tone && t >= 0)
			printf("%7.3f s  tone: %s\n", now / 8000.0,
			       t == 0 ? "2100 Hz (answer tone)" : t == 1 ? "1800 Hz (AA or CC)" : "600 + 3000 Hz (AC or CA)");
		last_tone = t;
		for (i = 0; i < 400; i += 40) {
			smdsp_v32bis_rx_process(rx, x + i, 40);
			now += 40;
			st = smdsp_v32bis_rx_state(rx);
			if ((int)st != last_st) {
				printf("%7.3f s  receiver: %s\n", now / 8000.0, st_name[st]);
				last_st = (int)st;
			}
			if (smdsp_v32bis_rx_rword(rx) != last_w) {
				last_w = smdsp_v32bis_rx_rword(rx);
				if (last_w)
					printf("%7.3f s  rate word 0x%04x: %s\n", now / 8000.0, last_w, rates_str(last_w));
			}
			if (smdsp_v32bis_rx_rate(rx) != last_rate) {
				last_rate = smdsp_v32bis_rx_rate(rx);
				if (last_rate)
					printf("%7.3f s  E: data at %u bit/s\n", now / 8000.0, last_rate);
			}
		}
	}
	printf("end at %.3f s: %ld data bits delivered, trained %d, SNR estimate %.1f dB\n", now / 8000.0, bits,
	       smdsp_v32bis_rx_trained(rx), smdsp_v32bis_rx_snr_10(rx) / 10.0);
	smdsp_v32bis_rx_free(rx);
	fclose(f);
	return 0;
}
