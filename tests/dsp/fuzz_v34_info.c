// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: V.34's INFO receiver fed arbitrary samples (byte 0: its
 * role and the frame kinds it looks for), every event it gives drained; the
 * first bytes also go to the frame unpacker (a frame it takes must pack back
 * to the same bits) and to the shell mapper (map and unmap must agree).
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v34_info.h>
#include <smdsp/v34_shell.h>
/* white-box: both run in place, set up by their *_init() per input */
#include <smdsp/private/v34_info.h>
#include <smdsp/private/v34_shell.h>

static void frames(const uint8_t *data, size_t size)
{
	uint8_t f[SMDSP_V34_INFO_BYTES], g[SMDSP_V34_INFO_BYTES];
	struct smdsp_v34_info info;
	unsigned int k, b;

	memset(f, 0, sizeof(f));
	memcpy(f, data, size < sizeof(f) ? size : sizeof(f));
	for (k = 0; k <= SMDSP_V34_INFO_KINDS; k++) {
		unsigned int n = smdsp_v34_info_bits((enum smdsp_v34_info_kind)k);

		if (smdsp_v34_info_unpack((enum smdsp_v34_info_kind)k, f, data[0] % 112, &info))
			continue;
		/* taken: its fields pack back to the same bits, fill bits aside */
		if (smdsp_v34_info_pack(&info, g) != (int)n)
			abort();
		for (b = 4; b < n - 4; b++)
			if (((f[b / 8] ^ g[b / 8]) >> (b % 8)) & 1)
				abort();
	}
}

static void shell(const uint8_t *data, size_t size)
{
	static struct smdsp_v34_shell s;
	unsigned int m = 1 + data[0] % SMDSP_V34_SHELL_MAX_M, k = 0;
	uint64_t all = 1, r;
	uint8_t ring[SMDSP_V34_SHELL_RINGS];
	uint32_t r0 = 0;
	int64_t back;

	for (k = 0; k < 8; k++)
		all *= m;
	for (k = 0; k < SMDSP_V34_SHELL_MAX_K && (2ULL << k) <= all; k++)
		;
	if (smdsp_v34_shell_init(&s, m, k))
		abort();
	if (size >= 5)
		memcpy(&r0, data + 1, 4);
	r = k ? r0 % (1ULL << k) : 0;
	if (smdsp_v34_shell_map(&s, (uint32_t)r, ring) || smdsp_v34_shell_unmap(&s, ring) != (int64_t)r)
		abort();
	/* arbitrary rings: refused, or a combination that maps back to them */
	memset(ring, 0, sizeof(ring));
	memcpy(ring, data, size < sizeof(ring) ? size : sizeof(ring));
	back = smdsp_v34_shell_unmap(&s, ring);
	if (back >= 0) {
		uint8_t again[SMDSP_V34_SHELL_RINGS];

		if (smdsp_v34_shell_map(&s, (uint32_t)back, again) || memcmp(again, ring, sizeof(ring)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct smdsp_v34_info_rx rx;
	struct smdsp_v34_info_event ev;
	int16_t x[256];
	size_t pos = 1;

	if (size < 1)
		return 0;
	frames(data, size);
	shell(data, size);
	smdsp_v34_info_rx_init(&rx, data[0] & 1, (data[0] >> 1) & 7);
	while (pos + 1 < size) {
		size_t n = (size - pos) / 2;

		if (n > 256)
			n = 256;
		memcpy(x, data + pos, n * 2);
		pos += n * 2;
		smdsp_v34_info_rx_process(&rx, x, (unsigned int)n);
		while (smdsp_v34_info_rx_get(&rx, &ev))
			if (ev.type == SMDSP_V34_EV_FRAME && ev.nbits + 4 != smdsp_v34_info_bits(ev.info.kind))
				abort();
	}
	return 0;
}
