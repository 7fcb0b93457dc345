// SPDX-License-Identifier: GPL-2.0
/*
 * Two smline modem engines back to back, no exchange: the reference for what
 * SpanDSP reaches on a given channel (throughput, set-up time), and the
 * first check that every modulation / V.8 / V.42 combination connects.
 *
 * b2b [options]   prints one JSON object (throughput: bytes per second of
 *                 data phase, and of the stream from the first bytes,
 *                 each direction)
 *   --mod v21|v22|v22bis|v32|v32bis|v34  --v8  --v42  --bytes N  --noise DBM0  --atten DB
 *   --delay MS  --seed S  --max-s SECONDS  --answer-cfg WORDS --caller-cfg WORDS  -v
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modem.h"

static const char usage[] =
	"usage: b2b [options]\n"
	"Two smline modem engines back to back (no line exchange); prints one JSON object.\n"
	"  --mod WORD          modulation, as smline's route words: v21, v22, v22bis, v32,\n"
	"                      v32bis, v34 (V.8 on as well, as in a route)\n"
	"  --v8                both ends negotiate with V.8\n"
	"  --v42               V.42 error correction on both ends\n"
	"  --answer-cfg WORD   one more smline word for the answerer (repeatable)\n"
	"  --caller-cfg WORD   one more smline word for the caller (repeatable)\n"
	"  --bytes N           data each way (default 4096)\n"
	"  --noise DBM0        white noise on the line\n"
	"  --atten DB          line loss\n"
	"  --delay MS          one-way delay, each way (the round trip of a path\n"
	"                      between the modems, such as a guest's audio)\n"
	"  --seed S            the data's and the noise's seed\n"
	"  --max-s SECONDS     give up after this much line time\n"
	"  -v, -vv             debug log, and frames\n"
	"  --help              this text\n";

struct side {
	struct sml_modem *m;
	struct sml_fifo tx, rx;
	uint64_t seed, sent, got;
	uint32_t crc_got, crc_want;
	uint64_t bad;
	int64_t done_sample;
	/* the first bytes to arrive (one I frame's with V.42) and when */
	int64_t first_sample;
	uint64_t first_bytes;
};

static void feed(struct side *s, uint64_t total)
{
	uint8_t buf[256];

	while (s->sent < total && sml_fifo_space(&s->tx) > 0) {
		size_t n = sizeof(buf);

		if (n > total - s->sent)
			n = (size_t)(total - s->sent);
		if (n > sml_fifo_space(&s->tx))
			n = sml_fifo_space(&s->tx);
		sml_payload_fill(s->seed, s->sent, buf, n);
		sml_fifo_put(&s->tx, buf, n);
		s->sent += n;
	}
}

static void drain(struct side *s, uint64_t peer_seed, int64_t now, uint64_t total)
{
	uint8_t buf[256], want[256];
	size_t n, i;

	while ((n = sml_fifo_get(&s->rx, buf, sizeof(buf))) > 0) {
		sml_payload_fill(peer_seed, s->got, want, n);
		for (i = 0; i < n; i++)
			s->bad += buf[i] != want[i];
		s->crc_got = sml_crc32(s->crc_got, buf, n);
		if (s->first_sample < 0)
			s->first_sample = now;
		if (now == s->first_sample)
			s->first_bytes += n;
		s->got += n;
		if (s->got >= total && s->done_sample < 0)
			s->done_sample = now;
	}
}

static void channel(const int16_t *in, int16_t *out, int n, double gain,
		    double noise_rms, struct sml_rng *r, struct sml_delay *d)
{
	for (int i = 0; i < n; i++) {
		double v = sml_delay_push(d, in[i]) * gain +
			   (noise_rms > 0 ? noise_rms * sml_rng_gauss(r) : 0);

		out[i] = (int16_t)lrint(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
	}
}

/*
 * Bytes per second of one receiver's stream: from its first bytes (the first
 * I frame) to its last, the first bytes not counted, as the guest's calls
 * are measured (tools/bench_modem.py).  0 when there is no stream.
 */
static double stream_bps(const struct side *s)
{
	if (s->done_sample <= s->first_sample || s->got <= s->first_bytes)
		return 0.0;
	return 8000.0 * (double)(s->got - s->first_bytes) /
	       (double)(s->done_sample - s->first_sample);
}

/*
 * V.34's two directions can differ: each end's view of what it sends and
 * hears, the round trip phase 2 measured and its canceller's ERLE; closes
 * the JSON object.
 */
static void print_v34(const struct sml_v34far_info *a, const struct sml_v34far_info *c)
{
	printf(", \"v34\": {\"c_to_a\": %u, \"a_to_c\": %u, \"answer_rx\": %u, \"caller_rx\": %u, "
	       "\"baud_c_to_a\": %u, \"baud_a_to_c\": %u, \"high_c_to_a\": %s, \"high_a_to_c\": %s, "
	       "\"rtd_ms_caller\": %.1f, \"rtd_ms_answer\": %.1f, "
	       "\"erle_db_caller\": %.1f, \"erle_db_answer\": %.1f, "
	       "\"mse_db_caller\": %.1f, \"mse_db_answer\": %.1f}}\n",
	       c->rate_tx, a->rate_tx, a->rate_rx, c->rate_rx, c->baud_tx, a->baud_tx,
	       c->high_tx ? "true" : "false", a->high_tx ? "true" : "false",
	       c->rtd_samples / 8.0, a->rtd_samples / 8.0, c->erle_db10 / 10.0,
	       a->erle_db10 / 10.0, c->mse_db10 / 10.0, a->mse_db10 / 10.0);
}

int main(int argc, char **argv)
{
	struct sml_modem_cfg ac, cc;
	struct side a = { 0 }, c = { 0 };
	uint64_t bytes = 4096;
	double noise = -99, atten = 0, max_s = 60, delay_ms = 0;
	struct sml_delay d_ca, d_ac;
	uint64_t seed = 1;
	struct sml_rng r1, r2;
	int16_t atx[80], ctx[80], arx[80], crx[80];
	int64_t now = 0;
	const struct sml_modem_stats *as, *cs;
	int i;

	sml_log_prog = "b2b";
	sml_modem_cfg_default(&ac);
	sml_modem_cfg_default(&cc);
	ac.answer = true;
	ac.ans_delay_ms = 500;
	for (i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "--mod") && i + 1 < argc) {
			i++;
			if (sml_modem_cfg_parse_word(&ac, argv[i]) ||
			    sml_modem_cfg_parse_word(&cc, argv[i]))
				return 2;
		} else if (!strcmp(o, "--v8")) {
			ac.v8 = cc.v8 = true;
		} else if (!strcmp(o, "--v42")) {
			ac.v42 = cc.v42 = true;
		} else if (!strcmp(o, "--answer-cfg") && i + 1 < argc) {
			if (sml_modem_cfg_parse_word(&ac, argv[++i]))
				return 2;
		} else if (!strcmp(o, "--caller-cfg") && i + 1 < argc) {
			if (sml_modem_cfg_parse_word(&cc, argv[++i]))
				return 2;
		} else if (!strcmp(o, "--bytes") && i + 1 < argc) {
			bytes = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(o, "--noise") && i + 1 < argc) {
			noise = atof(argv[++i]);
		} else if (!strcmp(o, "--atten") && i + 1 < argc) {
			atten = atof(argv[++i]);
		} else if (!strcmp(o, "--delay") && i + 1 < argc) {
			char *end;

			delay_ms = strtod(argv[++i], &end);
			if (end == argv[i] || *end ||
			    !(delay_ms >= 0 && delay_ms <= 10000)) {
				fprintf(stderr, "b2b: --delay %s: 0 to 10000 ms\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(o, "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(o, "--max-s") && i + 1 < argc) {
			max_s = atof(argv[++i]);
		} else if (!strcmp(o, "-v")) {
			sml_log_level = SML_LOG_DEBUG;
		} else if (!strcmp(o, "-vv")) {
			sml_log_level = SML_LOG_FRAMES;
		} else if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(usage, stdout);
			return 0;
		} else {
			fprintf(stderr, "b2b: bad option %s (--help)\n", o);
			return 2;
		}
	}
	if (sml_delay_init(&d_ca, (int)lrint(delay_ms * SML_RATE / 1000)) ||
	    sml_delay_init(&d_ac, d_ca.len)) {
		fprintf(stderr, "b2b: out of memory\n");
		return 2;
	}
	sml_fifo_init(&a.tx, 65536);
	sml_fifo_init(&a.rx, 65536);
	sml_fifo_init(&c.tx, 65536);
	sml_fifo_init(&c.rx, 65536);
	a.seed = seed * 2 + 1;
	c.seed = seed * 2 + 2;
	a.done_sample = c.done_sample = -1;
	a.first_sample = c.first_sample = -1;
	sml_rng_seed(&r1, seed * 7 + 1);
	sml_rng_seed(&r2, seed * 7 + 2);
	a.m = sml_modem_new(&ac, &a.tx, &a.rx, "answer", NULL, NULL);
	c.m = sml_modem_new(&cc, &c.tx, &c.rx, "caller", NULL, NULL);
	memset(atx, 0, sizeof(atx));
	memset(ctx, 0, sizeof(ctx));
	while (now < (int64_t)(max_s * SML_RATE)) {
		double g = sml_db_to_gain(-atten);
		double nr = noise > -90 ? sml_dbm0_to_rms(noise) : 0;

		channel(ctx, arx, 80, g, nr, &r1, &d_ca);
		channel(atx, crx, 80, g, nr, &r2, &d_ac);
		sml_modem_process(a.m, arx, atx, 80);
		sml_modem_process(c.m, crx, ctx, 80);
		now += 80;
		feed(&a, bytes);
		feed(&c, bytes);
		drain(&a, c.seed, now, bytes);
		drain(&c, a.seed, now, bytes);
		if (a.done_sample >= 0 && c.done_sample >= 0)
			break;
		if (sml_modem_phase(a.m) == SML_PH_FAILED ||
		    sml_modem_phase(c.m) == SML_PH_FAILED)
			break;
	}
	as = sml_modem_stats(a.m);
	cs = sml_modem_stats(c.m);
	printf("{\"mod\": \"%s\", \"v8\": %s, \"v42\": %s, \"rate\": %d, "
	       "\"answer_phase\": \"%s\", \"caller_phase\": \"%s\", "
	       "\"answer_data_s\": %.3f, \"caller_data_s\": %.3f, "
	       "\"bytes\": %llu, \"answer_got\": %llu, \"caller_got\": %llu, "
	       "\"answer_bad\": %llu, \"caller_bad\": %llu, "
	       "\"answer_done_s\": %.3f, \"caller_done_s\": %.3f, "
	       "\"retrans\": %llu, \"fcs_errors\": %llu, \"framing_errors\": %llu, "
	       "\"to_answer_Bps\": %.1f, \"to_caller_Bps\": %.1f, \"end_s\": %.3f, "
	       "\"delay_ms\": %.1f, \"answer_first_s\": %.3f, \"caller_first_s\": %.3f, "
	       "\"answer_first_bytes\": %llu, \"caller_first_bytes\": %llu, "
	       "\"to_answer_stream_Bps\": %.1f, \"to_caller_stream_Bps\": %.1f",
	       sml_mod_name(as->mod), as->v8_done ? "true" : "false",
	       as->v42 && cs->v42 ? "true" : "false", cs->rate,
	       sml_modem_phase_name(sml_modem_phase(a.m)),
	       sml_modem_phase_name(sml_modem_phase(c.m)),
	       as->data_sample / 8000.0, cs->data_sample / 8000.0,
	       (unsigned long long)bytes, (unsigned long long)a.got,
	       (unsigned long long)c.got, (unsigned long long)a.bad,
	       (unsigned long long)c.bad, a.done_sample / 8000.0,
	       c.done_sample / 8000.0,
	       (unsigned long long)(as->retransmissions + cs->retransmissions),
	       (unsigned long long)(as->fcs_errors + cs->fcs_errors),
	       (unsigned long long)(as->framing_errors + cs->framing_errors),
	       a.done_sample > as->data_sample && as->data_sample >= 0 ?
	       8000.0 * a.got / (double)(a.done_sample - as->data_sample) : 0.0,
	       c.done_sample > cs->data_sample && cs->data_sample >= 0 ?
	       8000.0 * c.got / (double)(c.done_sample - cs->data_sample) : 0.0,
	       now / 8000.0, delay_ms, a.first_sample / 8000.0,
	       c.first_sample / 8000.0, (unsigned long long)a.first_bytes,
	       (unsigned long long)c.first_bytes, stream_bps(&a), stream_bps(&c));
	if (as->mod == SML_MOD_V34)
		print_v34(&as->v34, &cs->v34);
	else
		printf("}\n");
	sml_modem_free(a.m);
	sml_modem_free(c.m);
	sml_fifo_free(&a.tx);
	sml_fifo_free(&a.rx);
	sml_fifo_free(&c.tx);
	sml_fifo_free(&c.rx);
	sml_delay_free(&d_ca);
	sml_delay_free(&d_ac);
	return a.got == bytes && c.got == bytes && !a.bad && !c.bad ? 0 : 1;
}
