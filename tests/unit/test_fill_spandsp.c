/*
 * What the far modem makes of a growing output lead: our V.22bis caller
 * against SpanDSP's answerer, with extra samples pushed into our signal
 * once data flows, as the driver's output lead grows.  Filled by our
 * transmitter (smdsp_modem_tx_fill() sends exactly these samples when
 * connected), SpanDSP must not notice; left as holes (what the driver left
 * before), it must.  Uses the dsp tests' endpoints (tests/dsp/common).
 * Prints one line per case and a final "N passed, N failed".
 */
#include <stdio.h>
#include <string.h>
#include "v22ep.h"
#include "check.h"

#define BLK	100
#define FIFO	(1 << 17)

struct fifo {
	int16_t s[FIFO];
	unsigned long head, tail;
};

static struct fifo ab, ba;

/* 12 dB of loss on the way. */
static void push(struct fifo *f, const int16_t *x, int n)
{
	while (n--)
		f->s[f->head++ % FIFO] = (int16_t)(*x++ / 4);
}

static void pop(struct fifo *f, int16_t *x, int n)
{
	while (n--)
		*x++ = f->head != f->tail ? f->s[f->tail++ % FIFO] : 0;
}

struct res {
	size_t intact, junk;
	int downs, gaps;
};

/* gap samples every `every` blocks once both ends trained; fill or zeros. */
static struct res run(int gap, int every, int fill)
{
	static struct v22ep a, b;
	int16_t rx[BLK], tx[BLK], g[1000];
	struct res r = { 0 };
	long t, trained = -1;
	int i = 0;

	memset(&ab, 0, sizeof(ab));
	memset(&ba, 0, sizeof(ba));
	v22ep_init(&a, 1, 1, 2400, 0, 0, 11);
	v22ep_init(&b, 0, 0, 2400, SMDSP_V22BIS_GUARD_1800, 0, 22);
	memset(g, 0, sizeof(g));
	push(&ab, g, 160);
	push(&ba, g, 160);
	for (t = 0; t < 8000L * 40; t += BLK, i++) {
		pop(&ba, rx, BLK);
		v22ep_process(&a, rx, tx, BLK);
		push(&ab, tx, BLK);
		if (trained < 0 && a.trained && b.trained)
			trained = t;
		/* the driver's lead grows by a ring (1 s) at most */
		if (trained >= 0 && t > trained + 8000 && i % every == 0 &&
		    (r.gaps + 1) * gap <= 8000) {
			if (fill)
				v22ep_tx(&a, g, gap);
			else
				memset(g, 0, gap * sizeof(*g));
			push(&ab, g, gap);
			r.gaps++;
		}
		pop(&ab, rx, BLK);
		v22ep_rx(&b, rx, BLK);
		v22ep_tx(&b, tx, BLK);
		push(&ba, tx, BLK);
		if (b.sink.len >= EP_BYTES && char_src_done(&a.src))
			break;
	}
	r.intact = match_data(a.data, EP_BYTES, b.got, b.sink.len, &r.junk);
	r.downs = b.carrier_downs;
	v22ep_free(&a);
	v22ep_free(&b);
	return r;
}

int main(void)
{
	/* 5, 20 and 40 ms: SpanDSP's receiver gives up within 20-40 ms. */
	static const int gaps[] = { 40, 160, 320 };
	unsigned int k;

	for (k = 0; k < sizeof(gaps) / sizeof(gaps[0]); k++) {
		struct res f = run(gaps[k], 37, 1);
		struct res z = run(gaps[k], 37, 0);

		printf("ours -> SpanDSP, %d-sample growths: filled %zu/%d intact "
		       "(junk %zu, %d carrier drops, %d growths); holes %zu/%d "
		       "intact (junk %zu, %d carrier drops, %d growths)\n",
		       gaps[k], f.intact, EP_BYTES, f.junk, f.downs, f.gaps,
		       z.intact, EP_BYTES, z.junk, z.downs, z.gaps);
		CHECK(f.gaps >= 5 && z.gaps >= 5);
		CHECK(f.intact == EP_BYTES && f.junk == 0 && f.downs == 0);
		CHECK(z.intact < EP_BYTES || z.downs > 0);
	}
	return t_report("test_fill_spandsp");
}
