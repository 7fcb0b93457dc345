/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smline: the host side of the smodem telephone line.
 *
 * Common definitions. Everything below the transport counts time in samples
 * of the 8 kHz line and draws randomness from seeded generators, so that a
 * run is a pure function of its inputs (the virtual-time transport
 * depends on that).
 */
#ifndef SML_H
#define SML_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SML_RATE 8000
#define SML_MS(ms) ((int64_t)(ms) * SML_RATE / 1000)

/*
 * SpanDSP's level convention: a full-scale sine (peak 32767) is +6.16 dBm0,
 * so 0 dBm0 is a sine of peak 16122 (RMS 11400). All levels in smline use it.
 */
#define SML_DBM0_FULLSCALE 6.16
double sml_dbm0_to_rms(double dbm0);
double sml_rms_to_dbm0(double rms);
double sml_db_to_gain(double db);
/* A sample value to the nearest 16-bit sample, saturated. */
int16_t sml_clip16(double v);
/* a number and nothing else, within [lo, hi] (lo itself only if lo_ok) */
bool sml_number_in(const char *v, double lo, bool lo_ok, double hi, double *out);

/* ---- logging (stamped with line time, never wall time) ---- */
enum { SML_LOG_ERR, SML_LOG_INFO, SML_LOG_DEBUG, SML_LOG_FRAMES };
extern int sml_log_level;
extern const char *sml_log_prog;
void sml_log(int level, int64_t sample, const char *who, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- seeded randomness ---- */
struct sml_rng {
	uint64_t s;
	bool have_spare;
	double spare;
};
void sml_rng_seed(struct sml_rng *r, uint64_t seed);
uint64_t sml_rng_u64(struct sml_rng *r);
double sml_rng_uniform(struct sml_rng *r);	/* [0, 1) */
double sml_rng_gauss(struct sml_rng *r);	/* N(0, 1) */

/* ---- a fixed delay: what goes in comes out len samples later ---- */
struct sml_delay {
	double *buf;
	int len, pos;
};
int sml_delay_init(struct sml_delay *d, int len);	/* len <= 0: none */
void sml_delay_free(struct sml_delay *d);
double sml_delay_push(struct sml_delay *d, double x);	/* x's len-th elder */

/* ---- byte FIFO between modem and data service ---- */
struct sml_fifo {
	uint8_t *buf;
	size_t size, head, len;
};
int sml_fifo_init(struct sml_fifo *f, size_t size);
void sml_fifo_free(struct sml_fifo *f);
size_t sml_fifo_put(struct sml_fifo *f, const uint8_t *p, size_t n);
size_t sml_fifo_get(struct sml_fifo *f, uint8_t *p, size_t n);
static inline size_t sml_fifo_space(const struct sml_fifo *f)
{
	return f->size - f->len;
}

/* ---- CRC-32 (IEEE 802.3, as zlib's crc32 and Python's zlib.crc32) ---- */
uint32_t sml_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* ---- deterministic payloads: "random:N:SEED" byte streams ---- */
void sml_payload_fill(uint64_t seed, uint64_t offset, uint8_t *p, size_t n);

/* ---- small JSON writer ---- */
struct sml_json {
	char *buf;
	size_t len, cap;
	int depth;
	bool need_comma;
};
void sml_json_init(struct sml_json *j);
void sml_json_free(struct sml_json *j);
void sml_json_obj_begin(struct sml_json *j, const char *key);
void sml_json_obj_end(struct sml_json *j);
void sml_json_arr_begin(struct sml_json *j, const char *key);
void sml_json_arr_end(struct sml_json *j);
void sml_json_str(struct sml_json *j, const char *key, const char *v);
void sml_json_int(struct sml_json *j, const char *key, int64_t v);
void sml_json_num(struct sml_json *j, const char *key, double v);
void sml_json_bool(struct sml_json *j, const char *key, bool v);
void sml_json_null(struct sml_json *j, const char *key);
void sml_json_hex32(struct sml_json *j, const char *key, uint32_t v);

/* ---- machine-readable events (--events FILE, JSON Lines) ---- */
extern FILE *sml_events;	/* NULL: no events file */
/*
 * Start one event at line sample t of call `call` (0: none) seen by
 * `source` ("exchange", "far"); add its fields with sml_json_*() and
 * finish it with sml_event_end(). Returns false, with nothing to finish,
 * when no events file is open.
 */
bool sml_event_begin(struct sml_json *j, int64_t t, int call, const char *source,
		     const char *event);
void sml_event_end(struct sml_json *j);

#endif /* SML_H */
