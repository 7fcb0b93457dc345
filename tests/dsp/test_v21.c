/*
 * V.21 back to back over the in-memory line, 160-sample blocks: ours against
 * SpanDSP in both roles and ours against ours, 4 KiB of random bytes each way
 * with 8N1 framing; then impairments.
 */
#include <stdio.h>
#include <string.h>
#include "refs.h"
#include <smdsp/fsk.h>
#include "tutil.h"
#include "line.h"
#include "chars.h"

#define NBYTES 4096

struct ep {
	int ours;
	int caller;
	struct smdsp_fsk_tx *tx;
	struct smdsp_fsk_rx *rx;
	fsk_tx_state_t *stx;
	fsk_rx_state_t *srx;
	struct char_src src;
	struct char_sink sink;
	uint8_t data[NBYTES];
	uint8_t got[NBYTES + 64];
	int carrier_ups, carrier_downs;
	size_t junk;
};

static void status_cb(void *user, enum smdsp_status st)
{
	struct ep *e = user;

	if (st == SMDSP_STATUS_CARRIER_UP)
		e->carrier_ups++;
	if (st == SMDSP_STATUS_CARRIER_DOWN)
		e->carrier_downs++;
}

static void ep_init(struct ep *e, int ours, int caller, uint64_t seed)
{
	memset(e, 0, sizeof(*e));
	e->ours = ours;
	e->caller = caller;
	fill_random(e->data, NBYTES, seed);
	char_src_init(&e->src, e->data, NBYTES, 150);
	char_sink_init(&e->sink, e->got, sizeof(e->got));
	if (ours) {
		e->tx = smdsp_fsk_tx_create(caller ? SMDSP_V21_CH1 : SMDSP_V21_CH2, -120,
					    char_src_get_bit, &e->src);
		e->rx = smdsp_fsk_rx_create(caller ? SMDSP_V21_CH2 : SMDSP_V21_CH1,
					    char_sink_put_bit, NULL, &e->sink);
	} else {
		e->stx = fsk_tx_init(NULL, &preset_fsk_specs[caller ? FSK_V21CH1 : FSK_V21CH2],
				     char_src_get_bit, &e->src);
		/*
		 * SpanDSP's synchronous-mode bit sync needs transitions to settle and
		 * slips the first character after a long mark preamble at low levels
		 * (SpanDSP to SpanDSP too), and its default cutoff is about -30 dBm0:
		 * use its asynchronous mode and a -40 dBm0 cutoff.
		 */
		e->srx = fsk_rx_init(NULL, &preset_fsk_specs[caller ? FSK_V21CH2 : FSK_V21CH1],
				     FSK_FRAME_MODE_ASYNC, char_sink_put_bit, &e->sink);
		fsk_rx_signal_cutoff(e->srx, -40);
	}
}

static void ep_free(struct ep *e)
{
	if (e->ours) {
		smdsp_fsk_tx_free(e->tx);
		smdsp_fsk_rx_free(e->rx);
	} else {
		fsk_tx_free(e->stx);
		fsk_rx_free(e->srx);
	}
}

static void ep_tx(struct ep *e, int16_t *buf, int n)
{
	if (e->ours)
		smdsp_fsk_tx_process(e->tx, buf, n);
	else
		fsk_tx(e->stx, buf, n);
}

static void ep_rx(struct ep *e, const int16_t *buf, int n)
{
	if (e->ours)
		smdsp_fsk_rx_process(e->rx, buf, n);
	else
		fsk_rx(e->srx, buf, n);
}

/* Runs until both sides have received everything (or the time limit); returns bytes intact (min). */
static size_t run_pair(struct ep *a, struct ep *b, const struct line_cfg *lc, double max_s,
		       size_t *ok_a, size_t *ok_b)
{
	struct line *l = line_create(lc);
	int16_t at[160], ar[160], bt[160], br[160];
	long blocks = (long)(max_s * 50);
	long i;

	for (i = 0; i < blocks; i++) {
		ep_tx(a, at, 160);
		ep_tx(b, bt, 160);
		line_process(l, at, ar, bt, br, 160);
		ep_rx(a, ar, 160);
		ep_rx(b, br, 160);
		if (a->sink.len >= NBYTES && b->sink.len >= NBYTES)
			break;
	}
	CHECK(line_starved(l) == 0, "line starved: lengthen the delay");
	line_free(l);
	*ok_a = match_data(b->data, NBYTES, a->got, a->sink.len, &a->junk);
	*ok_b = match_data(a->data, NBYTES, b->got, b->sink.len, &b->junk);
	return *ok_a < *ok_b ? *ok_a : *ok_b;
}

static const char *who(int ours)
{
	return ours ? "ours" : "SpanDSP";
}

static void interop(int a_ours, int b_ours)
{
	struct ep a, b;
	struct line_cfg lc = { .loss_db = 10, .noise_dbm0 = -200, .echo_db = -200, .delay = 40 };
	size_t oka, okb;

	ep_init(&a, a_ours, 1, 11);
	ep_init(&b, b_ours, 0, 22);
	run_pair(&a, &b, &lc, 150, &oka, &okb);
	printf("V.21 %s calling, %s answering: caller received %zu/%d intact, answerer %zu/%d "
	       "(leading junk bytes %zu, %zu)\n", who(a_ours), who(b_ours), oka, NBYTES, okb, NBYTES,
	       a.junk, b.junk);
	if (a_ours)
		CHECK(a.junk == 0, "our receiver framed junk");
	if (b_ours)
		CHECK(b.junk == 0, "our receiver framed junk");
	CHECK(oka == NBYTES && okb == NBYTES, "V.21 %s/%s: %zu %zu", who(a_ours), who(b_ours), oka, okb);
	ep_free(&a);
	ep_free(&b);
}

static void impaired(const char *name, const struct line_cfg *lc, int must_pass)
{
	struct ep a, b;
	size_t oka, okb;

	ep_init(&a, 1, 1, 33);
	ep_init(&b, 1, 0, 44);
	run_pair(&a, &b, lc, 150, &oka, &okb);
	printf("V.21 ours/ours %-34s: %zu/%d and %zu/%d bytes intact\n", name, oka, NBYTES, okb, NBYTES);
	if (must_pass)
		CHECK(oka == NBYTES && okb == NBYTES, "V.21 %s: %zu %zu", name, oka, okb);
	ep_free(&a);
	ep_free(&b);
}

static void carrier_loss(void)
{
	struct ep e;
	struct smdsp_fsk_tx *tx;
	int16_t buf[160];
	int i;

	ep_init(&e, 1, 1, 5);
	/* the receiver again, reporting its carrier to status_cb */
	smdsp_fsk_rx_free(e.rx);
	e.rx = smdsp_fsk_rx_create(SMDSP_V21_CH2, NULL, status_cb, &e);
	tx = smdsp_fsk_tx_create(SMDSP_V21_CH2, -200, NULL, NULL);
	for (i = 0; i < 200; i++) {
		if (i < 100) {
			smdsp_fsk_tx_process(tx, buf, 160);
		} else {
			memset(buf, 0, sizeof(buf));
		}
		smdsp_fsk_rx_process(e.rx, buf, 160);
	}
	printf("V.21 carrier on 2 s then silence: %d carrier up, %d carrier down\n", e.carrier_ups,
	       e.carrier_downs);
	CHECK(e.carrier_ups == 1 && e.carrier_downs == 1, "carrier events %d %d", e.carrier_ups,
	      e.carrier_downs);
	smdsp_fsk_tx_free(tx);
	ep_free(&e);
}

int main(void)
{
	struct line_cfg lc;

	interop(1, 0);
	interop(0, 1);
	interop(1, 1);
	memset(&lc, 0, sizeof(lc));
	lc.noise_dbm0 = -200;
	lc.echo_db = -200;
	lc.loss_db = 28;
	impaired("28 dB loss", &lc, 1);
	lc.loss_db = 10;
	lc.echo_db = -6;
	lc.echo_delay = 16;
	impaired("echo -6 dB", &lc, 1);
	lc.echo_db = -200;
	lc.delay = 2000;
	impaired("0.25 s each way (0.5 s round trip)", &lc, 1);
	lc.delay = 400;
	lc.ppm = 100;
	impaired("100 ppm clock offset", &lc, 1);
	lc.ppm = 0;
	lc.noise_dbm0 = -30;
	impaired("noise -30 dBm0", &lc, 1);
	carrier_loss();
	return t_report("test_v21");
}
