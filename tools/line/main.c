// SPDX-License-Identifier: GPL-2.0
/*
 * smline: a simulated telephone line with an exchange and a far-end modem,
 * for the smodem soft modem in a QEMU guest (or any program speaking raw
 * 8 kHz samples). See tools/line/README.md.
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
#include "echopath.h"
#include "transport.h"
#include "wire.h"

#define MAX_BLOCK 1024

struct opts {
	char transport[1024];
	struct sml_exchange_cfg x;
	struct sml_wire_cfg w;
	bool hook_control;
	int hook_threshold;
	const char *control;
	const char *json;
	const char *events;
	int calls;
	double duration_s;
	int block;
	double tone_test_s;
	double tone_hz, tone_dbm0;
};

static struct opts o;

static void usage(FILE *f)
{
	fprintf(f,
"usage: smline [options]\n"
"transport:\n"
"  --transport jack            real time, JACK client 'smline' (default)\n"
"  --transport pipe:fd=N       offline, raw S16LE 8 kHz on a socket/fd\n"
"  --transport pipe:in=N,out=M | file:IN,OUT | pipe:unix=PATH [,prefill=K]\n"
"  --jack-client NAME  --connect  --connect-in PORT  --connect-out PORT\n"
"  --latency SAMPLES           queue towards the modem (jack, default 240)\n"
"  --transport dbus:ADDRESS    virtual time, QEMU's D-Bus audio on that bus\n"
"  --dbus-tick-us US (QEMU's audio timer-period, 1000)  --dbus-delay SAMPLES (1536)\n"
"  --dbus-stall-s S (5)  --dbus-wait-s S (60)  --ready FILE (touched when listening)\n"
"exchange:\n"
"  --route NUMBER=answer[:WORDS] | busy | noanswer | unobtainable\n"
"        WORDS: v21|v22|v22bis|v32|v32bis, v8, v42, rings=N, ansdelay=MS, txlevel=DBM0,\n"
"        nov42bis (V.42bis is on with v42), v42bis_p1=N (512-4096, 4096),\n"
"        v42bis_p2=N (6-250, 250),\n"
"        echo, send=random:N:SEED|file:PATH, expect=..., save=PATH,\n"
"        pty[=LINK], hangup=done|SECONDS;\n"
"        fax (T.30 terminal), faxsend=PATH.tif, faxrecv=PATH.tif,\n"
"        faxmodems=v17+v29+v27ter, ecm, ident=TEXT\n"
"  --incoming SECONDS[=WORDS]  a call to the modem at this line time;\n"
"        WORDS as above plus from=NUMBER, rings=N (give up after N)\n"
"  --no-dialtone               line unplugged\n"
"  --no-dialtone-calls N[,M...] these calls (record numbers) find it unplugged\n"
"  --dialtone-timeout S  --interdigit S  --hangup-ms MS  --clear-ms MS\n"
"  --ring-cadence ON_MS,OFF_MS  --ring-hz F  --ring-dbm0 L\n"
"  --hook dc|control  --hook-threshold N  --control FIFO\n"
"wire:\n"
"  --atten DB  --noise DBM0  --echo DB  --echo-ms MS  --delay MS  --ppm P\n"
"  --seed N\n"
"  --hybrid m1..m8|none  the modem's hybrid, a G.168 echo path (near echo)\n"
"  --hybrid-erl DB       its echo return loss (12)\n"
"  --far-echo DB         a far echo DB below the modem's signal (0: none)\n"
"  --far-echo-ms MS      its round trip (0-2000)  --far-echo-hz HZ  its frequency offset\n"
"  --far-hybrid m1..m8   the far hybrid's echo path (m1)\n"
"run:\n"
"  --json PATH|-  --calls N  --duration S  --block N  --config FILE\n"
"  --events PATH               call events, far modem phases, V.42 and T.30 frames (JSON Lines)\n"
"  --tone-test S [--tone-hz F --tone-dbm0 L]  loopback level/rate check\n"
"  -v (debug) -vv (frames) -q\n");
}

static int set_opt(const char *name, const char *val);

static int need(const char *name, const char *val)
{
	if (!val) {
		fprintf(stderr, "smline: %s needs a value\n", name);
		return -1;
	}
	return 0;
}

static int load_config(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	int lineno = 0;

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *name, *val;

		lineno++;
		p[strcspn(p, "\r\n")] = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		name = p;
		val = p + strcspn(p, " \t");
		if (*val) {
			*val++ = '\0';
			while (*val == ' ' || *val == '\t')
				val++;
		}
		if (set_opt(name, *val ? val : NULL) < 0) {
			fprintf(stderr, "smline: %s:%d: bad line\n", path, lineno);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/* returns 1 if val was used, 0 if not, -1 on error */
static int set_opt(const char *name, const char *val)
{
	int r;

	while (*name == '-')
		name++;
#define NEED() do { if (need(name, val)) return -1; } while (0)
	if (!strcmp(name, "transport")) {
		NEED();
		snprintf(o.transport, sizeof(o.transport), "%s", val);
	} else if (!strcmp(name, "jack-client")) {
		NEED();
#ifdef SML_HAVE_JACK
		sml_jack_opts.client = strdup(val);
#endif
	} else if (!strcmp(name, "connect")) {
#ifdef SML_HAVE_JACK
		sml_jack_opts.connect_in = "in-qemu:input 0";
		sml_jack_opts.connect_out = "out-qemu:output 0";
#endif
		return 0;
	} else if (!strcmp(name, "connect-in")) {
		NEED();
#ifdef SML_HAVE_JACK
		sml_jack_opts.connect_in = strdup(val);
#endif
	} else if (!strcmp(name, "connect-out")) {
		NEED();
#ifdef SML_HAVE_JACK
		sml_jack_opts.connect_out = strdup(val);
#endif
	} else if (!strcmp(name, "latency")) {
		NEED();
#ifdef SML_HAVE_JACK
		sml_jack_opts.latency = atoi(val);
#endif
	} else if (!strcmp(name, "dbus-tick-us") || !strcmp(name, "dbus-delay") ||
		   !strcmp(name, "dbus-stall-s") || !strcmp(name, "dbus-wait-s") ||
		   !strcmp(name, "ready")) {
		NEED();
#ifdef SML_HAVE_DBUS
		if (!strcmp(name, "dbus-tick-us"))
			sml_dbus_opts.tick_us = atoi(val);
		else if (!strcmp(name, "dbus-delay"))
			sml_dbus_opts.delay = atoi(val);
		else if (!strcmp(name, "dbus-stall-s"))
			sml_dbus_opts.stall_s = atof(val);
		else if (!strcmp(name, "dbus-wait-s"))
			sml_dbus_opts.wait_s = atof(val);
		else
			sml_dbus_opts.ready_file = strdup(val);
#endif
	} else if (!strcmp(name, "route")) {
		NEED();
		r = o.x.nroutes == SML_MAX_ROUTES ? -1 :
		    sml_route_parse(&o.x.routes[o.x.nroutes], val);
		if (r) {
			/* -2: the reason is said already, in one line */
			if (r != -2)
				fprintf(stderr, "smline: bad route '%s'\n", val);
			return -1;
		}
		o.x.nroutes++;
	} else if (!strcmp(name, "incoming")) {
		NEED();
		r = o.x.nincoming == SML_MAX_INCOMING ? -1 :
		    sml_incoming_parse(&o.x.incoming[o.x.nincoming], val);
		if (r) {
			if (r != -2)
				fprintf(stderr, "smline: bad incoming call '%s'\n", val);
			return -1;
		}
		o.x.nincoming++;
	} else if (!strcmp(name, "no-dialtone")) {
		o.x.no_dialtone = true;
		return 0;
	} else if (!strcmp(name, "no-dialtone-calls")) {
		char buf[256], *save = NULL, *w, *end;

		NEED();
		snprintf(buf, sizeof(buf), "%s", val);
		for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			long n = strtol(w, &end, 10);

			if (*end || n < 1 || o.x.nunplugged == SML_MAX_UNPLUGGED) {
				fprintf(stderr, "smline: bad call number '%s'\n", w);
				return -1;
			}
			o.x.unplugged[o.x.nunplugged++] = (int)n;
		}
	} else if (!strcmp(name, "dialtone-timeout")) {
		NEED();
		o.x.dialtone_timeout_ms = (int)(atof(val) * 1000);
	} else if (!strcmp(name, "interdigit")) {
		NEED();
		o.x.interdigit_ms = (int)(atof(val) * 1000);
	} else if (!strcmp(name, "hangup-ms")) {
		NEED();
		o.x.hangup_ms = atoi(val);
	} else if (!strcmp(name, "clear-ms")) {
		NEED();
		o.x.clear_ms = atoi(val);
	} else if (!strcmp(name, "ring-cadence")) {
		NEED();
		if (sscanf(val, "%d,%d", &o.x.ring_on_ms, &o.x.ring_off_ms) != 2 ||
		    o.x.ring_on_ms <= 0 || o.x.ring_off_ms < 0)
			return -1;
	} else if (!strcmp(name, "ring-hz")) {
		NEED();
		o.x.ring_hz = atof(val);
	} else if (!strcmp(name, "ring-dbm0")) {
		NEED();
		o.x.ring_dbm0 = atof(val);
	} else if (!strcmp(name, "hook")) {
		NEED();
		if (!strcmp(val, "control"))
			o.hook_control = true;
		else if (strcmp(val, "dc"))
			return -1;
	} else if (!strcmp(name, "hook-threshold")) {
		NEED();
		o.hook_threshold = atoi(val);
	} else if (!strcmp(name, "control")) {
		NEED();
		o.control = strdup(val);
	} else if (!strcmp(name, "atten")) {
		NEED();
		o.w.atten_db = atof(val);
	} else if (!strcmp(name, "noise")) {
		NEED();
		o.w.noise_dbm0 = atof(val);
	} else if (!strcmp(name, "echo")) {
		NEED();
		o.w.echo_db = atof(val);
	} else if (!strcmp(name, "echo-ms")) {
		NEED();
		o.w.echo_ms = atof(val);
	} else if (!strcmp(name, "delay")) {
		NEED();
		o.w.delay_ms = atof(val);
	} else if (!strcmp(name, "ppm")) {
		NEED();
		o.w.ppm = atof(val);
		if (!(fabs(o.w.ppm) <= 100000)) {
			fprintf(stderr, "smline: --ppm %s: a clock offset is within +-100000 ppm\n", val);
			return -1;
		}
	} else if (!strcmp(name, "hybrid") || !strcmp(name, "far-hybrid")) {
		int m;

		NEED();
		m = sml_hybrid_parse(val);
		if (m < 0 || (m == 0 && name[0] == 'f')) {
			fprintf(stderr, "smline: --%s %s: a G.168 echo path model is m1 .. m%d\n", name, val,
				SML_HYBRID_MODELS);
			return -1;
		}
		if (name[0] == 'f')
			o.w.far_hybrid = m;
		else
			o.w.hybrid = m;
	} else if (!strcmp(name, "hybrid-erl")) {
		NEED();
		o.w.hybrid_erl_db = atof(val);
		if (!(o.w.hybrid_erl_db >= 0 && o.w.hybrid_erl_db <= 60)) {
			fprintf(stderr, "smline: --hybrid-erl %s: 0 to 60 dB\n", val);
			return -1;
		}
	} else if (!strcmp(name, "far-echo")) {
		NEED();
		o.w.far_echo_db = atof(val);
		if (!(o.w.far_echo_db >= 0 && o.w.far_echo_db <= 60)) {
			fprintf(stderr, "smline: --far-echo %s: 0 (none) to 60 dB down\n", val);
			return -1;
		}
	} else if (!strcmp(name, "far-echo-ms")) {
		NEED();
		o.w.far_echo_ms = atof(val);
		if (!(o.w.far_echo_ms >= 0 && o.w.far_echo_ms <= 2000)) {
			fprintf(stderr, "smline: --far-echo-ms %s: 0 to 2000 ms\n", val);
			return -1;
		}
	} else if (!strcmp(name, "far-echo-hz")) {
		NEED();
		o.w.far_echo_hz = atof(val);
		if (!(fabs(o.w.far_echo_hz) <= 100)) {
			fprintf(stderr, "smline: --far-echo-hz %s: within +-100 Hz\n", val);
			return -1;
		}
	} else if (!strcmp(name, "seed")) {
		NEED();
		o.w.seed = strtoull(val, NULL, 0);
	} else if (!strcmp(name, "json")) {
		NEED();
		o.json = strdup(val);
	} else if (!strcmp(name, "events")) {
		NEED();
		o.events = strdup(val);
	} else if (!strcmp(name, "calls")) {
		NEED();
		o.calls = atoi(val);
	} else if (!strcmp(name, "duration")) {
		NEED();
		o.duration_s = atof(val);
	} else if (!strcmp(name, "block")) {
		NEED();
		o.block = atoi(val);
		if (o.block < 1 || o.block > MAX_BLOCK)
			return -1;
	} else if (!strcmp(name, "config")) {
		NEED();
		if (load_config(val))
			return -1;
	} else if (!strcmp(name, "tone-test")) {
		NEED();
		o.tone_test_s = atof(val);
	} else if (!strcmp(name, "tone-hz")) {
		NEED();
		o.tone_hz = atof(val);
	} else if (!strcmp(name, "tone-dbm0")) {
		NEED();
		o.tone_dbm0 = atof(val);
	} else if (!strcmp(name, "v")) {
		sml_log_level = SML_LOG_DEBUG;
		return 0;
	} else if (!strcmp(name, "vv")) {
		sml_log_level = SML_LOG_FRAMES;
		return 0;
	} else if (!strcmp(name, "q")) {
		sml_log_level = SML_LOG_ERR;
		return 0;
	} else if (!strcmp(name, "h") || !strcmp(name, "help")) {
		usage(stdout);
		exit(0);
	} else {
		fprintf(stderr, "smline: unknown option --%s\n", name);
		return -1;
	}
	return 1;
#undef NEED
}

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
	int16_t in[MAX_BLOCK], out[MAX_BLOCK];
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

	snprintf(o.transport, sizeof(o.transport), "jack");
	sml_exchange_cfg_default(&o.x);
	sml_wire_cfg_default(&o.w);
	o.hook_threshold = SML_HOOK_THRESHOLD;
	o.block = 80;
	o.tone_hz = 1000;
	o.tone_dbm0 = -10;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r;

		if (a[0] != '-') {
			fprintf(stderr, "smline: stray argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
		if (strchr(a, '=') && !strncmp(a, "--", 2)) {
			/* --name=value */
			char name[256];
			const char *eq = strchr(a, '=');

			snprintf(name, sizeof(name), "%.*s", (int)(eq - a), a);
			r = set_opt(name, eq + 1);
			if (r < 0)
				return 2;
			continue;
		}
		r = set_opt(a, i + 1 < argc ? argv[i + 1] : NULL);
		if (r < 0)
			return 2;
		i += r;
	}

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
	x = sml_exchange_new(&o.x);
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
		int16_t tx[MAX_BLOCK], clean[MAX_BLOCK], up[MAX_BLOCK + 16];
		int16_t down[MAX_BLOCK + 16], rx[MAX_BLOCK];
		bool closed;
		int k, m;

		k = t->read(t, tx, o.block);
		if (k <= 0)
			break;
		closed = sml_hook_process(&hook, tx, clean, k);
		m = sml_wire_up(w, clean, k, up, MAX_BLOCK + 16);
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
