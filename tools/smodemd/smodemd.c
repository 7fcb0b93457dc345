// SPDX-License-Identifier: GPL-2.0
/*
 * smodemd: the modem of smodem.ko's context=usr, in user space.
 *
 * It opens /dev/smodem<n> (one daemon per modem: a second one gets EBUSY;
 * one daemon may serve several, -d given several times: from one thread in
 * rate-monotonic order, poll() on all of them, a period's handler never
 * preempted by another modem's, after the upcall study's admission test;
 * or --threads, one thread each),
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
 * The modem's link (struct smodem_link_ops) is the area here, as it is
 * the tty's queues in the other contexts (driver/smodem_link.c): commands
 * and the DTE's bytes read from it, the bytes for the DTE, reports and
 * phases written to it for the kernel to hand on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
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
#include <time.h>
#include <unistd.h>
#include "smodem_compat.h"
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

/* A modem's link: its area, and what did not fit there. */
struct area_link {
	struct smodem_link link;
	struct smodem_usr_area *area;
	u64 reports_lost;	/* more in one period than the area holds */
};

static struct area_link *link_of(struct smodem_link *l)
{
	return container_of(l, struct area_link, link);
}

static void report(struct smodem_link *l, u32 type, u32 id, u32 a, u32 b)
{
	struct area_link *al = link_of(l);
	struct smodem_usr_area *ar = al->area;
	struct smodem_usr_report *r;

	if (ar->nrep >= SMODEM_USR_REPORTS) {
		al->reports_lost++;
		return;
	}
	r = &ar->rep[ar->nrep];
	r->type = type;
	r->id = id;
	r->a = a;
	r->b = b;
	ar->nrep++;
}

static void area_take(struct smodem_link *l, struct smodem_cmd *cmd)
{
	struct smodem_usr_area *ar = link_of(l)->area;

	memcpy(cmd, &ar->cmd, sizeof(*cmd));
	ar->cmd.what = 0;	/* taken once */
}

static void area_connected(struct smodem_link *l, u32 id, u32 rate, u32 conn)
{
	report(l, SMODEM_USR_CONNECTED, id, rate, conn);
}

static void area_result(struct smodem_link *l, u32 id, enum at_result rc)
{
	report(l, SMODEM_USR_RESULT, id, rc, 0);
}

static void area_ring(struct smodem_link *l, bool on)
{
	report(l, SMODEM_USR_RING, 0, on, 0);
}

/* The kernel emits the smodem_phase trace event at SMODEM_USR_DONE. */
static void area_phase(struct smodem_link *l, u32 phase, u32 arg)
{
	report(l, SMODEM_USR_PHASE, 0, phase, arg);
}

static unsigned int area_rx_room(struct smodem_link *l)
{
	struct smodem_usr_area *ar = link_of(l)->area;

	return ar->rx_room - ar->rx_len;
}

static unsigned int area_rx(struct smodem_link *l, const u8 *buf,
			    unsigned int n)
{
	struct smodem_usr_area *ar = link_of(l)->area;
	unsigned int k = min(n, area_rx_room(l));

	memcpy(ar->rx_bytes + ar->rx_len, buf, k);
	ar->rx_len += k;
	return k;
}

static unsigned int area_tx_get(struct smodem_link *l, u8 *buf,
				unsigned int max)
{
	struct smodem_usr_area *ar = link_of(l)->area;
	unsigned int k = min(max, ar->tx_len - ar->tx_used);

	memcpy(buf, ar->tx_bytes + ar->tx_used, k);
	ar->tx_used += k;
	return k;
}

static const struct smodem_link_ops area_link_ops = {
	.take = area_take,
	.connected = area_connected,
	.result = area_result,
	.ring = area_ring,
	.phase = area_phase,
	.rx = area_rx,
	.rx_room = area_rx_room,
	.tx_get = area_tx_get,
};

/* -- the stats lines --------------------------------------------------------- */

/* Periods between two renderings of the modem's stats lines. */
#define SHOW_PERIODS	40

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

/* Modems one daemon serves (-d given several times). */
#define MAX_MODEMS	16
/* --cost's default: the module's load_us plus this for the data pump. */
#define COST_MARGIN_US	100

struct opts {
	const char *device[MAX_MODEMS];
	int ndev;
	long cost_us;		/* -1: load_us + COST_MARGIN_US */
	int admission;
	int threads;
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
"  -d, --device PATH[,PATH]  a modem's device [/dev/smodem0]; several -d (or a\n"
"                            comma list, up to 16): one daemon serves them all\n"
"  -t, --threads             one thread per modem, all at the policy given\n"
"                            (default: one thread serves every modem, rate-\n"
"                            monotonic: the shortest period first, ties by\n"
"                            device order, each period's handler finished\n"
"                            before the next modem's is taken)\n"
"  -C, --cost US             each modem's CPU time per period, for the admission\n"
"                            test [the module's load_us + 100]\n"
"  -A, --no-admission        serve every modem without the admission test\n"
"  -f, --fifo PRIO           SCHED_FIFO at PRIO, 1..99\n"
"  -r, --rr PRIO             SCHED_RR at PRIO, 1..99\n"
"  -D, --deadline R/P[/D]    SCHED_DEADLINE: runtime R us every period P us,\n"
"                            relative deadline D us (default P)\n"
"  -n, --nice N              SCHED_OTHER at nice N, -20..19\n"
"                            (without a policy option: the one inherited)\n"
"  -c, --cpu N               pin to CPU N (not with --deadline); without it,\n"
"                            a modem's thread is pinned to the CPU the module's\n"
"                            cpus= gives its device (one thread for several:\n"
"                            if they all have the same)\n"
"  -p, --periods N           exit after N periods of every modem (tests)\n"
"                            [0: never]\n"
"  -v, --verbose             say what was set up, and the counts at exit (per\n"
"                            modem: periods, longest handler; the daemon's\n"
"                            context switches, per second)\n"
"  -h, --help                this text\n"
"\n"
"Admission: modems are admitted in the order given; modem i (1..n) must pass\n"
"  sum(C/T) + c_max (1/T_1 - 1/T_n) <= n (2^(1/n) - 1)   over modems 1..i,\n"
"with C the --cost, T the modem's period (the module's period_samples / its\n"
"rate; with phase_periods=1 the on-hook period is shorter: not counted),\n"
"T_1 the shortest, T_n the longest; c_max's term (a handler is not\n"
"preempted) only in the single-thread mode.  One that does not fit is refused\n"
"with the numbers and the daemon exits 3 without serving any.  One modem\n"
"alone is tested only with an explicit --cost.\n"
"Memory is locked (mlockall) before the first period.  A modem has one daemon:\n"
"a second gets EBUSY.  Killing it (any signal, SIGKILL too) ends the call in\n"
"progress: NO CARRIER at the tty; the next daemon started takes over.  One\n"
"that stops answering for 2 s (stopped, starved) is detached the same way.\n"
"Exit status: 0 on SIGINT/SIGTERM or after --periods (of every modem),\n"
"1 on an error, 2 if a modem already has a daemon, 3 if the admission test\n"
"refused a modem.\n");
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
		{ "threads", no_argument, NULL, 't' },
		{ "cost", required_argument, NULL, 'C' },
		{ "no-admission", no_argument, NULL, 'A' },
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

	char *tok, *save;

	*o = (struct opts){ .policy = -1, .cpu = -1, .cost_us = -1,
			    .admission = 1 };
	while ((c = getopt_long(argc, argv, "d:tC:Af:r:D:n:c:p:vh", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			for (tok = strtok_r(optarg, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				if (o->ndev == MAX_MODEMS)
					die("--device: at most %d modems", MAX_MODEMS);
				o->device[o->ndev++] = tok;
			}
			break;
		case 't':
			o->threads = 1;
			break;
		case 'C':
			o->cost_us = parse_long(optarg, 0, 10000000, "--cost");
			break;
		case 'A':
			o->admission = 0;
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
	if (!o->ndev)
		o->device[o->ndev++] = "/dev/smodem0";
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

/* The calling thread: pinned to cpu (-1: not), then its policy. */
static void set_sched(const struct opts *o, int cpu)
{
	struct sched_attr_v1 a = { .size = sizeof(a) };
	cpu_set_t set;

	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("%s %d: %s", o->cpu >= 0 ? "--cpu" : "the module's cpus=: CPU",
			    cpu, strerror(errno));
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

/* One modem this daemon serves. */
struct modem {
	const char *path;
	int fd;
	struct area_link link;
	struct smodem_modem *m;
	struct smodem_usr_area *a;
	s16 *rx, *tx;
	struct smodem_fill fill;	/* placed by the kernel at DONE */
	u64 period_ns;		/* T: period_samples / rate */
	long long done;		/* periods served */
	int cpu;		/* the module's cpus= for its device, -1 any */
	u64 max_ns;		/* the longest handler */
	u64 sum_ns;		/* all its handlers */
	int err;
	int busy;		/* between WAIT and DONE (the single thread) */
	pthread_t thread;
};

static struct modem modems[MAX_MODEMS];
static struct modem *order[MAX_MODEMS];	/* rate-monotonic */
static struct pollfd pfd[MAX_MODEMS];	/* in order[]'s order */
static struct opts o;

static double tv_s(const struct timeval *t)
{
	return t->tv_sec + t->tv_usec / 1e6;
}

static u64 now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* A module parameter, or def if it cannot be read. */
static long module_param_long(const char *name, long def)
{
	char path[128];
	long v = def;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/smodem/parameters/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = def;
		fclose(f);
	}
	return v;
}

/* The module's cpus= entry for device id: -1 if none. */
static int device_cpu(unsigned int id)
{
	char buf[256], *s = buf, *end;
	unsigned int i = 0;
	FILE *f;
	long v;

	f = fopen("/sys/module/smodem/parameters/cpus", "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	for (;;) {
		v = strtol(s, &end, 10);
		if (end == s)
			return -1;
		if (i++ == id)
			return v < 0 || v >= CPU_SETSIZE ? -1 : (int)v;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/*
 * The CPU a thread serving these modems is pinned to: --cpu, else the one
 * cpus= gives them all, else none.
 */
static int thread_cpu(struct modem **mds, int n)
{
	int i, cpu;

	if (o.cpu >= 0)
		return o.cpu;
	cpu = mds[0]->cpu;
	for (i = 1; i < n; i++)
		if (mds[i]->cpu != cpu)
			return -1;
	if (cpu >= 0 && o.policy == SCHED_DEADLINE) {
		fprintf(stderr, PROG ": %s: cpus= places it on CPU %d; a SCHED_DEADLINE thread cannot be pinned, so it is not\n",
			mds[0]->path, cpu);
		return -1;
	}
	return cpu;
}

static void open_modem(struct modem *md, int nonblock)
{
	struct smodem_usr_area *a;

	md->fd = open(md->path, O_RDWR | O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
	if (md->fd < 0) {
		fprintf(stderr, PROG ": %s: %s%s\n", md->path, strerror(errno),
			errno == EBUSY ? " (the modem has a daemon already)" :
			errno == EACCES ? " (its mode is smodem.ko's usr_mode=, default 0600: root only)" :
			"");
		exit(errno == EBUSY ? 2 : 1);
	}
	a = md->a = map_area(md->fd, md->path);
	md->rx = (s16 *)((u8 *)a + a->rx_off);
	md->tx = (s16 *)((u8 *)a + a->tx_off);
	md->fill.buf = (s16 *)((u8 *)a + a->fill_off);
	md->fill.chunk = a->max_frames;
	md->link.link.ops = &area_link_ops;
	md->link.area = a;
	md->m = smodem_modem_create(&md->link.link, a->rate,
				    a->flags & SMODEM_USR_F_CALLS,
				    a->flags & SMODEM_USR_F_PHASE);
	if (IS_ERR(md->m))
		die("%s: the modem: %s", md->path, strerror(-PTR_ERR(md->m)));
	md->cpu = device_cpu(a->dev_id);
	md->period_ns = a->rate ?
		(u64)module_param_long("period_samples", 100) * 1000000000ULL / a->rate :
		12500000ULL;
	show(md->m, a);
}

/*
 * The upcall study's test, modem after modem in the order given; exits 3
 * at the first that does not fit.
 */
static void admit(int n, long cost_us)
{
	double u = 0, tmin = 0, tmax = 0, cmax = cost_us, block, bound;
	int i;

	for (i = 0; i < n; i++) {
		double t = modems[i].period_ns / 1000.0;	/* us */

		u += cost_us / t;
		if (!i || t < tmin)
			tmin = t;
		if (!i || t > tmax)
			tmax = t;
		block = o.threads ? 0 : cmax * (1 / tmin - 1 / tmax);
		bound = (i + 1) * (pow(2, 1.0 / (i + 1)) - 1);
		if (u + block > bound) {
			fprintf(stderr, PROG ": %s: refused by the admission test: modem %d: sum(C/T) %.3f + c_max(1/T_1 - 1/T_n) %.3f = %.3f > n(2^(1/n)-1) %.3f (n %d, C %ld us, T %.0f us)\n",
				modems[i].path, i + 1, u, block, u + block,
				bound, i + 1, cost_us, t);
			exit(3);
		}
		if (o.verbose)
			fprintf(stderr, PROG ": %s: admitted: modem %d: %.3f <= %.3f (C %ld us, T %.0f us)\n",
				modems[i].path, i + 1, u + block, bound,
				cost_us, t);
	}
}

static void handle(struct modem *md)
{
	struct smodem_usr_area *a = md->a;
	struct smodem_gap gap = { .grew = a->gap, .len = a->gap_len,
				  .late = a->gap_late, .lead = a->lead };
	u64 t0 = now_ns(), dt;

	/* the gap first, as the kernel's core does, then the period */
	a->next = smodem_modem_step(md->m, &gap, &md->fill, md->rx, md->tx,
				    a->n);
	if (a->seq % SHOW_PERIODS == 1)
		show(md->m, a);
	dt = now_ns() - t0;
	if (dt > md->max_ns)
		md->max_ns = dt;
	md->sum_ns += dt;
	md->done++;
}

static void upcall_error(struct modem *md)
{
	fprintf(stderr, PROG ": %s: %s%s\n", md->path, strerror(errno),
		errno == EPIPE ? " (detached: this daemon stopped answering)" :
		errno == ENODEV ? " (the modem went away)" : "");
	md->err = 1;
}

/* One modem's periods on its own thread (one modem, or --threads). */
static void *serve_one(void *arg)
{
	struct modem *md = arg;
	unsigned long req = SMODEM_USR_WAIT;

	if (o.threads)
		set_sched(&o, thread_cpu(&md, 1));
	while (!stop) {
		if (ioctl(md->fd, req) < 0) {
			if (errno == EINTR) {
				/* DONE went through; the wait did not. */
				req = SMODEM_USR_WAIT;
				continue;
			}
			upcall_error(md);
			break;
		}
		handle(md);
		req = SMODEM_USR_DONE_WAIT;
		if (md->done == o.periods) {
			if (ioctl(md->fd, SMODEM_USR_DONE) < 0)
				md->err = 1;
			req = SMODEM_USR_WAIT;
			break;
		}
	}
	if (stop && req == SMODEM_USR_DONE_WAIT)
		ioctl(md->fd, SMODEM_USR_DONE);
	return NULL;
}

/*
 * Every modem on this thread: poll() for the ready ones, then the first
 * ready in rate-monotonic order runs its whole period (never preempted by
 * another modem's), DONE, and the choice is made again.
 */
static void serve_rm(int n)
{
	int i, live = n;
	struct modem *md;

	for (i = 0; i < n; i++) {
		pfd[i].fd = order[i]->fd;
		pfd[i].events = POLLIN;
	}
	while (!stop && live) {
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		for (i = 0; i < n; i++) {
			if (!pfd[i].revents || pfd[i].fd < 0)
				continue;
			md = order[i];
			if (ioctl(md->fd, SMODEM_USR_WAIT) < 0) {
				if (errno == EAGAIN || errno == EINTR)
					continue;
			} else {
				handle(md);
				if (ioctl(md->fd, SMODEM_USR_DONE) == 0 &&
				    md->done != o.periods)
					break;	/* the highest ready next */
			}
			if (md->done != o.periods)
				upcall_error(md);
			pfd[i].fd = -1;		/* not served any more */
			live--;
			break;
		}
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct rusage ru0, ru1;
	pthread_attr_t attr;
	struct modem *md;
	u64 t0, t1;
	double secs;
	int i, j, n, err = 0, one_thread, cpu;
	long cost;

	parse(argc, argv, &o);
	n = o.ndev;
	one_thread = n > 1 && !o.threads;
	for (i = 0; i < n; i++) {
		modems[i].path = o.device[i];
		open_modem(&modems[i], one_thread);
	}
	cost = o.cost_us >= 0 ? o.cost_us :
		module_param_long("load_us", 0) + COST_MARGIN_US;
	/* one modem: only an explicit --cost (the default's margin is a guess) */
	if (o.admission && (n > 1 || o.cost_us >= 0))
		admit(n, cost);
	/* rate-monotonic: the shortest period first, ties in device order */
	for (i = 0; i < n; i++) {
		for (j = i; j > 0 && order[j - 1]->period_ns > modems[i].period_ns; j--)
			order[j] = order[j - 1];
		order[j] = &modems[i];
	}

	/* Everything allocated: no page fault from here on. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die("mlockall: %s (needs an RLIMIT_MEMLOCK above the daemon's size: ulimit -l, systemd's LimitMEMLOCK=; or CAP_IPC_LOCK)",
		    strerror(errno));
	if (!o.threads) {
		cpu = thread_cpu(order, n);
		for (i = 0; cpu < 0 && o.cpu < 0 && i < n; i++) {
			if (order[i]->cpu != order[0]->cpu) {
				fprintf(stderr, PROG ": cpus= places these modems on different CPUs; the single thread is not pinned (--threads pins each)\n");
				break;
			}
		}
		set_sched(&o, cpu);
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; o.verbose && i < n; i++) {
		struct smodem_usr_area *a = modems[i].a;

		fprintf(stderr, PROG ": %s attached (attach %u): dev %u, %u Hz, ring %u, period %llu us, %s%s\n",
			modems[i].path, a->attach, a->dev_id, a->rate, a->ring,
			(unsigned long long)modems[i].period_ns / 1000,
			a->flags & SMODEM_USR_F_CALLS ? "call control" : "pump only",
			a->flags & SMODEM_USR_F_PHASE ? ", phase periods" : "");
	}
	if (o.verbose && n > 1)
		fprintf(stderr, PROG ": %d modems, %s\n", n,
			o.threads ? "one thread each" : "one rate-monotonic thread");

	getrusage(RUSAGE_SELF, &ru0);
	t0 = now_ns();
	if (!o.threads) {
		if (n == 1)
			serve_one(&modems[0]);
		else
			serve_rm(n);
	} else {
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, 1 << 20);
		for (i = 0; i < n; i++) {
			err = pthread_create(&modems[i].thread, &attr,
					     serve_one, &modems[i]);
			if (err)
				die("pthread_create: %s", strerror(err));
		}
		for (i = 0; i < n; i++)
			pthread_join(modems[i].thread, NULL);
	}
	t1 = now_ns();
	getrusage(RUSAGE_SELF, &ru1);
	secs = (t1 - t0) / 1e9;

	for (i = 0; i < n; i++) {
		md = &modems[i];
		err |= md->err;
		/* The stats file keeps the last daemon's figures. */
		show(md->m, md->a);
		if (o.verbose)
			fprintf(stderr, PROG ": %s: %lld periods, last upcall %llu, %llu reports lost, longest handler %llu us, handlers %llu us in all\n",
				md->path, md->done, (unsigned long long)md->a->seq,
				(unsigned long long)md->link.reports_lost,
				(unsigned long long)md->max_ns / 1000,
				(unsigned long long)md->sum_ns / 1000);
	}
	if (o.verbose)
		fprintf(stderr, PROG ": %s, %d modems, %.2f s: voluntary context switches %ld (%.1f/s), involuntary %ld (%.1f/s), cpu user %.3f s system %.3f s\n",
			o.threads ? "threads" : "rm", n, secs,
			ru1.ru_nvcsw - ru0.ru_nvcsw,
			secs > 0 ? (ru1.ru_nvcsw - ru0.ru_nvcsw) / secs : 0.0,
			ru1.ru_nivcsw - ru0.ru_nivcsw,
			secs > 0 ? (ru1.ru_nivcsw - ru0.ru_nivcsw) / secs : 0.0,
			tv_s(&ru1.ru_utime) - tv_s(&ru0.ru_utime),
			tv_s(&ru1.ru_stime) - tv_s(&ru0.ru_stime));
	/* Closing is detaching: the kernel ends a call still going. */
	for (i = 0; i < n; i++)
		close(modems[i].fd);
	return err;
}
