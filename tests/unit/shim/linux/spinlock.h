/*
 * User-space stand-in for the kernel's raw spinlocks: a pthread mutex, which
 * ThreadSanitizer understands, so that the tests see every ordering the
 * lock gives (and, without it, every race).
 */
#ifndef SHIM_LINUX_SPINLOCK_H
#define SHIM_LINUX_SPINLOCK_H
#include <pthread.h>

typedef pthread_mutex_t raw_spinlock_t;
#define raw_spin_lock_init(l)	pthread_mutex_init((l), NULL)
#define raw_spin_lock(l)	pthread_mutex_lock(l)
#define raw_spin_unlock(l)	pthread_mutex_unlock(l)
#define raw_spin_lock_irqsave(l, flags) \
	do { (flags) = 0; pthread_mutex_lock(l); } while (0)
#define raw_spin_unlock_irqrestore(l, flags) \
	do { (void)(flags); pthread_mutex_unlock(l); } while (0)
#endif
