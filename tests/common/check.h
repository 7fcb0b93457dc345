/*
 * The C tests' one check (user space only): CHECK(cond) or
 * CHECK(cond, fmt, ...) counts a check and, when cond is false, prints
 * "FAIL file:line: cond: message".  A test ends with
 * "return t_report(name);", which prints "name: N passed, M failed" (what
 * tests/common/ctest.py reads) and is 1 when a check failed or none ran:
 * a program whose checks never ran must not pass.
 */
#ifndef SMODEM_TEST_CHECK_H
#define SMODEM_TEST_CHECK_H

/* CHECK(cond) passes an empty message, which is what it means */
#pragma GCC diagnostic ignored "-Wformat-zero-length"

extern int t_failures, t_checks;

void t_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int t_report(const char *name);

#define CHECK(cond, ...) do { \
	t_checks++; \
	if (!(cond)) \
		t_fail(__FILE__, __LINE__, #cond, "" __VA_ARGS__); \
} while (0)

#endif
