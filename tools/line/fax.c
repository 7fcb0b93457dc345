// SPDX-License-Identifier: GPL-2.0
/*
 * smline: a fax terminal, SpanDSP 0.0.6's T.30 over its own fax modems.
 *
 * SpanDSP times T.30 by the samples it is given (t30_timer_update from
 * fax_rx), so a call is a pure function of the audio. The audio is handed
 * over in steps of 1 ms, so that the frames and phases T.30 reports carry
 * their time to the millisecond. The image modem of the call is read from
 * the DCS frame (T.30 bits 11-14), since a 9600 or 7200 bit/s rate alone
 * may be V.17 or V.29.
 *
 * SpanDSP gotcha (as for the data modems, see modem.c): with noise on the
 * line its receivers' fixed carrier cutoffs (about -43 dBm0) take the noise
 * for a carrier that never ends, and T.30, waiting for it to drop, never
 * answers. We raise the cutoffs of all four receivers (V.21, V.17, V.29,
 * V.27ter, reached through SpanDSP's exposed structures) from the noise
 * floor: the quietest 20 ms block heard so far, plus CUTOFF_MARGIN_DB.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tiffio.h>
#define SPANDSP_EXPOSE_INTERNAL_STRUCTURES
#include <spandsp.h>

#include "fax.h"

#define STEP 8			/* samples per fax_rx/fax_tx: 1 ms */
#define ALL_MODEMS (T30_SUPPORT_V27TER | T30_SUPPORT_V29 | T30_SUPPORT_V17)
#define FLOOR_BLOCK 160		/* noise floor measurement block */
#define CUTOFF_MIN_DBM0 -43.0	/* below this SpanDSP's own cutoffs stand */
/*
 * SpanDSP's receivers measure the wideband power (after a DC blocker) and
 * drop the carrier 2.5 dB under the cutoff: 3 dB over the floor keeps the
 * noise under that, and a -14 dBm0 fax signal far above it.
 */
#define CUTOFF_MARGIN_DB 3.0

struct sml_fax {
	struct sml_fax_cfg cfg;
	const char *who;
	fax_state_t *fs;
	t30_state_t *t30;
	int64_t now;		/* samples processed */
	/* noise floor and the receivers' cutoff set from it */
	double floor_acc, floor_min, cutoff;
	int floor_n, floor_blocks;
	bool done;		/* phase E reported */
	struct sml_fax_stats st;
};

void sml_fax_cfg_default(struct sml_fax_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->modems = ALL_MODEMS;
}

/* "v17+v29+v27ter": the image modems offered */
static int parse_modems(const char *v)
{
	static const struct { const char *name; int bit; } names[] = {
		{ "v17", T30_SUPPORT_V17 }, { "v29", T30_SUPPORT_V29 },
		{ "v27ter", T30_SUPPORT_V27TER },
	};
	char buf[64], *save = NULL, *w;
	int bits = 0;
	size_t k;

	snprintf(buf, sizeof(buf), "%s", v);
	for (w = strtok_r(buf, "+", &save); w; w = strtok_r(NULL, "+", &save)) {
		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (!strcmp(w, names[k].name))
				break;
		if (k == sizeof(names) / sizeof(names[0]))
			return -1;
		bits |= names[k].bit;
	}
	return bits ? bits : -1;
}

static int copy_word(char *dst, size_t len, const char *v)
{
	if (!*v || strlen(v) >= len)
		return -1;
	snprintf(dst, len, "%s", v);
	return 0;
}

int sml_fax_cfg_parse_word(struct sml_fax_cfg *c, const char *w)
{
	if (!strcmp(w, "fax")) {
		c->on = true;
	} else if (!strcmp(w, "ecm")) {
		c->ecm = true;
	} else if (!strcmp(w, "noecm")) {
		c->ecm = false;
	} else if (!strncmp(w, "faxsend=", 8)) {
		return copy_word(c->send, sizeof(c->send), w + 8);
	} else if (!strncmp(w, "faxrecv=", 8)) {
		return copy_word(c->recv, sizeof(c->recv), w + 8);
	} else if (!strncmp(w, "ident=", 6)) {
		return copy_word(c->ident, sizeof(c->ident), w + 6);
	} else if (!strncmp(w, "faxmodems=", 10)) {
		int bits = parse_modems(w + 10);

		if (bits < 0)
			return -1;
		c->modems = bits;
	} else {
		return 1;
	}
	return 0;
}

/* a bilevel TIFF with at least one page that SpanDSP's T.4 sender takes */
static int check_send(const char *path, char *why, size_t len)
{
	TIFFErrorHandler err = TIFFSetErrorHandler(NULL);
	TIFFErrorHandler warn = TIFFSetWarningHandler(NULL);
	uint16_t bps = 0;
	t4_tx_state_t *t4;
	FILE *fp;
	TIFF *tif;
	int rc = -1;

	fp = fopen(path, "rb");
	if (!fp) {
		snprintf(why, len, "faxsend=%s: %s", path, strerror(errno));
		goto out;
	}
	fclose(fp);
	tif = TIFFOpen(path, "r");
	if (!tif) {
		snprintf(why, len, "faxsend=%s: not a TIFF file", path);
		goto out;
	}
	TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
	TIFFClose(tif);
	if (bps != 1) {
		snprintf(why, len, "faxsend=%s: not a bilevel image (%u bits per sample)",
			 path, bps);
		goto out;
	}
	t4 = t4_tx_init(NULL, path, -1, -1);
	if (!t4) {
		snprintf(why, len, "faxsend=%s: SpanDSP cannot send this TIFF", path);
		goto out;
	}
	t4_tx_free(t4);
	rc = 0;
out:
	TIFFSetErrorHandler(err);
	TIFFSetWarningHandler(warn);
	return rc;
}

/* the file may be created or overwritten there */
static int check_recv(const char *path, char *why, size_t len)
{
	struct stat st;
	char dir[512];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK | X_OK)) {
		snprintf(why, len, "faxrecv=%s: cannot write in %s: %s", path, dir,
			 strerror(errno));
		return -1;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(why, len, "faxrecv=%s: is a directory", path);
		return -1;
	}
	if (!access(path, F_OK) && access(path, W_OK)) {
		snprintf(why, len, "faxrecv=%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int sml_fax_cfg_check(const struct sml_fax_cfg *c, char *why, size_t len)
{
	if (!c->on) {
		if (c->send[0] || c->recv[0]) {
			snprintf(why, len, "faxsend= and faxrecv= need the word fax");
			return -1;
		}
		return 0;
	}
	if (c->send[0] && check_send(c->send, why, len))
		return -1;
	if (c->recv[0] && check_recv(c->recv, why, len))
		return -1;
	return 0;
}

/* ---- T.30 reports ---- */
static void add_event(struct sml_fax *f, const char *kind, bool tx, int code,
		      const char *text)
{
	struct sml_fax_event *e;
	struct sml_json j;

	sml_log(SML_LOG_DEBUG, f->now, f->who, "T.30 %s %s%s (%d)", kind,
		!strcmp(kind, "frame") ? (tx ? "sent " : "got ") : "", text, code);
	if (f->cfg.event_call &&
	    sml_event_begin(&j, f->cfg.event_origin + f->now, f->cfg.event_call,
			    f->who, "fax")) {
		sml_json_str(&j, "kind", kind);
		if (!strcmp(kind, "frame"))
			sml_json_str(&j, "dir", tx ? "tx" : "rx");
		sml_json_int(&j, "code", code);
		sml_json_str(&j, "text", text);
		sml_event_end(&j);
	}
	if (f->st.nev == SML_FAX_MAX_EVENTS)
		return;
	e = &f->st.ev[f->st.nev++];
	e->t = f->now;
	e->kind = kind;
	e->tx = tx;
	e->code = code;
	e->text = text;
}

static void take_stats(struct sml_fax *f)
{
	t30_stats_t s;

	t30_get_transfer_statistics(f->t30, &s);
	f->st.pages_tx = s.pages_tx;
	f->st.pages_rx = s.pages_rx;
	f->st.bit_rate = s.bit_rate;
	f->st.ecm = s.error_correcting_mode;
	f->st.ecm_retries = s.error_correcting_mode_retries;
	/* an ECM receiver's statistics forget the page by phase E: keep the last one seen */
	if (s.length > 0) {
		f->st.x_resolution = s.x_resolution;
		f->st.y_resolution = s.y_resolution;
		f->st.width = s.width;
		f->st.length = s.length;
		f->st.image_size = s.image_size;
		f->st.bad_rows = s.bad_rows;
	}
	snprintf(f->st.remote_ident, sizeof(f->st.remote_ident), "%s",
		 t30_get_rx_ident(f->t30) ? t30_get_rx_ident(f->t30) : "");
}

/* T.30's name of a frame; a partial page signal with its post-page command */
static const char *frame_name(const uint8_t *msg, int len)
{
	if ((msg[2] & 0xFE) == T30_PPS && len > 3) {
		switch (msg[3] & 0xFE) {
		case T30_NULL:
			return "PPS-NULL";
		case T30_MPS & 0xFE:
			return "PPS-MPS";
		case T30_EOP & 0xFE:
			return "PPS-EOP";
		case T30_EOM & 0xFE:
			return "PPS-EOM";
		}
	}
	return t30_frametype(msg[2]);
}

static void frame_cb(t30_state_t *s, void *user, int incoming, const uint8_t *msg,
		     int len)
{
	struct sml_fax *f = user;

	if (len < 3)
		return;
	/* ECM's image frames are counted, not listed: dozens a page */
	if (msg[2] == T4_FCD || msg[2] == T4_RCP) {
		f->st.ecm_frames[incoming ? 1 : 0]++;
		return;
	}
	add_event(f, "frame", !incoming, msg[2], frame_name(msg, len));
	if ((msg[2] & 0xFE) == T30_DCS && len >= 5) {
		/* bits 11-14: V.17 has bit 14, V.29 bit 11 without it */
		f->st.modem = msg[4] & 0x20 ? "V.17" : msg[4] & 0x04 ? "V.29" : "V.27ter";
		if (f->st.dcs_sample < 0)
			f->st.dcs_sample = f->now;
	}
}

static int phase_b_cb(t30_state_t *s, void *user, int result)
{
	struct sml_fax *f = user;

	add_event(f, "phase-b", false, result, t30_frametype((uint8_t)result));
	return T30_ERR_OK;
}

static int phase_d_cb(t30_state_t *s, void *user, int result)
{
	struct sml_fax *f = user;

	take_stats(f);
	add_event(f, "phase-d", false, result, t30_frametype((uint8_t)result));
	return T30_ERR_OK;
}

static void phase_e_cb(t30_state_t *s, void *user, int code)
{
	struct sml_fax *f = user;

	take_stats(f);
	f->done = true;
	f->st.completion = code;
	f->st.end_sample = f->now;
	snprintf(f->st.completion_text, sizeof(f->st.completion_text), "%s",
		 t30_completion_code_to_str(code));
	add_event(f, "phase-e", false, code, t30_completion_code_to_str(code));
	sml_log(SML_LOG_INFO, f->now, f->who, "fax done: %s, %d page%s sent, %d received",
		f->st.completion_text, f->st.pages_tx, f->st.pages_tx == 1 ? "" : "s",
		f->st.pages_rx);
}

/* ---- life cycle ---- */
struct sml_fax *sml_fax_new(const struct sml_fax_cfg *cfg, const char *who)
{
	struct sml_fax *f = calloc(1, sizeof(*f));
	int comp = T30_SUPPORT_T4_1D_COMPRESSION | T30_SUPPORT_T4_2D_COMPRESSION;

	if (!f)
		return NULL;
	f->cfg = *cfg;
	f->who = who;
	f->st.completion = -1;
	f->st.dcs_sample = f->st.end_sample = -1;
	f->fs = fax_init(NULL, !cfg->answer);
	if (!f->fs) {
		free(f);
		return NULL;
	}
	fax_set_transmit_on_idle(f->fs, TRUE);
	f->cutoff = CUTOFF_MIN_DBM0;	/* SpanDSP's own ones until noise is heard */
	f->t30 = fax_get_t30_state(f->fs);
	if (cfg->ident[0])
		t30_set_tx_ident(f->t30, cfg->ident);
	if (cfg->send[0])
		t30_set_tx_file(f->t30, cfg->send, -1, -1);
	if (cfg->recv[0])
		t30_set_rx_file(f->t30, cfg->recv, -1);
	t30_set_supported_modems(f->t30, cfg->modems ? cfg->modems : ALL_MODEMS);
	t30_set_ecm_capability(f->t30, cfg->ecm);
	if (cfg->ecm)
		comp |= T30_SUPPORT_T6_COMPRESSION;	/* T.6 needs ECM */
	t30_set_supported_compressions(f->t30, comp);
	if (sml_log_level >= SML_LOG_FRAMES) {
		/* -vv: SpanDSP's own account of T.30 and its modems, on stderr */
		span_log_set_level(fax_get_logging_state(f->fs), SPAN_LOG_FLOW | SPAN_LOG_SHOW_TAG);
		span_log_set_tag(fax_get_logging_state(f->fs), who);
		span_log_set_level(t30_get_logging_state(f->t30), SPAN_LOG_FLOW | SPAN_LOG_SHOW_TAG);
		span_log_set_tag(t30_get_logging_state(f->t30), who);
	}
	t30_set_real_time_frame_handler(f->t30, frame_cb, f);
	t30_set_phase_b_handler(f->t30, phase_b_cb, f);
	t30_set_phase_d_handler(f->t30, phase_d_cb, f);
	t30_set_phase_e_handler(f->t30, phase_e_cb, f);
	sml_log(SML_LOG_DEBUG, 0, who, "fax %s%s%s%s%s", cfg->answer ? "answers" : "calls",
		cfg->send[0] ? ", sends " : "", cfg->send, cfg->recv[0] ? ", receives to " : "",
		cfg->recv);
	return f;
}

void sml_fax_stop(struct sml_fax *f)
{
	if (!f->done)
		t30_terminate(f->t30);
	if (!f->done) {
		/* T.30 had no call to end: say so all the same */
		phase_e_cb(f->t30, f, T30_ERR_CALLDROPPED);
	}
}

void sml_fax_free(struct sml_fax *f)
{
	if (!f)
		return;
	sml_fax_stop(f);
	fax_free(f->fs);
	free(f);
}

/*
 * SpanDSP sets its V.21 receiver's cutoff again whenever T.30 switches to
 * it (fax_set_rx_type), so ours goes back in before every step.
 */
static void apply_cutoff(struct sml_fax *f)
{
	fax_modems_state_t *m = &f->fs->modems;
	float db = (float)f->cutoff;

	fsk_rx_signal_cutoff(&m->v21_rx, db);
	v17_rx_signal_cutoff(&m->fast_modems.v17_rx, db);
	v29_rx_signal_cutoff(&m->fast_modems.v29_rx, db);
	v27ter_rx_signal_cutoff(&m->fast_modems.v27ter_rx, db);
}

static void measure_floor(struct sml_fax *f, const int16_t *rx, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		double db, want;

		f->floor_acc += (double)rx[i] * rx[i];
		if (++f->floor_n < FLOOR_BLOCK)
			continue;
		db = sml_rms_to_dbm0(sqrt(f->floor_acc / FLOOR_BLOCK));
		f->floor_acc = 0;
		f->floor_n = 0;
		if (f->floor_blocks++ && db >= f->floor_min)
			continue;
		f->floor_min = db;
		want = db + CUTOFF_MARGIN_DB;
		if (want < CUTOFF_MIN_DBM0)
			want = CUTOFF_MIN_DBM0;
		if (want != f->cutoff) {
			f->cutoff = want;
			sml_log(SML_LOG_DEBUG, f->now, f->who,
				"noise floor %.1f dBm0, carrier cutoff %.1f dBm0", db, want);
		}
	}
}

void sml_fax_process(struct sml_fax *f, const int16_t *rx, int16_t *tx, int n)
{
	int16_t buf[STEP];
	int k, m, got;

	memset(tx, 0, sizeof(*tx) * (size_t)n);
	for (k = 0; k < n; k += m) {
		m = n - k < STEP ? n - k : STEP;
		if (f->done) {
			f->now += m;
			continue;
		}
		measure_floor(f, rx + k, m);
		if (f->cutoff > CUTOFF_MIN_DBM0)
			apply_cutoff(f);
		memcpy(buf, rx + k, sizeof(*buf) * (size_t)m);
		fax_rx(f->fs, buf, m);
		got = fax_tx(f->fs, tx + k, m);
		if (got < m)
			memset(tx + k + got, 0, sizeof(*tx) * (size_t)(m - got));
		f->now += m;
	}
}

bool sml_fax_done(const struct sml_fax *f)
{
	return f->done;
}

const struct sml_fax_stats *sml_fax_stats(struct sml_fax *f)
{
	if (!f->done)
		take_stats(f);
	return &f->st;
}

void sml_fax_json(const struct sml_fax_stats *s, int64_t origin, struct sml_json *j)
{
	int i;

	sml_json_obj_begin(j, "fax");
	sml_json_int(j, "pages", s->pages_tx + s->pages_rx);
	sml_json_int(j, "pages_tx", s->pages_tx);
	sml_json_int(j, "pages_rx", s->pages_rx);
	sml_json_str(j, "modem", s->modem);
	sml_json_int(j, "bit_rate", s->bit_rate);
	sml_json_bool(j, "ecm", s->ecm);
	sml_json_int(j, "x_resolution", s->x_resolution);
	sml_json_int(j, "y_resolution", s->y_resolution);
	sml_json_int(j, "width", s->width);
	sml_json_int(j, "length", s->length);
	sml_json_int(j, "image_size", s->image_size);
	sml_json_int(j, "bad_rows", s->bad_rows);
	sml_json_int(j, "ecm_retries", s->ecm_retries);
	sml_json_int(j, "ecm_frames_tx", s->ecm_frames[0]);
	sml_json_int(j, "ecm_frames_rx", s->ecm_frames[1]);
	if (s->completion >= 0) {
		sml_json_int(j, "completion", s->completion);
		sml_json_str(j, "completion_text", s->completion_text);
	} else {
		sml_json_null(j, "completion");
		sml_json_null(j, "completion_text");
	}
	sml_json_str(j, "remote_ident", s->remote_ident);
	if (s->dcs_sample >= 0)
		sml_json_int(j, "dcs_sample", origin + s->dcs_sample);
	else
		sml_json_null(j, "dcs_sample");
	if (s->end_sample >= 0)
		sml_json_int(j, "end_sample", origin + s->end_sample);
	else
		sml_json_null(j, "end_sample");
	sml_json_arr_begin(j, "t30");
	for (i = 0; i < s->nev; i++) {
		const struct sml_fax_event *e = &s->ev[i];

		sml_json_obj_begin(j, NULL);
		sml_json_int(j, "t", origin + e->t);
		sml_json_str(j, "kind", e->kind);
		if (!strcmp(e->kind, "frame"))
			sml_json_str(j, "dir", e->tx ? "tx" : "rx");
		sml_json_int(j, "code", e->code);
		sml_json_str(j, "text", e->text);
		sml_json_obj_end(j);
	}
	sml_json_arr_end(j);
	sml_json_obj_end(j);
}
