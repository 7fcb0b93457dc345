// SPDX-License-Identifier: GPL-2.0
/*
 * smline: a simulated telephone line with an exchange and a far-end modem,
 * for the smodem soft modem in a QEMU guest (or any program speaking raw
 * 8 kHz samples). See tools/line/README.md.
 *
 * This file is the program's flow: the transport, the exchange and the wire
 * set up from the options (options.c), then one block at a time through hook,
 * wire and exchange until the calls or the duration are done.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "exchange.h"
#include "hook.h"
#include "options.h"
#include "transport.h"
#include "wire.h"

static struct sml_opts o;

static void on_signal(int sig)
{
	(void)sig;
	sml_quit = 1;
}

/* ---- control FIFO: a side channel for hook state and incoming calls ---- */
struct control {
	int fd, dummy;
	char buf[1024];
	size_t len;
};

static int control_open(struct control *c, const char *path)
{
	struct stat st;

	c->len = 0;
	if (stat(path, &st) && mkfifo(path, 0660)) {
		perror(path);
		return -1;
	}
	c->fd = open(path, O_RDONLY | O_NONBLOCK);
	/* a writer of our own keeps read() from returning EOF between clients */
	c->dummy = open(path, O_WRONLY | O_NONBLOCK);
	return c->fd < 0 ? -1 : 0;
}

static void control_poll(struct control *c, struct sml_exchange *x)
{
	ssize_t r;
	char *nl;

	if (c->fd < 0)
		return;
	r = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	if (r > 0)
		c->len += (size_t)r;
	c->buf[c->len] = '\0';
	while ((nl = strchr(c->buf, '\n'))) {
		char cmd[1024];
		int64_t now = sml_exchange_now(x);

		*nl = '\0';
		snprintf(cmd, sizeof(cmd), "%s", c->buf);
		memmove(c->buf, nl + 1, c->len - (size_t)(nl + 1 - c->buf) + 1);
		c->len = strlen(c->buf);
		if (!strcmp(cmd, "offhook")) {
			sml_exchange_force_hook(x, 1);
		} else if (!strcmp(cmd, "onhook")) {
			sml_exchange_force_hook(x, 0);
		} else if (!strcmp(cmd, "auto")) {
			sml_exchange_force_hook(x, -1);
		} else if (!strncmp(cmd, "ring", 4)) {
			struct sml_incoming in;
			char spec[1100];

			snprintf(spec, sizeof(spec), "0%s%s", cmd[4] ? "=" : "",
				 cmd[4] ? cmd + 5 : "");
			if (sml_incoming_parse(&in, spec))
				sml_log(SML_LOG_ERR, now, "control", "bad ring '%s'", cmd);
			else
				sml_exchange_ring_now(x, &in);
		} else if (!strcmp(cmd, "unplug")) {
			sml_exchange_set_unplugged(x, true);
		} else if (!strcmp(cmd, "plug")) {
			sml_exchange_set_unplugged(x, false);
		} else if (!strcmp(cmd, "quit")) {
			sml_quit = 1;
		} else if (cmd[0]) {
			sml_log(SML_LOG_ERR, now, "control", "unknown command '%s'", cmd);
		}
	}
}

/* ---- loopback tone test (any transport) ---- */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int tone_test(struct sml_transport *t)
{
	const int n = o.block;
	int16_t in[SML_MAX_BLOCK], out[SML_MAX_BLOCK];
	double amp = sml_dbm0_to_rms(o.tone_dbm0) * M_SQRT2;
	double t0 = 0, t_start = now_s(), sumsq = 0, first_x = -1, last_x = -1;
	int64_t k = 0, measured = 0, crossings = 0, start_clock = 0;
	int state = 0;		/* 0 wait for signal, 1 settle, 2 measure */
	uint64_t under0 = 0, over0 = 0, xrun0 = 0;
	double settle_until = 0, prev = 0;
	struct sml_json j;
	double level, freq, rate, wall;

	for (;;) {
		int i, got;

		for (i = 0; i < n; i++, k++)
			out[i] = (int16_t)lrint(amp * sin(2 * M_PI * o.tone_hz * k / SML_RATE));
		if (t->write(t, out, n))
			return 2;
		got = t->read(t, in, n);
		if (got <= 0)
			return 2;
		if (state == 0) {
			double e = 0;

			for (i = 0; i < got; i++)
				e += (double)in[i] * in[i];
			if (sml_rms_to_dbm0(sqrt(e / got)) > o.tone_dbm0 - 20) {
				state = 1;
				settle_until = now_s() + 0.3;
			} else if (now_s() - t_start > 15) {
				fprintf(stderr, "smline: tone test: nothing came back\n");
				return 1;
			}
			continue;
		}
		if (state == 1) {
			if (now_s() < settle_until)
				continue;
			state = 2;
			t0 = now_s();
			start_clock = t->clock(t);
#ifdef SML_HAVE_JACK
			under0 = sml_jack_opts.underruns;
			over0 = sml_jack_opts.overruns;
			xrun0 = sml_jack_opts.xruns;
#endif
			prev = in[got - 1];
			continue;
		}
		for (i = 0; i < got; i++) {
			double x = in[i];

			sumsq += x * x;
			if (prev < 0 && x >= 0) {
				/* interpolated upward zero crossing, in samples */
				double pos = measured + i - 1 + (-prev) / (x - prev);

				if (first_x < 0)
					first_x = pos;
				last_x = pos;
				crossings++;
			}
			prev = x;
		}
		measured += got;
		if (now_s() - t0 >= o.tone_test_s)
			break;
	}
	wall = now_s() - t0;
	level = sml_rms_to_dbm0(sqrt(sumsq / (double)measured));
	freq = crossings > 1 ? (crossings - 1) * (double)SML_RATE / (last_x - first_x) : 0;
	rate = (double)(t->clock(t) - start_clock) / wall;
	sml_json_init(&j);
	sml_json_obj_begin(&j, NULL);
	sml_json_str(&j, "transport", t->name);
	sml_json_num(&j, "tone_hz", o.tone_hz);
	sml_json_num(&j, "sent_dbm0", o.tone_dbm0);
	sml_json_num(&j, "level_dbm0", level);
	sml_json_num(&j, "freq_hz", freq);
	sml_json_num(&j, "rate_hz", rate);
	sml_json_int(&j, "samples", measured);
	sml_json_num(&j, "wall_s", wall);
#ifdef SML_HAVE_JACK
	/* counted during the measurement only; start-up is not the line's fault */
	sml_json_int(&j, "xruns", (int64_t)(sml_jack_opts.xruns - xrun0));
	sml_json_int(&j, "underruns", (int64_t)(sml_jack_opts.underruns - under0));
	sml_json_int(&j, "overruns", (int64_t)(sml_jack_opts.overruns - over0));
#else
	(void)under0;
	(void)over0;
	(void)xrun0;
#endif
	sml_json_obj_end(&j);
	printf("%s\n", j.buf);
	sml_json_free(&j);
	return 0;
}

int main(int argc, char **argv)
{
	struct sml_transport *t;
	struct sml_exchange *x;
	struct sml_wire *w;
	struct sml_hook hook;
	struct control ctl = { .fd = -1, .dummy = -1 };
	char tname[64], desc[256];
	const char *spec;
	FILE *json = NULL;
	struct sigaction sa = { 0 };
	int i, rc = 0;

	if (sml_opts_parse(&o, argc, argv))
		return 2;

	/* transport name and spec */
	spec = strchr(o.transport, ':');
	snprintf(tname, sizeof(tname), "%.*s",
		 (int)(spec ? spec - o.transport : (long)strlen(o.transport)), o.transport);
	t = sml_transport_find(tname);
	if (!t) {
		fprintf(stderr, "smline: unknown transport '%s'\n", tname);
		return 2;
	}
	if (!strcmp(tname, "file")) {
		static char fspec[1100];

		snprintf(fspec, sizeof(fspec), "file=%s", spec ? spec + 1 : "");
		spec = fspec;
	} else if (spec) {
		spec++;
	}

	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (t->open(t, spec)) {
		t->close(t);
		return 1;
	}
	if (o.tone_test_s > 0) {
		rc = tone_test(t);
		t->close(t);
		return rc;
	}

	if (!o.json || !strcmp(o.json, "-")) {
		o.x.json = stdout;
	} else {
		json = fopen(o.json, "a");
		if (!json) {
			perror(o.json);
			return 1;
		}
		o.x.json = json;
	}
	if (o.events) {
		sml_events = fopen(o.events, "a");
		if (!sml_events) {
			perror(o.events);
			return 1;
		}
		/* whole lines only, whenever the reader looks */
		setvbuf(sml_events, NULL, _IOLBF, 0);
	}
	o.x.wire = &o.w;
	o.x.transport = tname;
	o.x.block = o.block;
	w = sml_wire_new(&o.w);
	o.x.line = w;
	x = w ? sml_exchange_new(&o.x) : NULL;
	if (!w || !x)
		return 1;
	sml_hook_init(&hook, o.hook_threshold);
	if (o.hook_control)
		sml_exchange_force_hook(x, 0);
	if (o.control && control_open(&ctl, o.control))
		return 1;

	sml_wire_describe(&o.w, desc, sizeof(desc));
	sml_log(SML_LOG_INFO, 0, "line", "transport %s, %s", tname, desc);
	for (i = 0; i < o.x.nroutes; i++)
		sml_log(SML_LOG_INFO, 0, "line", "route %s", o.x.routes[i].number);

	while (!sml_quit) {
		int16_t tx[SML_MAX_BLOCK], clean[SML_MAX_BLOCK], up[SML_MAX_BLOCK + 16];
		int16_t down[SML_MAX_BLOCK + 16], rx[SML_MAX_BLOCK];
		bool closed;
		int k, m;

		k = t->read(t, tx, o.block);
		if (k <= 0)
			break;
		closed = sml_hook_process(&hook, tx, clean, k);
		m = sml_wire_up(w, clean, k, up, SML_MAX_BLOCK + 16);
		sml_exchange_process(x, up, down, m, closed);
		sml_wire_down(w, down, m, clean, rx, k);
		if (t->write(t, rx, k))
			break;
		control_poll(&ctl, x);
		if (o.calls && sml_exchange_calls(x) >= o.calls && sml_exchange_idle(x))
			break;
		if (o.duration_s > 0 && t->clock(t) >= (int64_t)(o.duration_s * SML_RATE))
			break;
	}
	sml_exchange_shutdown(x);
	sml_log(SML_LOG_INFO, sml_exchange_now(x), "line", "stopped after %d call%s",
		sml_exchange_calls(x), sml_exchange_calls(x) == 1 ? "" : "s");
	sml_exchange_free(x);
	sml_wire_free(w);
	t->close(t);
	if (ctl.fd >= 0)
		close(ctl.fd);
	if (ctl.dummy >= 0)
		close(ctl.dummy);
	if (json)
		fclose(json);
	if (sml_events)
		fclose(sml_events);
	return rc;
}
