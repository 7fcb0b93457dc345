/* The C tests' one check: see check.h. */
#include <stdarg.h>
#include <stdio.h>
#include "check.h"

int t_failures, t_checks;

void t_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	t_failures++;
	printf("FAIL %s:%d: %s", file, line, cond);
	if (*fmt) {
		printf(": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
	fflush(stdout);
}

int t_report(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, t_checks - t_failures, t_failures);
	if (!t_checks)
		printf("%s: FAIL (no checks ran)\n", name);
	return t_failures || !t_checks;
}
