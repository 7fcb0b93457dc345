// SPDX-License-Identifier: GPL-2.0
/*
 * smline's command line and configuration files: both go through set_opt(),
 * so every option reads the same as "--name value", "--name=value" or a
 * "name value" line of a --config file (which may itself hold "config").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "echopath.h"
#include "hook.h"
#include "options.h"
#include "transport.h"

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
"        WORDS: v21|v22|v22bis|v32|v32bis|v34, v8, v42, rings=N, ansdelay=MS, txlevel=DBM0,\n"
"        v34max=BPS (2400-33600, 33600; v34 turns v8 on: V.34 through V.8,\n"
"        V.32bis or V.22bis below it for a modem without V.34),\n"
"        nov42bis (V.42bis is on with v42), v42bis_p1=N (512-4096, 4096),\n"
"        v42bis_p2=N (6-250, 250),\n"
"        echo, send=random:N:SEED|file:PATH, expect=..., save=PATH,\n"
"        pty[=LINK], hangup=done|SECONDS,\n"
"        worsen=SECONDS (0-86400: the line worsens this long into the data phase, until\n"
"        the call ends) with worsen_noise=DBM0 (-90 to 6: white noise added at each\n"
"        receiver) and/or worsen_loss=DB (0-60: more loss each way);\n"
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
"  --codec none|ulaw|alaw  G.711 at the line card: the network carries its codes (none)\n"
"run:\n"
"  --json PATH|-  --calls N  --duration S  --block N  --config FILE\n"
"  --events PATH               call events, far modem phases, V.42 and T.30 frames (JSON Lines)\n"
"  --tone-test S [--tone-hz F --tone-dbm0 L]  loopback level/rate check\n"
"  -v (debug) -vv (frames) -q\n");
}

static int set_opt(struct sml_opts *o, const char *name, const char *val);

/* val a number within [lo, hi] (lo itself only if lo_ok) into *out, else the reason in one line and -1 */
static int num(const char *name, const char *val, double lo, bool lo_ok, double hi, const char *unit,
	       double *out)
{
	if (sml_number_in(val, lo, lo_ok, hi, out))
		return 0;
	fprintf(stderr, "smline: --%s %s: %s%g to %g%s%s\n", name, val, lo_ok ? "" : "over ", lo, hi,
		*unit ? " " : "", unit);
	return -1;
}

/* the same for a whole number */
/* a whole number within [lo, hi] into *out */
static bool whole_in(const char *val, long lo, long hi, int *out)
{
	double d;

	if (!sml_number_in(val, (double)lo, true, (double)hi, &d) || d != floor(d))
		return false;
	*out = (int)d;
	return true;
}

static int whole(const char *name, const char *val, long lo, long hi, const char *unit, int *out)
{
	if (whole_in(val, lo, hi, out))
		return 0;
	fprintf(stderr, "smline: --%s %s: a whole number, %ld to %ld%s%s\n", name, val, lo, hi,
		*unit ? " " : "", unit);
	return -1;
}

static int need(const char *name, const char *val)
{
	if (!val) {
		fprintf(stderr, "smline: %s needs a value\n", name);
		return -1;
	}
	return 0;
}

static int load_config(struct sml_opts *o, const char *path)
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
		if (set_opt(o, name, *val ? val : NULL) < 0) {
			fprintf(stderr, "smline: %s:%d: bad line\n", path, lineno);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/* returns 1 if val was used, 0 if not, -1 on error */
static int set_opt(struct sml_opts *o, const char *name, const char *val)
{
	int r;

	while (*name == '-')
		name++;
#define NEED() do { if (need(name, val)) return -1; } while (0)
	/* a number option: its range and unit, the field it sets */
#define NUM(lo, lo_ok, hi, unit, dst) do { double v_; NEED(); \
		if (num(name, val, lo, lo_ok, hi, unit, &v_)) \
			return -1; \
		(dst) = v_; \
	} while (0)
#define WHOLE(lo, hi, unit, dst) do { NEED(); if (whole(name, val, lo, hi, unit, &(dst))) return -1; } while (0)
	if (!strcmp(name, "transport")) {
		NEED();
		snprintf(o->transport, sizeof(o->transport), "%s", val);
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
		WHOLE(0, 65536, "samples", sml_jack_opts.latency);
#endif
	} else if (!strcmp(name, "dbus-tick-us") || !strcmp(name, "dbus-delay") ||
		   !strcmp(name, "dbus-stall-s") || !strcmp(name, "dbus-wait-s") ||
		   !strcmp(name, "ready")) {
		NEED();
#ifdef SML_HAVE_DBUS
		if (!strcmp(name, "dbus-tick-us"))
			WHOLE(1, 1000000, "us", sml_dbus_opts.tick_us);
		else if (!strcmp(name, "dbus-delay"))
			WHOLE(0, 65536, "samples", sml_dbus_opts.delay);
		else if (!strcmp(name, "dbus-stall-s"))
			NUM(0, false, 3600, "s", sml_dbus_opts.stall_s);
		else if (!strcmp(name, "dbus-wait-s"))
			NUM(0, false, 3600, "s", sml_dbus_opts.wait_s);
		else
			sml_dbus_opts.ready_file = strdup(val);
#endif
	} else if (!strcmp(name, "route")) {
		NEED();
		r = o->x.nroutes == SML_MAX_ROUTES ? -1 :
		    sml_route_parse(&o->x.routes[o->x.nroutes], val);
		if (r) {
			/* -2: the reason is said already, in one line */
			if (r != -2)
				fprintf(stderr, "smline: bad route '%s'\n", val);
			return -1;
		}
		o->x.nroutes++;
	} else if (!strcmp(name, "incoming")) {
		NEED();
		r = o->x.nincoming == SML_MAX_INCOMING ? -1 :
		    sml_incoming_parse(&o->x.incoming[o->x.nincoming], val);
		if (r) {
			if (r != -2)
				fprintf(stderr, "smline: bad incoming call '%s'\n", val);
			return -1;
		}
		o->x.nincoming++;
	} else if (!strcmp(name, "no-dialtone")) {
		o->x.no_dialtone = true;
		return 0;
	} else if (!strcmp(name, "no-dialtone-calls")) {
		char buf[256], *save = NULL, *w, *end;

		NEED();
		snprintf(buf, sizeof(buf), "%s", val);
		for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			long n = strtol(w, &end, 10);

			if (*end || n < 1 || o->x.nunplugged == SML_MAX_UNPLUGGED) {
				fprintf(stderr, "smline: bad call number '%s'\n", w);
				return -1;
			}
			o->x.unplugged[o->x.nunplugged++] = (int)n;
		}
	} else if (!strcmp(name, "dialtone-timeout")) {
		double t;

		NUM(0, false, 3600, "s", t);
		o->x.dialtone_timeout_ms = (int)(t * 1000);
	} else if (!strcmp(name, "interdigit")) {
		double t;

		NUM(0, false, 3600, "s", t);
		o->x.interdigit_ms = (int)(t * 1000);
	} else if (!strcmp(name, "hangup-ms")) {
		WHOLE(1, 60000, "ms", o->x.hangup_ms);
	} else if (!strcmp(name, "clear-ms")) {
		WHOLE(0, 600000, "ms", o->x.clear_ms);
	} else if (!strcmp(name, "ring-cadence")) {
		char on[32], *off;

		NEED();
		snprintf(on, sizeof(on), "%s", val);
		off = strchr(on, ',');
		if (off)
			*off++ = '\0';
		if (!off || !whole_in(on, 1, 60000, &o->x.ring_on_ms) ||
		    !whole_in(off, 0, 60000, &o->x.ring_off_ms)) {
			fprintf(stderr, "smline: --ring-cadence %s: ON_MS,OFF_MS, whole ms, 1 to 60000 on, 0 to 60000 off\n",
				val);
			return -1;
		}
	} else if (!strcmp(name, "ring-hz")) {
		NUM(0, false, 1000, "Hz", o->x.ring_hz);
	} else if (!strcmp(name, "ring-dbm0")) {
		NUM(-90, true, 6, "dBm0", o->x.ring_dbm0);
	} else if (!strcmp(name, "hook")) {
		NEED();
		if (!strcmp(val, "control"))
			o->hook_control = true;
		else if (strcmp(val, "dc"))
			return -1;
	} else if (!strcmp(name, "hook-threshold")) {
		WHOLE(1, 32767, "", o->hook_threshold);
	} else if (!strcmp(name, "control")) {
		NEED();
		o->control = strdup(val);
	} else if (!strcmp(name, "atten")) {
		NUM(0, true, 60, "dB", o->w.atten_db);
	} else if (!strcmp(name, "noise")) {
		NUM(-300, true, 6, "dBm0 (-99 or less: none)", o->w.noise_dbm0);
	} else if (!strcmp(name, "echo")) {
		NUM(-300, true, 0, "dB (-99 or less: none)", o->w.echo_db);
	} else if (!strcmp(name, "echo-ms")) {
		NUM(0, true, 2000, "ms", o->w.echo_ms);
	} else if (!strcmp(name, "delay")) {
		NUM(0, true, 2000, "ms", o->w.delay_ms);
	} else if (!strcmp(name, "ppm")) {
		NUM(-100000, true, 100000, "ppm", o->w.ppm);
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
			o->w.far_hybrid = m;
		else
			o->w.hybrid = m;
	} else if (!strcmp(name, "hybrid-erl")) {
		NUM(0, true, 60, "dB", o->w.hybrid_erl_db);
	} else if (!strcmp(name, "far-echo")) {
		NUM(0, true, 60, "dB down (0: none)", o->w.far_echo_db);
	} else if (!strcmp(name, "far-echo-ms")) {
		NUM(0, true, 2000, "ms", o->w.far_echo_ms);
	} else if (!strcmp(name, "far-echo-hz")) {
		NUM(-100, true, 100, "Hz", o->w.far_echo_hz);
	} else if (!strcmp(name, "codec")) {
		NEED();
		o->w.codec = sml_codec_parse(val);
		if (o->w.codec < 0) {
			fprintf(stderr, "smline: --codec %s: none, ulaw or alaw\n", val);
			return -1;
		}
	} else if (!strcmp(name, "seed")) {
		char *end;

		NEED();
		errno = 0;
		o->w.seed = strtoull(val, &end, 0);
		if (end == val || *end || errno || *val == '-') {
			fprintf(stderr, "smline: --seed %s: a whole number, 0 to 2^64-1\n", val);
			return -1;
		}
	} else if (!strcmp(name, "json")) {
		NEED();
		o->json = strdup(val);
	} else if (!strcmp(name, "events")) {
		NEED();
		o->events = strdup(val);
	} else if (!strcmp(name, "calls")) {
		WHOLE(0, 1000000, "(0: no limit)", o->calls);
	} else if (!strcmp(name, "duration")) {
		NUM(0, true, 1e7, "s (0: no limit)", o->duration_s);
	} else if (!strcmp(name, "block")) {
		WHOLE(1, SML_MAX_BLOCK, "samples", o->block);
	} else if (!strcmp(name, "config")) {
		NEED();
		if (load_config(o, val))
			return -1;
	} else if (!strcmp(name, "tone-test")) {
		NUM(0, false, 86400, "s", o->tone_test_s);
	} else if (!strcmp(name, "tone-hz")) {
		NUM(0, false, 3999, "Hz", o->tone_hz);
	} else if (!strcmp(name, "tone-dbm0")) {
		NUM(-90, true, 6, "dBm0", o->tone_dbm0);
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
#undef NUM
#undef WHOLE
}

int sml_opts_parse(struct sml_opts *o, int argc, char **argv)
{
	int i;

	memset(o, 0, sizeof(*o));
	snprintf(o->transport, sizeof(o->transport), "jack");
	sml_exchange_cfg_default(&o->x);
	sml_wire_cfg_default(&o->w);
	o->hook_threshold = SML_HOOK_THRESHOLD;
	o->block = 80;
	o->tone_hz = 1000;
	o->tone_dbm0 = -10;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r;

		if (a[0] != '-') {
			fprintf(stderr, "smline: stray argument '%s'\n", a);
			usage(stderr);
			return -1;
		}
		if (strchr(a, '=') && !strncmp(a, "--", 2)) {
			/* --name=value */
			char name[256];
			const char *eq = strchr(a, '=');

			snprintf(name, sizeof(name), "%.*s", (int)(eq - a), a);
			r = set_opt(o, name, eq + 1);
			if (r < 0)
				return -1;
			continue;
		}
		r = set_opt(o, a, i + 1 < argc ? argv[i + 1] : NULL);
		if (r < 0)
			return -1;
		i += r;
	}
	return 0;
}
