// SPDX-License-Identifier: GPL-2.0
/* smline: echo, file/random source and sink with CRC-32, pty bridge. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "service.h"

struct stream {
	bool random;
	bool crc_only;		/* expect=crc32:HEX:N: only the checksum is known */
	uint32_t crc_want, crc_got;
	uint64_t seed, total;
	FILE *f;		/* file-backed */
	uint64_t pos;
};

/* echo backlog: far beyond what a test call moves while its far end is held */
#define ECHO_BACKLOG (1 << 18)

struct sml_service {
	struct sml_service_cfg cfg;
	struct sml_fifo *to_modem, *from_modem;
	struct sml_service_stats st;
	struct stream src, exp;
	bool have_src, have_exp;
	FILE *save;
	int pty_fd;
	/*
	 * echo: what came in and is still to go back.  The far modem may be
	 * held (the modem's V.42 receiver busy) while the modem goes on
	 * sending; the echo waits, it never drops.
	 */
	struct sml_fifo echo_q;
	bool have_echo;
};

int sml_service_cfg_parse_word(struct sml_service_cfg *c, const char *w)
{
#define COPY(dst, src) snprintf(dst, sizeof(dst), "%s", src)
	if (!strcmp(w, "echo")) {
		c->echo = true;
	} else if (!strncmp(w, "send=", 5)) {
		COPY(c->send, w + 5);
	} else if (!strncmp(w, "expect=", 7)) {
		COPY(c->expect, w + 7);
	} else if (!strncmp(w, "save=", 5)) {
		COPY(c->save, w + 5);
	} else if (!strcmp(w, "pty")) {
		c->pty = true;
	} else if (!strncmp(w, "pty=", 4)) {
		c->pty = true;
		COPY(c->pty_link, w + 4);
	} else if (!strcmp(w, "hangup=done")) {
		c->hangup_done = true;
	} else if (!strncmp(w, "hangup=", 7)) {
		char *end;

		c->hangup_s = strtod(w + 7, &end);
		if (*end || c->hangup_s <= 0)
			return -1;
	} else {
		return 1;
	}
	return 0;
#undef COPY
}

static int stream_open(struct stream *s, const char *spec)
{
	memset(s, 0, sizeof(*s));
	if (!strncmp(spec, "random:", 7)) {
		char *end;

		s->random = true;
		s->total = strtoull(spec + 7, &end, 0);
		s->seed = *end == ':' ? strtoull(end + 1, NULL, 0) : 1;
		return 0;
	}
	if (!strncmp(spec, "crc32:", 6)) {
		char *end;

		s->crc_only = true;
		s->crc_want = (uint32_t)strtoul(spec + 6, &end, 16);
		if (*end != ':')
			goto bad;
		s->total = strtoull(end + 1, NULL, 0);
		return 0;
	}
	if (!strncmp(spec, "file:", 5)) {
		s->f = fopen(spec + 5, "rb");
		if (!s->f) {
			fprintf(stderr, "smline: %s: %s\n", spec + 5, strerror(errno));
			return -1;
		}
		fseek(s->f, 0, SEEK_END);
		s->total = (uint64_t)ftell(s->f);
		fseek(s->f, 0, SEEK_SET);
		return 0;
	}
bad:
	fprintf(stderr, "smline: bad data spec '%s' (random:N:SEED, file:PATH or crc32:HEX:N)\n",
		spec);
	return -1;
}

static size_t stream_read(struct stream *s, uint8_t *p, size_t n)
{
	if (n > s->total - s->pos)
		n = (size_t)(s->total - s->pos);
	if (s->random)
		sml_payload_fill(s->seed, s->pos, p, n);
	else
		n = fread(p, 1, n, s->f);
	s->pos += n;
	return n;
}

static int open_pty(struct sml_service *s)
{
	struct termios t;
	const char *name;

	s->pty_fd = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (s->pty_fd < 0 || grantpt(s->pty_fd) || unlockpt(s->pty_fd))
		return -1;
	name = ptsname(s->pty_fd);
	if (!name)
		return -1;
	snprintf(s->st.pty_name, sizeof(s->st.pty_name), "%s", name);
	/* raw, so pppd's bytes pass untouched until it sets its own modes */
	if (!tcgetattr(s->pty_fd, &t)) {
		cfmakeraw(&t);
		tcsetattr(s->pty_fd, TCSANOW, &t);
	}
	if (s->cfg.pty_link[0]) {
		unlink(s->cfg.pty_link);
		if (symlink(name, s->cfg.pty_link))
			fprintf(stderr, "smline: symlink %s: %s\n", s->cfg.pty_link,
				strerror(errno));
	}
	fprintf(stderr, "smline: pty bridge on %s%s%s\n", name,
		s->cfg.pty_link[0] ? " -> " : "", s->cfg.pty_link);
	return 0;
}

struct sml_service *sml_service_new(const struct sml_service_cfg *cfg,
				    struct sml_fifo *to_modem,
				    struct sml_fifo *from_modem)
{
	struct sml_service *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cfg = *cfg;
	s->to_modem = to_modem;
	s->from_modem = from_modem;
	s->pty_fd = -1;
	if (cfg->echo) {
		if (sml_fifo_init(&s->echo_q, ECHO_BACKLOG))
			goto fail;
		s->have_echo = true;
	}
	if (cfg->send[0]) {
		if (stream_open(&s->src, cfg->send))
			goto fail;
		s->have_src = true;
		s->st.send_total = s->src.total;
	}
	if (cfg->expect[0]) {
		if (stream_open(&s->exp, cfg->expect))
			goto fail;
		s->have_exp = true;
		s->st.expect_total = s->exp.total;
	}
	if (cfg->save[0]) {
		s->save = fopen(cfg->save, "wb");
		if (!s->save)
			goto fail;
	}
	if (cfg->pty && open_pty(s))
		goto fail;
	return s;
fail:
	sml_service_free(s);
	return NULL;
}

void sml_service_free(struct sml_service *s)
{
	if (!s)
		return;
	if (s->src.f)
		fclose(s->src.f);
	if (s->exp.f)
		fclose(s->exp.f);
	if (s->save)
		fclose(s->save);
	if (s->pty_fd >= 0)
		close(s->pty_fd);
	if (s->have_echo)
		sml_fifo_free(&s->echo_q);
	if (s->cfg.pty_link[0] && s->st.pty_name[0])
		unlink(s->cfg.pty_link);
	free(s);
}

static void to_modem(struct sml_service *s, const uint8_t *p, size_t n)
{
	n = sml_fifo_put(s->to_modem, p, n);
	s->st.crc_sent = sml_crc32(s->st.crc_sent, p, n);
	s->st.sent += n;
}

void sml_service_poll(struct sml_service *s)
{
	uint8_t buf[512], want[512];
	size_t n, i;

	/* modem -> service */
	while ((n = sml_fifo_get(s->from_modem, buf, sizeof(buf))) > 0) {
		s->st.crc_received = sml_crc32(s->st.crc_received, buf, n);
		s->st.received += n;
		if (s->have_exp && s->exp.crc_only) {
			size_t k = n;

			if (k > s->exp.total - s->exp.pos)
				k = (size_t)(s->exp.total - s->exp.pos);
			s->exp.crc_got = sml_crc32(s->exp.crc_got, buf, k);
			s->exp.pos += k;
			s->st.extra += n - k;
		} else if (s->have_exp) {
			size_t k = stream_read(&s->exp, want, n);

			for (i = 0; i < k; i++)
				s->st.mismatches += buf[i] != want[i];
			s->st.extra += n - k;
		}
		if (s->save)
			fwrite(buf, 1, n, s->save);
		if (s->have_echo &&
		    sml_fifo_put(&s->echo_q, buf, n) < n)
			sml_log(SML_LOG_ERR, 0, "service", "echo backlog overflow");
		if (s->pty_fd >= 0) {
			/* nobody on the slave side yet: dropped, as by a dead DTE */
			ssize_t wr = write(s->pty_fd, buf, n);

			(void)wr;
		}
	}
	if (s->save)
		fflush(s->save);
	if (s->have_exp && s->exp.crc_only)
		s->st.expect_ok = s->exp.pos == s->exp.total &&
				  s->exp.crc_got == s->exp.crc_want;
	else if (s->have_exp)
		s->st.expect_ok = s->exp.pos == s->exp.total && !s->st.mismatches;

	/* service -> modem: keep the FIFO topped up, never far ahead */
	if (s->have_echo) {
		size_t room = sml_fifo_space(s->to_modem);

		if (room > sizeof(buf))
			room = sizeof(buf);
		n = sml_fifo_get(&s->echo_q, buf, room);
		if (n)
			to_modem(s, buf, n);
	}
	if (s->have_src) {
		size_t room = sml_fifo_space(s->to_modem);

		if (room > sizeof(buf))
			room = sizeof(buf);
		n = stream_read(&s->src, buf, room);
		if (n)
			to_modem(s, buf, n);
	}
	if (s->pty_fd >= 0) {
		size_t room = sml_fifo_space(s->to_modem);
		ssize_t r;

		if (room > sizeof(buf))
			room = sizeof(buf);
		if (room) {
			r = read(s->pty_fd, buf, room);
			if (r > 0)
				to_modem(s, buf, (size_t)r);
		}
	}
}

bool sml_service_done(const struct sml_service *s)
{
	if (s->have_echo && s->echo_q.len)
		return false;
	if (s->have_src && s->src.pos < s->src.total)
		return false;
	if (s->have_exp && s->st.received < s->exp.total)
		return false;
	return true;
}

const struct sml_service_stats *sml_service_stats(const struct sml_service *s)
{
	return &s->st;
}
