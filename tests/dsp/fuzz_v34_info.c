// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: V.34's INFO receiver fed arbitrary samples (byte 0: its
 * role and the frame kinds it looks for), every event it gives drained; the
 * first bytes also go to the frame unpacker (a frame it takes must pack back
 * to the same bits) and to the shell mapper (map and unmap must agree). The
 * same samples go to a phase 2 controller (the same role; byte 0's bit 4:
 * listen only): its state stays in range, and once it ends it has finished
 * with valid parameters or failed with a reason.
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
#include <smdsp/private/v34_phase2.h>

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

static void phase2_check(const struct smdsp_v34_phase2 *p2)
{
	struct smdsp_v34_phase2_result r;
	enum smdsp_v34_phase2_state st = smdsp_v34_phase2_state(p2);

	if (st >= SMDSP_V34P2_STATES)
		abort();
	if (!smdsp_v34_phase2_result(p2, &r))
		return;
	if (st == SMDSP_V34P2_DONE && !p2->cfg.listen_only &&
	    (r.fail != SMDSP_V34P2_OK || r.a_to_c.symrate >= SMDSP_V34_SYMRATES ||
	     r.c_to_a.symrate >= SMDSP_V34_SYMRATES || !r.a_to_c.max_rate || !r.c_to_a.max_rate ||
	     r.a_to_c.max_rate > 14 * 2400 || r.c_to_a.max_rate > 14 * 2400 || r.a_to_c.preemph > 10 ||
	     r.c_to_a.preemph > 10))
		abort();
	if (st == SMDSP_V34P2_FAILED && (r.fail == SMDSP_V34P2_OK || r.fail >= SMDSP_V34P2_FAILS))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct smdsp_v34_info_rx rx;
	static struct smdsp_v34_phase2 p2;
	struct smdsp_v34_phase2_config cfg = { .level_dbm0_10 = -120, .far_level_dbm0_10 = -120,
					       .info0 = { .rate_2743 = 1, .rate_2800 = 1, .rate_3429 = 1,
							  .low_3000 = 1, .high_3000 = 1, .low_3200 = 1,
							  .high_3200 = 1, .allow_3429 = 1, .power_reduction = 1 } };
	struct smdsp_v34_info_event ev;
	int16_t x[256], y[256];
	size_t pos = 1;

	if (size < 1)
		return 0;
	frames(data, size);
	shell(data, size);
	smdsp_v34_info_rx_init(&rx, data[0] & 1, (data[0] >> 1) & 7);
	cfg.calling = data[0] & 1;
	cfg.listen_only = (data[0] >> 4) & 1;
	smdsp_v34_phase2_init(&p2, &cfg);
	while (pos + 1 < size) {
		size_t n = (size - pos) / 2;

		if (n > 256)
			n = 256;
		memcpy(x, data + pos, n * 2);
		pos += n * 2;
		smdsp_v34_info_rx_process(&rx, x, (unsigned int)n);
		while (smdsp_v34_info_rx_get(&rx, &ev))
			if (ev.type == SMDSP_V34_EV_FRAME && (unsigned int)ev.nbits + 4 != smdsp_v34_info_bits(ev.info.kind))
				abort();
		smdsp_v34_phase2_process(&p2, x, y, (unsigned int)n);
		phase2_check(&p2);
	}
	return 0;
}
