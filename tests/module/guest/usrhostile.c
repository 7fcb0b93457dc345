// SPDX-License-Identifier: GPL-2.0
/*
 * usrhostile: a daemon for context=usr's /dev/smodem<n> that does what
 * smodemd never would, one scenario per run, each printing one line of
 * "key=value" results for tests/module/test_usr_perm.py ("Found
 * by reading the interface's code").  It is its own DTE too: it drives
 * /dev/ttySM<n> (CLOCAL, raw) between its periods.
 *
 *   usrhostile SCENARIO SMODEM_DEV TTY STATS_FILE [KPROBE_PROFILE]
 *
 *   gone-fax    a Class 1 call, then +FTS (a new call id), then the daemon
 *               closes: NO CARRIER and DCD off must still reach the tty
 *   gone-full   a data call, 16 stale reports filling the tty's queue in
 *               one period, then close (SCHED_FIFO: the tty work cannot run
 *               in between): NO CARRIER, DCD off
 *   restore     next = max_frames answered late (the lead grows), then
 *               next = 8; after close the period and lead are as loaded
 *   clear       one daemon fills the area with a pattern and closes; the
 *               next finds every byte past the load-time header zero
 *   header      one daemon writes over the header (magic, sizes, offsets)
 *               and closes; the next finds it as the module made it
 *   stale       line bytes sent with no call (command mode), then more in
 *               the period during which the DTE dials (the command not yet
 *               taken): neither reaches the DTE after the new call's
 *               CONNECT, only that call's own bytes do
 *   dial        a long number, a short one, ATH: the command carries no
 *               byte of a number it does not dial
 *   stats       the daemon's stats lines: only its whole engine_* lines
 *               printable
 *   intr        one thread in a 512 ms WAIT, another's ioctl waits for the
 *               device: interruptible (not D), EINTR at once on a signal
 *   throttle    poll() and O_NONBLOCK WAIT spun on: the hardware position
 *               (ac97_position, kprobe hits) read about once a period
 *   gen         a daemon stalls (FIFO spin, no system call, the stall work
 *               cannot run on the one CPU), closes; the next attaches: the
 *               first's stall work must not revoke it
 *   revoke      a daemon stops calling for 3 s while a second thread
 *               polls for errors only (events 0): detached as stalled, the
 *               poller must wake then with POLLERR | POLLHUP, and a poll()
 *               for POLLIN after it answer so at once, WAIT -EPIPE
 * Exit status 0 when it ran (the results are judged on the host), 2 when
 * it could not (set-up failed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "smodem_compat.h"
#include "smodem_usr.h"

static const char *dev_path, *tty_path, *stats_path, *kprobe_path;
static int fd = -1, tty = -1;
static struct smodem_usr_area *a;
static size_t a_len;
static char out[16384];
static size_t out_len;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "usrhostile: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (errno %d %s)\n", errno, strerror(errno));
	exit(2);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_ms(double ms)
{
	struct timespec ts = { (time_t)(ms / 1e3),
			       (long)((ms - (time_t)(ms / 1e3) * 1e3) * 1e6) };

	nanosleep(&ts, NULL);
}

static void fifo(void)
{
	struct sched_param sp = { .sched_priority = 50 };

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		fail("SCHED_FIFO");
}

static void attach(void)
{
	struct smodem_usr_area *h;

	fd = open(dev_path, O_RDWR);
	if (fd < 0)
		fail("open %s", dev_path);
	h = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		fail("mmap");
	a_len = h->size;
	munmap(h, 4096);
	a = mmap(NULL, a_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		fail("mmap %zu", a_len);
	if (a->magic != SMODEM_USR_MAGIC || a->area_size != sizeof(*a) ||
	    a->cmd_size != sizeof(struct smodem_cmd))
		fail("area layout");
}

/* munmap() too: a mapping holds the file open. */
static void detach(void)
{
	munmap(a, a_len);
	close(fd);
	a = NULL;
	fd = -1;
}

static void tty_open(void)
{
	struct termios t;

	tty = open(tty_path, O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (tty < 0)
		fail("open %s", tty_path);
	if (tcgetattr(tty, &t))
		fail("tcgetattr");
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	if (tcsetattr(tty, TCSANOW, &t))
		fail("tcsetattr");
}

static void tty_read(void)
{
	ssize_t k;

	if (tty < 0)
		return;
	while (out_len < sizeof(out) - 1 &&
	       (k = read(tty, out + out_len, sizeof(out) - 1 - out_len)) > 0)
		out_len += k;
	out[out_len] = 0;
}

static void tty_send(const char *s)
{
	out_len = 0;
	out[0] = 0;
	if (write(tty, s, strlen(s)) != (ssize_t)strlen(s))
		fail("write tty");
}

static int dcd(void)
{
	int m = 0;

	if (ioctl(tty, TIOCMGET, &m))
		fail("TIOCMGET");
	return !!(m & TIOCM_CAR);
}

static void rep(u32 type, u32 id, u32 x, u32 y)
{
	struct smodem_usr_report *r = &a->rep[a->nrep++];

	r->type = type;
	r->id = id;
	r->a = x;
	r->b = y;
}

/* What the scenario does with a period's command, after WAIT. */
typedef void (*handler_fn)(void);

/*
 * Serves periods for at most ms (or until the tty printed want), calling
 * h after each WAIT.  Returns 1 if want was seen.
 */
static int serve(double ms, const char *want, handler_fn h)
{
	double end = now_ms() + ms;

	while (now_ms() < end) {
		if (ioctl(fd, SMODEM_USR_WAIT))
			fail("WAIT");
		if (h)
			h();
		if (ioctl(fd, SMODEM_USR_DONE))
			fail("DONE");
		tty_read();
		if (want && strstr(out, want))
			return 1;
	}
	return 0;
}

/* The tty alone, the daemon gone. */
static int tty_wait(double ms, const char *want)
{
	double end = now_ms() + ms;

	while (now_ms() < end) {
		tty_read();
		if (strstr(out, want))
			return 1;
		sleep_ms(10);
	}
	return 0;
}

static long stat_value(const char *name)
{
	char line[512];
	size_t n = strlen(name);
	long v = -1;
	FILE *f = fopen(stats_path, "r");

	if (!f)
		fail("open %s", stats_path);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* -- gone-fax, gone-full ---------------------------------------------------- */

static u32 call_id;
static int step;

static void fax_handler(void)
{
	if (a->cmd.what & SMODEM_CMD_CALL) {
		call_id = a->cmd.id;
		rep(SMODEM_USR_RESULT, call_id, AT_RC_FAX_CONNECT, 0);
		step = 1;
	} else if (step == 1) {
		rep(SMODEM_USR_RESULT, call_id, AT_RC_FAX_CONNECT + 1, 0);
		step = 2;
	} else if (a->cmd.what & SMODEM_CMD_FAX) {
		/* +FTS: done at once */
		rep(SMODEM_USR_RESULT, a->cmd.id, AT_RC_FAX_CONNECT + 1, 0);
		step = 3;
	}
}

static void gone_fax(void)
{
	int ok[4], nc, d;

	tty_open();
	attach();
	tty_send("ATE0\r");
	ok[0] = serve(3000, "OK", NULL);
	tty_send("AT+FCLASS=1\r");
	ok[1] = serve(3000, "OK", NULL);
	tty_send("ATD1\r");
	ok[2] = serve(3000, "OK", fax_handler);	/* CONNECT, then OK */
	tty_send("AT+FTS=1\r");
	ok[3] = serve(3000, "OK", fax_handler);
	d = dcd();
	out_len = 0;
	detach();
	nc = tty_wait(2000, "NO CARRIER");
	printf("gone-fax setup=%d%d%d%d dcd_before=%d nocarrier=%d dcd_after=%d\n",
	       ok[0], ok[1], ok[2], ok[3], d, nc, dcd());
}

static void data_handler(void)
{
	if (a->cmd.what & SMODEM_CMD_CALL) {
		call_id = a->cmd.id;
		rep(SMODEM_USR_CONNECTED, call_id, 2400, 0);
	}
}

static void gone_full(void)
{
	int ok[2], nc, d, i;

	fifo();
	tty_open();
	attach();
	tty_send("ATE0\r");
	ok[0] = serve(3000, "OK", NULL);
	tty_send("ATD1\r");
	ok[1] = serve(3000, "CONNECT", data_handler);
	serve(100, NULL, NULL);
	d = dcd();
	out_len = 0;
	/* One period's reports, all of an old call: the tty's queue is full. */
	if (ioctl(fd, SMODEM_USR_WAIT))
		fail("WAIT");
	for (i = 0; i < SMODEM_USR_REPORTS; i++)
		rep(SMODEM_USR_RESULT, call_id - 100, AT_RC_OK, 0);
	if (ioctl(fd, SMODEM_USR_DONE))
		fail("DONE");
	detach();
	nc = tty_wait(2000, "NO CARRIER");
	printf("gone-full setup=%d%d dcd_before=%d nocarrier=%d dcd_after=%d\n",
	       ok[0], ok[1], d, nc, dcd());
}

/* -- restore ------------------------------------------------------------------ */

static void restore(void)
{
	long p0 = stat_value("period_samples"), l0 = stat_value("tx_lead");
	long p1, l1, p2, l2;
	double per;
	int late = 0;

	attach();
	while (late < 2) {
		if (ioctl(fd, SMODEM_USR_WAIT))
			fail("WAIT");
		a->next = a->max_frames;
		if (a->n == a->max_frames) {
			/* answered late: 60 % of the period after it is due */
			per = 1e3 * a->n / a->rate;
			sleep_ms(0.6 * per);
			late++;
		}
		if (ioctl(fd, SMODEM_USR_DONE))
			fail("DONE");
	}
	/* A few more periods: the lead grows at the next one. */
	serve(50, NULL, NULL);
	l1 = stat_value("tx_lead");
	/* 1 ms periods, left so */
	for (late = 0; late < 40; late++) {
		if (ioctl(fd, SMODEM_USR_WAIT))
			fail("WAIT");
		a->next = 8;
		if (ioctl(fd, SMODEM_USR_DONE))
			fail("DONE");
	}
	p1 = stat_value("period_samples");
	detach();
	sleep_ms(100);
	p2 = stat_value("period_samples");
	l2 = stat_value("tx_lead");
	printf("restore period_before=%ld lead_before=%ld period_during=%ld lead_during=%ld period_after=%ld lead_after=%ld\n",
	       p0, l0, p1, l1, p2, l2);
}

/* -- clear ------------------------------------------------------------------ */

static void clear(void)
{
	size_t keep = offsetof(struct smodem_usr_area, seq);
	size_t at = offsetof(struct smodem_usr_area, attach), i, bad = 0;
	const u8 *b;

	attach();
	serve(50, NULL, NULL);
	/* Everything past the header: the call's bytes, reports, audio. */
	memset((u8 *)a + keep, 0xa5, a_len - keep);
	detach();
	attach();
	b = (const u8 *)a;
	for (i = keep; i < a_len; i++)
		if (b[i] && (i < at || i >= at + sizeof(a->attach)))
			bad++;
	printf("clear bytes=%zu nonzero=%zu attach=%u\n", a_len - keep, bad,
	       a->attach);
	detach();
}

/* -- header ----------------------------------------------------------------- */

static void header(void)
{
	size_t n = offsetof(struct smodem_usr_area, seq);
	struct smodem_usr_area h0;
	int same;

	attach();
	memcpy(&h0, a, n);
	memset(a, 0xa5, n);
	detach();
	/* by hand: attach() would size the mapping by the header */
	fd = open(dev_path, O_RDWR);
	if (fd < 0)
		fail("open %s", dev_path);
	a = mmap(NULL, a_len, PROT_READ, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		fail("mmap %zu", a_len);
	same = !memcmp(&h0, a, n);
	printf("header same=%d magic=0x%x size=%u rx_off=%u tx_off=%u fill_off=%u\n",
	       same, a->magic, a->size, a->rx_off, a->tx_off, a->fill_off);
	detach();
}

/* -- stale ------------------------------------------------------------------ */

static void put_rx(const char *text)
{
	size_t n = strlen(text);

	if (n > a->rx_room)
		n = a->rx_room;
	memcpy(a->rx_bytes, text, n);
	a->rx_len = n;
}

static void stale_handler(void)
{
	if (a->cmd.what & SMODEM_CMD_CALL) {
		call_id = a->cmd.id;
		rep(SMODEM_USR_CONNECTED, call_id, 2400, 0);
		step = 1;
	} else if (step == 1) {
		put_rx("FRESH");
	}
}

static void stale(void)
{
	int ok[2], fresh;

	tty_open();
	attach();
	tty_send("ATE0\r");
	ok[0] = serve(3000, "OK", NULL);
	/* no call: these are no call's bytes */
	if (ioctl(fd, SMODEM_USR_WAIT))
		fail("WAIT");
	put_rx("STALE1");
	if (ioctl(fd, SMODEM_USR_DONE))
		fail("DONE");
	serve(100, NULL, NULL);
	/* the DTE dials while this period is out; its bytes are the old call's */
	if (ioctl(fd, SMODEM_USR_WAIT))
		fail("WAIT");
	tty_send("ATD1\r");
	sleep_ms(100);
	put_rx("STALE2");
	if (ioctl(fd, SMODEM_USR_DONE))
		fail("DONE");
	ok[1] = serve(3000, "CONNECT", stale_handler);
	fresh = serve(2000, "FRESH", stale_handler);
	serve(100, NULL, NULL);
	tty_read();
	printf("stale setup=%d%d fresh=%d stale1=%d stale2=%d\n", ok[0], ok[1],
	       fresh, !!strstr(out, "STALE1"), !!strstr(out, "STALE2"));
	detach();
}

/* -- dial --------------------------------------------------------------------- */

static int calls, hangups, leaks;
static char numbers[256];

/* No byte of the command that this command does not use. */
static int cmd_leaks(const struct smodem_cmd *c)
{
	static const struct smodem_cmd zero;
	struct smodem_cmd x;
	size_t n;

	if (!c->what)
		return !!memcmp(c, &zero, sizeof(*c));
	memcpy(&x, c, sizeof(x));
	if (x.what & SMODEM_CMD_CALL) {
		/* the number's tail, past its NUL */
		n = strnlen(x.call.number, sizeof(x.call.number));
		for (; n < sizeof(x.call.number); n++)
			if (x.call.number[n])
				return 1;
		return 0;
	}
	if (memcmp(&x.call, &zero.call, sizeof(x.call)) || x.answer)
		return 1;
	return 0;
}

static void dial_handler(void)
{
	struct smodem_cmd c;

	memcpy(&c, &a->cmd, sizeof(c));
	leaks += cmd_leaks(&c);
	if (c.what & SMODEM_CMD_CALL) {
		calls++;
		snprintf(numbers + strlen(numbers), sizeof(numbers) - strlen(numbers),
			 "%s%.*s", calls > 1 ? "," : "", (int)sizeof(c.call.number),
			 c.call.number);
		rep(SMODEM_USR_RESULT, c.id, AT_RC_NO_CARRIER, 0);
	}
	if (c.what & SMODEM_CMD_HANGUP)
		hangups++;
}

static void dial(void)
{
	int ok[4];

	tty_open();
	attach();
	tty_send("ATE0\r");
	ok[0] = serve(3000, "OK", dial_handler);
	tty_send("ATD5551234567\r");
	ok[1] = serve(3000, "NO CARRIER", dial_handler);
	tty_send("ATD12\r");
	ok[2] = serve(3000, "NO CARRIER", dial_handler);
	tty_send("ATH\r");
	ok[3] = serve(3000, "OK", dial_handler);
	serve(100, NULL, dial_handler);
	printf("dial setup=%d%d%d%d calls=%d numbers=%s hangups=%d leaks=%d\n",
	       ok[0], ok[1], ok[2], ok[3], calls, numbers, hangups, leaks);
	detach();
}

/* -- stats -------------------------------------------------------------------- */

static void stats(void)
{
	static const char text[] =
		"overruns 0\nengine_hostile 1\nusr_bad 0\nengine_ctl \x1b[2J\n"
		"engine_good 2\nengine_tail 3";
	char line[512];
	int overruns = 0, usr_bad = 0, hostile = 0, good = 0, ctl = 0, tail = 0;
	FILE *f;

	attach();
	memcpy(a->show[1], text, sizeof(text) - 1);
	a->show_len[1] = sizeof(text) - 1;
	__atomic_store_n(&a->show_cur, 1, __ATOMIC_RELEASE);
	serve(50, NULL, NULL);
	f = fopen(stats_path, "r");
	if (!f)
		fail("open %s", stats_path);
	while (fgets(line, sizeof(line), f)) {
		overruns += !strncmp(line, "overruns ", 9);
		usr_bad += !strncmp(line, "usr_bad ", 8);
		hostile += !strcmp(line, "engine_hostile 1\n");
		good += !strcmp(line, "engine_good 2\n");
		ctl += !strncmp(line, "engine_ctl", 10);
		tail += !strncmp(line, "engine_tail", 11);
	}
	fclose(f);
	printf("stats overruns=%d usr_bad=%d hostile=%d good=%d ctl=%d tail=%d\n",
	       overruns, usr_bad, hostile, good, ctl, tail);
	detach();
}

/* -- intr --------------------------------------------------------------------- */

static volatile int t1_stop, t1_in_wait, t1_long;
static pid_t main_tid;

static void *t1_main(void *arg)
{
	(void)arg;
	while (!t1_stop) {
		__atomic_store_n(&t1_in_wait, 1, __ATOMIC_SEQ_CST);
		if (ioctl(fd, SMODEM_USR_WAIT))
			continue;
		t1_in_wait = 0;
		if (a->n == a->max_frames)
			t1_long++;
		a->next = t1_stop ? 100 : a->max_frames;
		ioctl(fd, SMODEM_USR_DONE);
	}
	return NULL;
}

static char state_seen;
static double signalled_ms;

static void *t3_main(void *arg)
{
	char path[64], buf[256], *p;
	FILE *f;

	(void)arg;
	sleep_ms(100);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)main_tid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
			state_seen = p[2];
		fclose(f);
	}
	signalled_ms = now_ms();
	syscall(SYS_tgkill, getpid(), main_tid, SIGUSR1);
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void intr(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	pthread_t t1, t3;
	int r, e;
	double ret_ms;

	sigaction(SIGUSR1, &sa, NULL);
	main_tid = (pid_t)syscall(SYS_gettid);
	attach();
	pthread_create(&t1, NULL, t1_main, NULL);
	/* t1 in the second WAIT for a max_frames period */
	while (t1_long < 1)
		sleep_ms(5);
	while (!__atomic_load_n(&t1_in_wait, __ATOMIC_SEQ_CST))
		sleep_ms(1);
	sleep_ms(20);
	pthread_create(&t3, NULL, t3_main, NULL);
	r = ioctl(fd, SMODEM_USR_WAIT);
	e = errno;
	ret_ms = now_ms();
	pthread_join(t3, NULL);
	t1_stop = 1;
	pthread_join(t1, NULL);
	printf("intr state=%c rc=%d errno=%s latency_ms=%.0f period_ms=%.0f\n",
	       state_seen ? state_seen : '?', r,
	       r ? (e == EINTR ? "EINTR" : e == EBUSY ? "EBUSY" : "other") : "0",
	       ret_ms - signalled_ms, 1e3 * a->max_frames / a->rate);
	detach();
}

/* -- throttle ----------------------------------------------------------------- */

static long kprobe_hits(void)
{
	char line[512], name[128];
	long hits = -1, h, m;
	FILE *f = fopen(kprobe_path, "r");

	if (!f)
		fail("open %s", kprobe_path);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %ld %ld", name, &h, &m) == 3)
			hits = h;
	fclose(f);
	return hits;
}

static void period100(void)
{
	a->next = 100;
}

static void throttle(void)
{
	long h0, h1, h2, polls = 0, nb = 0, periods1 = 0, periods2 = 0;
	struct pollfd p;
	double end;

	attach();
	serve(50, NULL, period100);
	h0 = kprobe_hits();
	end = now_ms() + 500;
	while (now_ms() < end) {
		p.fd = fd;
		p.events = POLLIN;
		polls++;
		if (poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
			if (ioctl(fd, SMODEM_USR_WAIT) || ioctl(fd, SMODEM_USR_DONE))
				fail("WAIT/DONE");
			periods1++;
		}
	}
	h1 = kprobe_hits();
	fcntl(fd, F_SETFL, O_NONBLOCK);
	end = now_ms() + 500;
	while (now_ms() < end) {
		nb++;
		if (!ioctl(fd, SMODEM_USR_WAIT)) {
			if (ioctl(fd, SMODEM_USR_DONE))
				fail("DONE");
			periods2++;
		} else if (errno != EAGAIN) {
			fail("WAIT");
		}
	}
	h2 = kprobe_hits();
	printf("throttle polls=%ld poll_periods=%ld poll_hits=%ld nonblock=%ld nonblock_periods=%ld nonblock_hits=%ld\n",
	       polls, periods1, h1 - h0, nb, periods2, h2 - h1);
	detach();
}

/* -- gen ---------------------------------------------------------------------- */

static void gen(void)
{
	int epipe = 0, ok = 0, i;
	double end;

	fifo();
	attach();
	/* Stalled: no system call for longer than SMODEM_USR_STALL_MS. */
	end = now_ms() + 2500;
	while (now_ms() < end)
		;
	detach();
	attach();
	/* The CPU free: the first daemon's stall work runs now. */
	sleep_ms(200);
	for (i = 0; i < 40; i++) {
		if (ioctl(fd, SMODEM_USR_WAIT)) {
			if (errno == EPIPE)
				epipe++;
			sleep_ms(5);
			continue;
		}
		ioctl(fd, SMODEM_USR_DONE);
		ok++;
	}
	printf("gen ok=%d epipe=%d attach=%u\n", ok, epipe, a->attach);
	detach();
}

/* -- revoke ------------------------------------------------------------------- */

static double poller_ms;
static int poller_rc, poller_revents;

static void *poller_main(void *arg)
{
	struct pollfd p = { .fd = fd, .events = 0 };
	double t0 = now_ms();

	(void)arg;
	poller_rc = poll(&p, 1, 6000);
	poller_ms = now_ms() - t0;
	poller_revents = p.revents;
	return NULL;
}

static const char *errname(int r, int e)
{
	if (!r)
		return "0";
	return e == EPIPE ? "EPIPE" : e == EAGAIN ? "EAGAIN" :
	       e == ENODEV ? "ENODEV" : "other";
}

static void revoked(void)
{
	long s0 = stat_value("usr_stalls");
	struct pollfd p = { .events = POLLIN };
	int rc, r, e, r2, e2;
	double t0, ms;
	pthread_t t;

	attach();
	serve(100, NULL, NULL);
	pthread_create(&t, NULL, poller_main, NULL);
	/* No WAIT, no DONE: stalled after SMODEM_USR_STALL_MS. */
	sleep_ms(3000);
	p.fd = fd;
	t0 = now_ms();
	rc = poll(&p, 1, 2000);
	ms = now_ms() - t0;
	r = ioctl(fd, SMODEM_USR_WAIT);
	e = errno;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	r2 = ioctl(fd, SMODEM_USR_WAIT);
	e2 = errno;
	pthread_join(t, NULL);
	printf("revoke poller_rc=%d poller_revents=0x%x poller_ms=%.0f poll_rc=%d poll_revents=0x%x poll_ms=%.0f wait=%s nonblock_wait=%s stalls=%ld\n",
	       poller_rc, poller_revents, poller_ms, rc, p.revents, ms,
	       errname(r, e), errname(r2, e2), stat_value("usr_stalls") - s0);
	detach();
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} sc[] = {
		{ "gone-fax", gone_fax }, { "gone-full", gone_full },
		{ "restore", restore }, { "clear", clear }, { "header", header },
		{ "stale", stale }, { "dial", dial },
		{ "stats", stats }, { "intr", intr }, { "throttle", throttle },
		{ "gen", gen }, { "revoke", revoked },
	};
	size_t i;

	if (argc < 5) {
		fprintf(stderr, "usage: usrhostile SCENARIO SMODEM_DEV TTY STATS [KPROBE_PROFILE]\n");
		return 2;
	}
	dev_path = argv[2];
	tty_path = argv[3];
	stats_path = argv[4];
	kprobe_path = argc > 5 ? argv[5] : "/sys/kernel/tracing/kprobe_profile";
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++) {
		if (!strcmp(argv[1], sc[i].name)) {
			sc[i].fn();
			return 0;
		}
	}
	fprintf(stderr, "usrhostile: no scenario %s\n", argv[1]);
	return 2;
}
