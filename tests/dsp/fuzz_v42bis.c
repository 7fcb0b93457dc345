/*
 * libFuzzer target for the V.42bis decoder: any byte sequence from the line
 * gives data or a counted protocol error, never more than P2 bytes out per
 * byte in, never an access outside the dictionary; and the encoder: the same
 * bytes, compressed with flushes where the input says, decode back exactly
 * (abort() otherwise, which the fuzzer reports).
 *
 * Input: P1 (two bytes), P2, flags (mode, output room), then the bytes.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v42bis.h>

static unsigned int pick_p1(const uint8_t *d)
{
	unsigned int v = (unsigned int)d[0] << 8 | d[1];

	/* mostly small dictionaries, where recovery wraps quickly */
	if (d[0] & 0x80)
		return SMDSP_V42BIS_MIN_P1 + (v & 0x3ff);
	return SMDSP_V42BIS_MIN_P1 + v % (SMDSP_V42BIS_MAX_P1 - SMDSP_V42BIS_MIN_P1 + 1);
}

static void hostile(const struct smdsp_v42bis_config *cfg, const uint8_t *in, size_t len,
		    unsigned int room)
{
	struct smdsp_v42bis *s = smdsp_v42bis_create(cfg);
	uint8_t out[SMDSP_V42BIS_DEC_MAX_OUT + 8];
	size_t pos = 0;

	if (!s)
		abort();
	if (room < cfg->p2)
		room = cfg->p2;
	if (room > sizeof(out))
		room = sizeof(out);
	while (pos < len) {
		unsigned int used;
		int n = smdsp_v42bis_decode(s, in + pos, (unsigned int)(len - pos), out, room, &used);

		if (n < 0 || smdsp_v42bis_failed(s))
			break;
		if (!used || (unsigned int)n > used * cfg->p2)
			abort();
		pos += used;
	}
	smdsp_v42bis_free(s);
}

static void round_trip(const struct smdsp_v42bis_config *cfg, const uint8_t *in, size_t len)
{
	struct smdsp_v42bis *e = smdsp_v42bis_create(cfg), *d = smdsp_v42bis_create(cfg);
	uint8_t line[256], out[SMDSP_V42BIS_DEC_MAX_OUT];
	size_t pos = 0, checked = 0;

	if (!e || !d)
		abort();
	while (pos < len || !smdsp_v42bis_idle(e)) {
		unsigned int n, k, used;

		if (pos < len) {
			/* a byte's low bits also say where the frames end */
			n = smdsp_v42bis_encode(e, in + pos, 1);
			if (n && (in[pos] & 0x0f) == 0x0f)
				smdsp_v42bis_flush(e);
			pos += n;
		} else {
			smdsp_v42bis_flush(e);
		}
		n = smdsp_v42bis_read(e, line, sizeof(line));
		for (k = 0; k < n; k += used) {
			int m = smdsp_v42bis_decode(d, line + k, n - k, out, sizeof(out), &used);

			if (m < 0 || smdsp_v42bis_failed(d) || !used)
				abort();
			if (checked + (unsigned int)m > len || memcmp(out, in + checked, (size_t)m))
				abort();
			checked += (unsigned int)m;
		}
	}
	if (checked != len)
		abort();
	smdsp_v42bis_free(e);
	smdsp_v42bis_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smdsp_v42bis_config cfg;

	if (size < 4)
		return 0;
	memset(&cfg, 0, sizeof(cfg));
	cfg.dirs = SMDSP_V42BIS_DIR_BOTH;
	cfg.p1 = pick_p1(data);
	cfg.p2 = SMDSP_V42BIS_MIN_P2 + data[2] % (SMDSP_V42BIS_MAX_P2 - SMDSP_V42BIS_MIN_P2 + 1);
	cfg.mode = (enum smdsp_v42bis_mode)(data[3] % 3);
	hostile(&cfg, data + 4, size - 4, (data[3] >> 2) * 8);
	/* the round trip is the slower half: on the first 4 KiB only */
	round_trip(&cfg, data + 4, size - 4 > 4096 ? 4096 : size - 4);
	return 0;
}
