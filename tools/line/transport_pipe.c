// SPDX-License-Identifier: GPL-2.0
/*
 * smline: the offline transport. Raw signed 16-bit little-endian mono
 * samples at 8 kHz.
 *   pipe:fd=N          one bidirectional descriptor (a socketpair end)
 *   pipe:in=N,out=M    the modem's transmit on fd N, its receive on fd M
 *   pipe:file=IN,OUT   paths (files or FIFOs); IN read, OUT written
 *   pipe:unix=PATH     listen on a unix stream socket, serve one client
 *   pipe:...,prefill=K send K samples of silence before the first read,
 *                      for a peer that reads before it writes
 * Pacing is the peer's: each read returns once the peer has written, so a
 * run takes as long as the computation, and the result is the same at any
 * speed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "transport.h"

volatile int sml_quit;

struct pipe_priv {
	int in, out;
	int listen_fd;
	int prefill;
	int64_t clock;
};

static int xatoi(const char *s, int *v)
{
	char *end;
	long l = strtol(s, &end, 10);

	if (end == s || l < 0 || l > 1 << 30)
		return -1;
	*v = (int)l;
	return 0;
}

static int pipe_open(struct sml_transport *t, const char *spec)
{
	struct pipe_priv *p = calloc(1, sizeof(*p));
	char buf[1024], *save = NULL, *w;

	if (!p)
		return -1;
	p->in = p->out = p->listen_fd = -1;
	t->priv = p;
	snprintf(buf, sizeof(buf), "%s", spec ? spec : "");
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strncmp(w, "fd=", 3)) {
			if (xatoi(w + 3, &p->in))
				return -1;
			p->out = p->in;
		} else if (!strncmp(w, "in=", 3)) {
			if (xatoi(w + 3, &p->in))
				return -1;
		} else if (!strncmp(w, "out=", 4)) {
			if (xatoi(w + 4, &p->out))
				return -1;
		} else if (!strncmp(w, "file=", 5)) {
			char *out = strtok_r(NULL, ",", &save);

			if (!out) {
				fprintf(stderr, "smline: pipe:file=IN,OUT needs two paths\n");
				return -1;
			}
			/* open the writer first: a FIFO peer opens in the same order */
			p->in = open(w + 5, O_RDONLY);
			if (p->in < 0) {
				perror(w + 5);
				return -1;
			}
			p->out = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (p->out < 0) {
				perror(out);
				return -1;
			}
		} else if (!strncmp(w, "unix=", 5)) {
			struct sockaddr_un sa = { .sun_family = AF_UNIX };
			int c;

			snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", w + 5);
			unlink(sa.sun_path);
			p->listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
			if (p->listen_fd < 0 ||
			    bind(p->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
			    listen(p->listen_fd, 1)) {
				perror(w + 5);
				return -1;
			}
			fprintf(stderr, "smline: waiting for the modem on %s\n", sa.sun_path);
			c = accept(p->listen_fd, NULL, NULL);
			if (c < 0) {
				perror("accept");
				return -1;
			}
			p->in = p->out = c;
		} else if (!strncmp(w, "prefill=", 8)) {
			if (xatoi(w + 8, &p->prefill))
				return -1;
		} else {
			fprintf(stderr, "smline: bad pipe option '%s'\n", w);
			return -1;
		}
	}
	if (p->in < 0 || p->out < 0) {
		fprintf(stderr, "smline: pipe transport needs fd=, in=/out=, file= or unix=\n");
		return -1;
	}
	return 0;
}

static int pipe_write(struct sml_transport *t, const int16_t *buf, int n)
{
	struct pipe_priv *p = t->priv;
	const char *b = (const char *)buf;
	size_t left = sizeof(*buf) * (size_t)n;

	while (left) {
		ssize_t r = write(p->out, b, left);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		b += r;
		left -= (size_t)r;
	}
	return 0;
}

static int pipe_read(struct sml_transport *t, int16_t *buf, int n)
{
	struct pipe_priv *p = t->priv;
	char *b = (char *)buf;
	size_t want = sizeof(*buf) * (size_t)n, got = 0;

	if (p->prefill) {
		int16_t z[256] = { 0 };

		while (p->prefill > 0) {
			int k = p->prefill > 256 ? 256 : p->prefill;

			if (pipe_write(t, z, k))
				return -1;
			p->prefill -= k;
		}
	}
	while (got < want) {
		ssize_t r = read(p->in, b + got, want - got);

		if (r < 0 && errno == EINTR && !sml_quit)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	p->clock += (int64_t)(got / sizeof(*buf));
	return (int)(got / sizeof(*buf));
}

static int64_t pipe_clock(struct sml_transport *t)
{
	return ((struct pipe_priv *)t->priv)->clock;
}

static void pipe_close(struct sml_transport *t)
{
	struct pipe_priv *p = t->priv;

	if (!p)
		return;
	if (p->in >= 0)
		close(p->in);
	if (p->out >= 0 && p->out != p->in)
		close(p->out);
	if (p->listen_fd >= 0)
		close(p->listen_fd);
	free(p);
	t->priv = NULL;
}

struct sml_transport sml_transport_pipe = {
	.name = "pipe",
	.open = pipe_open,
	.read = pipe_read,
	.write = pipe_write,
	.clock = pipe_clock,
	.close = pipe_close,
};

struct sml_transport *sml_transport_find(const char *name)
{
	if (!strcmp(name, "pipe") || !strcmp(name, "file"))
		return &sml_transport_pipe;
#ifdef SML_HAVE_JACK
	if (!strcmp(name, "jack"))
		return &sml_transport_jack;
#endif
#ifdef SML_HAVE_DBUS
	if (!strcmp(name, "dbus"))
		return &sml_transport_dbus;
#endif
	return NULL;
}
