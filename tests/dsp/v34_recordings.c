// SPDX-License-Identifier: GPL-2.0
/*
 * Our V.34 INFO receiver over recordings of real modems (raw 8 kHz s16le, one
 * direction per file): prints every INFO sequence it decodes with a good CRC,
 * its fields and its time, the tones and reversals it hears, and its counts.
 * Not a test of the tree (the recordings may not enter it): run by
 * `make check-recordings RECORDINGS=dir`, see doc/v34.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v34_info.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--require-info0] [--role caller|answerer] FILE.raw...\n"
		"Runs the V.34 INFO receiver (dsp/v34_info_rx.c) over each file, raw 8000 Hz signed\n"
		"16-bit little-endian, and prints what it decodes. A file named *_L_* (what the call\n"
		"modem sent) is heard as the answer modem hears it (1200 Hz, INFO0c/INFO1c, tone B);\n"
		"*_R_* as the call modem hears it (2400 Hz, INFO0a/INFO1a, tone A); --role forces one.\n"
		"--require-info0: exit 1 unless every file gave at least one INFO0 with a good CRC.\n",
		"v34_recordings");
}

static int run(const char *path, int role)
{
	struct smdsp_v34_info_rx_stats st;
	struct smdsp_v34_info_event ev;
	struct smdsp_v34_info_rx *rx;
	const char *base = strrchr(path, '/');
	int16_t buf[160];
	unsigned char raw[320];
	bool calling;
	size_t got;
	FILE *f;
	char line[512];

	base = base ? base + 1 : path;
	if (role)
		calling = role == 1;
	else
		calling = strstr(base, "_R_") != NULL;
	f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	rx = smdsp_v34_info_rx_create(calling, SMDSP_V34_INFO_MASK(SMDSP_V34_INFO0) |
				      SMDSP_V34_INFO_MASK(SMDSP_V34_INFO1C) |
				      SMDSP_V34_INFO_MASK(SMDSP_V34_INFO1A));
	printf("== %s: heard as the %s modem hears it (%s Hz)\n", base, calling ? "call" : "answer",
	       calling ? "2400" : "1200");
	while ((got = fread(raw, 2, 160, f)) > 0) {
		size_t i;

		for (i = 0; i < got; i++)
			buf[i] = (int16_t)(raw[2 * i] | (raw[2 * i + 1] << 8));
		smdsp_v34_info_rx_process(rx, buf, (unsigned int)got);
		while (smdsp_v34_info_rx_get(rx, &ev)) {
			double t = ev.sample / 8000.0;

			switch (ev.type) {
			case SMDSP_V34_EV_FRAME: {
				unsigned int b;

				smdsp_v34_info_print(&ev.info, line, sizeof(line));
				printf("%8.3f s  %s\n", t, line);
				printf("           bits ");
				for (b = 0; b < ev.nbits; b++)
					putchar('0' + ((ev.frame[b / 8] >> (b % 8)) & 1));
				putchar('\n');
				break;
			}
			case SMDSP_V34_EV_TONE_ON:
				printf("%8.3f s  tone %s on\n", t, calling ? "A" : "B");
				break;
			case SMDSP_V34_EV_REVERSAL:
				printf("%8.3f s  tone %s reversal\n", t, calling ? "A" : "B");
				break;
			case SMDSP_V34_EV_TONE_OFF:
				printf("%8.3f s  tone %s off\n", t, calling ? "A" : "B");
				break;
			}
		}
	}
	fclose(f);
	smdsp_v34_info_rx_get_stats(rx, &st);
	printf("   counts: INFO0 %u, INFO1c %u, INFO1a %u; bad CRC %u, truncated %u, bad range %u; "
	       "tones %u, reversals %u, events lost %u\n",
	       st.frames[SMDSP_V34_INFO0], st.frames[SMDSP_V34_INFO1C], st.frames[SMDSP_V34_INFO1A],
	       st.bad_crc, st.truncated, st.bad_range, st.tones, st.reversals, st.lost_events);
	smdsp_v34_info_rx_free(rx);
	return (int)st.frames[SMDSP_V34_INFO0];
}

int main(int argc, char **argv)
{
	int i, role = 0, bad = 0, files = 0;
	bool require = false;

	for (i = 1; i < argc; i++) {
		int n;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--require-info0")) {
			require = true;
			continue;
		}
		if (!strcmp(argv[i], "--role") && i + 1 < argc) {
			i++;
			role = !strcmp(argv[i], "caller") ? 1 : !strcmp(argv[i], "answerer") ? 2 : -1;
			if (role >= 0)
				continue;
		}
		if (role < 0 || argv[i][0] == '-') {
			usage(stderr);
			return 2;
		}
		n = run(argv[i], role);
		files++;
		if (n < 0 || (require && n == 0)) {
			printf("   FAIL: no INFO0 with a good CRC in %s\n", argv[i]);
			bad++;
		}
	}
	if (!files) {
		usage(stderr);
		return 2;
	}
	printf("v34_recordings: %d files, %d without an INFO0\n", files, bad);
	return bad ? 1 : 0;
}
