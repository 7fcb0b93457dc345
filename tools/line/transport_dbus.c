// SPDX-License-Identifier: GPL-2.0
/*
 * smline: the virtual-time transport, QEMU's D-Bus audio.
 *
 * QEMU (-display dbus,addr=BUS,audiodev=snd0 -audiodev dbus,id=snd0) exports
 * org.qemu.Display1.Audio on the bus; we hand it one end of a socket pair per
 * direction and serve, peer to peer, /org/qemu/Display1/AudioOutListener (the
 * guest's output arrives as Write calls) and .../AudioInListener (QEMU asks
 * for the guest's input with a Read call and waits for the reply).
 *
 * Why this is locked to the guest's virtual clock:
 * - Output is rate-limited by QEMU on QEMU_CLOCK_VIRTUAL: its sample count is
 *   a function of guest time.
 * - Input is not rate-limited by QEMU 7.2 at all (dbus_read asks for all the
 *   free buffer space at every audio timer tick), so we pace it: each timer
 *   tick (timer-period, virtual) gets rate * period of input. QEMU's generic
 *   input loop calls Read again within a tick only after a Read that returned
 *   everything it asked for (a wrap of its ring), which is how ticks are told
 *   apart without any clock.
 * - Samples pair by index: input sample i is what the line made of output
 *   samples up to i - delay. A Read that needs output QEMU has produced but
 *   whose Write has not arrived yet (it travels on the other socket) simply
 *   waits for it. The delay must cover QEMU's output chunk (480 frames in 7.2)
 *   or the wait could never end; a Read that would wait for output the guest
 *   never produces (its output DMA stopped) gives up after stall_s of wall
 *   time, plays silence for the missing output and counts a stall: the one
 *   place where wall time could leak into a run, so it is reported.
 *
 * Resynchronised at every stop and start of the streams:
 * when the guest stops its DMA (a module reload), QEMU disables the input at
 * once but plays out its output mix (about one chunk more) before it
 * disables the output; paired by index, that chunk would lengthen the line's
 * delay by itself at every reload.  So the next run pairs exactly as the
 * first one did: input sample i of the new input run is what the line made
 * of output sample i - delay of the new output run, whichever of the two
 * SetEnabled(true) arrives first (they travel on different sockets): the
 * input's start refills the queue with the delay's silence and keeps what
 * the line already made of the new run's output; what it made of the old
 * run's output after the input stopped is heard by nobody and dropped.
 * What the line itself hears of the old run must not depend on which socket
 * the host serves first, or the line's clock (and every call's times) would:
 * it hears every sample QEMU wrote in the old run, whenever its input
 * stopped, and the old run's last block is completed with silence when the
 * new run starts, so its clock moves by the same amount at every reload.
 * One thing no listener can undo: QEMU 7.2 keeps the output chunk it was
 * filling when the output stopped (audio/dbusaudio.c, vo->buf) and sends its
 * stale frames ahead of the new run's first ones, so a restart may still
 * shift the pairing by up to one chunk less a frame; it never adds up, and
 * it is the same in every run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gio/gio.h>
#include <gio/gunixfdlist.h>

#include "sml.h"
#include "transport.h"

#define AUDIO_PATH "/org/qemu/Display1/Audio"
#define OUT_PATH "/org/qemu/Display1/AudioOutListener"
#define IN_PATH "/org/qemu/Display1/AudioInListener"
#define QEMU_NAME "org.qemu"
/* Output the guest can run ahead of its input: 16 s, far beyond any call. */
#define OUT_CAP (16 * SML_RATE)

struct sml_dbus_opts sml_dbus_opts = {
	.tick_us = 1000,
	.delay = 1536,
	.stall_s = 5.0,
	.wait_s = 60.0,
};

/* What both listener interfaces have: the stream's life cycle. */
#define STREAM_METHODS \
	"  <method name='Init'><arg type='t' direction='in'/>" \
	"   <arg type='y' direction='in'/><arg type='b' direction='in'/>" \
	"   <arg type='b' direction='in'/><arg type='u' direction='in'/>" \
	"   <arg type='y' direction='in'/><arg type='u' direction='in'/>" \
	"   <arg type='u' direction='in'/><arg type='b' direction='in'/></method>" \
	"  <method name='Fini'><arg type='t' direction='in'/></method>" \
	"  <method name='SetEnabled'><arg type='t' direction='in'/>" \
	"   <arg type='b' direction='in'/></method>" \
	"  <method name='SetVolume'><arg type='t' direction='in'/>" \
	"   <arg type='b' direction='in'/><arg type='ay' direction='in'/></method>"

static const char listener_xml[] =
	"<node>"
	" <interface name='org.qemu.Display1.AudioOutListener'>"
	STREAM_METHODS
	"  <method name='Write'><arg type='t' direction='in'/>"
	"   <arg type='ay' direction='in'/></method>"
	" </interface>"
	" <interface name='org.qemu.Display1.AudioInListener'>"
	STREAM_METHODS
	"  <method name='Read'><arg type='t' direction='in'/>"
	"   <arg type='t' direction='in'/><arg type='ay' direction='out'/></method>"
	" </interface>"
	"</node>";

struct stream {
	int channels;		/* frames are channels * S16 */
	int enabled;
	int inited;
};

/* A FIFO of mono samples. */
struct fifo {
	int16_t *buf;
	size_t cap, head, len;
};

struct dbus_priv {
	GMutex lock;
	GCond cond;
	GThread *thread;
	GMainContext *ctx;
	GMainLoop *loop;
	GDBusConnection *bus, *out_conn, *in_conn;
	GDBusNodeInfo *node;
	char *address;
	int open_state;		/* 0 running, 1 ready, -1 failed */
	int closed;		/* a peer went away */
	int fatal;		/* unusable stream format */

	struct stream out, in;
	struct fifo oq;		/* the modem's transmit, waiting for read() */
	struct fifo iq;		/* the modem's receive, waiting for a Read */
	int64_t deficit;	/* output played as silence, to drop on arrival */

	/* Resynchronisation at stream stop/start (see the top). */
	int out_stale;		/* input stopped: what the line makes of the
				 * output is heard by nobody until the output's
				 * next SetEnabled(true) */
	size_t old_left;	/* samples of the old run still first in oq */
	int read_old;		/* the block the line last read is the old run's */
	size_t last_n;		/* the line's block size (its last read) */
	int in_reset;		/* input stopped: reset iq at its next start */
	size_t fresh;		/* samples the line put in iq from the new output run
				 * while in_reset */
	uint64_t epoch;		/* output runs; the line's block carries its own */
	uint64_t read_epoch;	/* the epoch of the block the line last read */
	int64_t padded;		/* silence completing the old runs' last blocks */
	int resyncs;

	GDBusMethodInvocation *pending;	/* a Read waiting for iq */
	size_t pending_frames;
	int64_t pending_since;	/* monotonic us */
	int last_full;		/* the last Read got all it asked for */
	int64_t ticks, in_frames, out_frames, clock;
};

static void fifo_init(struct fifo *f, size_t cap)
{
	f->buf = g_new0(int16_t, cap);
	f->cap = cap;
	f->head = f->len = 0;
}

static size_t fifo_put(struct fifo *f, const int16_t *s, size_t n)
{
	size_t i, drop = 0;

	for (i = 0; i < n; i++) {
		if (f->len == f->cap) {
			f->head = (f->head + 1) % f->cap;
			f->len--;
			drop++;
		}
		f->buf[(f->head + f->len) % f->cap] = s[i];
		f->len++;
	}
	return drop;
}

static size_t fifo_get(struct fifo *f, int16_t *s, size_t n)
{
	size_t i;

	if (n > f->len)
		n = f->len;
	for (i = 0; i < n; i++) {
		if (s)
			s[i] = f->buf[f->head];
		f->head = (f->head + 1) % f->cap;
	}
	f->len -= n;
	return n;
}

/* Called with the lock held: answer the waiting Read if iq holds enough. */
static void answer_pending(struct dbus_priv *p)
{
	size_t n = p->pending_frames, i, bytes;
	int ch = p->in.channels;
	int16_t *mono, *frames;
	GVariant *v;

	if (!p->pending || p->iq.len < n)
		return;
	mono = g_new(int16_t, n ? n : 1);
	fifo_get(&p->iq, mono, n);
	bytes = n * ch * sizeof(int16_t);
	frames = g_malloc(bytes ? bytes : 1);
	for (i = 0; i < n * ch; i++)
		frames[i] = mono[i / ch];
	v = g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, frames, bytes, 1);
	g_dbus_method_invocation_return_value(p->pending, g_variant_new("(@ay)", v));
	g_free(frames);
	g_free(mono);
	p->in_frames += n;
	p->pending = NULL;
	sml_dbus_opts.reads++;
}

static int stream_init(struct dbus_priv *p, struct stream *s, const char *dir,
		       GVariant *params)
{
	guint64 id;
	guchar bits, nch;
	gboolean sgn, flt, be;
	guint32 freq, bpf, bps;

	g_variant_get(params, "(tybbuyuub)", &id, &bits, &sgn, &flt, &freq, &nch,
		      &bpf, &bps, &be);
	if (bits != 16 || !sgn || flt || be || freq != SML_RATE || nch < 1 ||
	    nch > 2 || bpf != 2u * nch) {
		sml_log(SML_LOG_ERR, 0, "dbus",
			"%s stream: %u-bit %s%s %u Hz x%u; the line needs S16LE at %d Hz "
			"(-audiodev dbus,in.frequency=%d,out.frequency=%d)",
			dir, bits, sgn ? "signed" : "unsigned", flt ? " float" : "",
			freq, nch, SML_RATE, SML_RATE, SML_RATE);
		p->fatal = 1;
		return -1;
	}
	s->channels = nch;
	s->inited = 1;
	sml_log(SML_LOG_DEBUG, 0, "dbus", "%s stream: S16LE %u Hz x%u", dir, freq, nch);
	return 0;
}

/* Called with the lock held: the input stopped (QEMU's output plays on). */
static void stream_stopped(struct dbus_priv *p)
{
	p->out_stale = 1;
	p->in_reset = 1;
	p->fresh = 0;
}

/*
 * Called with the lock held: a new output run.  What is queued is the old
 * run's, heard whole by the line, its last block completed with silence.
 */
static void output_started(struct dbus_priv *p)
{
	size_t pad = p->last_n ? (p->last_n - p->oq.len % p->last_n) % p->last_n : 0;
	int16_t z = 0;

	p->padded += pad;
	while (pad--)
		fifo_put(&p->oq, &z, 1);
	p->old_left = p->oq.len;
	p->deficit = 0;
	p->epoch++;		/* the line's block in flight is the old run's */
	p->out_stale = 0;
	p->fresh = 0;
}

/*
 * Called with the lock held: a new input run.  iq becomes the delay's
 * silence followed by what the line made of the new output run so far
 * (nothing unless the output started first): the first run's pairing.
 */
static void input_started(struct dbus_priv *p)
{
	size_t keep, old, i;
	int16_t *tail = NULL;

	p->last_full = 0;
	if (!p->in_reset)
		return;
	keep = p->fresh < p->iq.len ? p->fresh : p->iq.len;
	old = p->iq.len - keep;
	fifo_get(&p->iq, NULL, old);
	if (keep) {
		tail = g_new(int16_t, keep);
		fifo_get(&p->iq, tail, keep);
	}
	for (i = 0; i < (size_t)sml_dbus_opts.delay; i++) {
		int16_t z = 0;

		fifo_put(&p->iq, &z, 1);
	}
	if (keep)
		fifo_put(&p->iq, tail, keep);
	g_free(tail);
	p->in_reset = 0;
	p->fresh = 0;
	p->resyncs++;
	sml_log(SML_LOG_INFO, p->clock, "dbus",
		"streams restarted (%d): resynchronised (%zu samples of the old "
		"run's input dropped, %" G_GINT64_FORMAT " of silence completing "
		"its output's blocks so far, %zu of the new kept)", p->resyncs, old,
		p->padded, keep);
}

static void on_method(GDBusConnection *conn, const gchar *sender,
		      const gchar *path, const gchar *iface, const gchar *method,
		      GVariant *params, GDBusMethodInvocation *inv, gpointer data)
{
	struct dbus_priv *p = data;
	int out = !strcmp(path, OUT_PATH);
	struct stream *s = out ? &p->out : &p->in;

	g_mutex_lock(&p->lock);
	if (!strcmp(method, "Write")) {
		GVariant *v;
		const int16_t *d;
		gsize bytes, n, i;
		guint64 id;

		g_variant_get(params, "(t@ay)", &id, &v);
		d = g_variant_get_fixed_array(v, &bytes, 1);
		n = s->inited ? bytes / (2 * s->channels) : 0;
		for (i = 0; i < n; i++) {
			int16_t x = d[i * s->channels];

			p->out_frames++;
			if (p->deficit > 0) {
				p->deficit--;
				continue;
			}
			sml_dbus_opts.overflows += fifo_put(&p->oq, &x, 1);
		}
		sml_dbus_opts.writes++;
		g_variant_unref(v);
		g_cond_broadcast(&p->cond);
		g_dbus_method_invocation_return_value(inv, NULL);
	} else if (!strcmp(method, "Read")) {
		guint64 id, size, want, target, quota;

		g_variant_get(params, "(tt)", &id, &size);
		want = s->inited ? size / (2 * s->channels) : 0;
		if (!p->last_full)
			p->ticks++;
		target = (guint64)p->ticks * SML_RATE * sml_dbus_opts.tick_us / 1000000;
		quota = target > (guint64)p->in_frames ? target - p->in_frames : 0;
		if (quota > want)
			quota = want;
		p->last_full = quota && quota == want;
		if (p->pending) {
			/* QEMU waits for each reply: two at once is a protocol error */
			g_dbus_method_invocation_return_dbus_error(inv,
				"org.qemu.Display1.Error", "Read while a Read is pending");
		} else {
			p->pending = inv;
			p->pending_frames = quota;
			p->pending_since = g_get_monotonic_time();
			answer_pending(p);
			g_cond_broadcast(&p->cond);
		}
	} else if (!strcmp(method, "Init")) {
		stream_init(p, s, out ? "output" : "input", params);
		g_cond_broadcast(&p->cond);
		g_dbus_method_invocation_return_value(inv, NULL);
	} else if (!strcmp(method, "SetEnabled")) {
		guint64 id;
		gboolean en;

		g_variant_get(params, "(tb)", &id, &en);
		if (!out && !en && s->enabled)
			stream_stopped(p);
		else if (out && en && !s->enabled)
			output_started(p);
		else if (!out && en && !s->enabled)
			input_started(p);
		s->enabled = en;
		sml_log(SML_LOG_DEBUG, p->clock, "dbus",
			"%s %s (%" G_GINT64_FORMAT " samples in, %" G_GINT64_FORMAT
			" out, %zu queued in, %zu out)", out ? "output" : "input",
			en ? "enabled" : "disabled", p->in_frames, p->out_frames,
			p->iq.len, p->oq.len);
		g_cond_broadcast(&p->cond);
		g_dbus_method_invocation_return_value(inv, NULL);
	} else {
		/* Fini, SetVolume: the line has no volume control to follow */
		g_dbus_method_invocation_return_value(inv, NULL);
	}
	g_mutex_unlock(&p->lock);
}

static const GDBusInterfaceVTable vtable = { .method_call = on_method };

static void on_closed(GDBusConnection *conn, gboolean remote, GError *err,
		      gpointer data)
{
	struct dbus_priv *p = data;

	g_mutex_lock(&p->lock);
	p->closed = 1;
	g_cond_broadcast(&p->cond);
	g_mutex_unlock(&p->lock);
}

struct reg_call {
	struct dbus_priv *p;
	const char *path;
	int iface_index;
	GDBusConnection *conn;
	GError *err;		/* the first error of either step */
	int registered, connected;
};

static void on_registered(GObject *src, GAsyncResult *res, gpointer data)
{
	struct reg_call *rc = data;
	GError *err = NULL;
	GVariant *v;

	v = g_dbus_connection_call_with_unix_fd_list_finish(G_DBUS_CONNECTION(src),
							    NULL, res, &err);
	if (v)
		g_variant_unref(v);
	if (err && !rc->err)
		rc->err = err;
	else
		g_clear_error(&err);
	rc->registered = 1;
}

static void on_connected(GObject *src, GAsyncResult *res, gpointer data)
{
	struct reg_call *rc = data;
	GError *err = NULL;
	GDBusConnection *c = g_dbus_connection_new_finish(res, &err);

	if (c && !g_dbus_connection_register_object(c, rc->path,
			rc->p->node->interfaces[rc->iface_index], &vtable, rc->p,
			NULL, &err)) {
		g_object_unref(c);
		c = NULL;
	}
	if (c) {
		g_signal_connect(c, "closed", G_CALLBACK(on_closed), rc->p);
		g_dbus_connection_start_message_processing(c);
		rc->conn = c;
	} else if (!rc->err) {
		rc->err = err;
	} else {
		g_clear_error(&err);
	}
	rc->connected = 1;
}

/*
 * QEMU answers RegisterXListener only after it has authenticated, as the
 * server, the connection on the other end of our socket, and it then calls
 * the listener (Properties.GetAll, Init) while its main thread waits: so
 * nothing here may block this thread, which serves the listeners already
 * registered. The connection holds its messages until our object is there.
 */
static GDBusConnection *listen_on(struct dbus_priv *p, const char *method,
				  const char *path, int iface_index)
{
	struct reg_call rc = { .p = p, .path = path, .iface_index = iface_index };
	GUnixFDList *fds;
	GSocket *sock;
	GSocketConnection *sc;
	GError *err = NULL;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		sml_log(SML_LOG_ERR, 0, "dbus", "socketpair: %s", strerror(errno));
		return NULL;
	}
	sock = g_socket_new_from_fd(sv[0], &err);
	if (!sock) {
		close(sv[0]);
		close(sv[1]);
		sml_log(SML_LOG_ERR, 0, "dbus", "socket: %s", err->message);
		g_clear_error(&err);
		return NULL;
	}
	fds = g_unix_fd_list_new_from_array(&sv[1], 1);	/* takes sv[1] */
	g_dbus_connection_call_with_unix_fd_list(p->bus, QEMU_NAME, AUDIO_PATH,
		"org.qemu.Display1.Audio", method, g_variant_new("(h)", 0), NULL,
		G_DBUS_CALL_FLAGS_NONE, -1, fds, NULL, on_registered, &rc);
	g_object_unref(fds);
	sc = g_socket_connection_factory_create_connection(sock);
	g_dbus_connection_new(G_IO_STREAM(sc), NULL,
		G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
		G_DBUS_CONNECTION_FLAGS_DELAY_MESSAGE_PROCESSING, NULL, NULL,
		on_connected, &rc);
	while (!rc.registered || !rc.connected)
		g_main_context_iteration(p->ctx, TRUE);
	g_object_unref(sc);
	g_object_unref(sock);
	if (rc.err) {
		sml_log(SML_LOG_ERR, 0, "dbus", "%s: %s", method, rc.err->message);
		g_clear_error(&rc.err);
		if (rc.conn) {
			g_dbus_connection_close_sync(rc.conn, NULL, NULL);
			g_clear_object(&rc.conn);
		}
	}
	return rc.conn;
}

static int wait_for_qemu(struct dbus_priv *p)
{
	gint64 deadline = g_get_monotonic_time() +
			  (gint64)(sml_dbus_opts.wait_s * G_USEC_PER_SEC);

	while (!sml_quit) {
		GVariant *v;
		gboolean has = FALSE;

		v = g_dbus_connection_call_sync(p->bus, "org.freedesktop.DBus",
			"/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
			g_variant_new("(s)", QEMU_NAME), G_VARIANT_TYPE("(b)"),
			G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
		if (v) {
			g_variant_get(v, "(b)", &has);
			g_variant_unref(v);
		}
		if (has)
			return 0;
		if (g_get_monotonic_time() > deadline)
			break;
		g_usleep(50000);
	}
	sml_log(SML_LOG_ERR, 0, "dbus", "no %s on %s after %.0f s", QEMU_NAME,
		p->address, sml_dbus_opts.wait_s);
	return -1;
}

static gpointer dbus_thread(gpointer data)
{
	struct dbus_priv *p = data;
	GError *err = NULL;
	int ok = 0;

	g_main_context_push_thread_default(p->ctx);
	p->bus = g_dbus_connection_new_for_address_sync(p->address,
		G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT |
		G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION, NULL, NULL, &err);
	if (!p->bus) {
		sml_log(SML_LOG_ERR, 0, "dbus", "bus %s: %s", p->address, err->message);
		g_clear_error(&err);
	} else if (!wait_for_qemu(p)) {
		p->out_conn = listen_on(p, "RegisterOutListener", OUT_PATH, 0);
		if (p->out_conn)
			p->in_conn = listen_on(p, "RegisterInListener", IN_PATH, 1);
		ok = p->out_conn && p->in_conn;
	}
	g_mutex_lock(&p->lock);
	p->open_state = ok ? 1 : -1;
	g_cond_broadcast(&p->cond);
	g_mutex_unlock(&p->lock);
	if (ok) {
		sml_log(SML_LOG_INFO, 0, "dbus",
			"listening to QEMU's audio on %s (tick %d us, delay %d samples)",
			p->address, sml_dbus_opts.tick_us, sml_dbus_opts.delay);
		if (sml_dbus_opts.ready_file) {
			FILE *f = fopen(sml_dbus_opts.ready_file, "w");

			if (f)
				fclose(f);
		}
		g_main_loop_run(p->loop);
	}
	g_main_context_pop_thread_default(p->ctx);
	return NULL;
}

static int dbus_open(struct sml_transport *t, const char *spec)
{
	struct dbus_priv *p;
	int16_t *zeros;
	int state;

	if (!spec || !*spec) {
		fprintf(stderr, "smline: --transport dbus:ADDRESS (a D-Bus bus "
			"address, e.g. unix:path=/tmp/bus)\n");
		return -1;
	}
	if (sml_dbus_opts.tick_us <= 0 || sml_dbus_opts.delay < 0 ||
	    sml_dbus_opts.delay > OUT_CAP / 2) {
		fprintf(stderr, "smline: bad --dbus-tick-us or --dbus-delay\n");
		return -1;
	}
	p = g_new0(struct dbus_priv, 1);
	t->priv = p;
	g_mutex_init(&p->lock);
	g_cond_init(&p->cond);
	p->address = g_strdup(spec);
	p->node = g_dbus_node_info_new_for_xml(listener_xml, NULL);
	p->ctx = g_main_context_new();
	p->loop = g_main_loop_new(p->ctx, FALSE);
	fifo_init(&p->oq, OUT_CAP);
	fifo_init(&p->iq, OUT_CAP);
	/* the line's delay: what the modem hears first is this much silence */
	zeros = g_new0(int16_t, sml_dbus_opts.delay + 1);
	fifo_put(&p->iq, zeros, sml_dbus_opts.delay);
	g_free(zeros);
	p->thread = g_thread_new("smline-dbus", dbus_thread, p);
	g_mutex_lock(&p->lock);
	while (!p->open_state)
		g_cond_wait(&p->cond, &p->lock);
	state = p->open_state;
	g_mutex_unlock(&p->lock);
	return state > 0 ? 0 : -1;
}

static int dbus_read(struct sml_transport *t, int16_t *buf, int n)
{
	struct dbus_priv *p = t->priv;
	int got;

	g_mutex_lock(&p->lock);
	while ((int)p->oq.len < n && !p->closed && !p->fatal && !sml_quit) {
		gint64 now = g_get_monotonic_time();

		if (p->pending && now - p->pending_since >
		    (gint64)(sml_dbus_opts.stall_s * G_USEC_PER_SEC)) {
			/* the guest's output stopped while QEMU waits for input */
			size_t miss = n - p->oq.len;
			int16_t *z = g_new0(int16_t, miss);

			fifo_put(&p->oq, z, miss);
			g_free(z);
			p->deficit += miss;
			sml_dbus_opts.stalls++;
			sml_log(SML_LOG_ERR, p->clock, "dbus",
				"no output from the guest for %.1f s of wall time while "
				"QEMU waits for input: %zu samples of silence",
				sml_dbus_opts.stall_s, miss);
			break;
		}
		g_cond_wait_until(&p->cond, &p->lock, now + 100000);
	}
	if (p->fatal) {
		g_mutex_unlock(&p->lock);
		return -1;
	}
	got = (int)fifo_get(&p->oq, buf, n);
	p->read_epoch = p->epoch;
	p->read_old = p->old_left > 0;
	p->old_left -= p->old_left < (size_t)got ? p->old_left : (size_t)got;
	p->last_n = n;
	p->clock += got;
	g_mutex_unlock(&p->lock);
	return got;
}

static int dbus_write(struct sml_transport *t, const int16_t *buf, int n)
{
	struct dbus_priv *p = t->priv;

	g_mutex_lock(&p->lock);
	if (p->read_epoch != p->epoch || p->read_old || p->out_stale) {
		/* made of the old run's output: nobody is to hear it */
		g_mutex_unlock(&p->lock);
		return 0;
	}
	sml_dbus_opts.overflows += fifo_put(&p->iq, buf, n);
	if (p->in_reset)
		p->fresh += n;
	answer_pending(p);
	g_mutex_unlock(&p->lock);
	return 0;
}

static int64_t dbus_clock(struct sml_transport *t)
{
	struct dbus_priv *p = t->priv;

	return p ? p->clock : 0;
}

static void dbus_close(struct sml_transport *t)
{
	struct dbus_priv *p = t->priv;

	if (!p)
		return;
	if (p->thread) {
		g_main_loop_quit(p->loop);
		g_main_context_wakeup(p->ctx);
		g_thread_join(p->thread);
	}
	g_mutex_lock(&p->lock);
	if (p->pending) {
		g_dbus_method_invocation_return_dbus_error(p->pending,
			"org.qemu.Display1.Error", "line closed");
		p->pending = NULL;
	}
	g_mutex_unlock(&p->lock);
	sml_log(SML_LOG_INFO, p->clock, "dbus",
		"closed: %" G_GINT64_FORMAT " ticks, %" G_GINT64_FORMAT
		" samples in, %" G_GINT64_FORMAT " out, %lu stalls, %lu overflows",
		p->ticks, p->in_frames, p->out_frames,
		(unsigned long)sml_dbus_opts.stalls,
		(unsigned long)sml_dbus_opts.overflows);
	if (p->in_conn) {
		g_dbus_connection_close_sync(p->in_conn, NULL, NULL);
		g_object_unref(p->in_conn);
	}
	if (p->out_conn) {
		g_dbus_connection_close_sync(p->out_conn, NULL, NULL);
		g_object_unref(p->out_conn);
	}
	if (p->bus)
		g_object_unref(p->bus);
	g_main_loop_unref(p->loop);
	g_main_context_unref(p->ctx);
	g_dbus_node_info_unref(p->node);
	g_free(p->oq.buf);
	g_free(p->iq.buf);
	g_free(p->address);
	g_free(p);
	t->priv = NULL;
}

struct sml_transport sml_transport_dbus = {
	.name = "dbus",
	.open = dbus_open,
	.read = dbus_read,
	.write = dbus_write,
	.clock = dbus_clock,
	.close = dbus_close,
};
