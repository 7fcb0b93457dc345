#include <stdio.h>
#include <string.h>
#include "v22ep.h"
#include "tutil.h"

static int prbs_bit(struct prbs_src *p)
{
	/* x^23 + x^18 + 1 */
	int b = ((p->reg >> 22) ^ (p->reg >> 17)) & 1;

	p->reg = (p->reg << 1) | b;
	return b;
}

static int src_bit(void *user)
{
	struct v22ep *e = user;

	if (e->bert)
		return prbs_bit(&e->psrc);
	return char_src_get_bit(&e->src);
}

static void sink_bit(void *user, int bit)
{
	struct v22ep *e = user;

	if (bit < 0) {
		/* SpanDSP status through put_bit */
		if (bit == SIG_STATUS_CARRIER_DOWN)
			e->carrier_downs++;
		if (bit == SIG_STATUS_TRAINING_SUCCEEDED)
			e->trained = 1;
		return;
	}
	if (e->passive && !e->bert)
		return;
	if (e->bert) {
		/* self-synchronising check: each line error shows up 3 times */
		int pred = ((e->pchk.hist >> 22) ^ (e->pchk.hist >> 17)) & 1;

		e->pchk.hist = (e->pchk.hist << 1) | (bit & 1);
		/* the training's scrambled ones come first: start at the first 0 */
		if (!e->pchk.started) {
			if (bit)
				return;
			e->pchk.started = 1;
		}
		if (e->pchk.skip > 0) {
			e->pchk.skip--;
			return;
		}
		e->pchk.bits++;
		if (pred != bit)
			e->pchk.errors++;
		return;
	}
	char_sink_put_bit(&e->sink, bit);
}

static void sp_status(void *user, int st)
{
	sink_bit(user, st);
}

static void our_status(void *user, enum smdsp_status st)
{
	struct v22ep *e = user;

	if (st == SMDSP_STATUS_CARRIER_DOWN)
		e->carrier_downs++;
	if (st == SMDSP_STATUS_CARRIER_UP)
		e->carrier_ups++;
	if (st == SMDSP_STATUS_RETRAIN)
		e->retrains++;
	if (st == SMDSP_STATUS_TRAINED) {
		e->trained = 1;
		if (!e->trained_at)
			e->trained_at = e->now;
	}
}

static struct smdsp_v22bis *our_create(struct v22ep *e, bool hold_on_loss)
{
	struct smdsp_v22bis_config c = {
		.calling = e->caller, .max_rate = (uint16_t)e->rate,
		.guard = e->caller ? SMDSP_V22BIS_GUARD_NONE : (enum smdsp_v22bis_guard)e->guard,
		.hold_on_loss = hold_on_loss,
		.get_bit = src_bit, .put_bit = sink_bit, .status = our_status, .user = e,
	};

	return smdsp_v22bis_create(&c);
}

/* Ours again, before it has run, with config.hold_on_loss (what the engine sets). */
void v22ep_hold_on_loss(struct v22ep *e)
{
	smdsp_v22bis_free(e->m);
	e->m = our_create(e, true);
}

void v22ep_init(struct v22ep *e, int ours, int caller, int rate, int guard, int bert, uint64_t seed)
{
	memset(e, 0, sizeof(*e));
	e->ours = ours;
	e->caller = caller;
	e->rate = rate;
	e->guard = guard;
	e->bert = bert;
	e->psrc.reg = (uint32_t)seed | 1;
	e->pchk.skip = 64;
	fill_random(e->data, EP_BYTES, seed);
	char_src_init(&e->src, e->data, EP_BYTES, 40);
	char_sink_init(&e->sink, e->got, sizeof(e->got));
	if (ours) {
		e->m = our_create(e, false);
	} else {
		e->sp = v22bis_init(NULL, rate, caller ? 0 : guard, caller, src_bit, e, sink_bit, e);
		v22bis_set_modem_status_handler(e->sp, sp_status, e);
	}
}

void v22ep_free(struct v22ep *e)
{
	if (e->m)
		smdsp_v22bis_free(e->m);
	if (e->sp)
		v22bis_free(e->sp);
}

void v22ep_tx(struct v22ep *e, int16_t *buf, int n)
{
	if (e->ours) {
		smdsp_v22bis_tx(e->m, buf, n);
	} else {
		int k = v22bis_tx(e->sp, buf, n);

		if (k < n)
			memset(buf + k, 0, (n - k) * sizeof(*buf));
	}
}

void v22ep_rx(struct v22ep *e, const int16_t *buf, int n)
{
	e->now += n;
	if (e->ours)
		smdsp_v22bis_rx(e->m, buf, n);
	else
		v22bis_rx(e->sp, buf, n);
}

void v22ep_process(struct v22ep *e, const int16_t *rx, int16_t *tx, int n)
{
	if (e->ours) {
		e->now += n;
		smdsp_v22bis_process(e->m, rx, tx, n);
	} else {
		v22ep_rx(e, rx, n);
		v22ep_tx(e, tx, n);
	}
}

const char *v22ep_name(const struct v22ep *e)
{
	return e->ours ? "ours" : "SpanDSP";
}
