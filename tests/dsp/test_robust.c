/*
 * Bad input never crashes or hangs the pump: silence, full-scale clipping,
 * DC, random noise, square waves, buffers of length 0 and of odd lengths,
 * in every phase of the engine (on hook, dialled, answering, connected),
 * and the blocks on their own. Run under the normal build; the fuzz targets
 * repeat this with sanitizers.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <smdsp/pump.h>
#include <smdsp/modem.h>
#include <smdsp/v22bis.h>
#include <smdsp/fsk.h>
#include <smdsp/anstone.h>
#include <smdsp/dtmf.h>
#include <smdsp/callprog.h>
#include <smdsp/ring.h>
#include "tutil.h"

enum { SIG_SILENCE, SIG_CLIP, SIG_DC, SIG_NOISE, SIG_SQUARE, SIG_NEG_DC, SIG_ALT, NSIG };
static const char *sig_name[] = { "silence", "clipped 2 kHz", "DC +32767", "noise", "square 1 kHz",
				  "DC -32768", "+-32767 alternating" };

static void make(int kind, int16_t *x, int n, uint64_t *seed, long t0)
{
	int i;

	for (i = 0; i < n; i++) {
		long t = t0 + i;

		switch (kind) {
		case SIG_SILENCE:
			x[i] = 0;
			break;
		case SIG_CLIP:
			x[i] = t_sat16(90000 * sin(2 * M_PI * 2000 * t / 8000.0));
			break;
		case SIG_DC:
			x[i] = 32767;
			break;
		case SIG_NOISE:
			x[i] = (int16_t)(t_rand64(seed) >> 48);
			break;
		case SIG_SQUARE:
			x[i] = (t / 4) & 1 ? 32767 : -32768;
			break;
		case SIG_NEG_DC:
			x[i] = -32768;
			break;
		default:
			x[i] = t & 1 ? 32767 : -32767;
			break;
		}
	}
}

static const unsigned int sizes[] = { 0, 1, 7, 160, 161, 333, 0, 2, 1023, 80, 99, 100, 20 };

/* Engine: each signal in each phase; must keep returning 0 with sane output and state. */
static void engine(void)
{
	int kind, mode;
	uint64_t seed = 9;
	static int16_t rx[2048], tx[2048];

	/* modes 3..5: the same with V.8 and V.42 on */
	for (mode = 0; mode < 6; mode++) {
		for (kind = 0; kind < NSIG; kind++) {
			struct smdsp_modem_config c = { .sample_rate = 8000, .auto_answer_rings = 1 };
			struct smdsp_modem *m;
			struct smdsp_modem_event ev;
			long t = 0, i;
			int bad = 0, events = 0;
			uint8_t junk[64];

			if (mode >= 3)
				c.flags = SMDSP_MODEM_FLAG_V8 | SMDSP_MODEM_FLAG_V42;
			m = smdsp_modem_create(&c);
			if (mode % 3 == 1)
				smdsp_modem_dial(m, "123");
			if (mode % 3 == 2)
				smdsp_modem_answer(m);
			/* 60 s of it, in odd sizes */
			for (i = 0; t < 8000L * 60; i++) {
				unsigned int n = sizes[i % SMDSP_ARRAY_SIZE(sizes)];

				make(kind, rx, (int)n, &seed, t);
				if (smdsp_modem_process(m, rx, tx, n) != 0)
					bad++;
				t += n;
				while (smdsp_modem_get_event(m, &ev))
					events++;
				smdsp_modem_read(m, junk, sizeof(junk));
				smdsp_modem_write(m, junk, 3);
				if (smdsp_modem_period(m) != 20 && smdsp_modem_period(m) != 100)
					bad++;
			}
			printf("engine %-8s%s + %-20s: 60 s in odd buffers, %d events, phase %d, ok=%d\n",
			       mode % 3 == 0 ? "on hook" : mode % 3 == 1 ? "dialled" : "answered",
			       mode >= 3 ? " (V.8, V.42)" : "", sig_name[kind], events,
			       smdsp_modem_phase(m), !bad);
			CHECK(!bad, "engine returned errors");
			smdsp_modem_free(m);
		}
	}
}

/* A V.22bis call in data mode, then the line turns into garbage: no crash, carrier lost or data. */
static void blocks(void)
{
	int kind;
	uint64_t seed = 4;
	static int16_t x[4096], y[4096];

	for (kind = 0; kind < NSIG; kind++) {
		struct smdsp_v22bis_config vc = { .calling = 1, .max_rate = 2400 };
		struct smdsp_v22bis *v = smdsp_v22bis_create(&vc);
		struct smdsp_fsk_rx *f = smdsp_fsk_rx_create(SMDSP_V21_CH1, NULL, NULL, NULL);
		struct smdsp_anstone_rx *a = smdsp_anstone_rx_create(2100000);
		struct smdsp_dtmf_rx *d = smdsp_dtmf_rx_create();
		struct smdsp_callprog *c = smdsp_callprog_create(SMDSP_CALLPROG_PLAN_NA);
		struct smdsp_ring *r = smdsp_ring_create();
		long t = 0;
		int i;

		for (i = 0; i < 400; i++) {
			unsigned int n = sizes[i % SMDSP_ARRAY_SIZE(sizes)] * 3 % 4096;

			make(kind, x, (int)n, &seed, t);
			smdsp_v22bis_process(v, x, y, n);
			smdsp_fsk_rx_process(f, x, n);
			smdsp_anstone_rx_process(a, x, n);
			smdsp_dtmf_rx_process(d, x, n);
			smdsp_callprog_process(c, x, n);
			smdsp_ring_process(r, x, n);
			t += n;
		}
		printf("blocks + %-20s: v22 carrier %d state %d, fsk carrier %d, answer tone %d, ring %u\n",
		       sig_name[kind], smdsp_v22bis_carrier(v), smdsp_v22bis_get_state(v), smdsp_fsk_rx_carrier(f),
		       smdsp_anstone_rx_kind(a), smdsp_ring_count(r));
		/* none of these is an answer tone, a DTMF digit or a call-progress tone */
		CHECK(smdsp_anstone_rx_kind(a) == SMDSP_ANS_NONE, "answer tone from %s", sig_name[kind]);
		if (kind == SIG_SILENCE || kind == SIG_DC || kind == SIG_NEG_DC)
			CHECK(!smdsp_v22bis_carrier(v) && !smdsp_fsk_rx_carrier(f), "carrier from %s",
			      sig_name[kind]);
		smdsp_v22bis_free(v);
		smdsp_fsk_rx_free(f);
		smdsp_anstone_rx_free(a);
		smdsp_dtmf_rx_free(d);
		smdsp_callprog_free(c);
		smdsp_ring_free(r);
	}
}

int main(void)
{
	engine();
	blocks();
	return t_report("test_robust");
}
