// SPDX-License-Identifier: GPL-2.0
/* smline: shared helpers (levels, logging, rng, fifo, CRC-32, JSON). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sml.h"

int sml_log_level = SML_LOG_INFO;
const char *sml_log_prog = "smline";

double sml_dbm0_to_rms(double dbm0)
{
	/* a sine of peak 32767 is SML_DBM0_FULLSCALE dBm0, its RMS 32767/sqrt2 */
	return 32767.0 / sqrt(2.0) * pow(10.0, (dbm0 - SML_DBM0_FULLSCALE) / 20.0);
}

double sml_rms_to_dbm0(double rms)
{
	if (rms <= 0.0)
		return -99.0;
	return SML_DBM0_FULLSCALE + 20.0 * log10(rms / (32767.0 / sqrt(2.0)));
}

double sml_db_to_gain(double db)
{
	return pow(10.0, db / 20.0);
}

int16_t sml_clip16(double v)
{
	if (v > 32767.0)
		return 32767;
	if (v < -32768.0)
		return -32768;
	return (int16_t)lrint(v);
}

void sml_log(int level, int64_t sample, const char *who, const char *fmt, ...)
{
	va_list ap;

	if (level > sml_log_level)
		return;
	fprintf(stderr, "%s [%9.3f s] %-8s ", sml_log_prog,
		(double)sample / SML_RATE, who);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int sml_delay_init(struct sml_delay *d, int len)
{
	d->len = len > 0 ? len : 0;
	d->pos = 0;
	d->buf = NULL;
	if (!d->len)
		return 0;
	d->buf = calloc((size_t)d->len, sizeof(double));
	return d->buf ? 0 : -1;
}

void sml_delay_free(struct sml_delay *d)
{
	free(d->buf);
	d->buf = NULL;
	d->len = 0;
}

double sml_delay_push(struct sml_delay *d, double x)
{
	double y;

	if (!d->len)
		return x;
	y = d->buf[d->pos];
	d->buf[d->pos] = x;
	if (++d->pos == d->len)
		d->pos = 0;
	return y;
}

/* splitmix64: tiny, seedable from any value, good enough for line noise */
void sml_rng_seed(struct sml_rng *r, uint64_t seed)
{
	r->s = seed;
	r->have_spare = false;
}

uint64_t sml_rng_u64(struct sml_rng *r)
{
	uint64_t z = (r->s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

double sml_rng_uniform(struct sml_rng *r)
{
	return (double)(sml_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

double sml_rng_gauss(struct sml_rng *r)
{
	double u, v, s;

	if (r->have_spare) {
		r->have_spare = false;
		return r->spare;
	}
	do {
		u = 2.0 * sml_rng_uniform(r) - 1.0;
		v = 2.0 * sml_rng_uniform(r) - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	s = sqrt(-2.0 * log(s) / s);
	r->spare = v * s;
	r->have_spare = true;
	return u * s;
}

int sml_fifo_init(struct sml_fifo *f, size_t size)
{
	f->buf = malloc(size);
	f->size = size;
	f->head = 0;
	f->len = 0;
	return f->buf ? 0 : -1;
}

void sml_fifo_free(struct sml_fifo *f)
{
	free(f->buf);
	f->buf = NULL;
}

size_t sml_fifo_put(struct sml_fifo *f, const uint8_t *p, size_t n)
{
	size_t i, tail;

	if (n > f->size - f->len)
		n = f->size - f->len;
	tail = (f->head + f->len) % f->size;
	for (i = 0; i < n; i++) {
		f->buf[tail] = p[i];
		if (++tail == f->size)
			tail = 0;
	}
	f->len += n;
	return n;
}

size_t sml_fifo_get(struct sml_fifo *f, uint8_t *p, size_t n)
{
	size_t i;

	if (n > f->len)
		n = f->len;
	for (i = 0; i < n; i++) {
		p[i] = f->buf[f->head];
		if (++f->head == f->size)
			f->head = 0;
	}
	f->len -= n;
	return n;
}

uint32_t sml_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	static int ready;
	size_t i;

	if (!ready) {
		for (uint32_t k = 0; k < 256; k++) {
			uint32_t c = k;

			for (int b = 0; b < 8; b++)
				c = (c & 1) ? 0xEDB88320U ^ (c >> 1) : c >> 1;
			table[k] = c;
		}
		ready = 1;
	}
	crc = ~crc;
	for (i = 0; i < n; i++)
		crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
	return ~crc;
}

/*
 * Byte k of payload "random:N:SEED" is a pure function of (SEED, k), so a
 * sink can verify a stream without holding it and the Python tests can
 * regenerate it (see tests/line/test_line.py: payload()).
 */
void sml_payload_fill(uint64_t seed, uint64_t offset, uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t k = offset + i;
		uint64_t z = seed * 0x9E3779B97F4A7C15ULL + (k >> 3) + 1;

		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
		z ^= z >> 31;
		p[i] = (uint8_t)(z >> (8 * (k & 7)));
	}
}

/* ---- JSON ---- */
static void jputs(struct sml_json *j, const char *s, size_t n)
{
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 1024;

		while (j->len + n + 1 > cap)
			cap *= 2;
		j->buf = realloc(j->buf, cap);
		if (!j->buf)
			abort();
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void jprintf(struct sml_json *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void jprintf(struct sml_json *j, const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	jputs(j, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void jstring(struct sml_json *j, const char *s)
{
	jputs(j, "\"", 1);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			jputs(j, e, 2);
		} else if (c < 0x20) {
			jprintf(j, "\\u%04x", c);
		} else {
			jputs(j, (const char *)&c, 1);
		}
	}
	jputs(j, "\"", 1);
}

static void jkey(struct sml_json *j, const char *key)
{
	if (j->need_comma)
		jputs(j, ", ", 2);
	j->need_comma = true;
	if (key) {
		jstring(j, key);
		jputs(j, ": ", 2);
	}
}

void sml_json_init(struct sml_json *j)
{
	memset(j, 0, sizeof(*j));
	jputs(j, "", 0);
}

void sml_json_free(struct sml_json *j)
{
	free(j->buf);
	memset(j, 0, sizeof(*j));
}

void sml_json_obj_begin(struct sml_json *j, const char *key)
{
	jkey(j, key);
	jputs(j, "{", 1);
	j->need_comma = false;
	j->depth++;
}

void sml_json_obj_end(struct sml_json *j)
{
	jputs(j, "}", 1);
	j->need_comma = true;
	j->depth--;
}

void sml_json_arr_begin(struct sml_json *j, const char *key)
{
	jkey(j, key);
	jputs(j, "[", 1);
	j->need_comma = false;
	j->depth++;
}

void sml_json_arr_end(struct sml_json *j)
{
	jputs(j, "]", 1);
	j->need_comma = true;
	j->depth--;
}

void sml_json_str(struct sml_json *j, const char *key, const char *v)
{
	jkey(j, key);
	if (v)
		jstring(j, v);
	else
		jputs(j, "null", 4);
}

void sml_json_int(struct sml_json *j, const char *key, int64_t v)
{
	jkey(j, key);
	jprintf(j, "%lld", (long long)v);
}

void sml_json_num(struct sml_json *j, const char *key, double v)
{
	jkey(j, key);
	if (isfinite(v))
		jprintf(j, "%.6g", v);
	else
		jputs(j, "null", 4);
}

void sml_json_bool(struct sml_json *j, const char *key, bool v)
{
	jkey(j, key);
	jputs(j, v ? "true" : "false", v ? 4 : 5);
}

void sml_json_null(struct sml_json *j, const char *key)
{
	jkey(j, key);
	jputs(j, "null", 4);
}

void sml_json_hex32(struct sml_json *j, const char *key, uint32_t v)
{
	char tmp[16];

	snprintf(tmp, sizeof(tmp), "%08x", v);
	sml_json_str(j, key, tmp);
}

/* ---- events ---- */
FILE *sml_events;

bool sml_event_begin(struct sml_json *j, int64_t t, int call, const char *source,
		     const char *event)
{
	if (!sml_events)
		return false;
	sml_json_init(j);
	sml_json_obj_begin(j, NULL);
	/* six decimals: a line sample (1/8000 s) is always exact */
	jkey(j, "t");
	jprintf(j, "%.6f", (double)t / SML_RATE);
	sml_json_int(j, "sample", t);
	if (call > 0)
		sml_json_int(j, "call", call);
	else
		sml_json_null(j, "call");
	sml_json_str(j, "source", source);
	sml_json_str(j, "event", event);
	return true;
}

void sml_event_end(struct sml_json *j)
{
	sml_json_obj_end(j);
	fprintf(sml_events, "%s\n", j->buf);
	sml_json_free(j);
}

bool sml_number_in(const char *v, double lo, bool lo_ok, double hi, double *out)
{
	char *end;
	double d = strtod(v, &end);

	if (end == v || *end || !isfinite(d) || d > hi || d < lo || (d == lo && !lo_ok))
		return false;
	*out = d;
	return true;
}
