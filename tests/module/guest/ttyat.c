/*
 * Guest-side helper of tests/module/test_tty.py: talks to /dev/ttySM<n>
 * and prints raw transcripts for the host to judge.  Built static by the
 * test (gcc -static).  Every wait is bounded.
 *
 *   ttyat at [-c] [-h] DEV STEP...   one session; steps:
 *       TEXT          send TEXT + CR, read until a final result code
 *       %raw:TEXT     send TEXT (\r \n \xNN escapes), read until quiet
 *       %send:TEXT    send TEXT, read nothing
 *       %expect:MS    read for MS, print it
 *       %sleep:MS     wait without reading
 *       %big:N        "AT" + N letters + CR (an overlong line)
 *       %random:N:S   N random bytes (seed S), reading meanwhile
 *       %tiocm        TIOCMGET    %icount   TIOCGICOUNT
 *       %cat:PATH     PATH's lines, each behind "| ", between "CAT PATH"
 *                     and "CAT END" (the driver's stats in mid-call)
 *       %dtr:0|1      drop / raise DTR
 *       %miwait:LINES[:MS] TIOCMIWAIT on RNG,CD,DSR,CTS (comma list),
 *                     given up after MS (EINTR) if given
 *       %data:N[:MS[:MAX]]  data mode: N random bytes out, the echo
 *                     back, compared; the reader starts MS late, and
 *                     gives up after MAX ms (default 120000)
 *       %datafile:PATH[:MS]  the same with PATH's bytes (text for V.42bis)
 *       %echo:N:MS    the far end of %data: N bytes read, written back
 *                     and compared with what %data sends, at most MS
 *       %ready[:TAG]  print READY [TAG] (for a script waiting on us)
 *       %until:TEXT:MS  read until TEXT arrived (\r \n \xNN escapes),
 *                     at most MS; prints UNTIL found=0|1 ms=...
 *       %final:MS     read until a final result code, at most MS;
 *                     prints FINAL found=0|1 ms=...
 *       %waitfile:PATH:MS  wait (not reading) until PATH exists, at most MS
 *       %reopen       close the port and open it again (CLOCAL, no ctty)
 *       %hupwait:MS   read until EOF or error (a hang-up), at most MS
 *     -c: become a session leader with DEV as controlling tty (SIGHUP)
 *     -h: clear CLOCAL, so carrier loss hangs up
 *   ttyat blockopen DEV   an open without O_NONBLOCK waits for DCD
 *   ttyat miwait DEV      TIOCMIWAIT returns when AT&C0 raises DCD
 *   ttyat cycles DEV N    N open/AT/close cycles
 *   ttyat race [-p PRIO] DEV OLD NEW DELAY_MS FROM_US STEP_US COUNT [SETUP...]
 *       a command aimed at the moment the call before it ends by itself
 *       (test_callid.py): SETUP lines as in `at`, then, at SCHED_FIFO
 *       PRIO (default 99; 0: stay SCHED_OTHER), COUNT attempts: OLD (a
 *       dial ending in ';', e.g. ATS7=1DT2; to a number that never
 *       answers) read to its OK, which the modem reports once it has
 *       dialled; NEW (e.g. "ATH\rATDT9\r") written DELAY_MS + FROM_US +
 *       i * STEP_US after that OK arrived (OLD's own end, NO ANSWER after
 *       S7, is due DELAY_MS after it), read until BUSY (at most 10 s).
 *       Each attempt prints OLD> and OLD< lines, then RACE i= d_us=
 *       late_ns= (the write after its target) t_ok= (the OK's arrival)
 *       t_w0= t_w1= (the write) t_end= (BUSY's arrival, 0: none), all
 *       CLOCK_MONOTONIC ns, before= (what had come before the write) and
 *       a line RACE after= (what came after it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/serial.h>

static volatile sig_atomic_t sighups;

static void on_hup(int sig)
{
	(void)sig;
	sighups++;
}

static void on_alarm(int sig)
{
	(void)sig;
}

/* SIGALRM in ms (0: off), interrupting a blocking call with EINTR. */
static void alarm_ms(int ms)
{
	struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000L } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void print_esc(const char *tag, const unsigned char *b, size_t n)
{
	size_t i;

	printf("%s", tag);
	for (i = 0; i < n; i++) {
		if (b[i] == '\r')
			printf("\\r");
		else if (b[i] == '\n')
			printf("\\n");
		else if (b[i] == '\\')
			printf("\\\\");
		else if (b[i] < ' ' || b[i] >= 0x7f)
			printf("\\x%02x", b[i]);
		else
			putchar(b[i]);
	}
	putchar('\n');
	fflush(stdout);
}

/* Response buffer of the current step. */
static unsigned char rbuf[1 << 16];
static size_t rlen;

static void rb_add(const unsigned char *b, size_t n)
{
	if (n > sizeof(rbuf) - rlen)
		n = sizeof(rbuf) - rlen;
	memcpy(rbuf + rlen, b, n);
	rlen += n;
}

/* One read with a timeout; returns bytes, 0 on timeout, -1 on EOF/error. */
static int rd(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	unsigned char b[4096];
	int r;

	r = poll(&p, 1, ms);
	if (r <= 0)
		return 0;
	r = read(fd, b, sizeof(b));
	if (r > 0)
		rb_add(b, r);
	if (r == 0)
		return -1;
	if (r < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	return r;
}

static const char *const finals[] = {
	"OK", "ERROR", "NO CARRIER", "BUSY", "NO DIALTONE", "NO ANSWER",
	"CONNECT",
};

/* A final result code at the end: verbose "\r\nOK\r\n" or numeric "0\r". */
static int final_seen(void)
{
	size_t i, e, s;

	if (rlen >= 2 && rbuf[rlen - 1] == '\n' && rbuf[rlen - 2] == '\r') {
		e = rlen - 2;
		s = e;
		while (s && rbuf[s - 1] != '\n')
			s--;
		for (i = 0; i < sizeof(finals) / sizeof(finals[0]); i++) {
			size_t l = strlen(finals[i]);

			if (e - s >= l && !memcmp(rbuf + s, finals[i], l) &&
			    (e - s == l || rbuf[s + l] == ' '))
				return 1;
		}
		return 0;
	}
	if (rlen >= 2 && rbuf[rlen - 1] == '\r') {
		s = rlen - 1;
		while (s && rbuf[s - 1] >= '0' && rbuf[s - 1] <= '9')
			s--;
		return s < rlen - 1 && (s == 0 || rbuf[s - 1] == '\n' ||
					rbuf[s - 1] == '\r');
	}
	return 0;
}

/* Read until a final result code, quiet for idle ms, or max ms. */
static int collect(int fd, int idle, int max, int until_final)
{
	long long t0 = now_ms(), last = t0;

	for (;;) {
		long long t = now_ms();
		int r;

		if (until_final && final_seen())
			return 0;
		if (t - t0 >= max || (idle && t - last >= idle))
			return 0;
		r = rd(fd, 20);
		if (r < 0)
			return -1;
		if (r > 0)
			last = now_ms();
	}
}

static int wr(int fd, const void *b, size_t n)
{
	const unsigned char *p = b;
	long long t0 = now_ms();

	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (now_ms() - t0 > 20000)
				return -1;
			rd(fd, 10);	/* keep the echo moving */
			continue;
		}
		if (k <= 0)
			return -1;
		p += k;
		n -= k;
	}
	return 0;
}

static size_t unescape(const char *s, unsigned char *out, size_t size)
{
	size_t n = 0;

	while (*s && n < size) {
		if (s[0] == '\\' && s[1] == 'r') {
			out[n++] = '\r';
			s += 2;
		} else if (s[0] == '\\' && s[1] == 'n') {
			out[n++] = '\n';
			s += 2;
		} else if (s[0] == '\\' && s[1] == 'x' && s[2] && s[3]) {
			char h[3] = { s[2], s[3], 0 };

			out[n++] = (unsigned char)strtoul(h, NULL, 16);
			s += 4;
		} else {
			out[n++] = (unsigned char)*s++;
		}
	}
	return n;
}

static int open_port(const char *dev, int ctty, int clocal)
{
	struct termios t;
	int fd;

	fd = open(dev, O_RDWR | O_NONBLOCK | (ctty ? 0 : O_NOCTTY));
	if (fd < 0) {
		printf("OPEN %s failed errno=%d\n", dev, errno);
		exit(3);
	}
	if (ctty && ioctl(fd, TIOCSCTTY, 0) < 0)
		printf("TIOCSCTTY failed errno=%d\n", errno);
	tcgetattr(fd, &t);
	cfmakeraw(&t);
	t.c_cflag |= CREAD | HUPCL;
	if (clocal)
		t.c_cflag |= CLOCAL;
	else
		t.c_cflag &= ~CLOCAL;
	cfsetspeed(&t, B115200);
	if (tcsetattr(fd, TCSANOW, &t) < 0)
		printf("TCSETATTR failed errno=%d\n", errno);
	fcntl(fd, F_SETFL, O_RDWR);
	return fd;
}

static void show_tiocm(int fd)
{
	int m = 0;

	if (ioctl(fd, TIOCMGET, &m) < 0) {
		printf("TIOCM error errno=%d\n", errno);
		return;
	}
	printf("TIOCM CAR=%d RNG=%d DSR=%d CTS=%d DTR=%d RTS=%d\n",
	       !!(m & TIOCM_CAR), !!(m & TIOCM_RNG), !!(m & TIOCM_DSR),
	       !!(m & TIOCM_CTS), !!(m & TIOCM_DTR), !!(m & TIOCM_RTS));
}

static int get_icount(int fd, struct serial_icounter_struct *ic)
{
	memset(ic, 0, sizeof(*ic));
	return ioctl(fd, TIOCGICOUNT, ic);
}

static void show_icount(int fd)
{
	struct serial_icounter_struct ic;

	if (get_icount(fd, &ic) < 0) {
		printf("ICOUNT error errno=%d\n", errno);
		return;
	}
	printf("ICOUNT dcd=%d rng=%d dsr=%d cts=%d rx=%d tx=%d buf_overrun=%d\n",
	       ic.dcd, ic.rng, ic.dsr, ic.cts, ic.rx, ic.tx, ic.buf_overrun);
}

static unsigned int xs(unsigned int *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int line_mask(const char *s)
{
	int m = 0;

	if (strstr(s, "RNG"))
		m |= TIOCM_RNG;
	if (strstr(s, "CD"))
		m |= TIOCM_CD;
	if (strstr(s, "DSR"))
		m |= TIOCM_DSR;
	if (strstr(s, "CTS"))
		m |= TIOCM_CTS;
	return m;
}

/* A file's lines in the transcript, marked so that a reader finds them. */
static void show_file(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	printf("CAT %s\n", path);
	if (!f) {
		printf("CAT unreadable errno=%d\n", errno);
		return;
	}
	while (fgets(line, sizeof(line), f))
		printf("| %s%s", line, strchr(line, '\n') ? "" : "\n");
	fclose(f);
	printf("CAT END\n");
	fflush(stdout);
}

/* A call expected to fail need not wait two minutes for its bytes. */
static int data_max_ms = 120000;

/*
 * Data mode round trip through the echo: nothing lost, nothing changed.
 * src: the bytes to send (n of them), or NULL for random ones.
 */
static void data_step(int fd, size_t n, int pause_ms, const unsigned char *src)
{
	struct serial_icounter_struct a, b;
	unsigned int seed = 12345, vseed = 12345;
	size_t got = 0, bad = 0;
	long long t0 = now_ms();
	pid_t pid;
	int st;

	get_icount(fd, &a);
	pid = fork();
	if (pid == 0) {
		static unsigned char out[1024];
		size_t sent = 0;

		alarm((data_max_ms + 999) / 1000);
		while (sent < n) {
			size_t k = n - sent < sizeof(out) ? n - sent : sizeof(out);
			size_t i;

			for (i = 0; i < k; i++)
				out[i] = src ? src[sent + i] : (unsigned char)xs(&seed);
			/* Blocking writes: the tty sleeps us while CTS is down. */
			if (write(fd, out, k) != (ssize_t)k)
				_exit(1);
			sent += k;
		}
		_exit(0);
	}
	/* A reader that stalls: the line and then the writer must wait. */
	msleep(pause_ms);
	while (got < n && now_ms() - t0 < data_max_ms) {
		size_t i;

		rlen = 0;
		if (rd(fd, 200) < 0)
			break;
		for (i = 0; i < rlen && got < n; i++, got++)
			if (rbuf[i] != (src ? src[got] : (unsigned char)xs(&vseed)))
				bad++;
	}
	waitpid(pid, &st, 0);
	get_icount(fd, &b);
	printf("DATA n=%zu pause=%d got=%zu bad=%zu writer=%d cts_changes=%d "
	       "overrun=%d ms=%lld\n", n, pause_ms, got, bad,
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1, b.cts - a.cts,
	       b.buf_overrun - a.buf_overrun, now_ms() - t0);
	fflush(stdout);
	rlen = 0;
}

/* The other side of data_step(), for a call between two of our modems. */
static void echo_step(int fd, size_t n, int max_ms)
{
	unsigned int vseed = 12345;
	size_t got = 0, bad = 0, back = 0;
	long long t0 = now_ms();

	while (got < n && now_ms() - t0 < max_ms) {
		size_t i;
		ssize_t w;

		rlen = 0;
		if (rd(fd, 200) < 0)
			break;
		for (i = 0; i < rlen && got < n; i++, got++)
			if (rbuf[i] != (unsigned char)xs(&vseed))
				bad++;
		/* blocking: the tty sleeps us while CTS is down */
		w = rlen ? write(fd, rbuf, rlen) : 0;
		if (w > 0)
			back += (size_t)w;
		if (w < (ssize_t)rlen)
			break;
	}
	printf("ECHO n=%zu got=%zu bad=%zu back=%zu ms=%lld\n", n, got, bad,
	       back, now_ms() - t0);
	fflush(stdout);
	rlen = 0;
}

static int cmd_at(int argc, char **argv)
{
	int ctty = 0, clocal = 1, i, fd;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-c"))
			ctty = 1;
		else if (!strcmp(argv[1], "-h"))
			clocal = 0;
		argc--;
		argv++;
	}
	if (ctty)
		setsid();
	signal(SIGHUP, on_hup);
	fd = open_port(argv[1], ctty, clocal);
	for (i = 2; i < argc; i++) {
		const char *a = argv[i];
		static unsigned char tx[1 << 15];
		size_t n;

		rlen = 0;
		if (!strncmp(a, "%raw:", 5)) {
			n = unescape(a + 5, tx, sizeof(tx));
			print_esc("> ", tx, n);
			wr(fd, tx, n);
			collect(fd, 300, 3000, 0);
		} else if (!strncmp(a, "%send:", 6)) {
			n = unescape(a + 6, tx, sizeof(tx));
			print_esc("> ", tx, n);
			wr(fd, tx, n);
			continue;
		} else if (!strncmp(a, "%expect:", 8)) {
			printf("> (read %s ms)\n", a + 8);
			collect(fd, 0, atoi(a + 8), 0);
		} else if (!strncmp(a, "%sleep:", 7)) {
			printf("> (sleep %s ms)\n", a + 7);
			msleep(atoi(a + 7));
			continue;
		} else if (!strncmp(a, "%big:", 5)) {
			size_t k, len = strtoul(a + 5, NULL, 10);

			if (len > sizeof(tx) - 3)
				len = sizeof(tx) - 3;
			tx[0] = 'A';
			tx[1] = 'T';
			for (k = 0; k < len; k++)
				tx[2 + k] = (unsigned char)('B' + k % 24);
			tx[2 + len] = '\r';
			printf("> (big line of %zu)\n", len);
			wr(fd, tx, len + 3);
			collect(fd, 500, 5000, 1);
		} else if (!strncmp(a, "%random:", 8)) {
			unsigned int seed, k;

			n = strtoul(a + 8, NULL, 10);
			seed = (unsigned int)strtoul(strchr(a + 8, ':') + 1,
						     NULL, 0) | 1;
			if (n > sizeof(tx))
				n = sizeof(tx);
			for (k = 0; k < n; k++)
				tx[k] = (unsigned char)xs(&seed);
			printf("> (%zu random bytes)\n", n);
			for (k = 0; k < n; k += 128) {
				wr(fd, tx + k, n - k < 128 ? n - k : 128);
				rd(fd, 0);
			}
			collect(fd, 500, 5000, 0);
		} else if (!strcmp(a, "%tiocm")) {
			show_tiocm(fd);
			continue;
		} else if (!strcmp(a, "%icount")) {
			show_icount(fd);
			continue;
		} else if (!strncmp(a, "%cat:", 5)) {
			show_file(a + 5);
			continue;
		} else if (!strncmp(a, "%dtr:", 5)) {
			int m = TIOCM_DTR;

			printf("> (DTR %s)\n", a + 5);
			ioctl(fd, atoi(a + 5) ? TIOCMBIS : TIOCMBIC, &m);
			continue;
		} else if (!strncmp(a, "%miwait:", 8)) {
			const char *c = strchr(a + 8, ':');
			long long t0 = now_ms();
			int r;

			if (c)
				alarm_ms(atoi(c + 1));
			r = ioctl(fd, TIOCMIWAIT, line_mask(a + 8));
			if (c)
				alarm_ms(0);
			if (c)
				printf("MIWAIT rc=%d errno=%d ms=%lld\n", r,
				       r ? errno : 0, now_ms() - t0);
			else
				printf("MIWAIT rc=%d errno=%d\n", r, r ? errno : 0);
			continue;
		} else if (!strncmp(a, "%data:", 6)) {
			const char *p = strchr(a + 6, ':');
			const char *m = p ? strchr(p + 1, ':') : NULL;

			data_max_ms = m && atoi(m + 1) > 0 ? atoi(m + 1) : 120000;
			data_step(fd, strtoul(a + 6, NULL, 10), p ? atoi(p + 1) : 0, NULL);
			continue;
		} else if (!strncmp(a, "%datafile:", 10)) {
			char path[256];
			const char *p = strchr(a + 10, ':');
			size_t pl = p ? (size_t)(p - (a + 10)) : strlen(a + 10);
			unsigned char *src = NULL;
			long len = -1;
			FILE *f;

			snprintf(path, sizeof(path), "%.*s", (int)pl, a + 10);
			f = fopen(path, "rb");
			if (f && !fseek(f, 0, SEEK_END))
				len = ftell(f);
			if (len > 0 && !fseek(f, 0, SEEK_SET)) {
				src = malloc((size_t)len);
				if (!src || fread(src, 1, (size_t)len, f) != (size_t)len)
					len = -1;
			}
			if (f)
				fclose(f);
			data_max_ms = 120000;
			if (len > 0)
				data_step(fd, (size_t)len, p ? atoi(p + 1) : 0, src);
			else
				printf("DATA file=%s unreadable\n", path);
			free(src);
			continue;
		} else if (!strncmp(a, "%echo:", 6)) {
			const char *p = strchr(a + 6, ':');

			echo_step(fd, strtoul(a + 6, NULL, 10),
				  p ? atoi(p + 1) : 120000);
			continue;
		} else if (!strcmp(a, "%ready") || !strncmp(a, "%ready:", 7)) {
			printf("READY%s%s\n", a[6] ? " " : "", a[6] ? a + 7 : "");
			fflush(stdout);
			continue;
		} else if (!strncmp(a, "%until:", 7)) {
			const char *c = strrchr(a + 7, ':');
			unsigned char want[256];
			long long t0 = now_ms();
			int ms = c ? atoi(c + 1) : 0, found = 0, r = 0;
			size_t wn;
			char text[256];

			snprintf(text, sizeof(text), "%.*s",
				 (int)(c ? c - (a + 7) : (long)strlen(a + 7)), a + 7);
			wn = unescape(text, want, sizeof(want));
			printf("> (until %s, at most %d ms)\n", text, ms);
			while (now_ms() - t0 < ms) {
				if (wn && rlen >= wn && memmem(rbuf, rlen, want, wn)) {
					found = 1;
					break;
				}
				r = rd(fd, 20);
				if (r < 0)
					break;
			}
			if (!found && wn && rlen >= wn && memmem(rbuf, rlen, want, wn))
				found = 1;
			/* the rest of a final result line */
			if (found)
				collect(fd, 100, 1000, 1);
			print_esc("< ", rbuf, rlen);
			printf("UNTIL found=%d eof=%d ms=%lld\n", found, r < 0,
			       now_ms() - t0);
			continue;
		} else if (!strncmp(a, "%final:", 7)) {
			long long t0 = now_ms();

			printf("> (final result, at most %s ms)\n", a + 7);
			collect(fd, 0, atoi(a + 7), 1);
			print_esc("< ", rbuf, rlen);
			printf("FINAL found=%d ms=%lld\n", final_seen(),
			       now_ms() - t0);
			continue;
		} else if (!strncmp(a, "%waitfile:", 10)) {
			const char *c = strrchr(a + 10, ':');
			char path[256];
			long long t0 = now_ms();
			int ms = c ? atoi(c + 1) : 0, found;

			snprintf(path, sizeof(path), "%.*s",
				 (int)(c ? c - (a + 10) : (long)strlen(a + 10)), a + 10);
			while (!(found = !access(path, F_OK)) && now_ms() - t0 < ms)
				msleep(20);
			printf("WAITFILE %s found=%d ms=%lld\n", path, found,
			       now_ms() - t0);
			continue;
		} else if (!strcmp(a, "%reopen")) {
			close(fd);
			fd = open_port(argv[1], 0, 1);
			printf("REOPEN\n");
			continue;
		} else if (!strncmp(a, "%hupwait:", 9)) {
			long long t0 = now_ms();
			int r = 0;

			while (now_ms() - t0 < atoi(a + 9)) {
				r = rd(fd, 100);
				if (r < 0)
					break;
			}
			print_esc("< ", rbuf, rlen);
			printf("HUP ended=%d sighup=%d ms=%lld\n", r < 0,
			       (int)sighups, now_ms() - t0);
			continue;
		} else {
			n = strlen(a);
			memcpy(tx, a, n);
			tx[n++] = '\r';
			print_esc("> ", tx, n);
			wr(fd, tx, n);
			collect(fd, 0, 5000, 1);
		}
		if (rlen > 300) {
			printf("< [len=%zu] ...", rlen);
			print_esc("", rbuf + rlen - 200, 200);
		} else {
			print_esc("< ", rbuf, rlen);
		}
	}
	close(fd);
	printf("END sighup=%d\n", (int)sighups);
	return 0;
}

static int send_cmd(int fd, const char *cmd)
{
	rlen = 0;
	if (wr(fd, cmd, strlen(cmd)))
		return -1;
	collect(fd, 0, 3000, 1);
	return rlen >= 4 && memmem(rbuf, rlen, "OK\r\n", 4) ? 0 : -1;
}

static int cmd_blockopen(const char *dev)
{
	struct termios t;
	int fd, st, blocked, opened = 0;
	pid_t pid;

	fd = open_port(dev, 0, 1);
	send_cmd(fd, "ATE0\r");
	send_cmd(fd, "AT&C1\r");
	tcgetattr(fd, &t);
	t.c_cflag &= ~CLOCAL;
	tcsetattr(fd, TCSANOW, &t);
	pid = fork();
	if (pid == 0) {
		int f;

		alarm(20);
		f = open(dev, O_RDWR | O_NOCTTY);
		_exit(f < 0 ? 1 : 0);
	}
	msleep(500);
	blocked = waitpid(pid, &st, WNOHANG) == 0;
	if (send_cmd(fd, "AT&C0\r"))
		printf("AT&C0 failed\n");
	if (blocked) {
		long long t0 = now_ms();

		while (now_ms() - t0 < 5000) {
			if (waitpid(pid, &st, WNOHANG) == pid) {
				opened = WIFEXITED(st) && WEXITSTATUS(st) == 0;
				break;
			}
			msleep(20);
		}
		if (!opened)
			kill(pid, SIGKILL), waitpid(pid, &st, 0);
	}
	send_cmd(fd, "AT&C1\r");
	t.c_cflag |= CLOCAL;
	tcsetattr(fd, TCSANOW, &t);
	close(fd);
	printf("BLOCKOPEN blocked=%d opened_after_dcd=%d\n", blocked, opened);
	return 0;
}

static int cmd_miwait(const char *dev)
{
	struct serial_icounter_struct a, b;
	int fd, st, r, rc = -1, einval;
	pid_t pid;

	fd = open_port(dev, 0, 1);
	send_cmd(fd, "ATE0\r");
	send_cmd(fd, "AT&C1\r");
	r = ioctl(fd, TIOCMIWAIT, 0);
	einval = r < 0 && errno == EINVAL;
	get_icount(fd, &a);
	pid = fork();
	if (pid == 0) {
		alarm(10);
		_exit(ioctl(fd, TIOCMIWAIT, TIOCM_CD) == 0 ? 0 : 1);
	}
	msleep(300);
	/* Still waiting: no line moved yet. */
	r = waitpid(pid, &st, WNOHANG);
	printf("MIWAIT waiting=%d\n", r == 0);
	send_cmd(fd, "AT&C0\r");
	if (waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		rc = WEXITSTATUS(st);
	show_tiocm(fd);
	send_cmd(fd, "AT&C1\r");
	get_icount(fd, &b);
	show_tiocm(fd);
	close(fd);
	printf("MIWAIT child=%d mask0_einval=%d dcd_changes=%d\n", rc, einval,
	       b.dcd - a.dcd);
	return 0;
}

static int cmd_cycles(const char *dev, int n)
{
	int i, ok = 0;

	for (i = 0; i < n; i++) {
		int fd = open_port(dev, 0, 1);

		if (!send_cmd(fd, "AT\r"))
			ok++;
		close(fd);
	}
	printf("CYCLES n=%d ok=%d\n", n, ok);
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until_ns(long long t)
{
	struct timespec ts = { t / 1000000000LL, t % 1000000000LL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Read until TEXT arrived, at most ms: its arrival time, 0 if it did not. */
static long long race_until(int fd, const char *text, int ms)
{
	long long t0 = now_ms();
	size_t n = strlen(text);

	while (now_ms() - t0 < ms) {
		if (rlen >= n && memmem(rbuf, rlen, text, n))
			return now_ns();
		if (rd(fd, 20) < 0)
			break;
	}
	return 0;
}

static int cmd_race(int argc, char **argv)
{
	static unsigned char oldc[256], newc[256];
	int prio = 99, fd, i, count, delay, from, step;
	size_t on, nn;

	if (argc > 2 && !strcmp(argv[1], "-p")) {
		prio = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 8) {
		fprintf(stderr, "usage: see the comment at the top of ttyat.c\n");
		return 2;
	}
	on = unescape(argv[2], oldc, sizeof(oldc));
	nn = unescape(argv[3], newc, sizeof(newc));
	delay = atoi(argv[4]);
	from = atoi(argv[5]);
	step = atoi(argv[6]);
	count = atoi(argv[7]);
	fd = open_port(argv[1], 0, 1);
	for (i = 8; i < argc; i++) {
		static unsigned char tx[256];
		size_t n = strlen(argv[i]);

		if (n > sizeof(tx) - 1)
			n = sizeof(tx) - 1;
		memcpy(tx, argv[i], n);
		tx[n++] = '\r';
		rlen = 0;
		print_esc("> ", tx, n);
		wr(fd, tx, n);
		collect(fd, 0, 5000, 1);
		print_esc("< ", rbuf, rlen);
	}
	if (prio) {
		struct sched_param sp = { .sched_priority = prio };

		printf("RT prio=%d rc=%d mlock=%d\n", prio,
		       sched_setscheduler(0, SCHED_FIFO, &sp),
		       mlockall(MCL_CURRENT | MCL_FUTURE));
	}
	for (i = 0; i < count; i++) {
		long long d = from + (long long)i * step, t_ok = 0, target;
		long long w0, w1, t_end, t0;
		size_t before;

		rlen = 0;
		wr(fd, oldc, on);
		t0 = now_ms();
		while (now_ms() - t0 < 30000 && !final_seen())
			if (rd(fd, 20) < 0)
				break;
		if (final_seen())
			t_ok = now_ns();
		print_esc("OLD> ", oldc, on);
		print_esc("OLD< ", rbuf, rlen);
		if (!t_ok || rlen < 4 || memcmp(rbuf + rlen - 4, "OK\r\n", 4)) {
			printf("RACE i=%d no OK\n", i);
			break;
		}
		rlen = 0;
		target = t_ok + delay * 1000000LL + d * 1000;
		sleep_until_ns(target);
		/* what came before the new command (nothing waits here) */
		rd(fd, 0);
		before = rlen;
		w0 = now_ns();
		wr(fd, newc, nn);
		w1 = now_ns();
		t_end = race_until(fd, "BUSY\r\n", 10000);
		printf("RACE i=%d d_us=%lld late_ns=%lld t_ok=%lld t_w0=%lld t_w1=%lld t_end=%lld ",
		       i, d, w0 - target, t_ok, w0, w1, t_end);
		print_esc("before=", rbuf, before);
		print_esc("RACE after=", rbuf + before, rlen - before);
	}
	close(fd);
	printf("END race\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "at"))
		return cmd_at(argc - 1, argv + 1);
	if (argc == 3 && !strcmp(argv[1], "blockopen"))
		return cmd_blockopen(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "miwait"))
		return cmd_miwait(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "race"))
		return cmd_race(argc - 1, argv + 1);
	if (argc == 4 && !strcmp(argv[1], "cycles"))
		return cmd_cycles(argv[2], atoi(argv[3]));
	fprintf(stderr, "usage: see the comment at the top of ttyat.c\n");
	return 2;
}
