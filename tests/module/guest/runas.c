// SPDX-License-Identifier: GPL-2.0
/*
 * runas: run a command as an unprivileged user in the guest (busybox has
 * no su without a passwd database worth the name), for the permission
 * tests of context=usr (tests/module/test_usr_perm.py).
 *
 *   runas UID[:GID] [-r RTPRIO] [-l MEMLOCK_KB] -- COMMAND [ARG]...
 *
 * As root: sets RLIMIT_RTPRIO (-r) and RLIMIT_MEMLOCK (-l), soft and hard,
 * as systemd's LimitRTPRIO= and LimitMEMLOCK= would, drops every
 * supplementary group, takes GID (default UID) and UID, and executes
 * COMMAND.  Changing the UID away from 0 clears every capability, so the
 * command has only what an ordinary user has, plus those limits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void usage(void)
{
	fprintf(stderr, "usage: runas UID[:GID] [-r RTPRIO] [-l MEMLOCK_KB] -- COMMAND [ARG]...\n");
	exit(125);
}

static unsigned long number(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || (*end && *end != ':'))
		usage();
	return v;
}

static void limit(int res, rlim_t v, const char *what)
{
	struct rlimit r = { .rlim_cur = v, .rlim_max = v };

	if (setrlimit(res, &r)) {
		fprintf(stderr, "runas: %s: %s\n", what, strerror(errno));
		exit(125);
	}
}

int main(int argc, char **argv)
{
	const char *colon;
	uid_t uid;
	gid_t gid;
	int c;

	if (argc < 2)
		usage();
	uid = number(argv[1]);
	colon = strchr(argv[1], ':');
	gid = colon ? number(colon + 1) : uid;
	optind = 2;
	while ((c = getopt(argc, argv, "r:l:")) != -1) {
		switch (c) {
		case 'r':
			limit(RLIMIT_RTPRIO, number(optarg), "RLIMIT_RTPRIO");
			break;
		case 'l':
			limit(RLIMIT_MEMLOCK, number(optarg) * 1024, "RLIMIT_MEMLOCK");
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	if (setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
		fprintf(stderr, "runas: %u:%u: %s\n", uid, gid, strerror(errno));
		return 125;
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "runas: %s: %s\n", argv[optind], strerror(errno));
	return 127;
}
