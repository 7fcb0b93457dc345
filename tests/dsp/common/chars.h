/* Test-level start-stop (8N1) framing over a bit stream, and byte comparison. */
#ifndef CHARS_H
#define CHARS_H
#include <stdint.h>
#include <stddef.h>

struct char_src {
	const uint8_t *data;
	size_t len, pos;
	int bit;	/* -1: idle; 0 start, 1..8 data, 9 stop */
	long idle;	/* marks to send before the data */
	long sent_bits;
};

struct char_sink {
	uint8_t *data;
	size_t cap, len;
	int bit;	/* -1 hunting for a start bit */
	int cur;
	long framing_errors;
};

void char_src_init(struct char_src *s, const uint8_t *data, size_t len, long idle_bits);
int char_src_get_bit(void *user);
int char_src_done(const struct char_src *s);
void char_sink_init(struct char_sink *s, uint8_t *buf, size_t cap);
void char_sink_put_bit(void *user, int bit);
/* number of leading bytes of got[] that match want[] */
size_t match_prefix(const uint8_t *want, const uint8_t *got, size_t n);
/*
 * Bytes of want[] received intact in order, allowing up to 4 junk bytes in
 * front (a receiver may frame noise while its carrier comes up).
 */
size_t match_data(const uint8_t *want, size_t nwant, const uint8_t *got, size_t ngot, size_t *junk);
void fill_random(uint8_t *buf, size_t n, uint64_t seed);

#endif
