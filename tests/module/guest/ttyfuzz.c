/*
 * Guest-side fuzzer of /dev/ttySM<n> (tests/module/test_tty_fuzz.py): random
 * bytes, AT-ish lines, escapes, modem-control lines, termios, flushes,
 * drains, breaks, queue ioctls, hang-ups and reopens through the real tty,
 * from several processes at once, in command mode and in data mode during
 * a call.  Built static by the test (gcc -static).
 *
 *   ttyfuzz [-s SEED] [-t SECONDS] [-p PROCS] [-d NUMBER] [-D NUMBER]
 *           [-w SETUP_MS] [-o OP_LIMIT_MS] DEV
 *     -s  the seed (default: from the clock; always printed as SEED=)
 *     -t  fuzzing time in seconds of (guest) clock, default 10
 *     -p  fuzzing processes, each with its own opener, default 2
 *     -d  data mode: dial NUMBER first (AT&F ATE0 ATX4 +MS=V22B ATD<NUMBER>),
 *         wait for CONNECT (at most -w ms, default 40000), then fuzz during
 *         the call
 *     -D  after the call ends, redial this number while time is left
 *     -o  an operation that lasts longer than this (default 15000 ms: every
 *         blocking call is also interrupted by an alarm after 2 s) is a hang
 *
 * Every worker i draws from its own PRNG seeded (SEED, i): its sequence of
 * operations is reproducible; how the workers interleave is the kernel's.
 * The parent keeps one descriptor open the whole time (the call survives
 * the workers' closes), watches the workers' current operation in shared
 * memory and reports a worker stuck in one as
 *   HUNG worker=I op=NAME ms=... seed=SEED   (then its wchan and kernel stack)
 * Output ends with RESULT ok | RESULT hung | RESULT error; exit 0, 2, 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/serial.h>

#define MAXW 8
#define HIST 16

enum op {
	OP_IDLE, OP_WRITE_RANDOM, OP_WRITE_AT, OP_WRITE_LONG, OP_ESCAPE_GUARD,
	OP_ESCAPE_FAST, OP_REPEAT, OP_MCTRL, OP_TIOCMGET, OP_ICOUNT, OP_MIWAIT,
	OP_FLUSH, OP_BREAK, OP_DRAIN, OP_TERMIOS, OP_QUEUES, OP_READ,
	OP_REOPEN, OP_HANGUP, OP_FLOW, OP_SERIAL, OP_DATA, OP_DIAL, OP_CLOSE,
	OP_N
};

static const char *const op_name[OP_N] = {
	"idle", "write-random", "write-at", "write-long", "escape-guard",
	"escape-fast", "repeat", "mctrl", "tiocmget", "icount", "miwait",
	"flush", "break", "drain", "termios", "queues", "read", "reopen",
	"vhangup", "flow", "serial", "data", "dial", "close",
};

struct wstate {
	volatile int op;
	volatile long long since;	/* ms */
	volatile int pid;
	volatile int hist[HIST];
	volatile unsigned int nhist;
	volatile unsigned long ops[OP_N];
	volatile unsigned long errs[OP_N];
	volatile unsigned long eio;
};

static struct wstate *shm;
static const char *dev;
static unsigned long long seed;
static int data_mode;
static const char *redial;
static long long deadline;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* splitmix64: small, good enough, and the same everywhere. */
struct rng {
	uint64_t s;
};

static uint64_t rnext(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rn(struct rng *r, unsigned int n)
{
	return n ? (unsigned int)(rnext(r) % n) : 0;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* Interrupt whatever blocks after ms (no SA_RESTART). */
static void alarm_ms(int ms)
{
	struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000L } };

	setitimer(ITIMER_REAL, &it, NULL);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int open_dev(struct rng *r)
{
	int flags = O_RDWR | O_NOCTTY;
	int fd;

	/* Mostly non-blocking; sometimes a blocking open that waits for DCD
	 * (the alarm ends it). */
	if (!r || rn(r, 8))
		flags |= O_NONBLOCK;
	alarm_ms(1000);
	fd = open(dev, flags);
	alarm_ms(0);
	return fd;
}

static void begin(struct wstate *w, int op)
{
	w->op = op;
	w->since = now_ms();
	w->hist[w->nhist++ % HIST] = op;
	w->ops[op]++;
	alarm_ms(2000);
}

static void end(struct wstate *w, int rc)
{
	alarm_ms(0);
	if (rc < 0) {
		w->errs[w->op]++;
		if (errno == EIO)
			w->eio++;
	}
	w->op = OP_IDLE;
	w->since = now_ms();
}

static void wr(int fd, const void *b, size_t n)
{
	ssize_t k = write(fd, b, n);

	(void)k;
}

static void wrs(int fd, const char *s)
{
	wr(fd, s, strlen(s));
}

/* -- AT-ish lines --------------------------------------------------------- */

static const char *const cmds[] = {
	"", "E%d", "V%d", "Q%d", "X%d", "S%d=%d", "S%d?", "S%d", "&C%d", "&D%d",
	"+MS=V22", "+MS=V22B", "+MS=V21", "+MS=V%d", "+MS?", "+MS=?", "\\N%d",
	"+ES=%d,%d,%d", "+ES?", "I%d", "Z", "&F", "&V", "H", "H%d", "O", "A",
	"L%d", "M%d", "&W", "+GMI", "+GMM", "+GMR", "+A8E=%d,%d", "%%C%d",
	"D%d", "DT%d;", "DP%d", "D", "DT5551234;", "D,%d", "D!", "S7=%d",
	"S0=%d", "S12=%d", "S6=%d", "S8=%d", "S10=%d", "+FCLASS=%d",
	"+FCLASS?", "B%d", "N%d", "W%d", "Y%d", "#", "?", "&K%d", "&S%d",
};

static int rarg(struct rng *r)
{
	switch (rn(r, 6)) {
	case 0: return (int)rn(r, 3);
	case 1: return (int)rn(r, 10);
	case 2: return (int)rn(r, 300);
	case 3: return (int)rn(r, 100000);
	case 4: return -(int)rn(r, 10);
	default: return (int)(rnext(r) & 0x7fffffff);
	}
}

static size_t at_line(struct rng *r, char *buf, size_t cap)
{
	size_t n = 0;
	int k = 1 + rn(r, 4), i;

	n += snprintf(buf + n, cap - n, "%s", rn(r, 6) ? "AT" : (rn(r, 2) ? "at" : "aT"));
	for (i = 0; i < k && n < cap - 64; i++) {
		const char *f = cmds[rn(r, sizeof(cmds) / sizeof(cmds[0]))];

		/* never dial a number from command mode that answers: the data
		 * phase is the worker's dialer's */
		if (!data_mode && f[0] == 'D' && rn(r, 4))
			continue;
		n += snprintf(buf + n, cap - n, f, rarg(r), rarg(r), rarg(r));
		if (n >= cap - 64)
			n = cap - 64;
	}
	switch (rn(r, 8)) {
	case 0: break;				/* no terminator */
	case 1: buf[n++] = '\n'; break;
	case 2: buf[n++] = '\r'; buf[n++] = '\n'; break;
	case 3: buf[n++] = (char)rn(r, 256); buf[n++] = '\r'; break;
	default: buf[n++] = '\r'; break;
	}
	return n;
}

/* -- the operations ------------------------------------------------------- */

static void do_termios(struct rng *r, int fd, struct wstate *w)
{
	static const speed_t sp[] = { B0, B300, B1200, B2400, B9600, B19200,
		B38400, B57600, B115200, B230400, B460800, B921600 };
	struct termios t;
	int rc;

	begin(w, OP_TERMIOS);
	rc = tcgetattr(fd, &t);
	if (!rc) {
		/* B0 drops DTR (a hang-up with &D2): rare in data mode */
		speed_t s = sp[rn(r, sizeof(sp) / sizeof(sp[0]))];

		if (s == B0 && data_mode && rn(r, 4))
			s = B115200;
		cfsetospeed(&t, s);
		cfsetispeed(&t, rn(r, 2) ? s : B0);
		if (rn(r, 2))
			t.c_cflag ^= CLOCAL;
		if (rn(r, 2))
			t.c_cflag ^= HUPCL;
		if (rn(r, 3) == 0)
			t.c_cflag ^= CRTSCTS;
		if (rn(r, 8) == 0)
			t.c_cflag ^= PARENB;
		if (rn(r, 8) == 0)
			t.c_cflag = (t.c_cflag & ~CSIZE) | (rn(r, 2) ? CS7 : CS8);
		if (rn(r, 2))
			cfmakeraw(&t);
		else
			t.c_lflag |= ICANON;
		/* never ECHO: with the modem's echo the two feed each other */
		t.c_lflag &= ~(ECHO | ECHOE | ECHOK | ECHONL | ECHOCTL | ECHOKE);
		if (rn(r, 4) == 0)
			t.c_iflag ^= IXON;
		if (rn(r, 4) == 0)
			t.c_iflag ^= IXOFF;
		t.c_cc[VMIN] = rn(r, 3);
		t.c_cc[VTIME] = rn(r, 3);
		rc = tcsetattr(fd, rn(r, 3) == 0 ? TCSANOW :
			       (rn(r, 2) ? TCSADRAIN : TCSAFLUSH), &t);
	}
	end(w, rc);
}

static int do_vhangup(struct wstate *w)
{
	pid_t pid;
	int st = 0;

	begin(w, OP_HANGUP);
	/* vhangup() needs a controlling tty: a child in its own session */
	pid = fork();
	if (pid == 0) {
		int fd;

		setsid();
		fd = open(dev, O_RDWR | O_NONBLOCK);
		if (fd >= 0 && !ioctl(fd, TIOCSCTTY, 1))
			vhangup();
		_exit(0);
	}
	if (pid > 0) {
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
			/* the alarm: wait on, the watchdog judges */
			alarm_ms(2000);
		}
	}
	end(w, pid < 0 ? -1 : 0);
	return 0;
}

/* One random operation; returns the descriptor to use next. */
static int step(struct rng *r, int fd, struct wstate *w, int idx)
{
	static char buf[8192];
	int rc, v, i;
	unsigned int pick = rn(r, 1000);
	size_t n;

	if (fd < 0) {
		begin(w, OP_REOPEN);
		fd = open_dev(r);
		end(w, fd);
		if (fd < 0)
			sleep_ms(20);
		return fd;
	}
	/* weights, in thousandths; data mode writes data more, drops less */
	if (pick < (data_mode ? 250u : 150u)) {
		begin(w, data_mode ? OP_DATA : OP_WRITE_RANDOM);
		n = 1 + rn(r, data_mode ? 600 : 300);
		for (i = 0; i < (int)n; i++)
			buf[i] = (char)rn(r, 256);
		/* command mode: mostly letters and digits, some binary */
		if (!data_mode && rn(r, 2))
			for (i = 0; i < (int)n; i++)
				buf[i] = "ATatDd0123456789+&\\%?=,;!/ \r\nSEVQXZ"[rn(r, 38)];
		rc = (int)write(fd, buf, n);
		end(w, rc);
	} else if (pick < 350) {
		begin(w, OP_WRITE_AT);
		n = at_line(r, buf, 512);
		rc = (int)write(fd, buf, n);
		end(w, rc);
	} else if (pick < 370) {
		begin(w, OP_WRITE_LONG);
		n = 100 + rn(r, 5000);
		memcpy(buf, "AT", 2);
		for (i = 2; i < (int)n; i++)
			buf[i] = rn(r, 3) ? "S0123456789=?"[rn(r, 13)] : (char)rn(r, 256);
		buf[n++] = '\r';
		rc = (int)write(fd, buf, n);
		end(w, rc);
	} else if (pick < 385) {
		/* +++ with the guard times, then back online, hang up or nothing */
		begin(w, OP_ESCAPE_GUARD);
		alarm_ms(0);
		sleep_ms(1000 + rn(r, 300));
		wrs(fd, "+++");
		sleep_ms(1000 + rn(r, 300));
		v = rn(r, 3);
		if (v == 0)
			wrs(fd, "ATO\r");
		else if (v == 1 && !data_mode)
			wrs(fd, "ATH\r");
		else if (v == 1)
			wrs(fd, "AT\r");
		end(w, 0);
	} else if (pick < 410) {
		begin(w, OP_ESCAPE_FAST);
		n = 1 + rn(r, 6);
		for (i = 0; i < (int)n; i++)
			buf[i] = rn(r, 5) ? '+' : (char)rn(r, 256);
		rc = (int)write(fd, buf, n);
		if (rn(r, 2))
			sleep_ms(rn(r, 1500));
		end(w, rc);
	} else if (pick < 430) {
		begin(w, OP_REPEAT);
		rc = (int)write(fd, rn(r, 2) ? "A/" : "a/", 2);
		end(w, rc);
	} else if (pick < (data_mode ? 445u : 500u)) {
		begin(w, OP_MCTRL);
		v = (rn(r, 2) ? TIOCM_DTR : 0) | (rn(r, 2) ? TIOCM_RTS : 0);
		rc = ioctl(fd, rn(r, 3) ? TIOCMBIS : TIOCMBIC, &v);
		if (rn(r, 4) == 0) {
			v = rn(r, 4) ? TIOCM_DTR | TIOCM_RTS : 0;
			rc = ioctl(fd, TIOCMSET, &v);
		}
		end(w, rc);
	} else if (pick < 540) {
		begin(w, OP_TIOCMGET);
		rc = ioctl(fd, TIOCMGET, &v);
		end(w, rc);
	} else if (pick < 560) {
		struct serial_icounter_struct ic;

		begin(w, OP_ICOUNT);
		rc = ioctl(fd, TIOCGICOUNT, &ic);
		end(w, rc);
	} else if (pick < 575) {
		begin(w, OP_MIWAIT);
		alarm_ms(rn(r, 800) + 1);
		rc = ioctl(fd, TIOCMIWAIT, (unsigned long)rn(r, 2) ?
			   (TIOCM_RNG | TIOCM_CD | TIOCM_DSR | TIOCM_CTS) :
			   (unsigned long)rn(r, 0x200));
		end(w, rc);
	} else if (pick < 610) {
		begin(w, OP_FLUSH);
		rc = tcflush(fd, rn(r, 3) == 0 ? TCIFLUSH :
			     rn(r, 2) ? TCOFLUSH : TCIOFLUSH);
		end(w, rc);
	} else if (pick < 620) {
		begin(w, OP_BREAK);
		v = rn(r, 3);
		if (v == 0)
			rc = tcsendbreak(fd, 0);
		else if (v == 1)
			rc = ioctl(fd, TIOCSBRK);
		else
			rc = ioctl(fd, TIOCCBRK);
		end(w, rc);
	} else if (pick < 635) {
		begin(w, OP_DRAIN);
		alarm_ms(rn(r, 1500) + 1);
		rc = tcdrain(fd);
		end(w, rc);
	} else if (pick < 680) {
		do_termios(r, fd, w);
	} else if (pick < 720) {
		begin(w, OP_QUEUES);
		rc = ioctl(fd, TIOCOUTQ, &v);
		if (!rc)
			rc = ioctl(fd, FIONREAD, &v);
		if (!rc)
			rc = ioctl(fd, TIOCINQ, &v);
		end(w, rc);
	} else if (pick < 900) {
		/* non-blocking reads (O_NONBLOCK or the alarm); keep input moving */
		begin(w, OP_READ);
		alarm_ms(rn(r, 300) + 1);
		rc = (int)read(fd, buf, 1 + rn(r, sizeof(buf) - 1));
		end(w, rc);
	} else if (pick < (data_mode ? 915u : 950u)) {
		begin(w, OP_CLOSE);
		/* a close waits (closing_wait) for output to drain: the alarm */
		alarm_ms(rn(r, 1000) + 1);
		rc = close(fd);
		end(w, rc);
		fd = -1;
		if (rn(r, 2)) {
			begin(w, OP_REOPEN);
			fd = open_dev(r);
			end(w, fd);
		}
	} else if (pick < (data_mode ? 917u : 956u)) {
		do_vhangup(w);
	} else if (pick < 975) {
		begin(w, OP_FLOW);
		v = rn(r, 4);
		rc = tcflow(fd, v == 0 ? TCOOFF : v == 1 ? TCIOFF :
			    v == 2 ? TCION : TCOON);
		/* never leave output stopped for long */
		if (v == 0 && rn(r, 4))
			tcflow(fd, TCOON);
		end(w, rc);
	} else {
		struct serial_struct ss;

		begin(w, OP_SERIAL);
		rc = ioctl(fd, TIOCGSERIAL, &ss);
		if (!rc && rn(r, 2))
			rc = ioctl(fd, TIOCSSERIAL, &ss);
		if (rn(r, 2)) {
			int ld;

			rc = ioctl(fd, TIOCGETD, &ld);
		}
		end(w, rc);
	}
	(void)idx;
	return fd;
}

/* -- dialling ------------------------------------------------------------- */

/* Read from fd until one of the words arrived or ms passed; returns the
 * index of the word found, -1. */
static char acc[4096];	/* what the last wait_for() read */

static int wait_for(int fd, const char *const *words, int nw, int ms)
{
	size_t len = 0;
	long long until = now_ms() + ms;

	acc[0] = 0;
	while (now_ms() < until) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t k;
		int i;

		if (poll(&p, 1, 100) <= 0)
			continue;
		k = read(fd, acc + len, sizeof(acc) - 1 - len);
		if (k <= 0) {
			if (k < 0 && errno == EAGAIN)
				continue;
			return -1;
		}
		len += (size_t)k;
		acc[len] = 0;
		for (i = 0; i < nw; i++)
			if (strstr(acc, words[i]))
				return i;
		if (len > sizeof(acc) / 2) {
			memmove(acc, acc + len - 64, 64);
			len = 64;
			acc[len] = 0;
		}
	}
	return -1;
}

static void set_raw(int fd)
{
	struct termios t;

	if (tcgetattr(fd, &t))
		return;
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	t.c_cflag &= ~CRTSCTS;
	cfsetspeed(&t, B115200);
	tcsetattr(fd, TCSANOW, &t);
}

/* What the last wait_for() read, escaped. */
static void show(const char *what)
{
	const char *c;

	printf("  %s got:", what);
	for (c = acc; *c; c++)
		printf(*c >= ' ' && *c < 0x7f ? "%c" : "\\x%02x", (unsigned char)*c);
	printf("\n");
}

/*
 * AT&F ATE0 ATX4 +MS=V22B ATD<number>: 1 when CONNECT came.  V.22bis, as
 * the far end answers, not the factory's V.34: the fuzz's time is set by
 * V.25's start-up.
 */
static int dial(int fd, const char *number, int ms)
{
	static const char *const w[] = { "CONNECT", "NO CARRIER", "BUSY",
		"NO DIALTONE", "ERROR", "NO ANSWER" };
	char cmd[64];
	int got;
	int v = TIOCM_DTR | TIOCM_RTS;

	set_raw(fd);
	ioctl(fd, TIOCMBIS, &v);
	tcflow(fd, TCOON);
	tcflush(fd, TCIOFLUSH);
	/* the line sees an on-hook after 300 ms of open loop */
	wrs(fd, "\rATH\r");
	sleep_ms(600);
	/* factory settings: the fuzz may have stored anything with &W */
	wrs(fd, "AT&F\r");
	wait_for(fd, (const char *const[]){ "OK", "0\r" }, 2, 2000);
	show("AT&F");
	wrs(fd, "ATE0V1Q0X4&C1&D2+MS=V22B\r");
	wait_for(fd, (const char *const[]){ "OK" }, 1, 2000);
	show("ATE0V1Q0X4&C1&D2+MS=V22B");
	snprintf(cmd, sizeof(cmd), "ATD%s\r", number);
	wr(fd, cmd, strlen(cmd));
	got = wait_for(fd, w, 6, ms);
	printf("DIAL number=%s result=%s t=%lld\n", number,
	       got >= 0 ? w[got] : "none", now_ms());
	if (got != 0)
		show("ATD");
	fflush(stdout);
	return got == 0;
}

/* -- workers and the watchdog -------------------------------------------- */

static void worker(int idx)
{
	struct wstate *w = &shm[idx];
	struct rng r = { seed * 0x100000001b3ULL + (uint64_t)idx * 0x9e37ULL + 1 };
	int fd = -1;
	long long next_check = 0;

	unsigned long eio = 0;

	w->pid = getpid();
	while (now_ms() < deadline) {
		fd = step(&r, fd, w, idx);
		/* hung up (EIO): mostly open again, sometimes insist */
		if (w->eio != eio) {
			eio = w->eio;
			if (fd >= 0 && rn(&r, 4)) {
				close(fd);
				fd = -1;
			}
		}
		/* worker 0 redials a call that ended, while time is left */
		if (data_mode && redial && idx == 0 && fd >= 0 &&
		    now_ms() > next_check) {
			int v = 0;

			next_check = now_ms() + 2000;
			if (!ioctl(fd, TIOCMGET, &v) && !(v & TIOCM_CAR) &&
			    deadline - now_ms() > 30000) {
				begin(w, OP_DIAL);
				alarm_ms(0);
				dial(fd, redial, 40000);
				end(w, 0);
			}
		}
	}
	if (fd >= 0) {
		begin(w, OP_CLOSE);
		close(fd);
		end(w, 0);
	}
	_exit(0);
}

static void dump_stack(int pid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/wchan", pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(line, sizeof(line), f))
			printf("  wchan %s\n", line);
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f))
			printf("  stack %s", line);
		fclose(f);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: ttyfuzz [-s SEED] [-t SECONDS] [-p PROCS] "
		"[-d NUMBER] [-D NUMBER] [-w MS] [-o MS] DEV\n");
	exit(1);
}

int main(int argc, char **argv)
{
	int opt, procs = 2, secs = 10, setup_ms = 40000, op_limit = 15000;
	const char *number = NULL;
	int hung = 0, alive, i, fd, st, connected = 0;
	pid_t pids[MAXW];
	struct sigaction sa;

	seed = (unsigned long long)now_ms() ^ ((unsigned long long)getpid() << 20);
	while ((opt = getopt(argc, argv, "s:t:p:d:D:w:o:")) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 't': secs = atoi(optarg); break;
		case 'p': procs = atoi(optarg); break;
		case 'd': number = optarg; break;
		case 'D': redial = optarg; break;
		case 'w': setup_ms = atoi(optarg); break;
		case 'o': op_limit = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind != argc - 1 || procs < 1 || procs > MAXW || secs < 0)
		usage();
	dev = argv[optind];
	data_mode = number != NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: blocking calls end */
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);	/* hang-ups are part of the game */
	signal(SIGTTOU, SIG_IGN);
	signal(SIGTTIN, SIG_IGN);
	printf("SEED=%llu mode=%s procs=%d seconds=%d\n", seed,
	       data_mode ? "data" : "command", procs, secs);

	shm = mmap(NULL, sizeof(*shm) * MAXW, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED) {
		perror("mmap");
		printf("RESULT error\n");
		return 1;
	}
	memset(shm, 0, sizeof(*shm) * MAXW);
	fd = open(dev, O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		printf("open %s: %s\nRESULT error\n", dev, strerror(errno));
		return 1;
	}
	if (data_mode) {
		connected = dial(fd, number, setup_ms);
		if (!connected)
			printf("NOCONNECT fuzzing in command mode\n");
	}
	deadline = now_ms() + secs * 1000LL;
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			worker(i);
		if (pids[i] < 0) {
			perror("fork");
			pids[i] = 0;
		}
	}
	/* The watchdog: a worker in one operation for op_limit ms is hung;
	 * all of them must be gone op_limit ms after the deadline. */
	for (;;) {
		long long t = now_ms();

		alive = 0;
		for (i = 0; i < procs; i++) {
			struct wstate *w = &shm[i];

			if (!pids[i])
				continue;
			if (waitpid(pids[i], &st, WNOHANG) == pids[i]) {
				pids[i] = 0;
				continue;
			}
			alive++;
			/* a dial is bounded by its own wait (setup_ms) */
			if ((w->op != OP_IDLE && t - w->since >
			     (w->op == OP_DIAL ? setup_ms + op_limit : op_limit)) ||
			    t > deadline + 2 * op_limit) {
				unsigned int k;

				printf("HUNG worker=%d pid=%d op=%s ms=%lld seed=%llu last=",
				       i, pids[i], op_name[w->op], t - w->since, seed);
				for (k = w->nhist > HIST ? w->nhist - HIST : 0; k < w->nhist; k++)
					printf("%s%s", op_name[w->hist[k % HIST]],
					       k + 1 < w->nhist ? "," : "\n");
				dump_stack(pids[i]);
				kill(pids[i], SIGKILL);
				pids[i] = 0;
				hung++;
			}
		}
		if (!alive)
			break;
		sleep_ms(200);
	}
	for (i = 0; i < procs; i++) {
		struct wstate *w = &shm[i];
		unsigned long total = 0, errs = 0;
		int k;

		for (k = 0; k < OP_N; k++) {
			total += w->ops[k];
			errs += w->errs[k];
		}
		printf("WORKER %d ops=%lu errors=%lu eio=%lu", i, total, errs, w->eio);
		for (k = 1; k < OP_N; k++)
			if (w->ops[k])
				printf(" %s=%lu", op_name[k], w->ops[k]);
		printf("\n");
	}
	{
		int v = 0;

		printf("END connected=%d tiocm_rc=%d", connected,
		       ioctl(fd, TIOCMGET, &v));
		printf(" CAR=%d\n", !!(v & TIOCM_CAR));
	}
	/* leave the line idle: DTR stays, the call (if any) is hung up */
	alarm_ms(3000);
	wrs(fd, "\r");
	sleep_ms(1100);
	wrs(fd, "+++");
	sleep_ms(1100);
	wrs(fd, "ATH\r");
	sleep_ms(300);
	alarm_ms(3000);
	tcflush(fd, TCIOFLUSH);
	close(fd);
	alarm_ms(0);
	printf("RESULT %s\n", hung ? "hung" : "ok");
	return hung ? 2 : 0;
}
