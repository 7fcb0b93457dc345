/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the line's samples reach the modem. Everything above this interface
 * (hook detection, wire, exchange, far modem) only counts samples; the
 * transport alone decides how those samples map onto time:
 *   jack   real time, a JACK client at the server's rate (48 kHz), resampled
 *   pipe   offline: raw S16LE 8 kHz samples on file descriptors or files,
 *          paced by the other side (one sample in for one sample out)
 *   dbus   virtual time: QEMU's D-Bus audio; its Write calls feed read(),
 *          its Read calls are answered from write() (transport_dbus.c)
 */
#ifndef SML_TRANSPORT_H
#define SML_TRANSPORT_H

#include <stdint.h>

struct sml_transport {
	const char *name;
	/* spec: the text after "NAME:" on the command line; 0 or -1 */
	int (*open)(struct sml_transport *t, const char *spec);
	/*
	 * Read n samples of the modem's transmit signal. Blocks until they
	 * are there; returns n, fewer at the end of the stream, 0 at its end,
	 * -1 on error.
	 */
	int (*read)(struct sml_transport *t, int16_t *buf, int n);
	/* Write n samples to the modem's receive path; 0 or -1. */
	int (*write)(struct sml_transport *t, const int16_t *buf, int n);
	/* samples of the modem's transmit consumed so far (the line's clock) */
	int64_t (*clock)(struct sml_transport *t);
	void (*close)(struct sml_transport *t);
	void *priv;
};

/* set by SIGINT/SIGTERM: blocking reads give up */
extern volatile int sml_quit;

/* NULL if the name is unknown (or jack support was not built) */
struct sml_transport *sml_transport_find(const char *name);

extern struct sml_transport sml_transport_pipe;
#ifdef SML_HAVE_JACK
extern struct sml_transport sml_transport_jack;
/* JACK options, set before open() */
struct sml_jack_opts {
	const char *client;	/* "smline" */
	const char *connect_in;	/* port to feed, e.g. "in-qemu:input 0" */
	const char *connect_out;	/* port to listen to, "out-qemu:output 0" */
	int latency;		/* line samples queued towards the modem */
	double connect_wait_s;	/* wait this long for the ports to appear */
	uint64_t xruns, underruns, overruns;
};
extern struct sml_jack_opts sml_jack_opts;
#endif

#ifdef SML_HAVE_DBUS
extern struct sml_transport sml_transport_dbus;
/* D-Bus options, set before open() */
struct sml_dbus_opts {
	int tick_us;		/* QEMU's audio timer-period (us of guest time) */
	int delay;		/* line samples of delay towards the modem */
	double stall_s;		/* wall seconds before missing output is silence */
	double wait_s;		/* wait this long for QEMU on the bus */
	const char *ready_file;	/* created once both listeners are registered */
	uint64_t reads, writes, stalls, overflows;
};
extern struct sml_dbus_opts sml_dbus_opts;
#endif

#endif /* SML_TRANSPORT_H */
