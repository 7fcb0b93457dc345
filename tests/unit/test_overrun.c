/*
 * The overrun episode count (driver/smodem_overrun.h) from the very header
 * the module uses: its rules one call after another, then the hard
 * interrupt's side and the processing's side on two threads at once, as
 * on an SMP machine.  Built with -fsanitize=thread: a side that touched
 * the count outside the lock is a data race ThreadSanitizer reports (and
 * the totals below stop adding up).
 * Prints one line per failed check and a final "N passed, N failed".
 */
#include <pthread.h>
#include <stdio.h>
#include "smodem_overrun.h"
#include "check.h"

#define ROUNDS	200000

static struct smodem_overrun ovr;
static u64 episodes, dropped;

static void test_rules(void)
{
	u64 ep = 0, dr = 0;

	smodem_overrun_init(&ovr);
	/* the interrupt sees it, again, then the processing ends it */
	CHECK(smodem_overrun_seen(&ovr, &ep) && ep == 1);
	CHECK(!smodem_overrun_seen(&ovr, &ep) && ep == 1);
	CHECK(!smodem_overrun_end(&ovr, &ep, &dr, 512) && ep == 1 && dr == 512);
	/* the processing alone: counted there */
	CHECK(smodem_overrun_end(&ovr, &ep, &dr, 100) && ep == 2 && dr == 612);
	/* two resyncs in a row are two episodes */
	CHECK(smodem_overrun_end(&ovr, &ep, &dr, 1) && ep == 3);
	/* after the end, the interrupt opens a new one */
	CHECK(smodem_overrun_seen(&ovr, &ep) && ep == 4);
	CHECK(!smodem_overrun_end(&ovr, &ep, &dr, 0) && ep == 4 && dr == 613);
	/* an episode open over a measurement's restart counts in the new one */
	CHECK(smodem_overrun_seen(&ovr, &ep) && ep == 5);
	ep = 0;
	smodem_overrun_restart(&ovr);
	CHECK(smodem_overrun_end(&ovr, &ep, &dr, 7) && ep == 1);
	/* and one the interrupt sees again after it, once */
	CHECK(smodem_overrun_seen(&ovr, &ep) && ep == 2);
	smodem_overrun_restart(&ovr);
	ep = 0;
	CHECK(smodem_overrun_seen(&ovr, &ep) && ep == 1);
	CHECK(!smodem_overrun_seen(&ovr, &ep) && ep == 1);
	CHECK(!smodem_overrun_end(&ovr, &ep, &dr, 1) && ep == 1);
}

static void *irq_side(void *arg)
{
	unsigned long *mine = arg;
	int i;

	for (i = 0; i < ROUNDS; i++)
		if (smodem_overrun_seen(&ovr, &episodes))
			(*mine)++;
	return NULL;
}

static void *proc_side(void *arg)
{
	unsigned long *mine = arg;
	int i;

	for (i = 0; i < ROUNDS; i++)
		if (smodem_overrun_end(&ovr, &episodes, &dropped, 3))
			(*mine)++;
	return NULL;
}

static void test_two_cpus(void)
{
	unsigned long by_irq = 0, by_proc = 0;
	pthread_t a, b;

	smodem_overrun_init(&ovr);
	episodes = 0;
	dropped = 0;
	CHECK(pthread_create(&a, NULL, irq_side, &by_irq) == 0);
	CHECK(pthread_create(&b, NULL, proc_side, &by_proc) == 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("two threads: %lu episodes opened by the interrupt, %lu by the processing, %llu counted\n",
	       by_irq, by_proc, (unsigned long long)episodes);
	/* every episode either side reported counted once, none lost */
	CHECK(episodes == by_irq + by_proc);
	CHECK(dropped == 3ULL * ROUNDS);
	/* the processing counts what the interrupt had not: it ran ROUNDS times */
	CHECK(by_proc <= ROUNDS && by_irq <= ROUNDS);
}

int main(void)
{
	test_rules();
	test_two_cpus();
	return t_report("test_overrun");
}
