/*
 * A reader that never lets go: opens one file once and reads it whole over
 * and over (lseek to 0, read to EOF) until a read or the lseek fails, as
 * when its debugfs file is removed under it, or MAX_SECONDS pass.  With the
 * device torn down on the other CPU, every read races the teardown.
 * Usage: statread PATH [MAX_SECONDS [READY_FILE]]: READY_FILE is created
 * after the first whole read, so that the teardown can wait for the reader.
 * Prints "<whole reads> <how it ended: eof-error errno | timeout>".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[8192];
	long reads = 0;
	int fd, max_s = argc > 2 ? atoi(argv[2]) : 30;
	const char *ready = argc > 3 ? argv[3] : NULL;
	time_t end = time(NULL) + max_s;

	if (argc < 2) {
		fprintf(stderr, "usage: statread PATH [MAX_SECONDS [READY_FILE]]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		printf("0 open-error %d\n", errno);
		return 0;
	}
	for (;;) {
		ssize_t n;

		if (lseek(fd, 0, SEEK_SET) < 0)
			break;
		do {
			n = read(fd, buf, sizeof(buf));
		} while (n > 0);
		if (n < 0)
			break;
		if (reads++ == 0 && ready)
			close(open(ready, O_WRONLY | O_CREAT, 0644));
		if (time(NULL) > end) {
			printf("%ld timeout\n", reads);
			return 0;
		}
	}
	printf("%ld error %d\n", reads, errno);
	close(fd);
	return 0;
}
