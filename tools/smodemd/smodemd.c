// SPDX-License-Identifier: GPL-2.0
/*
 * smodemd: the modem of smodem.ko's context=usr, in user space.
 *
 * It opens /dev/smodem<n> (one daemon per modem: a second one gets EBUSY),
 * maps its shared area (driver/smodem_usr.h), locks its memory, takes the
 * scheduling policy it was given, and then serves one upcall per period:
 * SMODEM_USR_WAIT hands it the period's input, the DTE's command and bytes;
 * it runs the modem on them, the same driver/smodem_modem.c (call control)
 * and dsp/ (the data pump) that run inside the kernel in the other
 * contexts, built here for user space; SMODEM_USR_DONE (with the next
 * WAIT, SMODEM_USR_DONE_WAIT) gives the kernel the output, the bytes for
 * the DTE and the modem's reports, which it hands to the tty.  Nothing is
 * allocated after the set-up.
 *
 * The smodem_link_* functions below are the modem's side of the link as
 * the kernel's driver/smodem_link.c is in the other contexts: they read
 * and write the area instead of the tty's queues.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include "smodemd_dev.h"
#include "smodem_link.h"
#include "smodem_modem.h"
#include "smodem_usr.h"

#define PROG "smodemd"

/* <linux/sched/types.h>'s, which glibc does not wrap */
struct sched_attr_v1 {
	u32 size;
	u32 sched_policy;
	u64 sched_flags;
	s32 sched_nice;
	u32 sched_priority;
	u64 sched_runtime;
	u64 sched_deadline;
	u64 sched_period;
};

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* -- the link, the modem's side ------------------------------------------- */

static struct smodem_usr_area *area_of(struct smodem_dev *sd)
{
	return sd->area;
}

static void report(struct smodem_dev *sd, u32 type, u32 id, u32 a, u32 b)
{
	struct smodem_usr_area *ar = area_of(sd);
	struct smodem_usr_report *r;

	if (ar->nrep >= SMODEM_USR_REPORTS) {
		sd->reports_lost++;
		return;
	}
	r = &ar->rep[ar->nrep];
	r->type = type;
	r->id = id;
	r->a = a;
	r->b = b;
	ar->nrep++;
}

void smodem_link_take(struct smodem_dev *sd, struct smodem_cmd *cmd)
{
	struct smodem_usr_area *ar = area_of(sd);

	memcpy(cmd, &ar->cmd, sizeof(*cmd));
	ar->cmd.what = 0;	/* taken once */
}

void smodem_link_connected(struct smodem_dev *sd, u32 id, u32 rate, bool lapm)
{
	report(sd, SMODEM_USR_CONNECTED, id, rate, lapm);
}

void smodem_link_result(struct smodem_dev *sd, u32 id, enum at_result rc)
{
	report(sd, SMODEM_USR_RESULT, id, rc, 0);
}

void smodem_link_ring(struct smodem_dev *sd, bool on)
{
	report(sd, SMODEM_USR_RING, 0, on, 0);
}

void smodemd_phase(struct smodem_dev *sd, u32 phase, u32 arg)
{
	report(sd, SMODEM_USR_PHASE, 0, phase, arg);
}

unsigned int smodem_link_rx_room(struct smodem_dev *sd)
{
	struct smodem_usr_area *ar = area_of(sd);

	return ar->rx_room - ar->rx_len;
}

unsigned int smodem_link_rx(struct smodem_dev *sd, const u8 *buf,
			    unsigned int n)
{
	struct smodem_usr_area *ar = area_of(sd);
	unsigned int k = min(n, smodem_link_rx_room(sd));

	memcpy(ar->rx_bytes + ar->rx_len, buf, k);
	ar->rx_len += k;
	return k;
}

unsigned int smodem_link_tx_get(struct smodem_dev *sd, u8 *buf,
				unsigned int max)
{
	struct smodem_usr_area *ar = area_of(sd);
	unsigned int k = min(max, ar->tx_len - ar->tx_used);

	memcpy(buf, ar->tx_bytes + ar->tx_used, k);
	ar->tx_used += k;
	return k;
}

/* -- the stats lines --------------------------------------------------------- */

/* Periods between two renderings of the modem's stats lines. */
#define SHOW_PERIODS	40

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (m->len >= m->size)
		return;
	va_start(ap, fmt);
	k = vsnprintf(m->buf + m->len, m->size - m->len, fmt, ap);
	va_end(ap);
	if (k > 0)
		m->len = min(m->size, m->len + (size_t)k);
}

void seq_puts(struct seq_file *m, const char *s)
{
	seq_printf(m, "%s", s);
}

/* Into the buffer the kernel does not print, then name it. */
static void show(struct smodem_modem *m, struct smodem_usr_area *a)
{
	u32 i = (a->show_cur & 1) ^ 1;
	struct seq_file sf = { .buf = a->show[i],
			       .size = sizeof(a->show[i]) };

	m->ops->show(m, &sf);
	a->show_len[i] = sf.len;
	__atomic_store_n(&a->show_cur, i, __ATOMIC_RELEASE);
}

/* -- set-up ------------------------------------------------------------------ */

struct opts {
	const char *device;
	int policy;		/* -1: leave it */
	int prio;
	int nice;
	u64 dl_runtime_ns, dl_deadline_ns, dl_period_ns;
	int cpu;		/* -1: any */
	long long periods;	/* exit after this many, 0: never */
	int verbose;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " [OPTION]...\n"
"The per-period work of smodem.ko loaded with context=usr: the modem (call\n"
"control and data pump, the module's own sources) runs in this process, one\n"
"upcall per period, while the tty stays in the kernel.\n"
"\n"
"  -d, --device PATH         the modem's device [/dev/smodem0]\n"
"  -f, --fifo PRIO           SCHED_FIFO at PRIO, 1..99\n"
"  -r, --rr PRIO             SCHED_RR at PRIO, 1..99\n"
"  -D, --deadline R/P[/D]    SCHED_DEADLINE: runtime R us every period P us,\n"
"                            relative deadline D us (default P)\n"
"  -n, --nice N              SCHED_OTHER at nice N, -20..19\n"
"                            (without a policy option: the one inherited)\n"
"  -c, --cpu N               pin to CPU N (not with --deadline)\n"
"  -p, --periods N           exit after N periods (tests) [0: never]\n"
"  -v, --verbose             say what was set up, and the counts at exit\n"
"  -h, --help                this text\n"
"\n"
"Memory is locked (mlockall) before the first period.  One daemon per modem:\n"
"a second gets EBUSY.  Killing it (any signal, SIGKILL too) ends the call in\n"
"progress: NO CARRIER at the tty; the next daemon started takes over.  One\n"
"that stops answering for 2 s (stopped, starved) is detached the same way.\n"
"Exit status: 0 on SIGINT/SIGTERM or after --periods, 1 on an error,\n"
"2 if the modem already has a daemon.\n");
}

static long parse_long(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		die("%s: '%s' is not a number in %ld..%ld", what, s, lo, hi);
	return v;
}

static void parse_deadline(struct opts *o, const char *s)
{
	unsigned long r, p, d = 0;
	int k = sscanf(s, "%lu/%lu/%lu", &r, &p, &d);

	if (k < 2 || r < 1 || p < r || (k == 3 && (d < r || d > p)))
		die("--deadline: RUNTIME/PERIOD[/DEADLINE] in us, runtime <= deadline <= period, not '%s'",
		    s);
	o->policy = SCHED_DEADLINE;
	o->dl_runtime_ns = r * 1000ULL;
	o->dl_period_ns = p * 1000ULL;
	o->dl_deadline_ns = (k == 3 ? d : p) * 1000ULL;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "fifo", required_argument, NULL, 'f' },
		{ "rr", required_argument, NULL, 'r' },
		{ "deadline", required_argument, NULL, 'D' },
		{ "nice", required_argument, NULL, 'n' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "periods", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .device = "/dev/smodem0", .policy = -1, .cpu = -1 };
	while ((c = getopt_long(argc, argv, "d:f:r:D:n:c:p:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->device = optarg;
			break;
		case 'f':
		case 'r':
			o->policy = c == 'f' ? SCHED_FIFO : SCHED_RR;
			o->prio = parse_long(optarg, 1, 99, "priority");
			break;
		case 'D':
			parse_deadline(o, optarg);
			break;
		case 'n':
			o->policy = SCHED_OTHER;
			o->nice = parse_long(optarg, -20, 19, "--nice");
			break;
		case 'c':
			o->cpu = parse_long(optarg, 0, CPU_SETSIZE - 1, "--cpu");
			break;
		case 'p':
			o->periods = parse_long(optarg, 0, 0x7fffffffL, "--periods");
			break;
		case 'v':
			o->verbose = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(1);
		}
	}
	if (optind != argc) {
		usage(stderr);
		exit(1);
	}
	if (o->cpu >= 0 && o->policy == SCHED_DEADLINE)
		die("--cpu: Linux does not pin a SCHED_DEADLINE task");
}

/* The option as given, for messages: "--fifo 50". */
static const char *policy_name(const struct opts *o)
{
	static char buf[48];

	switch (o->policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		snprintf(buf, sizeof(buf), "--%s %d",
			 o->policy == SCHED_FIFO ? "fifo" : "rr", o->prio);
		break;
	case SCHED_OTHER:
		snprintf(buf, sizeof(buf), "--nice %d", o->nice);
		break;
	default:
		snprintf(buf, sizeof(buf), "--deadline");
		break;
	}
	return buf;
}

/* What the kernel wants for it (sched(7)), when it said EPERM. */
static const char *policy_needs(const struct opts *o)
{
	switch (o->policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		return " (a real-time policy needs CAP_SYS_NICE, or an RLIMIT_RTPRIO of at least the priority: ulimit -r, systemd's LimitRTPRIO=)";
	case SCHED_OTHER:
		return " (a negative nice needs CAP_SYS_NICE, or RLIMIT_NICE: ulimit -e)";
	default:
		return " (SCHED_DEADLINE needs CAP_SYS_NICE)";
	}
}

static void set_sched(const struct opts *o)
{
	struct sched_attr_v1 a = { .size = sizeof(a) };
	cpu_set_t set;

	if (o->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(o->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("--cpu %d: %s", o->cpu, strerror(errno));
	}
	if (o->policy < 0)
		return;
	a.sched_policy = o->policy;
	switch (o->policy) {
	case SCHED_FIFO:
	case SCHED_RR:
		a.sched_priority = o->prio;
		break;
	case SCHED_OTHER:
		a.sched_nice = o->nice;
		break;
	default:
		a.sched_runtime = o->dl_runtime_ns;
		a.sched_deadline = o->dl_deadline_ns;
		a.sched_period = o->dl_period_ns;
		break;
	}
	if (syscall(SYS_sched_setattr, 0, &a, 0))
		die("%s: %s%s", policy_name(o), strerror(errno),
		    errno == EBUSY ? " (deadline admission refused)" :
		    errno == EPERM ? policy_needs(o) : "");
}

/* The area, checked against what this daemon was built with. */
static struct smodem_usr_area *map_area(int fd, const char *dev)
{
	long page = sysconf(_SC_PAGESIZE);
	struct smodem_usr_area *a;
	size_t size;

	a = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		die("%s: mmap: %s", dev, strerror(errno));
	size = a->size;
	if (a->magic != SMODEM_USR_MAGIC || a->version != SMODEM_USR_VERSION ||
	    a->area_size != sizeof(*a) ||
	    a->cmd_size != sizeof(struct smodem_cmd))
		die("%s: not the smodem.ko this daemon was built for (magic %#x version %u area %u cmd %u)",
		    dev, a->magic, a->version, a->area_size, a->cmd_size);
	munmap(a, page);
	a = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		die("%s: mmap: %s", dev, strerror(errno));
	return a;
}

/* -- the periods ------------------------------------------------------------ */

/* One upcall: the gap first, as the kernel's core does, then the period. */
static void one_period(struct smodem_modem *m, struct smodem_usr_area *a,
		       s16 *rx, s16 *tx, s16 *fill)
{
	u32 left = a->gap_len, k;
	s16 *p = fill;

	if (a->gap) {
		m->ops->gap(m, a->gap_len, a->gap_late);
		while (left) {
			k = min(left, a->max_frames);
			m->ops->fill(m, p, k);
			p += k;
			left -= k;
		}
	}
	a->next = m->ops->period(m, rx, tx, a->n);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct smodem_dev sd = { .id = 0 };
	struct smodem_modem *m;
	struct smodem_usr_area *a;
	unsigned long req;
	long long done = 0;
	s16 *rx, *tx, *fill;
	struct opts o;
	int fd, err = 0;

	parse(argc, argv, &o);
	fd = open(o.device, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, PROG ": %s: %s%s\n", o.device, strerror(errno),
			errno == EBUSY ? " (the modem has a daemon already)" :
			errno == EACCES ? " (its mode is smodem.ko's usr_mode=, default 0600: root only)" :
			"");
		return errno == EBUSY ? 2 : 1;
	}
	a = map_area(fd, o.device);
	rx = (s16 *)((u8 *)a + a->rx_off);
	tx = (s16 *)((u8 *)a + a->tx_off);
	fill = (s16 *)((u8 *)a + a->fill_off);

	sd.id = a->dev_id;
	sd.p.rate = a->rate;
	sd.area = a;
	m = smodem_modem_create(&sd, a->flags & SMODEM_USR_F_CALLS,
				a->flags & SMODEM_USR_F_PHASE);
	if (IS_ERR(m))
		die("the modem: %s", strerror(-PTR_ERR(m)));

	show(m, a);
	/* Everything allocated: no page fault from here on. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall: %s (needs an RLIMIT_MEMLOCK above the daemon's size: ulimit -l, systemd's LimitMEMLOCK=; or CAP_IPC_LOCK)",
		    strerror(errno));
	set_sched(&o);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.verbose)
		fprintf(stderr, PROG ": %s attached (attach %u): dev %u, %u Hz, ring %u, %s%s\n",
			o.device, a->attach, a->dev_id, a->rate, a->ring,
			a->flags & SMODEM_USR_F_CALLS ? "call control" : "pump only",
			a->flags & SMODEM_USR_F_PHASE ? ", phase periods" : "");

	req = SMODEM_USR_WAIT;
	while (!stop) {
		if (ioctl(fd, req) < 0) {
			if (errno == EINTR) {
				/* DONE went through; the wait did not. */
				req = SMODEM_USR_WAIT;
				continue;
			}
			fprintf(stderr, PROG ": %s: %s%s\n", o.device,
				strerror(errno), errno == EPIPE ?
				" (detached: this daemon stopped answering)" :
				errno == ENODEV ? " (the modem went away)" : "");
			err = 1;
			break;
		}
		one_period(m, a, rx, tx, fill);
		if (a->seq % SHOW_PERIODS == 1)
			show(m, a);
		req = SMODEM_USR_DONE_WAIT;
		if (++done == o.periods) {
			if (ioctl(fd, SMODEM_USR_DONE) < 0)
				err = 1;
			break;
		}
	}
	if (stop && req == SMODEM_USR_DONE_WAIT)
		ioctl(fd, SMODEM_USR_DONE);
	/* The stats file keeps the last daemon's figures. */
	show(m, a);
	if (o.verbose)
		fprintf(stderr, PROG ": %lld periods, last upcall %llu, %llu reports lost\n",
			done, (unsigned long long)a->seq,
			(unsigned long long)sd.reports_lost);
	/* Closing is detaching: the kernel ends a call still going. */
	close(fd);
	return err;
}
