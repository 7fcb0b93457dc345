/*
 * Hostile input for the HDLC blocks: never a crash, an overrun or a frame
 * longer than the limit, and every broken frame counted where it belongs.
 * The receiver gets random bits, runs of ones of every length between
 * flags, frames cut off at every bit (by a flag, by an abort, by a reset),
 * overlong frames and endless data with no flag; V.21 channel 2 gets noise,
 * clipping and DC. The transmitter gets random sequences of its calls, and
 * a receiver checks that whatever arrives with a good FCS is a frame that
 * was queued. Run under the normal build; also built with ASan/UBSan by
 * hand (see the README's fax section).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/hdlc.h>
#include <smdsp/fsk.h>
#include "tutil.h"

struct sink {
	unsigned int max_len;
	long frames, good, bad, aborts, too_long, over_limit, wrong;
	int check_tags;
};

/* a tagged frame: length and content follow from its first octet */
static unsigned int tag_len(uint8_t tag)
{
	return 2 + tag % 97;
}

static uint8_t tag_octet(uint8_t tag, unsigned int i)
{
	return (uint8_t)(tag * 31 + i * 7 + (i % 5 == 0 ? 0xff : 0));
}

static void sink_frame(void *user, const uint8_t *buf, unsigned int len, enum smdsp_hdlc_rx_status st)
{
	struct sink *s = user;
	unsigned int i;

	if (st == SMDSP_HDLC_RX_FRAMING_OK)
		return;
	s->frames++;
	if (len > s->max_len)
		s->over_limit++;
	/* touch every octet handed over: ASan sees any read past the buffer */
	for (i = 0; i < len; i++)
		s->wrong += buf[i] == 0x5a && buf[0] == 0xa5 && len == 1000;
	switch (st) {
	case SMDSP_HDLC_RX_OK:
		s->good++;
		if (s->check_tags) {
			if (len != tag_len(buf[0])) {
				s->wrong++;
				break;
			}
			for (i = 1; i < len; i++)
				if (buf[i] != tag_octet(buf[0], i)) {
					s->wrong++;
					break;
				}
		}
		break;
	case SMDSP_HDLC_RX_BAD_FCS:
		s->bad++;
		break;
	case SMDSP_HDLC_RX_ABORT:
		s->aborts++;
		break;
	case SMDSP_HDLC_RX_TOO_LONG:
		s->too_long++;
		break;
	default:
		s->wrong++;
	}
}

static struct smdsp_hdlc_rx *new_rx(struct sink *s, int crc32, unsigned int max_len, unsigned int sync)
{
	struct smdsp_hdlc_rx_config rc = { .crc32 = crc32, .report_bad = true, .max_len = max_len,
					  .sync_flags = sync, .frame = sink_frame, .user = s };

	memset(s, 0, sizeof(*s));
	s->max_len = max_len ? max_len : SMDSP_HDLC_MAX_LEN;
	return smdsp_hdlc_rx_create(&rc);
}

static void put_octet(struct smdsp_hdlc_rx *r, unsigned int o, int n)
{
	int i;

	for (i = 0; i < n; i++)
		smdsp_hdlc_rx_put_bit(r, (o >> i) & 1);
}

static void random_bits(void)
{
	static const unsigned int lens[] = { 0, 1, 3, 64, SMDSP_HDLC_MAX_LEN, 100000 };
	uint64_t seed = 3;
	int crc32, l, sync;

	for (crc32 = 0; crc32 <= 1; crc32++)
		for (l = 0; l < 6; l++)
			for (sync = 0; sync <= 8; sync += 4) {
				struct sink s;
				struct smdsp_hdlc_rx *r = new_rx(&s, crc32, lens[l], (unsigned int)sync);
				struct smdsp_hdlc_rx_stats st;
				long i;
				int bias;

				/* random bits, then ones-heavy (long runs), then zero-heavy */
				for (bias = 0; bias < 3; bias++)
					for (i = 0; i < 200000; i++) {
						uint64_t v = t_rand64(&seed);
						int bit = bias == 0 ? (int)(v & 1) :
							  bias == 1 ? (v & 7) != 0 : (v & 7) == 0;

						smdsp_hdlc_rx_put_bit(r, bit ? (int)(v >> 8) | 1 : 0);
					}
				smdsp_hdlc_rx_reset(r);
				smdsp_hdlc_rx_get_stats(r, &st);
				CHECK(s.over_limit == 0 && s.wrong == 0, "random bits, max_len %u: %ld over the limit",
				      lens[l], s.over_limit);
				CHECK(s.good == st.good_frames && s.bad == st.bad_frames && s.aborts == st.aborts &&
				      s.too_long == st.too_long,
				      "random bits: delivered %ld/%ld/%ld/%ld, counted %u/%u/%u/%u", s.good, s.bad,
				      s.aborts, s.too_long, st.good_frames, st.bad_frames, st.aborts, st.too_long);
				smdsp_hdlc_rx_free(r);
			}
	printf("random bits: 36 receivers, 600000 bits each: no fault\n");
}

/* a good frame's line bits (flag, stuffed data and FCS, flag) */
static int frame_bits(const uint8_t *data, unsigned int len, int crc32, uint8_t *bits, int max)
{
	struct smdsp_hdlc_tx_config tc = { .crc32 = crc32 };
	struct smdsp_hdlc_tx *t = smdsp_hdlc_tx_create(&tc);
	int n = 0;

	smdsp_hdlc_tx_frame(t, data, len);
	while (n < max && !smdsp_hdlc_tx_idle(t))
		bits[n++] = (uint8_t)smdsp_hdlc_tx_get_bit(t);
	smdsp_hdlc_tx_free(t);
	return n;
}

static void runs_and_cuts(void)
{
	static uint8_t bits[8000];
	struct sink s;
	struct smdsp_hdlc_rx *r = new_rx(&s, 0, 0, 0);
	struct smdsp_hdlc_rx_stats st;
	uint8_t data[40];
	int n, k, i, run, how;
	long want_aborts = 0, want_cut = 0;

	for (i = 0; i < 40; i++)
		data[i] = (uint8_t)(i * 13);
	/* runs of 1..40 ones between flags: runs of 7 and more are aborts or idle, never frames */
	for (run = 1; run <= 40; run++) {
		put_octet(r, 0x7e, 8);
		for (i = 0; i < run; i++)
			smdsp_hdlc_rx_put_bit(r, 1);
		put_octet(r, 0x7e, 8);
	}
	smdsp_hdlc_rx_get_stats(r, &st);
	CHECK(st.good_frames == 0 && s.over_limit == 0, "runs of ones: %u good frames", st.good_frames);
	/* a 40-octet frame cut at every bit: by a flag, by seven ones, by a reset */
	n = frame_bits(data, 40, 0, bits, 8000);
	for (how = 0; how < 3; how++) {
		smdsp_hdlc_rx_reset(r);
		memset(&st, 0, sizeof(st));
		for (k = 9; k < n - 8; k++) {
			struct smdsp_hdlc_rx_stats a, b;

			smdsp_hdlc_rx_get_stats(r, &a);
			put_octet(r, 0x7e, 8);
			for (i = 0; i < k; i++)
				smdsp_hdlc_rx_put_bit(r, bits[i]);
			if (how == 0)
				put_octet(r, 0x7e, 8);
			else if (how == 1)
				put_octet(r, 0xff, 8);
			else
				smdsp_hdlc_rx_reset(r);
			smdsp_hdlc_rx_get_stats(r, &b);
			/* never good; each cut counted once, as bad, runt, abort (or nothing when only flags came) */
			CHECK(b.good_frames == a.good_frames, "cut at bit %d (%d): a good frame", k, how);
			if (how == 0)
				want_cut += (b.bad_frames - a.bad_frames) + (b.runts - a.runts) == 1 || k < 17;
			else
				want_aborts += b.aborts - a.aborts == 1 || k < 17;
		}
	}
	CHECK(want_cut == n - 17 && want_aborts == 2 * (n - 17), "cuts: %ld of %d counted by a flag, %ld of %d by abort/reset",
	      want_cut, n - 17, want_aborts, 2 * (n - 17));
	/* overlong frames: 100 of max_len + 1..50 octets, each counted once, the next frame good */
	smdsp_hdlc_rx_free(r);
	r = new_rx(&s, 0, 64, 0);
	for (k = 0; k < 100; k++) {
		uint8_t big[120];

		for (i = 0; i < 120; i++)
			big[i] = (uint8_t)(i + k);
		n = frame_bits(big, 65 + k % 50, 0, bits, 8000);
		for (i = 0; i < n; i++)
			smdsp_hdlc_rx_put_bit(r, bits[i]);
	}
	n = frame_bits(data, 40, 0, bits, 8000);
	for (i = 0; i < n; i++)
		smdsp_hdlc_rx_put_bit(r, bits[i]);
	smdsp_hdlc_rx_get_stats(r, &st);
	CHECK(st.too_long == 100 && s.too_long == 100 && st.good_frames == 1 && s.over_limit == 0,
	      "overlong: %u too long, %u good after", st.too_long, st.good_frames);
	/* endless data without a flag: one too-long, nothing else */
	put_octet(r, 0x7e, 8);
	for (k = 0; k < 100000; k++)
		put_octet(r, 0x55, 8);
	put_octet(r, 0x7e, 8);
	smdsp_hdlc_rx_get_stats(r, &st);
	CHECK(st.too_long == 101 && s.over_limit == 0, "endless data: %u too long", st.too_long);
	printf("runs of ones, cuts at every bit (%d bits), 100 overlong frames, 800000 bits without a flag: counted\n", n);
	smdsp_hdlc_rx_free(r);
}

/* random calls on a transmitter; its output into a receiver: good frames are queued frames */
static void tx_chaos(void)
{
	uint64_t seed = 99;
	int crc32, prog;

	for (crc32 = 0; crc32 <= 1; crc32++)
		for (prog = 0; prog <= 1; prog++) {
			struct smdsp_hdlc_tx_config tc = { .crc32 = crc32, .progressive = prog,
							  .inter_flags = 1 + prog };
			struct smdsp_hdlc_tx *t = smdsp_hdlc_tx_create(&tc);
			struct sink s;
			struct smdsp_hdlc_rx *r = new_rx(&s, crc32, 0, 0);
			long i, bits = 0;
			int open = -1;
			long bad_space = 0;
			unsigned int pos = 0;

			s.check_tags = 1;
			for (i = 0; i < 200000; i++) {
				uint64_t v = t_rand64(&seed);
				uint8_t f[120];
				unsigned int k, len;
				uint8_t tag = (uint8_t)(v >> 16);

				len = tag_len(tag);
				f[0] = tag;
				for (k = 1; k < len; k++)
					f[k] = tag_octet(tag, k);
				switch (v % 16) {
				case 0:
					smdsp_hdlc_tx_frame(t, f, len);
					break;
				case 1:
					/* a frame in two pieces, the rest (and its end) maybe much later */
					if (open < 0) {
						k = (unsigned int)(v >> 32) % (len + 1);
						smdsp_hdlc_tx_put(t, f, k);
						open = tag;
						pos = k;
					}
					break;
				case 2:
					if (open >= 0) {
						f[0] = (uint8_t)open;
						len = tag_len((uint8_t)open);
						for (k = 1; k < len; k++)
							f[k] = tag_octet((uint8_t)open, k);
						smdsp_hdlc_tx_put(t, f + pos, len - pos);
						smdsp_hdlc_tx_end_frame(t);
						open = -1;
					}
					break;
				case 3:
					if ((v & 0xf00) == 0) {
						smdsp_hdlc_tx_abort(t);
						if (open >= 0) {
							/* the rest of it is not sent: the DTE gave up */
							open = -1;
						}
					}
					break;
				case 4:
					if ((v & 0xff00) == 0) {
						smdsp_hdlc_tx_reset(t);
						open = -1;
					}
					break;
				case 5:
					smdsp_hdlc_tx_preamble(t, (unsigned int)(v >> 40) % 4);
					break;
				default:
					for (k = 0; k < (v >> 20) % 200; k++) {
						smdsp_hdlc_rx_put_bit(r, smdsp_hdlc_tx_get_bit(t));
						bits++;
					}
				}
				if (smdsp_hdlc_tx_space(t) > SMDSP_HDLC_TX_QLEN)
					bad_space++;
			}
			printf("tx chaos CRC-%d %s: %ld bits, %ld good frames, %ld bad, %ld aborts, %ld not as queued\n",
			       crc32 ? 32 : 16, prog ? "progressive" : "whole frames", bits, s.good, s.bad, s.aborts,
			       s.wrong);
			CHECK(bad_space == 0, "tx chaos: queue space over its size %ld times", bad_space);
			CHECK(s.bad == 0, "tx chaos: %ld frames with a bad FCS", s.bad);
			CHECK(s.good > 1000 && s.over_limit == 0 && s.wrong == 0,
			      "tx chaos: %ld good frames, %ld not as queued", s.good, s.wrong);
			smdsp_hdlc_rx_free(r);
			smdsp_hdlc_tx_free(t);
		}
}

/* V.21 channel 2 receiver with HDLC on noise, clipping, DC, silence */
static void audio(void)
{
	struct sink s;
	struct smdsp_hdlc_rx *r = new_rx(&s, 0, 0, 0);
	struct smdsp_fsk_rx *f = smdsp_fsk_rx_create(SMDSP_V21_CH2, smdsp_hdlc_rx_bit_cb, NULL, r);
	static int16_t x[8000];
	uint64_t seed = 5;
	int kind, i, sec;

	for (kind = 0; kind < 5; kind++)
		for (sec = 0; sec < 4; sec++) {
			for (i = 0; i < 8000; i++) {
				uint64_t v = t_rand64(&seed);

				x[i] = kind == 0 ? (int16_t)v : kind == 1 ? (v & 1 ? 32767 : -32768) :
				       kind == 2 ? 32767 : kind == 3 ? 0 : (int16_t)((i / 3) & 1 ? 32767 : -32768);
			}
			smdsp_fsk_rx_process(f, x, 8000);
		}
	CHECK(s.over_limit == 0 && s.wrong == 0, "audio: %ld over the limit", s.over_limit);
	printf("V.21 ch2 + HDLC on 20 s of noise, clipping, DC, silence: %ld frames handed over (%ld good)\n",
	       s.frames, s.good);
	smdsp_fsk_rx_free(f);
	smdsp_hdlc_rx_free(r);
}

int main(void)
{
	random_bits();
	runs_and_cuts();
	tx_chaos();
	audio();
	return t_report("test_hdlc_hostile");
}
