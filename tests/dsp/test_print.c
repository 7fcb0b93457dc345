// SPDX-License-Identifier: GPL-2.0
/*
 * Every block's smdsp_*_print() on a fresh instance: one line that starts
 * with the block's name, snprintf's return value (the whole line's length,
 * also for a short or a NULL buffer), truncation that keeps the line's start
 * and a NUL inside len, and nothing written past len.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <smdsp/goertzel.h>
#include <smdsp/echo.h>
#include <smdsp/eq.h>
#include <smdsp/ring.h>
#include <smdsp/tone.h>
#include <smdsp/dtmf.h>
#include <smdsp/callprog.h>
#include <smdsp/anstone.h>
#include <smdsp/fsk.h>
#include <smdsp/trellis.h>
#include <smdsp/viterbi.h>
#include <smdsp/v22bis.h>
#include <smdsp/v27ter.h>
#include <smdsp/v29.h>
#include <smdsp/v17.h>
#include <smdsp/v32bis.h>
#include <smdsp/hdlc.h>
#include <smdsp/async.h>
#include <smdsp/v8.h>
#include <smdsp/v42.h>
#include <smdsp/v42bis.h>
#include <smdsp/modem.h>
#include <smdsp/faxmodem.h>
#include <smdsp/faxdte.h>
#include <smdsp/pump.h>
#include <smdsp/v34_info.h>
#include <smdsp/v34_shell.h>
#include <smdsp/v34_mod.h>
#include <smdsp/v34_probe.h>
#include <smdsp/v34_rtd.h>
#include <smdsp/v34_phase2.h>
#include <smdsp/v34.h>
/* white-box: the pieces only embedded by value (qam.c's, V.42's framer) have no create */
#include <smdsp/private/v27ter.h>
#include "tutil.h"

#define SHORT 8		/* the truncated buffer's len */

static void check_line(const char *name, const char *line, int n, int n_short, int n_null,
		       const char *trunc, const char *one)
{
	size_t nl = strlen(name), i;

	CHECK(n > (int)nl && (size_t)n == strlen(line), "%s: returned %d for '%s'", name, n, line);
	CHECK(!strncmp(line, name, nl) && line[nl] == ' ', "%s: line '%s'", name, line);
	for (i = 0; line[i]; i++)
		CHECK(isprint((unsigned char)line[i]), "%s: character %zu of '%s'", name, i, line);
	/* a short buffer: the line's start, NUL-terminated, nothing beyond len */
	CHECK(n_short == n && n_null == n, "%s: returned %d (len %d), %d (NULL), %d", name, n_short,
	      SHORT, n_null, n);
	CHECK(strlen(trunc) == SHORT - 1 && !strncmp(trunc, line, SHORT - 1), "%s: truncated '%s'", name,
	      trunc);
	CHECK(trunc[SHORT] == '#' && trunc[SHORT + 1] == '#' && trunc[SHORT + 3] == '#',
	      "%s: wrote past len", name);
	CHECK(one[0] == '\0' && one[1] == '#', "%s: len 1", name);
	printf("%s\n", line);
}

#define PRINT_CHECK(name, fn, obj) do { \
	char line_[256], trunc_[SHORT + 4], one_[4]; \
	int n_, s_, z_; \
	CHECK((obj) != NULL, "%s: not created", name); \
	if (obj) { \
		memset(line_, '#', sizeof(line_)); \
		memset(trunc_, '#', sizeof(trunc_)); \
		memset(one_, '#', sizeof(one_)); \
		n_ = fn((obj), line_, sizeof(line_)); \
		s_ = fn((obj), trunc_, SHORT); \
		z_ = fn((obj), NULL, 0); \
		fn((obj), one_, 1); \
		check_line(name, line_, n_, s_, z_, trunc_, one_); \
	} \
} while (0)

static int get_one(void *user)
{
	(void)user;
	return 1;
}

static void put_any(void *user, int bit)
{
	(void)user;
	(void)bit;
}

static int get_byte(void *user)
{
	(void)user;
	return -1;
}

static void put_byte(void *user, int byte)
{
	(void)user;
	(void)byte;
}

static void sym_any(void *user, const struct smdsp_v22bis_sym *sym)
{
	(void)user;
	(void)sym;
}

static void detection(void)
{
	struct smdsp_tone_desc d = { .freq_mhz = { 350000, 440000 }, .level_dbm0_10 = { -130, -130 },
				     .on_ms = 1000 };
	struct smdsp_goertzel *g = smdsp_goertzel_create(1000000);
	struct smdsp_eq *e = smdsp_eq_create(17, 8, 6);
	struct smdsp_ring *r = smdsp_ring_create();
	struct smdsp_tone *t = smdsp_tone_create(&d);
	struct smdsp_dtmf_tx *dt = smdsp_dtmf_tx_create();
	struct smdsp_dtmf_rx *dr = smdsp_dtmf_rx_create();
	struct smdsp_callprog *cp = smdsp_callprog_create(SMDSP_CALLPROG_PLAN_ETSI);
	struct smdsp_anstone_rx *an = smdsp_anstone_rx_create(2100000);
	struct smdsp_fsk_tx *ft = smdsp_fsk_tx_create(SMDSP_V21_CH1, -120, get_one, NULL);
	struct smdsp_fsk_rx *fr = smdsp_fsk_rx_create(SMDSP_V21_CH2, put_any, NULL, NULL);
	unsigned int np;
	const int8_t (*p)[2] = smdsp_v17_points(14400, &np);
	struct smdsp_trellis_enc *te = smdsp_trellis_enc_create(1);
	struct smdsp_viterbi *vi = smdsp_viterbi_create(p[0], np, SMDSP_V17_UNIT, SMDSP_VITERBI_DEPTH, -1);
	struct smdsp_echo_config ecc = { 128, 128, 4800 };
	struct smdsp_echo *ec = smdsp_echo_create(&ecc);

	PRINT_CHECK("goertzel", smdsp_goertzel_print, g);
	PRINT_CHECK("eq", smdsp_eq_print, e);
	PRINT_CHECK("ring", smdsp_ring_print, r);
	PRINT_CHECK("tone", smdsp_tone_print, t);
	PRINT_CHECK("dtmf_tx", smdsp_dtmf_tx_print, dt);
	PRINT_CHECK("dtmf_rx", smdsp_dtmf_rx_print, dr);
	PRINT_CHECK("callprog", smdsp_callprog_print, cp);
	PRINT_CHECK("anstone_rx", smdsp_anstone_rx_print, an);
	PRINT_CHECK("fsk_tx", smdsp_fsk_tx_print, ft);
	PRINT_CHECK("fsk_rx", smdsp_fsk_rx_print, fr);
	PRINT_CHECK("trellis_enc", smdsp_trellis_enc_print, te);
	PRINT_CHECK("viterbi", smdsp_viterbi_print, vi);
	PRINT_CHECK("echo", smdsp_echo_print, ec);
	smdsp_echo_free(ec);
	smdsp_goertzel_free(g);
	smdsp_eq_free(e);
	smdsp_ring_free(r);
	smdsp_tone_free(t);
	smdsp_dtmf_tx_free(dt);
	smdsp_dtmf_rx_free(dr);
	smdsp_callprog_free(cp);
	smdsp_anstone_rx_free(an);
	smdsp_fsk_tx_free(ft);
	smdsp_fsk_rx_free(fr);
	smdsp_trellis_enc_free(te);
	smdsp_viterbi_free(vi);
}

static void modulations(void)
{
	struct smdsp_v22bis_config vc = { .calling = true, .max_rate = 2400, .get_bit = get_one,
					  .put_bit = put_any };
	struct smdsp_v22bis_tx *v22t = smdsp_v22bis_tx_create(false, -130, SMDSP_V22BIS_GUARD_1800,
							      get_one, NULL);
	struct smdsp_v22bis_rx *v22r = smdsp_v22bis_rx_create(true, sym_any, NULL, NULL);
	struct smdsp_v22bis *v22 = smdsp_v22bis_create(&vc);
	struct smdsp_v27ter_tx *v27t = smdsp_v27ter_tx_create(4800, -100, false, get_one, NULL, NULL);
	struct smdsp_v27ter_rx *v27r = smdsp_v27ter_rx_create(4800, put_any, NULL, NULL);
	struct smdsp_v29_tx *v29t = smdsp_v29_tx_create(9600, -100, false, get_one, NULL, NULL);
	struct smdsp_v29_rx *v29r = smdsp_v29_rx_create(9600, put_any, NULL, NULL);
	struct smdsp_v17_tx *v17t = smdsp_v17_tx_create(14400, -100, false, false, get_one, NULL, NULL);
	struct smdsp_v17_rx *v17r = smdsp_v17_rx_create(14400, put_any, NULL, NULL);
	struct smdsp_v32bis_tx *v32t = smdsp_v32bis_tx_create(true, -100, get_one, NULL, NULL);
	struct smdsp_v32bis_rx *v32r = smdsp_v32bis_rx_create(false, put_any, NULL, NULL);
	struct smdsp_v32bis_config v32c = { .caller = true };
	struct smdsp_v32bis *v32 = smdsp_v32bis_create(&v32c);

	PRINT_CHECK("v22bis_tx", smdsp_v22bis_tx_print, v22t);
	PRINT_CHECK("v22bis_rx", smdsp_v22bis_rx_print, v22r);
	PRINT_CHECK("v22bis", smdsp_v22bis_print, v22);
	PRINT_CHECK("v27ter_tx", smdsp_v27ter_tx_print, v27t);
	PRINT_CHECK("v27ter_rx", smdsp_v27ter_rx_print, v27r);
	if (v27t && v27r) {
		PRINT_CHECK("qam_tx", smdsp_qam_tx_print, &v27t->qt);
		PRINT_CHECK("qam_rx", smdsp_qam_rx_print, &v27r->q);
	}
	PRINT_CHECK("v29_tx", smdsp_v29_tx_print, v29t);
	PRINT_CHECK("v29_rx", smdsp_v29_rx_print, v29r);
	PRINT_CHECK("v17_tx", smdsp_v17_tx_print, v17t);
	PRINT_CHECK("v17_rx", smdsp_v17_rx_print, v17r);
	PRINT_CHECK("v32bis_tx", smdsp_v32bis_tx_print, v32t);
	PRINT_CHECK("v32bis_rx", smdsp_v32bis_rx_print, v32r);
	PRINT_CHECK("v32bis", smdsp_v32bis_print, v32);
	smdsp_v32bis_free(v32);
	smdsp_v32bis_tx_free(v32t);
	smdsp_v32bis_rx_free(v32r);
	smdsp_v22bis_tx_free(v22t);
	smdsp_v22bis_rx_free(v22r);
	smdsp_v22bis_free(v22);
	smdsp_v27ter_tx_free(v27t);
	smdsp_v27ter_rx_free(v27r);
	smdsp_v29_tx_free(v29t);
	smdsp_v29_rx_free(v29r);
	smdsp_v17_tx_free(v17t);
	smdsp_v17_rx_free(v17r);
}

static void framing(void)
{
	struct smdsp_hdlc_tx_config htc = { .crc32 = false };
	struct smdsp_hdlc_rx_config hrc = { .crc32 = false };
	struct smdsp_async_config ac = { .data_bits = 8, .stop_bits = 1 };
	struct smdsp_v8_config v8c = { .calling = 1, .modulations = 0, .lapm = 1 };
	struct smdsp_v42_config v42c = { .calling = 1, .bit_rate = 2400 };
	struct smdsp_hdlc_tx *ht = smdsp_hdlc_tx_create(&htc);
	struct smdsp_hdlc_rx *hr = smdsp_hdlc_rx_create(&hrc);
	struct smdsp_async_tx *at = smdsp_async_tx_create(&ac, get_byte, NULL);
	struct smdsp_async_rx *ar = smdsp_async_rx_create(&ac, put_byte, NULL);
	struct smdsp_v8 *v8 = smdsp_v8_create(&v8c);
	struct smdsp_v42 *v42 = smdsp_v42_create(&v42c);
	struct smdsp_v42bis_config bc = { .dirs = SMDSP_V42BIS_DIR_BOTH };
	struct smdsp_v42bis *bis = smdsp_v42bis_create(&bc);

	PRINT_CHECK("hdlc_tx", smdsp_hdlc_tx_print, ht);
	PRINT_CHECK("hdlc_rx", smdsp_hdlc_rx_print, hr);
	PRINT_CHECK("async_tx", smdsp_async_tx_print, at);
	PRINT_CHECK("async_rx", smdsp_async_rx_print, ar);
	PRINT_CHECK("v8", smdsp_v8_print, v8);
	PRINT_CHECK("v42", smdsp_v42_print, v42);
	PRINT_CHECK("v42bis", smdsp_v42bis_print, bis);
	smdsp_hdlc_tx_free(ht);
	smdsp_hdlc_rx_free(hr);
	smdsp_async_tx_free(at);
	smdsp_async_rx_free(ar);
	smdsp_v8_free(v8);
	smdsp_v42_free(v42);
	smdsp_v42bis_free(bis);
}

static void engines(void)
{
	struct smdsp_modem_config mc = { .sample_rate = 8000 };
	struct smdsp_pump_config pc = { .sample_rate = 8000 };
	struct smdsp_modem *m = smdsp_modem_create(&mc);
	struct smdsp_faxmodem *f = smdsp_faxmodem_create(NULL);
	struct smdsp_faxdte *d = f ? smdsp_faxdte_create(f) : NULL;
	struct smdsp_pump *p = smdsp_pump_create(&pc);

	PRINT_CHECK("modem", smdsp_modem_print, m);
	PRINT_CHECK("faxmodem", smdsp_faxmodem_print, f);
	PRINT_CHECK("faxdte", smdsp_faxdte_print, d);
	PRINT_CHECK("pump", smdsp_pump_print, p);
	smdsp_modem_free(m);
	smdsp_faxdte_free(d);
	smdsp_faxmodem_free(f);
	smdsp_pump_free(p);
}

static void v34(void)
{
	struct smdsp_v34_info_tx *it = smdsp_v34_info_tx_create(true, -100);
	struct smdsp_v34_info_rx *ir = smdsp_v34_info_rx_create(false, 0);
	struct smdsp_v34_shell *sh = smdsp_v34_shell_create(12, 28);

	PRINT_CHECK("v34_info_tx", smdsp_v34_info_tx_print, it);
	PRINT_CHECK("v34_info_rx", smdsp_v34_info_rx_print, ir);
	PRINT_CHECK("v34_shell", smdsp_v34_shell_print, sh);
	smdsp_v34_info_tx_free(it);
	smdsp_v34_info_rx_free(ir);
	smdsp_v34_shell_free(sh);
}

/* V.34's timing unit, line probing, round trip, phase 2 and the whole call */
static void v34_phase2(void)
{
	struct smdsp_v34_mod *m = smdsp_v34_mod_create(SMDSP_V34_S3200, true, NULL, NULL);
	struct smdsp_v34_demod *d = smdsp_v34_demod_create(SMDSP_V34_S2743, false, 2);
	struct smdsp_v34_probe_tx *pt = smdsp_v34_probe_tx_create(-120);
	struct smdsp_v34_probe_rx *pr = smdsp_v34_probe_rx_create(-120);
	struct smdsp_v34_rtd *rt = smdsp_v34_rtd_create(false, -120);
	struct smdsp_v34_phase2 *p2 = smdsp_v34_phase2_create(NULL);
	struct smdsp_v34 *call = smdsp_v34_create(NULL);

	PRINT_CHECK("v34_mod", smdsp_v34_mod_print, m);
	PRINT_CHECK("v34_demod", smdsp_v34_demod_print, d);
	PRINT_CHECK("v34_probe_tx", smdsp_v34_probe_tx_print, pt);
	PRINT_CHECK("v34_probe_rx", smdsp_v34_probe_rx_print, pr);
	PRINT_CHECK("v34_rtd", smdsp_v34_rtd_print, rt);
	PRINT_CHECK("v34_phase2", smdsp_v34_phase2_print, p2);
	PRINT_CHECK("v34", smdsp_v34_print, call);
	smdsp_v34_phase2_free(p2);
	smdsp_v34_free(call);
	smdsp_v34_mod_free(m);
	smdsp_v34_demod_free(d);
	smdsp_v34_probe_tx_free(pt);
	smdsp_v34_probe_rx_free(pr);
	smdsp_v34_rtd_free(rt);
}

int main(void)
{
	detection();
	modulations();
	framing();
	engines();
	v34();
	v34_phase2();
	return t_report("test_print");
}
