// SPDX-License-Identifier: GPL-2.0
/*
 * smline: the real-time transport, a JACK client.
 *
 * The JACK server runs at L * 8 kHz (48 kHz in the lab, L = 6). The process
 * callback (JACK's real-time thread) only resamples and moves samples
 * through two lock-free ring buffers; the line itself runs in the main
 * thread, woken by a semaphore, 80 line samples at a time. Ports:
 *   smline:from_modem  input, the modem's transmit (QEMU "out-qemu:output 0")
 *   smline:to_modem    output, the modem's receive (QEMU "in-qemu:input 0")
 * Float samples map to S16 as x * 32768, as QEMU's audio code does.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <math.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jack/jack.h>
#include <jack/ringbuffer.h>

#include "resample.h"
#include "sml.h"
#include "transport.h"

#define RING_SAMPLES 16384

struct sml_jack_opts sml_jack_opts = {
	.client = "smline",
	.latency = 240,		/* 30 ms towards the modem */
	.connect_wait_s = 10.0,
};

struct jack_priv {
	jack_client_t *client;
	jack_port_t *p_from, *p_to;
	jack_ringbuffer_t *r_from, *r_to;
	sem_t sem;
	struct sml_poly rs;
	volatile int dead;
	int64_t clock;
	volatile unsigned long xruns, underruns, overruns;
};

static int process(jack_nframes_t nframes, void *arg)
{
	struct jack_priv *p = arg;
	const float *in = jack_port_get_buffer(p->p_from, nframes);
	float *out = jack_port_get_buffer(p->p_to, nframes);
	jack_nframes_t i;
	int wrote = 0;

	for (i = 0; i < nframes; i++) {
		double y;

		if (sml_poly_decim(&p->rs, in[i], &y)) {
			int16_t s = sml_clip16(y);

			if (jack_ringbuffer_write_space(p->r_from) >= sizeof(s)) {
				jack_ringbuffer_write(p->r_from, (const char *)&s, sizeof(s));
				wrote = 1;
			} else {
				p->overruns++;
			}
		}
	}
	for (i = 0; i < nframes; i++) {
		if (sml_poly_interp_need(&p->rs)) {
			int16_t s = 0;

			if (jack_ringbuffer_read_space(p->r_to) >= sizeof(s))
				jack_ringbuffer_read(p->r_to, (char *)&s, sizeof(s));
			else
				p->underruns++;
			sml_poly_interp_push(&p->rs, s);
		}
		out[i] = sml_poly_interp(&p->rs);
	}
	if (wrote)
		sem_post(&p->sem);
	return 0;
}

static int on_xrun(void *arg)
{
	((struct jack_priv *)arg)->xruns++;
	return 0;
}

static void on_shutdown(void *arg)
{
	struct jack_priv *p = arg;

	p->dead = 1;
	sem_post(&p->sem);
}

static int connect_retry(struct jack_priv *p, const char *src, const char *dst)
{
	double waited = 0.0;

	for (;;) {
		int r = jack_connect(p->client, src, dst);

		if (r == 0 || r == EEXIST)
			return 0;
		if (waited >= sml_jack_opts.connect_wait_s) {
			fprintf(stderr, "smline: cannot connect %s -> %s\n", src, dst);
			return -1;
		}
		/* QEMU may not have registered its ports yet */
		usleep(200000);
		waited += 0.2;
	}
}

static int jack_open_(struct sml_transport *t, const char *spec)
{
	struct jack_priv *p = calloc(1, sizeof(*p));
	jack_status_t status;
	jack_nframes_t rate;
	char name[256];
	int i;

	(void)spec;
	if (!p)
		return -1;
	t->priv = p;
	sem_init(&p->sem, 0, 0);
	p->client = jack_client_open(sml_jack_opts.client, JackNoStartServer, &status);
	if (!p->client) {
		fprintf(stderr, "smline: no JACK server (status 0x%x)\n", status);
		return -1;
	}
	rate = jack_get_sample_rate(p->client);
	if (rate % 8000 || rate / 8000 > 16) {
		fprintf(stderr, "smline: JACK runs at %u Hz, need a multiple of 8000\n", rate);
		return -1;
	}
	if (sml_poly_init(&p->rs, (int)(rate / 8000)))
		return -1;
	p->r_from = jack_ringbuffer_create(RING_SAMPLES * sizeof(int16_t));
	p->r_to = jack_ringbuffer_create(RING_SAMPLES * sizeof(int16_t));
	if (!p->r_from || !p->r_to)
		return -1;
	/* the queue towards the modem absorbs the main thread's scheduling */
	for (i = 0; i < sml_jack_opts.latency; i++) {
		int16_t z = 0;

		jack_ringbuffer_write(p->r_to, (const char *)&z, sizeof(z));
	}
	p->p_from = jack_port_register(p->client, "from_modem", JACK_DEFAULT_AUDIO_TYPE,
				       JackPortIsInput, 0);
	p->p_to = jack_port_register(p->client, "to_modem", JACK_DEFAULT_AUDIO_TYPE,
				     JackPortIsOutput, 0);
	if (!p->p_from || !p->p_to)
		return -1;
	jack_set_process_callback(p->client, process, p);
	jack_set_xrun_callback(p->client, on_xrun, p);
	jack_on_shutdown(p->client, on_shutdown, p);
	if (jack_activate(p->client))
		return -1;
	{
		/*
		 * The line thread refills the queue the callback drains: let it
		 * preempt ordinary tasks, below JACK's own real-time thread.
		 */
		struct sched_param sp = { .sched_priority = 5 };

		if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
			fprintf(stderr, "smline: line thread stays SCHED_OTHER\n");
	}
	fprintf(stderr, "smline: JACK client %s at %u Hz (x%u), period %u\n",
		jack_get_client_name(p->client), rate, rate / 8000,
		jack_get_buffer_size(p->client));
	if (sml_jack_opts.connect_in) {
		snprintf(name, sizeof(name), "%s:to_modem", jack_get_client_name(p->client));
		if (connect_retry(p, name, sml_jack_opts.connect_in))
			return -1;
	}
	if (sml_jack_opts.connect_out) {
		snprintf(name, sizeof(name), "%s:from_modem", jack_get_client_name(p->client));
		if (connect_retry(p, sml_jack_opts.connect_out, name))
			return -1;
	}
	return 0;
}

static int jack_read_(struct sml_transport *t, int16_t *buf, int n)
{
	struct jack_priv *p = t->priv;
	size_t want = sizeof(*buf) * (size_t)n;

	while (jack_ringbuffer_read_space(p->r_from) < want) {
		struct timespec ts;

		if (p->dead || sml_quit)
			return -1;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		if (sem_timedwait(&p->sem, &ts) && errno == ETIMEDOUT)
			fprintf(stderr, "smline: JACK delivers nothing (server stopped?)\n");
	}
	jack_ringbuffer_read(p->r_from, (char *)buf, want);
	p->clock += n;
	sml_jack_opts.xruns = p->xruns;
	sml_jack_opts.underruns = p->underruns;
	sml_jack_opts.overruns = p->overruns;
	return n;
}

static int jack_write_(struct sml_transport *t, const int16_t *buf, int n)
{
	struct jack_priv *p = t->priv;
	size_t want = sizeof(*buf) * (size_t)n;

	if (p->dead)
		return -1;
	if (jack_ringbuffer_write_space(p->r_to) < want) {
		p->overruns++;
		return 0;
	}
	jack_ringbuffer_write(p->r_to, (const char *)buf, want);
	return 0;
}

static int64_t jack_clock_(struct sml_transport *t)
{
	return ((struct jack_priv *)t->priv)->clock;
}

static void jack_close_(struct sml_transport *t)
{
	struct jack_priv *p = t->priv;

	if (!p)
		return;
	if (p->client) {
		jack_deactivate(p->client);
		jack_client_close(p->client);
	}
	if (p->r_from)
		jack_ringbuffer_free(p->r_from);
	if (p->r_to)
		jack_ringbuffer_free(p->r_to);
	sml_poly_free(&p->rs);
	sem_destroy(&p->sem);
	free(p);
	t->priv = NULL;
}

struct sml_transport sml_transport_jack = {
	.name = "jack",
	.open = jack_open_,
	.read = jack_read_,
	.write = jack_write_,
	.clock = jack_clock_,
	.close = jack_close_,
};
