// SPDX-License-Identifier: GPL-2.0
/*
 * usrfuzz: hostile daemons for context=usr's /dev/smodem<n> ("A
 * hostile daemon"), run in the guest as an unprivileged user against a
 * module loaded with usr_mode=0666 (tests/module/test_usr_fuzz.py).
 *
 *   usrfuzz [-s SEED] [-t SECONDS] [-j DAEMONS] [-x MASK] [-v] DEV...
 *
 * DAEMONS processes (default 4) race for the devices named.  Each daemon
 * opens a device at random and serves it for an episode, periods of valid
 * work (a modem answering the DTE's commands, bytes both ways) mixed with
 * every field it writes (the daemon's and the kernel's) at its limits, just
 * past them or random (reports of phases no modem traces among them); the area scribbled by a second thread while DONE
 * reads it; ioctls out of order and unknown, with bad pointers; mmap()s of
 * wrong sizes, offsets and protections, mremap(), mprotect() and munmap()
 * mid-period; a fork() sharing the mapping and the file; a close() from
 * another thread during WAIT; stalls (a few past SMODEM_USR_STALL_MS); and
 * ends it by closing, exiting or SIGKILL, at any point, a period handed
 * out or not.  The supervisor kills (SIGKILL) and stops (SIGSTOP for
 * longer than a stall) daemons at random and starts the next generation.
 * One DTE per device (its /dev/ttySM<n>) types AT commands, fax commands,
 * +++ and data, and reads everything the tty gives.
 *
 * What no daemon may get through to the DTE: a byte of rx_bytes past what
 * DONE accepts (min(rx_len, rx_room)).  The daemons write the bytes they
 * offer as 0x80-0xbf and every byte past them as 0xc0-0xff (the AT
 * interpreter writes only ASCII, and the DTE types only ASCII), so the DTE
 * must read no 0xc0-0xff byte, and no more 0x80-0xbf bytes than were
 * offered; when a fork()ed child shares the area the whole of rx_bytes is
 * 0x80-0xbf.  The kernel's answers are checked too: an mmap() past the
 * area or at an offset, DONE with nothing handed out, WAIT twice, an
 * unknown ioctl, each must fail with its errno; a new open's header must
 * give a sane size whatever the last daemon wrote there.
 *
 * The seed (default: from the clock) is printed; with it the run is
 * reproducible up to the interleaving of its processes: each daemon's
 * generation has its own seed, printed with -v, from SEED, its slot and
 * generation.  -x leaves out what MASK's bits name (to find what a
 * failure needs): 0x1 misuse, 0x2 remap, 0x4 stall, 0x8 fork, 0x10
 * scribbled area, 0x20 close in WAIT, 0x40 exit and SIGKILL, 0x80 fields
 * out of range, 0x100 the racer, 0x200 the supervisor's SIGKILL, 0x400
 * its SIGSTOP, 0x800 the DTEs' commands, 0x1000 wrong mappings, 0x2000
 * DONE_WAIT.  Exit status 0 when every check held, 1 when one failed, 2
 * on a usage or set-up error.  The last lines are key=value totals for the
 * host.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "smodem_compat.h"
#include "smodem_usr.h"

/* driver/smodem_params.h's, which needs the kernel's headers */
#define PERIOD_MIN	8
#define MAX_DEV		8
#define MAX_DAEMONS	16
#define PAGE		4096UL
#define A_LO		0x80	/* bytes offered to the DTE */
#define B_LO		0xc0	/* bytes past the offer */

/* Totals across processes, in a shared anonymous mapping. */
struct totals {
	long episodes, opens, busy, periods, dones, wait_err[4], wait_busy, done_err,
	     bad_fields, races, garbage, forks, close_in_wait, munmaps,
	     mremaps, mprotects, mmaps_refused, mmaps_taken, stalls,
	     long_stalls, exits, self_kills, killed, stopped, faults,
	     misuse, polls, violations;
	long offered[MAX_DEV];	/* 0x80-0xbf bytes DONE may have taken */
	long dte_a[MAX_DEV], dte_b[MAX_DEV], dte_bytes[MAX_DEV], dte_cmds[MAX_DEV];
	char violation[256];
};

static struct totals *tot;
static const char *devs[MAX_DEV];
static int ndev, verbose;
static unsigned int skip;	/* -x */

#define X_MISUSE	0x1
#define X_REMAP		0x2
#define X_STALL		0x4
#define X_FORK		0x8
#define X_GARBAGE	0x10
#define X_CLOSE		0x20
#define X_EXIT		0x40
#define X_FIELDS	0x80
#define X_RACE		0x100
#define X_KILL		0x200
#define X_STOP		0x400
#define X_DTE		0x800
#define X_MAP		0x1000
#define X_DONE_WAIT	0x2000
#define ON(x)		(!(skip & (x)))
static unsigned long long seed;

#define ADD(f, v)	__atomic_add_fetch(&tot->f, (v), __ATOMIC_RELAXED)

static void violation(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!__atomic_fetch_add(&tot->violations, 1, __ATOMIC_RELAXED))
		memcpy(tot->violation, buf, sizeof(buf));
	fprintf(stderr, "usrfuzz: VIOLATION %s\n", buf);
}

/* -- randomness: splitmix64, one state per thread ------------------------- */

static __thread unsigned long long rs;

static unsigned long long rnd64(void)
{
	unsigned long long z = (rs += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u32 rnd(u32 n)
{
	return n ? (u32)(rnd64() % n) : 0;
}

static int chance(u32 pct)
{
	return rnd(100) < pct;
}

/* A field's value: valid, at its limit, just past it, or anything. */
static u32 edge(u32 lo, u32 hi)
{
	static const u32 wild[] = { 0, 1, 0x7fffffff, 0x80000000, 0xffffffff,
				    0xfffffffe, 0x10000, 0xffff };

	switch (rnd(8)) {
	case 0:
		return lo;
	case 1:
		return hi;
	case 2:
		return hi + 1;
	case 3:
		return lo - 1;
	case 4:
		return wild[rnd(sizeof(wild) / sizeof(wild[0]))];
	case 5:
		return (u32)rnd64();
	default:
		return lo + rnd(hi - lo + 1);
	}
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* -- a daemon ------------------------------------------------------------------ */

/* A fault on the area (unmapped, read-only, shrunk under us): recovered. */
static __thread sigjmp_buf *fault_jb;

static void on_fault(int sig)
{
	(void)sig;
	if (fault_jb)
		siglongjmp(*fault_jb, 1);
	_exit(99);
}

struct daemon {
	int slot, gen, episodes, dev, fd;
	struct smodem_usr_area *a;	/* the mapping, or NULL */
	size_t mlen;			/* bytes mapped */
	int shared;			/* MAP_SHARED: the kernel sees writes */
	int busy;			/* WAIT succeeded, no DONE yet */
	u32 room;			/* rx_room at WAIT */
	u32 tx_len;
	u32 size;			/* the area's, from its header */
	int children;			/* fork()ed children alive */
	/* the modem it plays */
	u32 call_id;
	int connect_in;			/* periods until CONNECT, -1 none */
	int online;
	int hostility;			/* percent of periods that misbehave */
};

static struct daemon d;

/*
 * The racer thread: scribbles the area while DONE reads it, and sleeps
 * otherwise (a spinning thread per daemon would make every guest second
 * cost billions of instructions on the instruction-counted clock).
 */
static volatile int race_on, race_ack, racer_stop;
static sem_t race_go;
static pthread_t racer;
static volatile u32 race_room;	/* rx_bytes the kernel may take */

static int in_area(size_t off, size_t n)
{
	return d.a && off + n <= d.mlen;
}

/*
 * rx_bytes[i]: 0x80-0xbf for what DONE may take (below limit), 0xc0-0xff
 * past it.
 */
static u8 rx_byte(u32 i, u32 limit)
{
	return (u8)((i < limit ? A_LO : B_LO) | rnd(0x40));
}

static void fill_rx(u32 limit)
{
	size_t off = offsetof(struct smodem_usr_area, rx_bytes);
	u32 i;

	if (!in_area(off, SMODEM_USR_RX_BYTES))
		return;
	for (i = 0; i < SMODEM_USR_RX_BYTES; i++)
		d.a->rx_bytes[i] = rx_byte(i, limit);
}

/* Any byte of the area, rx_bytes keeping to its alphabet. */
static void scribble(u32 limit, int n)
{
	size_t rx0 = offsetof(struct smodem_usr_area, rx_bytes);
	u8 *p = (u8 *)d.a;
	size_t off;

	while (n-- > 0) {
		off = rnd((u32)d.mlen);
		if (!in_area(off, 1))
			return;
		if (off >= rx0 && off < rx0 + SMODEM_USR_RX_BYTES)
			p[off] = rx_byte(off - rx0, limit);
		else
			p[off] = (u8)rnd64();
	}
}

/*
 * The smodem_phase event's values (enum smdsp_modem_phase, 0-11, then
 * Class 1's, driver/smodem_call.h, 32-44), each with an argument its modem
 * gives it: the kernel traces these.
 */
#define PH_ANSWER_TONE	4
#define PH_CONNECTED	7
#define PH_HUNGUP	10
#define PH_PROBING	11	/* the enum's last */
#define PH_FAX_ON_HOOK	32
#define PH_FAX_LAST	44

static void good_phase(struct smodem_usr_report *r)
{
	static const u32 rates[] = { 300, 600, 1200, 2400, 4800, 9600, 14400 };
	static const u32 mods[] = { 0, 3, 24, 48, 72, 96, 121, 146 };
	u32 p = rnd(PH_PROBING + 1 + PH_FAX_LAST - PH_FAX_ON_HOOK + 1);

	*r = (struct smodem_usr_report){ SMODEM_USR_PHASE, 0, p, 0 };
	if (p > PH_PROBING) {
		r->a = PH_FAX_ON_HOOK + p - PH_PROBING - 1;
		r->b = mods[rnd(sizeof(mods) / sizeof(mods[0]))];
	} else if (p == PH_CONNECTED) {
		r->b = rates[rnd(sizeof(rates) / sizeof(rates[0]))];
	} else if (p == PH_ANSWER_TONE) {
		r->b = rnd(5);			/* enum smdsp_anstone_kind */
	} else if (p == PH_HUNGUP) {
		r->b = rnd(7);			/* enum smdsp_modem_cause */
	}
}

/* A phase no modem traces, or a known one with an argument it never has. */
static void bad_phase(struct smodem_usr_report *r)
{
	static const u32 none[] = { PH_PROBING + 1, PH_FAX_ON_HOOK - 1,
				    PH_FAX_LAST + 1, 0x7fffffff, 0xffffffff };
	static const u32 args[][2] = {
		{ 0, 1 }, { PH_PROBING, 1 }, { PH_CONNECTED, 0 }, { PH_CONNECTED, 2401 },
		{ PH_CONNECTED, 0xffffffff }, { PH_HUNGUP, 7 },
		{ PH_ANSWER_TONE, 5 }, { PH_FAX_ON_HOOK + 8, 25 },
		{ PH_FAX_LAST, 0x80000003 },
	};
	u32 i;

	*r = (struct smodem_usr_report){ SMODEM_USR_PHASE, (u32)rnd64(), 0, 0 };
	if (chance(40)) {
		r->a = none[rnd(sizeof(none) / sizeof(none[0]))];
		r->b = chance(50) ? 0 : (u32)rnd64();
	} else {
		i = rnd(sizeof(args) / sizeof(args[0]));
		r->a = args[i][0];
		r->b = args[i][1];
	}
}

/* The fields DONE reads, out of range. */
static void bad_fields(void)
{
	u32 i, k;

	if (!ON(X_FIELDS) || !in_area(0, offsetof(struct smodem_usr_area, show_cur)))
		return;
	ADD(bad_fields, 1);
	if (chance(50))
		d.a->tx_used = edge(0, d.tx_len);
	if (chance(50))
		d.a->rx_len = edge(0, d.room);
	if (chance(50))
		d.a->next = edge(PERIOD_MIN, d.a->max_frames);
	if (chance(50))
		d.a->nrep = edge(0, SMODEM_USR_REPORTS);
	k = rnd(SMODEM_USR_REPORTS + 1);
	for (i = 0; i < k; i++) {
		d.a->rep[i].type = edge(SMODEM_USR_CONNECTED, SMODEM_USR_PHASE);
		d.a->rep[i].id = chance(50) ? d.call_id + rnd(3) - 1 : (u32)rnd64();
		d.a->rep[i].a = chance(30) ? edge(AT_RC_OK, AT_RC_FAX_FCERROR) :
				chance(50) ? edge(300, 14400) : (u32)rnd64();
		d.a->rep[i].b = (u32)rnd64();
	}
	/* one for certain where DONE reads (nrep, clamped) */
	if (chance(50)) {
		k = d.a->nrep < SMODEM_USR_REPORTS ? d.a->nrep : SMODEM_USR_REPORTS;
		bad_phase(&d.a->rep[k ? rnd(k) : 0]);
		if (!k)
			d.a->nrep = 1;
	}
	/* what the kernel wrote: it must not read it back */
	if (chance(30)) {
		d.a->n = (u32)rnd64();
		d.a->tx_len = edge(0, SMODEM_USR_TX_BYTES);
		d.a->rx_room = edge(0, SMODEM_USR_RX_BYTES);
		d.a->gap_len = (u32)rnd64();
		d.a->seq = rnd64();
		d.a->pos = rnd64();
		d.a->cmd.what = (u32)rnd64();
		d.a->cmd.id = (u32)rnd64();
	}
	if (chance(20)) {
		d.a->magic = (u32)rnd64();
		d.a->size = (u32)rnd64();
		d.a->rx_off = (u32)rnd64();
		d.a->tx_off = edge(0, d.size);
		d.a->fill_off = (u32)rnd64();
		d.a->max_frames = (u32)rnd64();
	}
	if (chance(30) && in_area(offsetof(struct smodem_usr_area, show), 16)) {
		d.a->show_cur = (u32)rnd64();
		d.a->show_len[0] = edge(0, SMODEM_USR_SHOW_BYTES);
		d.a->show_len[1] = edge(0, SMODEM_USR_SHOW_BYTES);
	}
}

static void race_once(void)
{
	if (!d.a)
		return;
	switch (rnd(4)) {
	case 0:	/* flip between valid and not */
		d.a->next = rnd(2) ? d.a->max_frames + 1 : PERIOD_MIN;
		d.a->nrep = rnd(2) ? 0xffffffff : 1;
		d.a->rx_len = rnd(2) ? 0xffffffff : 0;
		d.a->tx_used = rnd(2) ? 0xffffffff : 0;
		break;
	case 1:
		d.a->rep[rnd(SMODEM_USR_REPORTS)].type = (u32)rnd64();
		d.a->rep[rnd(SMODEM_USR_REPORTS)].a = (u32)rnd64();
		break;
	case 2:
		scribble(race_room, 64);
		break;
	default:
		d.a->show_cur = (u32)rnd64();
		d.a->show_len[rnd(2)] = (u32)rnd64();
		break;
	}
}

static void *racer_main(void *arg)
{
	sigjmp_buf jb;

	rs = (unsigned long long)(uintptr_t)arg;
	fault_jb = &jb;
	if (sigsetjmp(jb, 1)) {
		/* the area went away under this race: wait it out */
		while (__atomic_load_n(&race_on, __ATOMIC_ACQUIRE))
			sched_yield();
		__atomic_store_n(&race_ack, 0, __ATOMIC_RELEASE);
	}
	for (;;) {
		while (sem_wait(&race_go) && errno == EINTR)
			;
		if (racer_stop)
			break;
		__atomic_store_n(&race_ack, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&race_on, __ATOMIC_ACQUIRE))
			race_once();
		__atomic_store_n(&race_ack, 0, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void race(int on)
{
	if (on == __atomic_load_n(&race_on, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&race_on, on, __ATOMIC_RELEASE);
	if (on)
		sem_post(&race_go);
	/* on: it is scribbling; off: it stopped (before the next WAIT) */
	while (__atomic_load_n(&race_ack, __ATOMIC_ACQUIRE) != on)
		sched_yield();
}

static void unmap(void)
{
	if (d.a)
		munmap(d.a, d.mlen);
	d.a = NULL;
	d.mlen = 0;
}

/* mmap() as asked; returns the mapping or NULL, checking the refusals. */
static void *try_map(size_t len, int prot, int flags, off_t off, int must_fail,
		     const char *what)
{
	void *p = mmap(NULL, len, prot, flags, d.fd, off);

	if (p == MAP_FAILED) {
		ADD(mmaps_refused, 1);
		return NULL;
	}
	ADD(mmaps_taken, 1);
	if (must_fail) {
		violation("mmap %s (len %zu off %lld) succeeded", what, len,
			  (long long)off);
		munmap(p, len);
		return NULL;
	}
	return p;
}

/* Wrong mappings first, then (mostly) a usable one. */
static void map_fuzz(void)
{
	struct smodem_usr_area *h;
	size_t size;
	void *p;

	h = try_map(PAGE, PROT_READ, MAP_SHARED, 0, 0, "header");
	if (!h)
		return;
	size = h->size;
	d.size = h->size;
	munmap(h, PAGE);
	if (size < PAGE || size > (1 << 24)) {
		violation("area size %zu", size);
		return;
	}
	switch (ON(X_MAP) ? rnd(8) : 7) {
	case 0:
		try_map(size + PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, 0, 1,
			"past the area");
		break;
	case 1:
		try_map(PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, PAGE, 1,
			"at an offset");
		break;
	case 2:
		try_map(size, PROT_READ, MAP_SHARED, (off_t)0x7ffffffffffff000LL, 1,
			"at a huge offset");
		break;
	case 3:
		try_map(1UL << 30, PROT_READ, MAP_SHARED, 0, 1, "of 1 GiB");
		break;
	case 4:
		try_map(0, PROT_READ, MAP_SHARED, 0, 1, "empty");
		break;
	case 5:
		p = try_map(size, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_SHARED, 0, 0,
			    "executable");
		if (p)
			munmap(p, size);
		break;
	case 6:
		/* private: its writes are its own */
		p = try_map(size, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0, 0, "private");
		if (p && chance(50)) {
			d.a = p;
			d.mlen = size;
			d.shared = 0;
			return;
		}
		if (p)
			munmap(p, size);
		break;
	default:
		break;
	}
	if (chance(5))
		return;		/* no mapping: ioctls only */
	d.mlen = chance(10) ? PAGE : size;
	d.a = try_map(d.mlen, PROT_READ | PROT_WRITE, MAP_SHARED, 0, 0, "the area");
	d.shared = 1;
	if (!d.a)
		d.mlen = 0;
}

/* What a modem would answer: the DTE's command, a call that connects. */
static void valid_period(void)
{
	struct smodem_cmd c;
	u32 nrep = 0, n, i;
	struct smodem_usr_report *r;

	if (!in_area(0, offsetof(struct smodem_usr_area, show_cur)))
		return;
	memcpy(&c, &d.a->cmd, sizeof(c));
	n = d.a->n;
	r = d.a->rep;
	if (c.what & SMODEM_CMD_HANGUP)
		d.online = 0;
	if (c.what & SMODEM_CMD_CALL) {
		d.call_id = c.id;
		d.online = 0;
		d.connect_in = 1 + rnd(20);
	}
	if (c.what & SMODEM_CMD_FAX)
		r[nrep++] = (struct smodem_usr_report){ SMODEM_USR_RESULT, c.id,
			AT_RC_FAX_CONNECT + rnd(AT_FAXRC_FCERROR + 1), 0 };
	if (d.connect_in > 0 && --d.connect_in == 0) {
		r[nrep++] = (struct smodem_usr_report){ SMODEM_USR_CONNECTED,
			d.call_id, 2400, rnd(2) };
		d.online = 1;
	}
	if (d.online && chance(1)) {
		r[nrep++] = (struct smodem_usr_report){ SMODEM_USR_RESULT,
			d.call_id, AT_RC_NO_CARRIER, 0 };
		d.online = 0;
	}
	if (chance(1))
		r[nrep++] = (struct smodem_usr_report){ SMODEM_USR_RING, 0, rnd(2), 0 };
	if (chance(5))
		good_phase(&r[nrep++]);
	d.a->nrep = nrep;
	d.a->tx_used = d.online ? d.tx_len : rnd(d.tx_len + 1);
	d.a->rx_len = d.online ? rnd(d.room + 1) : 0;
	for (i = 0; i < n && i < d.a->max_frames &&
	     in_area(d.a->tx_off + 2 * (i + 1), 0); i++)
		((s16 *)((u8 *)d.a + d.a->tx_off))[i] = (s16)rnd64();
	d.a->next = chance(3) ? PERIOD_MIN + rnd(d.a->max_frames) : n;
	if (d.a->next > d.a->max_frames)
		d.a->next = n;
}

static void end_episode(void)
{
	unmap();
	if (d.fd >= 0)
		close(d.fd);
	d.fd = -1;
	d.busy = 0;
}

/* A child sharing the mapping and the open file, briefly. */
static void fork_child(void)
{
	pid_t pid;
	int i;

	/* from now on all of rx_bytes may be taken: the child's DONE */
	fill_rx(SMODEM_USR_RX_BYTES);
	pid = fork();
	if (pid < 0)
		return;
	if (pid > 0) {
		d.children++;
		ADD(forks, 1);
		return;
	}
	/* only this thread survives: no stdio, no locks */
	rs ^= (unsigned long long)getpid() << 17;
	racer_stop = 1;
	fault_jb = NULL;
	for (i = 0; i < 5 + (int)rnd(20); i++) {
		switch (rnd(5)) {
		case 0:
			ioctl(d.fd, SMODEM_USR_WAIT);
			break;
		case 1:
			ADD(offered[d.dev], SMODEM_USR_RX_BYTES);
			ioctl(d.fd, SMODEM_USR_DONE);
			break;
		case 2:
			if (d.a && d.shared && d.mlen > offsetof(struct smodem_usr_area, rx_bytes))
				bad_fields();
			break;
		case 3:
			if (d.a)
				munmap(d.a, d.mlen);
			d.a = NULL;
			break;
		default:
			sleep_us(rnd(5000));
			break;
		}
	}
	if (chance(30))
		kill(getpid(), SIGKILL);
	_exit(0);
}

static void reap_children(int block)
{
	while (d.children > 0 && waitpid(-1, NULL, block ? 0 : WNOHANG) > 0)
		d.children--;
}

static void *closer_main(void *arg)
{
	int fd = (int)(intptr_t)arg;

	sleep_us(rnd(20000));
	close(fd);
	return NULL;
}

/* The ioctls out of order and unknown, with bad arguments. */
static void misuse(void)
{
	static const unsigned long ptrs[] = { 0, 1, 0xdeadbeef,
		0xffffffff81000000UL, 0xffff888000000000UL, (unsigned long)-1 };
	unsigned long arg = ptrs[rnd(sizeof(ptrs) / sizeof(ptrs[0]))];
	unsigned int cmd;
	int r;

	ADD(misuse, 1);
	switch (rnd(5)) {
	case 0:
		/* a child sharing the file may have taken a period */
		if (d.busy || d.children)
			return;
		r = ioctl(d.fd, SMODEM_USR_DONE, arg);
		if (r == 0 || (errno != EINVAL && errno != EPIPE && errno != ENODEV))
			violation("DONE with nothing handed out: %d %s", r,
				  strerror(errno));
		break;
	case 1:
		if (!d.busy || d.children)
			return;
		r = ioctl(d.fd, SMODEM_USR_WAIT, arg);
		if (r == 0 || (errno != EBUSY && errno != EPIPE && errno != ENODEV))
			violation("WAIT twice: %d %s", r, strerror(errno));
		break;
	case 2:
		do {
			cmd = (u32)rnd64();
			if (chance(50))
				cmd = _IOC(rnd(4), 'S', rnd(256), rnd(1 << 14));
		} while (cmd == SMODEM_USR_WAIT || cmd == SMODEM_USR_DONE ||
			 cmd == SMODEM_USR_DONE_WAIT);
		r = ioctl(d.fd, cmd, arg);
		/* the VFS's own (FIONBIO, FIGETBSZ, ...) answer first */
		if (r == 0 && _IOC_TYPE(cmd) == 'S')
			violation("ioctl 0x%x accepted", cmd);
		break;
	case 3: {
		char buf[16];

		if (read(d.fd, buf, sizeof(buf)) > 0 || write(d.fd, buf, 1) > 0 ||
		    lseek(d.fd, 0, SEEK_SET) == 0)
			violation("read/write/lseek accepted");
		break;
	}
	default: {
		struct pollfd p = { .fd = d.fd, .events = POLLIN | POLLOUT };

		ADD(polls, 1);
		poll(&p, 1, rnd(20));
		break;
	}
	}
}

/* The mapping changed under a period. */
static void remap(void)
{
	void *p;

	if (!d.a)
		return;
	switch (rnd(4)) {
	case 0:
		ADD(munmaps, 1);
		unmap();
		break;
	case 1:
		ADD(mremaps, 1);
		p = mremap(d.a, d.mlen, d.mlen + PAGE * (1 + rnd(4)), MREMAP_MAYMOVE);
		if (p != MAP_FAILED)
			violation("mremap grew the area");
		break;
	case 2:
		ADD(mremaps, 1);
		if (d.mlen > PAGE && chance(50)) {
			p = mremap(d.a, d.mlen, PAGE, 0);
			if (p != MAP_FAILED)
				d.mlen = PAGE;
		} else {
			p = mremap(d.a, d.mlen, d.mlen, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
			if (p == MAP_FAILED)
				p = mremap(d.a, d.mlen, d.mlen, MREMAP_MAYMOVE);
			if (p != MAP_FAILED)
				d.a = p;
		}
		break;
	default:
		ADD(mprotects, 1);
		mprotect(d.a, d.mlen, PROT_READ);
		/* a write now faults, and is recovered */
		d.a->next = 0;
		break;
	}
}

static void stall(void)
{
	ADD(stalls, 1);
	if (chance(3)) {
		/* past SMODEM_USR_STALL_MS: detached, EPIPE next */
		ADD(long_stalls, 1);
		sleep_us(2100000 + rnd(400000));
	} else {
		sleep_us(rnd(40000));
	}
}

/* A period is ours: what WAIT wrote, before anything scribbles it. */
static void handed_out(void)
{
	ADD(periods, 1);
	d.busy = 1;
	d.room = 0;
	d.tx_len = 0;
	if (in_area(0, offsetof(struct smodem_usr_area, rep))) {
		d.room = d.a->rx_room;
		d.tx_len = d.a->tx_len;
		if (d.shared && !d.children && (d.room > SMODEM_USR_RX_BYTES ||
						d.tx_len > SMODEM_USR_TX_BYTES))
			violation("WAIT handed out rx_room %u tx_len %u", d.room,
				  d.tx_len);
	}
}

static int wait_period(int nonblock)
{
	struct pollfd p = { .fd = d.fd, .events = POLLIN };
	int r;

	if (nonblock) {
		ADD(polls, 1);
		poll(&p, 1, 100);
	}
	r = ioctl(d.fd, SMODEM_USR_WAIT);
	if (r && errno == EBUSY) {
		/*
		 * A child's WAIT (the child may have exited since): the
		 * period is handed out, DONE it.
		 */
		ADD(wait_busy, 1);
		d.busy = 1;
		d.room = 0;
		return 0;
	}
	if (r) {
		switch (errno) {
		case EPIPE:
			ADD(wait_err[0], 1);
			break;
		case EAGAIN:
			ADD(wait_err[1], 1);
			break;
		case EINTR:
			ADD(wait_err[2], 1);
			break;
		default:
			ADD(wait_err[3], 1);
			break;
		}
		return errno;
	}
	handed_out();
	return 0;
}

static void done_period(void)
{
	u32 limit = d.room;
	int r, racing = 0;

	/* what DONE may take, as 0x80-0xbf; a child's DONE may take all */
	if (d.children || !d.shared)
		limit = SMODEM_USR_RX_BYTES;
	if (d.shared)
		fill_rx(limit);
	if (chance(d.hostility))
		bad_fields();
	if (ON(X_RACE) && d.a && d.shared && chance(d.hostility / 2 + 5)) {
		race_room = limit;
		race(1);
		racing = 1;
		ADD(races, 1);
	}
	ADD(offered[d.dev], d.a && d.shared ? limit : SMODEM_USR_RX_BYTES);
	if (ON(X_DONE_WAIT) && !racing && chance(30)) {
		/* both in one call: the next period handed out at once */
		r = ioctl(d.fd, SMODEM_USR_DONE_WAIT);
		d.busy = 0;
		ADD(dones, 1);
		if (!r)
			handed_out();
		return;
	}
	r = ioctl(d.fd, SMODEM_USR_DONE);
	if (racing)
		race(0);
	if (r)
		ADD(done_err, 1);
	else
		ADD(dones, 1);
	d.busy = 0;
}

/* One episode on one device. */
static void episode(void)
{
	/* live across the fault handler's siglongjmp() */
	volatile int periods = 1 + rnd(chance(20) ? 2000 : 200), i, flags = O_RDWR;
	int e;
	sigjmp_buf jb;
	pthread_t t;

	d.dev = rnd(ndev);
	if (chance(5))
		flags = chance(50) ? O_RDONLY : O_WRONLY;
	if (chance(20))
		flags |= O_NONBLOCK;
	d.fd = open(devs[d.dev], flags | O_CLOEXEC);
	if (d.fd < 0) {
		if (errno == EBUSY)
			ADD(busy, 1);
		else
			violation("open %s: %s", devs[d.dev], strerror(errno));
		sleep_us(rnd(30000));
		return;
	}
	ADD(opens, 1);
	ADD(episodes, 1);
	d.episodes++;
	d.hostility = chance(30) ? 0 : chance(50) ? rnd(20) : rnd(101);
	d.connect_in = -1;
	d.online = 0;
	d.call_id = 0;
	map_fuzz();

	fault_jb = &jb;
	if (sigsetjmp(jb, 1)) {
		/* the mapping is gone or read-only: go on without it */
		ADD(faults, 1);
		race(0);
		unmap();
	}
	for (i = 0; i < periods; i++) {
		reap_children(0);
		/* one stall for certain: the first daemon's 20th period */
		if (!d.slot && !d.gen && d.episodes == 1 && i == 20 && d.busy) {
			ADD(long_stalls, 1);
			sleep_us(2500000);
		}
		if (!d.busy) {
			e = wait_period(flags & O_NONBLOCK);
			if (e == EPIPE || e == ENODEV || e == EBADF)
				break;
			if (e)
				continue;
		}
		if (chance(d.hostility)) {
			switch (rnd(12)) {
			case 0:
				if (ON(X_MISUSE))
					misuse();
				break;
			case 1:
				if (ON(X_REMAP))
					remap();
				break;
			case 2:
				if (ON(X_STALL))
					stall();
				break;
			case 3:
				if (ON(X_FORK) && chance(20))
					fork_child();
				break;
			case 4:
				if (ON(X_GARBAGE) && d.a && in_area(0, d.mlen) && chance(50)) {
					ADD(garbage, 1);
					scribble(d.children ? SMODEM_USR_RX_BYTES : d.room,
						 1 + rnd(4096));
				}
				break;
			case 5:
				if (!ON(X_CLOSE))
					break;
				/* close from another thread while this one waits */
				done_period();
				ADD(close_in_wait, 1);
				pthread_create(&t, NULL, closer_main,
					       (void *)(intptr_t)d.fd);
				ioctl(d.fd, SMODEM_USR_WAIT);
				pthread_join(t, NULL);
				d.fd = -1;
				d.busy = 0;
				goto out;
			case 6:
				if (ON(X_EXIT) && chance(10)) {
					ADD(exits, 1);
					race(0);
					_exit(0);
				}
				break;
			case 7:
				if (ON(X_EXIT) && chance(10)) {
					ADD(self_kills, 1);
					kill(getpid(), SIGKILL);
				}
				break;
			case 8:
				if (chance(30))
					goto out;	/* closes mid-period */
				break;
			default:
				if (ON(X_MISUSE))
					misuse();
				break;
			}
		}
		if (d.busy) {
			valid_period();
			done_period();
		}
	}
out:
	fault_jb = NULL;
	end_episode();
}

static void daemon_main(int slot, int gen, unsigned long long s)
{
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };

	rs = s;
	d.slot = slot;
	d.gen = gen;
	d.fd = -1;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sem_init(&race_go, 0, 0);
	pthread_create(&racer, NULL, racer_main, (void *)(uintptr_t)(s ^ 0x5bd1e995));
	for (;;) {
		episode();
		reap_children(0);
	}
}

/* -- the DTE, one per device ------------------------------------------------------ */

static volatile sig_atomic_t dte_stop;

static void on_term(int sig)
{
	(void)sig;
	dte_stop = 1;
}

static void dte_main(int dev, unsigned long long s)
{
	static const char *const cmds[] = {
		"AT\r", "ATE0\r", "ATD123\r", "ATDT5551234;\r", "ATA\r", "ATH\r",
		"ATO\r", "AT+FCLASS=1\r", "AT+FCLASS=0\r", "AT+FTH=3\r",
		"AT+FRH=3\r", "AT+FTM=96\r", "AT+FRM=96\r", "AT+FTS=1\r",
		"ATS0=1\r", "ATS0=0\r", "ATZ\r", "ATX0\r", "ATD1\r", "ATD1\r",
	};
	char tty[64], buf[1024], data[64];
	const char *num = devs[dev] + strcspn(devs[dev], "0123456789");
	struct termios t;
	int fd, i, m;
	ssize_t k;

	rs = s;
	signal(SIGTERM, on_term);
	snprintf(tty, sizeof(tty), "/dev/ttySM%s", num);
	fd = open(tty, O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "usrfuzz: %s: %s\n", tty, strerror(errno));
		_exit(2);
	}
	if (!tcgetattr(fd, &t)) {
		cfmakeraw(&t);
		t.c_cflag |= CLOCAL | CREAD;
		tcsetattr(fd, TCSANOW, &t);
	}
	while (!dte_stop) {
		if (!ON(X_DTE)) {
			sleep_us(100000);
			continue;
		}
		while ((k = read(fd, buf, sizeof(buf))) > 0) {
			ADD(dte_bytes[dev], k);
			for (i = 0; i < k; i++) {
				u8 c = (u8)buf[i];

				if (c >= B_LO)
					ADD(dte_b[dev], 1);
				else if (c >= A_LO)
					ADD(dte_a[dev], 1);
			}
		}
		switch (rnd(8)) {
		case 0:
			sleep_us(1100000);
			if (write(fd, "+++", 3) < 0)
				break;
			sleep_us(1100000);
			break;
		case 1:
			for (i = 0; i < (int)sizeof(data); i++)
				data[i] = (char)(0x20 + rnd(0x5f));
			if (write(fd, data, 1 + rnd(sizeof(data))) < 0)
				break;
			break;
		case 2:
			m = TIOCM_DTR;
			ioctl(fd, chance(50) ? TIOCMBIC : TIOCMBIS, &m);
			break;
		default: {
			const char *c = cmds[rnd(sizeof(cmds) / sizeof(cmds[0]))];

			ADD(dte_cmds[dev], 1);
			if (write(fd, c, strlen(c)) < 0 && errno == EIO) {
				/* hung up (carrier lost, &C1): reopen */
				close(fd);
				fd = open(tty, O_RDWR | O_NOCTTY | O_NONBLOCK);
				if (fd < 0)
					_exit(2);
			}
			/* a call: time to connect and carry line bytes */
			if (c[2] == 'D' || c[2] == 'A')
				sleep_us(200000 + rnd(800000));
			break;
		}
		}
		sleep_us(5000 + rnd(100000));
	}
	/* what is left */
	m = TIOCM_DTR;
	ioctl(fd, TIOCMBIS, &m);
	while ((k = read(fd, buf, sizeof(buf))) > 0) {
		ADD(dte_bytes[dev], k);
		for (i = 0; i < k; i++) {
			if ((u8)buf[i] >= B_LO)
				ADD(dte_b[dev], 1);
			else if ((u8)buf[i] >= A_LO)
				ADD(dte_a[dev], 1);
		}
	}
	close(fd);
	_exit(0);
}

/* -- the supervisor ------------------------------------------------------------------ */

static unsigned long long child_seed(int slot, int gen)
{
	unsigned long long x = seed ^ ((unsigned long long)slot << 40) ^
			       ((unsigned long long)gen << 8);

	rs = x;
	return rnd64();
}

static pid_t spawn(int slot, int gen)
{
	unsigned long long s = child_seed(slot, gen);
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		perror("usrfuzz: fork");
		exit(2);
	}
	if (!pid)
		daemon_main(slot, gen, s);
	if (verbose)
		printf("usrfuzz: daemon %d generation %d seed %llu pid %d\n",
		       slot, gen, s, (int)pid);
	return pid;
}

static void usage(void)
{
	fprintf(stderr, "usage: usrfuzz [-s SEED] [-t SECONDS] [-j DAEMONS] [-x MASK] [-v] DEV...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_DAEMONS], dte[MAX_DEV], stopped = 0;
	int gens[MAX_DAEMONS], j = 4, c, i, st, bad = 0, left;
	double seconds = 20, start, end, cont_at = 0, next_kill;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	seed = (unsigned long long)ts.tv_sec * 1000003ULL ^ (unsigned long long)ts.tv_nsec;
	while ((c = getopt(argc, argv, "s:t:j:x:vh")) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			seconds = atof(optarg);
			break;
		case 'j':
			j = atoi(optarg);
			break;
		case 'x':
			skip = strtoul(optarg, NULL, 0);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage();
		}
	}
	for (; optind < argc && ndev < MAX_DEV; optind++)
		devs[ndev++] = argv[optind];
	if (!ndev || j < 1 || j > MAX_DAEMONS || seconds <= 0)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("usrfuzz: seed %llu seconds %g daemons %d devices %d skip 0x%x uid %d\n",
	       seed, seconds, j, ndev, skip, (int)getuid());
	tot = mmap(NULL, sizeof(*tot), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tot == MAP_FAILED) {
		perror("usrfuzz: mmap");
		return 2;
	}
	for (i = 0; i < ndev; i++) {
		unsigned long long s = child_seed(1000 + i, 0);

		dte[i] = fork();
		if (!dte[i])
			dte_main(i, s);
	}
	for (i = 0; i < j; i++) {
		gens[i] = 0;
		pids[i] = spawn(i, 0);
	}
	rs = seed;
	start = now_ms();
	end = start + seconds * 1e3;
	next_kill = now_ms() + 200 + rnd(1000);
	while (now_ms() < end) {
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p > 0) {
			for (i = 0; i < j; i++) {
				if (pids[i] != p)
					continue;
				if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL) {
					violation("daemon %d died of signal %d",
						  i, WTERMSIG(st));
				}
				if (WIFEXITED(st) && WEXITSTATUS(st) == 99)
					violation("daemon %d: unrecovered fault", i);
				pids[i] = spawn(i, ++gens[i]);
			}
			for (i = 0; i < ndev; i++)
				if (dte[i] == p) {
					violation("DTE %d exited (%d)", i, st);
					dte[i] = 0;
				}
			continue;
		}
		if (stopped && now_ms() >= cont_at) {
			kill(stopped, SIGCONT);
			stopped = 0;
		}
		if (now_ms() >= next_kill) {
			i = rnd(j);
			/* spared: the first daemon's certain stall */
			if (!i && !gens[0] && now_ms() < start + 4000)
				i = 1 % j;
			if (ON(X_STOP) && !stopped && chance(25)) {
				/* longer than a stall: detached meanwhile */
				stopped = pids[i];
				kill(stopped, SIGSTOP);
				cont_at = now_ms() + 2300 + rnd(500);
				ADD(stopped, 1);
			} else if (ON(X_KILL) && pids[i] != stopped) {
				kill(pids[i], SIGKILL);
				ADD(killed, 1);
			}
			next_kill = now_ms() + 100 + rnd(1500);
		}
		sleep_us(2000);
	}
	if (stopped)
		kill(stopped, SIGCONT);
	for (i = 0; i < j; i++)
		kill(pids[i], SIGKILL);
	/* a daemon that does not die is stuck in the kernel: the script says */
	for (left = j; left > 0;) {
		pid_t p = waitpid(-1, &st, 0);

		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			break;
		for (i = 0; i < j; i++)
			if (pids[i] == p) {
				pids[i] = 0;
				left--;
			}
		for (i = 0; i < ndev; i++)
			if (dte[i] == p) {
				violation("DTE %d exited (%d)", i, st);
				dte[i] = 0;
			}
	}
	/* the daemons are gone (their forked children too, soon): the DTEs */
	sleep_us(300000);
	for (i = 0; i < ndev; i++)
		if (dte[i])
			kill(dte[i], SIGTERM);
	for (i = 0; i < ndev; i++)
		if (dte[i])
			waitpid(dte[i], &st, 0);
	while (waitpid(-1, &st, WNOHANG) > 0)
		;

	for (i = 0; i < ndev; i++) {
		printf("usrfuzz: %s: dte_bytes=%ld dte_cmds=%ld dte_offered=%ld offered=%ld past_offer=%ld\n",
		       devs[i], tot->dte_bytes[i], tot->dte_cmds[i], tot->dte_a[i],
		       tot->offered[i], tot->dte_b[i]);
		if (tot->dte_b[i]) {
			violation("%s: the DTE read %ld bytes past DONE's offer",
				  devs[i], tot->dte_b[i]);
		}
		if (tot->dte_a[i] > tot->offered[i]) {
			violation("%s: the DTE read %ld line bytes, %ld offered",
				  devs[i], tot->dte_a[i], tot->offered[i]);
		}
	}
	bad = tot->violations != 0;
	printf("usrfuzz: episodes=%ld opens=%ld busy=%ld periods=%ld dones=%ld done_err=%ld "
	       "wait_epipe=%ld wait_eagain=%ld wait_eintr=%ld wait_other=%ld wait_ebusy=%ld "
	       "bad_fields=%ld races=%ld garbage=%ld forks=%ld close_in_wait=%ld "
	       "munmaps=%ld mremaps=%ld mprotects=%ld mmaps_refused=%ld mmaps_taken=%ld "
	       "stalls=%ld long_stalls=%ld exits=%ld self_kills=%ld killed=%ld stopped=%ld "
	       "faults=%ld misuse=%ld polls=%ld violations=%ld\n",
	       tot->episodes, tot->opens, tot->busy, tot->periods, tot->dones,
	       tot->done_err, tot->wait_err[0], tot->wait_err[1], tot->wait_err[2],
	       tot->wait_err[3], tot->wait_busy, tot->bad_fields, tot->races, tot->garbage,
	       tot->forks, tot->close_in_wait, tot->munmaps, tot->mremaps,
	       tot->mprotects, tot->mmaps_refused, tot->mmaps_taken, tot->stalls,
	       tot->long_stalls, tot->exits, tot->self_kills, tot->killed,
	       tot->stopped, tot->faults, tot->misuse, tot->polls, tot->violations);
	if (bad)
		printf("usrfuzz: first violation: %s\n", tot->violation);
	printf("usrfuzz: %s (seed %llu)\n", bad ? "FAILED" : "ok", seed);
	return bad;
}
