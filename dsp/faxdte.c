// SPDX-License-Identifier: GPL-2.0
/*
 * The DTE side of a T.31 Class 1 DCE (see faxdte.h).
 */
#include <smdsp/private/faxdte.h>

int smdsp_faxdte_init(struct smdsp_faxdte *d, struct smdsp_faxmodem *fm)
{
	if (!d || !fm)
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->fm = fm;
	d->done = true;
	return 0;
}

struct smdsp_faxdte *smdsp_faxdte_create(struct smdsp_faxmodem *fm)
{
	struct smdsp_faxdte *d;

	if (!fm)
		return NULL;
	d = smdsp_alloc(sizeof(*d));
	if (d)
		smdsp_faxdte_init(d, fm);
	return d;
}

void smdsp_faxdte_free(struct smdsp_faxdte *d)
{
	smdsp_free(d);
}

static void fresh(struct smdsp_faxdte *d, enum smdsp_faxdte_op op)
{
	d->op = op;
	d->connected = false;
	d->done = false;
	d->dle = false;
	d->ended = false;
	d->flen = 0;
	d->out_len = 0;
	d->out_pos = 0;
	d->out_rc = SMDSP_FAXDTE_RC_NONE;
}

static bool receiving(enum smdsp_faxdte_op op)
{
	return op == SMDSP_FAXDTE_FRH || op == SMDSP_FAXDTE_FRM || op == SMDSP_FAXDTE_FRS;
}

/* DLE ETX, then the result */
static void finish(struct smdsp_faxdte *d, bool etx, enum smdsp_faxdte_rc rc)
{
	if (etx && d->out_len + 2 <= sizeof(d->out)) {
		d->out[d->out_len++] = SMDSP_DLE;
		d->out[d->out_len++] = SMDSP_ETX;
	}
	d->out_rc = rc;
	d->done = true;
}

int smdsp_faxdte_command(struct smdsp_faxdte *d, enum smdsp_faxdte_op op, unsigned int arg)
{
	struct smdsp_faxmodem *f;
	int r = 0;

	if (!d)
		return -EINVAL;
	f = d->fm;
	if (op == SMDSP_FAXDTE_ABORT) {
		if (d->done || !receiving(d->op))
			return 0;
		smdsp_faxmodem_stop(f);
		/* what was received so far, ended by DLE ETX after CONNECT */
		finish(d, d->connected, SMDSP_FAXDTE_RC_OK);
		return 0;
	}
	fresh(d, op);
	switch (op) {
	case SMDSP_FAXDTE_FTH:
		r = arg == 3 ? smdsp_faxmodem_tx_hdlc(f) : -EINVAL;
		break;
	case SMDSP_FAXDTE_FRH:
		r = arg == 3 ? smdsp_faxmodem_rx_hdlc(f) : -EINVAL;
		break;
	case SMDSP_FAXDTE_FTM:
		r = arg != 3 ? smdsp_faxmodem_tx_data(f, arg) : -EINVAL;
		break;
	case SMDSP_FAXDTE_FRM:
		r = arg != 3 ? smdsp_faxmodem_rx_data(f, arg) : -EINVAL;
		break;
	case SMDSP_FAXDTE_FTS:
		r = smdsp_faxmodem_tx_silence(f, arg);
		break;
	case SMDSP_FAXDTE_FRS:
		r = smdsp_faxmodem_rx_silence(f, arg);
		break;
	case SMDSP_FAXDTE_ANSWER:
		r = smdsp_faxmodem_answer(f);
		break;
	default:
		r = -EINVAL;
	}
	if (r)
		finish(d, false, SMDSP_FAXDTE_RC_ERROR);
	return r;
}

int smdsp_faxdte_call(struct smdsp_faxdte *d, const char *digits, unsigned int wait_ms)
{
	if (!d)
		return -EINVAL;
	/* as +FRH=3 once the flags come */
	fresh(d, SMDSP_FAXDTE_FRH);
	return smdsp_faxmodem_call(d->fm, digits, wait_ms);
}

void smdsp_faxdte_hangup(struct smdsp_faxdte *d)
{
	if (!d)
		return;
	smdsp_faxmodem_hangup(d->fm);
	fresh(d, 0);
	d->done = true;
}

unsigned int smdsp_faxdte_room(const struct smdsp_faxdte *d)
{
	if (!d || d->done || d->ended)
		return 0;
	if (d->op != SMDSP_FAXDTE_FTH && d->op != SMDSP_FAXDTE_FTM &&
	    d->op != SMDSP_FAXDTE_ANSWER)
		return 0;
	return smdsp_faxmodem_write_space(d->fm);
}

static void dte_end(struct smdsp_faxdte *d)
{
	enum smdsp_faxmodem_phase ph = smdsp_faxmodem_phase(d->fm);

	if (ph == SMDSP_FAX_TX_HDLC) {
		/* T.30: the P/F bit of the control field marks the final frame */
		bool final = d->flen >= 2 && (d->ctl & 0x10);

		if (d->flen && !smdsp_faxmodem_end_frame(d->fm, final) && final)
			d->ended = true;
		d->flen = 0;
	} else if (ph == SMDSP_FAX_TX_TRAIN || ph == SMDSP_FAX_TX_DATA) {
		smdsp_faxmodem_end_data(d->fm);
		d->ended = true;
	}
}

static bool dte_octet(struct smdsp_faxdte *d, uint8_t b)
{
	if (smdsp_faxmodem_phase(d->fm) == SMDSP_FAX_TX_HDLC) {
		if (d->flen == 1)
			d->ctl = b;
		d->flen++;
	}
	return smdsp_faxmodem_write(d->fm, &b, 1) == 1 ||
	       smdsp_faxmodem_phase(d->fm) == SMDSP_FAX_TX_HDLC;
}

unsigned int smdsp_faxdte_from_dte(struct smdsp_faxdte *d, const uint8_t *buf, unsigned int n)
{
	unsigned int i;

	if (!d || !buf)
		return n;
	for (i = 0; i < n; i++) {
		uint8_t b = buf[i];

		if (d->done || d->ended)
			continue;	/* after the end: dropped */
		if (d->dle) {
			d->dle = false;
			if (b == SMDSP_ETX)
				dte_end(d);
			else if (b == SMDSP_DLE && !dte_octet(d, b))
				return i;	/* full: the pair again */
			/* DLE and anything else: nothing (T.31 leaves it undefined) */
			continue;
		}
		if (b == SMDSP_DLE) {
			if (!smdsp_faxmodem_write_space(d->fm) &&
			    smdsp_faxmodem_phase(d->fm) != SMDSP_FAX_TX_HDLC)
				return i;
			d->dle = true;
			continue;
		}
		if (!dte_octet(d, b))
			return i;
	}
	return n;
}

/* octets in, DLE shielded, as far as max allows: returns those consumed */
static unsigned int shield(const uint8_t *in, unsigned int n, uint8_t *out, unsigned int max,
			   unsigned int *written)
{
	unsigned int i, w = 0;

	for (i = 0; i < n; i++) {
		unsigned int need = in[i] == SMDSP_DLE ? 2 : 1;

		if (w + need > max)
			break;
		out[w++] = in[i];
		if (need == 2)
			out[w++] = SMDSP_DLE;
	}
	*written = w;
	return i;
}

static void event(struct smdsp_faxdte *d, const struct smdsp_faxmodem_event *ev)
{
	enum smdsp_hdlc_rx_status st;
	unsigned int len, w;

	switch (ev->type) {
	case SMDSP_FAX_EV_CONNECT:
		if (receiving(d->op))
			d->connected = true;
		d->out_rc = SMDSP_FAXDTE_RC_CONNECT;
		break;
	case SMDSP_FAX_EV_FRAME:
		len = smdsp_faxmodem_read_frame(d->fm, d->frame, sizeof(d->frame), &st);
		if (len > sizeof(d->frame))
			len = sizeof(d->frame);
		shield(d->frame, len, d->out, sizeof(d->out) - 2, &w);
		d->out_len = w;
		d->out_pos = 0;
		finish(d, true, st == SMDSP_HDLC_RX_OK ? SMDSP_FAXDTE_RC_OK : SMDSP_FAXDTE_RC_ERROR);
		break;
	case SMDSP_FAX_EV_OK:
		finish(d, false, SMDSP_FAXDTE_RC_OK);
		break;
	case SMDSP_FAX_EV_NO_CARRIER:
		finish(d, d->connected, SMDSP_FAXDTE_RC_NO_CARRIER);
		break;
	case SMDSP_FAX_EV_FCERROR:
		finish(d, false, SMDSP_FAXDTE_RC_FCERROR);
		break;
	default:
		finish(d, false, SMDSP_FAXDTE_RC_ERROR);
		break;
	}
}

unsigned int smdsp_faxdte_to_dte(struct smdsp_faxdte *d, uint8_t *buf, unsigned int max,
				 enum smdsp_faxdte_rc *rc)
{
	struct smdsp_faxmodem_event ev;
	unsigned int w = 0;

	*rc = SMDSP_FAXDTE_RC_NONE;
	if (!d || !buf)
		return 0;
	for (;;) {
		/* octets waiting, then their result */
		if (d->out_pos < d->out_len) {
			unsigned int k = d->out_len - d->out_pos;

			if (k > max - w)
				k = max - w;
			memcpy(buf + w, d->out + d->out_pos, k);
			d->out_pos += k;
			w += k;
			if (d->out_pos < d->out_len)
				return w;
		}
		d->out_len = 0;
		d->out_pos = 0;
		if (d->out_rc != SMDSP_FAXDTE_RC_NONE) {
			*rc = d->out_rc;
			d->out_rc = SMDSP_FAXDTE_RC_NONE;
			return w;
		}
		/* +FRM's data as it comes, before the event after it */
		if (d->op == SMDSP_FAXDTE_FRM && d->connected && !d->done) {
			uint8_t tmp[64];
			unsigned int room = (max - w) / 2, n, k;

			if (room > sizeof(tmp))
				room = sizeof(tmp);
			n = smdsp_faxmodem_read(d->fm, tmp, room);
			if (n) {
				shield(tmp, n, buf + w, max - w, &k);
				w += k;
				if (w + 2 > max)
					return w;
				continue;
			}
		}
		if (!smdsp_faxmodem_get_event(d->fm, &ev))
			return w;
		if (d->done)
			continue;	/* of an operation already ended */
		event(d, &ev);
	}
}

bool smdsp_faxdte_done(const struct smdsp_faxdte *d)
{
	return d->done;
}

int smdsp_faxdte_print(const struct smdsp_faxdte *d, char *buf, size_t len)
{
	return snprintf(buf, len, "faxdte op=%d connected=%d done=%d out=%u/%u rc=%d",
			d->op, d->connected, d->done, d->out_pos, d->out_len, d->out_rc);
}
