// SPDX-License-Identifier: GPL-2.0
/*
 * lbtasks: the load-bound study's two periodic tasks (its Figs 7-9) beside a
 * driver's work, and the scheduling settings the experiment needs.
 *
 *   lbtasks run -1 E1_US -2 E2_US[,E2_US...] -P PERIOD_US -d SECONDS
 *               [--prio1 30] [--prio2 20] [--port 9000] [-c CPU] -o FILE
 *   lbtasks setsched PID fifo PRIO | PID deadline RUNTIME_US PERIOD_US | PID other
 *   lbtasks getsched PID
 *
 * run: tau1 (SCHED_FIFO prio1) and tau2 (SCHED_FIFO prio2) released together
 * every PERIOD_US, deadline = period, pinned to CPU, memory locked.  A job's
 * execution time is a number of loop iterations calibrated at start (the
 * fastest of 200 timed runs: on the instruction-counted clock that is the
 * loop alone), not CPU-time accounting, which on a kernel without
 * IRQ_TIME_ACCOUNTING would charge the interrupts to the task.  A job that
 * ends after its deadline is a miss; the next job then starts at once
 * (releases are never skipped).  tau1, after its work, reads every
 * heartbeat datagram (8-byte sequence number, tools/netload) waiting on UDP
 * port --port: a heartbeat sent during the run and not read by then is lost.
 * With several E2 values each runs SECONDS in turn (one line each in FILE):
 *   e2_us <e2> jobs1 <n> missed1 <n> jobs2 <n> missed2 <n> hb_sent <n>
 *   hb_received <n> hb_lost <n> max_resp1_us <n> max_resp2_us <n>
 * hb_sent comes from /sys/module/netload/parameters/hb_sent before and after.
 * Exit: 0 ok, 1 usage, 2 refused (priority, memory lock, CPU), 3 I/O error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

struct sched_attr_ {
	uint32_t size, sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
};

static void die(int code, const char *what)
{
	fprintf(stderr, "lbtasks: %s%s%s\n", what, errno ? ": " : "", errno ? strerror(errno) : "");
	exit(code);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static volatile uint64_t sink;
static void spin(uint64_t iters)
{
	uint64_t x = sink;

	for (uint64_t i = 0; i < iters; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

static double ns_per_iter;

static void calibrate(void)
{
	int64_t best = INT64_MAX;

	for (int k = 0; k < 200; k++) {
		int64_t t = now_ns();

		spin(10000);
		t = now_ns() - t;
		if (t < best)
			best = t;
	}
	ns_per_iter = best / 10000.0;
}

static int setsched(pid_t pid, int policy, unsigned int prio, uint64_t runtime, uint64_t period)
{
	struct sched_attr_ a = { .size = sizeof(a), .sched_policy = policy,
		.sched_priority = prio, .sched_runtime = runtime,
		.sched_deadline = period, .sched_period = period };

	return syscall(SYS_sched_setattr, pid, &a, 0);
}

static long hb_counter(void)
{
	FILE *f = fopen("/sys/module/netload/parameters/hb_sent", "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

struct task {
	int which, prio;
	uint64_t e_ns, period_ns;
	int64_t start_ns, end_ns;
	long jobs, missed, max_resp_ns;
	int sock;
	long hb_received, hb_first, hb_last;
};

static void *task_main(void *arg)
{
	struct task *t = arg;
	struct sched_param sp = { .sched_priority = t->prio };
	uint64_t iters = (uint64_t)(t->e_ns / ns_per_iter + 0.5);
	int64_t release = t->start_ns;

	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		die(2, "cannot get SCHED_FIFO for a task");
	for (;;) {
		struct timespec ts;
		int64_t now = now_ns(), resp;

		if (release >= t->end_ns)
			break;
		if (now < release) {
			ts.tv_sec = release / 1000000000;
			ts.tv_nsec = release % 1000000000;
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
		}
		spin(iters);
		if (t->sock >= 0) {
			unsigned char buf[64];
			ssize_t n;

			while ((n = recv(t->sock, buf, sizeof(buf), MSG_DONTWAIT)) >= 8) {
				long seq = 0;

				for (int i = 0; i < 8; i++)
					seq = seq << 8 | buf[i];
				if (seq >= t->hb_first && seq < t->hb_last)
					t->hb_received++;
			}
		}
		resp = now_ns() - release;
		t->jobs++;
		if (resp > (int64_t)t->period_ns)
			t->missed++;
		if (resp > t->max_resp_ns)
			t->max_resp_ns = resp;
		release += t->period_ns;
	}
	return NULL;
}

static int open_port(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof(a)))
		die(3, "cannot bind the heartbeat port");
	return s;
}

static void drain(int s)
{
	char buf[64];

	while (recv(s, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
		;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "prio1", required_argument, NULL, 'a' },
		{ "prio2", required_argument, NULL, 'b' },
		{ "port", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 } };
	double e1 = -1, period = -1, secs = -1;
	char *e2list = NULL, *out = NULL;
	int prio1 = 30, prio2 = 20, port = 9000, cpu = 0, c;
	struct sched_param sp = { .sched_priority = 99 };
	cpu_set_t set;
	FILE *f;
	int sock;

	while ((c = getopt_long(argc, argv, "1:2:P:d:c:o:", opts, NULL)) != -1) {
		switch (c) {
		case '1': e1 = atof(optarg); break;
		case '2': e2list = optarg; break;
		case 'P': period = atof(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		case 'o': out = optarg; break;
		case 'a': prio1 = atoi(optarg); break;
		case 'b': prio2 = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		default: return 1;
		}
	}
	if (e1 < 0 || !e2list || period <= 0 || secs <= 0 || !out || e1 > period ||
	    prio1 < 1 || prio1 > 98 || prio2 < 1 || prio2 > 98) {
		fprintf(stderr, "lbtasks run: -1 E1_US -2 E2_US[,..] -P PERIOD_US -d SECONDS -o FILE (E <= period, prio 1..98)\n");
		return 1;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		die(2, "cannot lock memory");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die(2, "cannot pin to the CPU");
	/* the main thread releases and collects above both tasks, asleep */
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		die(2, "cannot get SCHED_FIFO 99");
	calibrate();
	sock = open_port(port);
	f = fopen(out, "w");
	if (!f)
		die(3, "cannot write the output");
	fprintf(f, "# lbtasks 1\n# e1_us %.0f\n# period_us %.0f\n# seconds %g\n# prio1 %d\n# prio2 %d\n# ns_per_iter %.4f\n",
	       e1, period, secs, prio1, prio2, ns_per_iter);
	for (char *tok = strtok(e2list, ","); tok; tok = strtok(NULL, ",")) {
		double e2 = atof(tok);
		struct task t1 = { .which = 1, .prio = prio1, .e_ns = (uint64_t)(e1 * 1000),
				   .period_ns = (uint64_t)(period * 1000) };
		struct task t2 = { .which = 2, .prio = prio2, .e_ns = (uint64_t)(e2 * 1000),
				   .period_ns = (uint64_t)(period * 1000) };
		pthread_t th1, th2;
		long hb0, hb1;

		if (e2 < 0 || e2 > period) {
			fprintf(stderr, "lbtasks run: E2 %s outside 0..period\n", tok);
			return 1;
		}
		drain(sock);
		t1.sock = sock;
		t2.sock = -1;
		t1.start_ns = t2.start_ns = now_ns() + 20000000;
		t1.end_ns = t2.end_ns = t1.start_ns + (int64_t)(secs * 1e9);
		/* heartbeats sent from here on (the few before the first release
		 * are read by tau1's first job) */
		hb0 = hb_counter();
		t1.hb_first = hb0 < 0 ? 0 : hb0;
		t1.hb_last = INT64_MAX;
		if (pthread_create(&th1, NULL, task_main, &t1) || pthread_create(&th2, NULL, task_main, &t2))
			die(2, "cannot start the tasks");
		/* the heartbeats sent up to tau1's last release count */
		{
			struct timespec ts = { (t1.end_ns - period * 1000) / 1000000000,
					       (long)(t1.end_ns - period * 1000) % 1000000000 };
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
		hb1 = hb_counter();
		t1.hb_last = hb1 < 0 ? 0 : hb1;
		pthread_join(th1, NULL);
		pthread_join(th2, NULL);
		fprintf(f, "e2_us %.0f jobs1 %ld missed1 %ld jobs2 %ld missed2 %ld hb_sent %ld hb_received %ld hb_lost %ld max_resp1_us %ld max_resp2_us %ld\n",
		       e2, t1.jobs, t1.missed, t2.jobs, t2.missed, hb0 < 0 ? 0 : hb1 - hb0,
		       t1.hb_received, hb0 < 0 ? 0 : hb1 - hb0 - t1.hb_received,
		       t1.max_resp_ns / 1000, t2.max_resp_ns / 1000);
		fflush(f);
		fprintf(stderr, "lbtasks: e2 %.0f us: tau2 missed %ld of %ld, tau1 %ld of %ld, heartbeats %ld of %ld\n",
			e2, t2.missed, t2.jobs, t1.missed, t1.jobs, t1.hb_received, hb1 - hb0);
	}
	return fclose(f) ? 3 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5 && !strcmp(argv[1], "setsched")) {
		pid_t pid = atoi(argv[2]);
		int r;

		if (!strcmp(argv[3], "fifo"))
			r = setsched(pid, SCHED_FIFO, atoi(argv[4]), 0, 0);
		else if (!strcmp(argv[3], "deadline") && argc >= 6)
			r = setsched(pid, SCHED_DEADLINE, 0, strtoull(argv[4], NULL, 10) * 1000,
				     strtoull(argv[5], NULL, 10) * 1000);
		else
			return fprintf(stderr, "lbtasks setsched PID fifo PRIO | deadline RUNTIME_US PERIOD_US\n"), 1;
		if (r)
			die(2, "sched_setattr refused");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "getsched")) {
		struct sched_attr_ a;

		if (syscall(SYS_sched_getattr, atoi(argv[2]), &a, sizeof(a), 0))
			die(3, "sched_getattr");
		if (a.sched_policy == SCHED_FIFO)
			printf("fifo %u\n", a.sched_priority);
		else if (a.sched_policy == SCHED_DEADLINE)
			printf("deadline %llu/%llu us\n", (unsigned long long)a.sched_runtime / 1000,
			       (unsigned long long)a.sched_period / 1000);
		else
			printf("policy %u nice %d\n", a.sched_policy, a.sched_nice);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return run(argc - 1, argv + 1);
	fprintf(stderr, "usage: lbtasks run ... | setsched PID ... | getsched PID (see the source's head)\n");
	return 1;
}
