/* SPDX-License-Identifier: GPL-2.0 */
/* The processing thread shared by context=thr, res and oth. */
#ifndef SMODEM_CTX_KTHREAD_H
#define SMODEM_CTX_KTHREAD_H

#include "smodem.h"
#include "smodem_sched.h"

/*
 * own: bytes of the context's own state (res's controller), zeroed, kept
 * beside the thread's in ctx_priv until stop: smodem_kthread_own().
 */
int smodem_kthread_start(struct smodem_dev *sd, const struct sched_attr *a,
			 size_t own);
void *smodem_kthread_own(const struct smodem_dev *sd);
void smodem_kthread_stop(struct smodem_dev *sd);
void smodem_kthread_kick(struct smodem_dev *sd);
void smodem_kthread_show(struct smodem_dev *sd, struct seq_file *m);
/* One wakeup of a processing thread (these, irqt's): catch up, account. */
void smodem_thread_activation(struct smodem_dev *sd);

#endif
