#include <string.h>
#include "chars.h"
#include "tutil.h"

void char_src_init(struct char_src *s, const uint8_t *data, size_t len, long idle_bits)
{
	memset(s, 0, sizeof(*s));
	s->data = data;
	s->len = len;
	s->bit = -1;
	s->idle = idle_bits;
}

int char_src_get_bit(void *user)
{
	struct char_src *s = user;
	int b;

	s->sent_bits++;
	if (s->idle > 0) {
		s->idle--;
		return 1;
	}
	if (s->bit < 0) {
		if (s->pos >= s->len)
			return 1;
		s->bit = 0;
	}
	if (s->bit == 0)
		b = 0;
	else if (s->bit <= 8)
		b = (s->data[s->pos] >> (s->bit - 1)) & 1;
	else
		b = 1;
	if (++s->bit > 9) {
		s->bit = -1;
		s->pos++;
	}
	return b;
}

int char_src_done(const struct char_src *s)
{
	return s->idle <= 0 && s->pos >= s->len;
}

void char_sink_init(struct char_sink *s, uint8_t *buf, size_t cap)
{
	memset(s, 0, sizeof(*s));
	s->data = buf;
	s->cap = cap;
	s->bit = -1;
}

void char_sink_put_bit(void *user, int bit)
{
	struct char_sink *s = user;

	if (bit < 0)
		return;		/* status report from SpanDSP */
	if (s->bit < 0) {
		if (bit == 0) {
			s->bit = 0;
			s->cur = 0;
		}
		return;
	}
	if (s->bit < 8) {
		s->cur |= (bit & 1) << s->bit;
		s->bit++;
		return;
	}
	if (bit) {
		if (s->len < s->cap)
			s->data[s->len++] = (uint8_t)s->cur;
	} else {
		s->framing_errors++;
	}
	s->bit = -1;
}

size_t match_prefix(const uint8_t *want, const uint8_t *got, size_t n)
{
	size_t i;

	for (i = 0; i < n && want[i] == got[i]; i++)
		;
	return i;
}

size_t match_data(const uint8_t *want, size_t nwant, const uint8_t *got, size_t ngot, size_t *junk)
{
	size_t best = 0, off, m;

	*junk = 0;
	for (off = 0; off <= 4 && off < ngot; off++) {
		m = ngot - off < nwant ? ngot - off : nwant;
		m = match_prefix(want, got + off, m);
		if (m > best) {
			best = m;
			*junk = off;
		}
	}
	return best;
}

void fill_random(uint8_t *buf, size_t n, uint64_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)(t_rand64(&seed) >> 56);
}
