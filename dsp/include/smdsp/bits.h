/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bit-stream callbacks between the modulators and the framing layers.
 */
#ifndef SMDSP_BITS_H
#define SMDSP_BITS_H

#include <smdsp/compat.h>

/* Next bit to send (0 or 1). */
typedef int (*smdsp_get_bit_fn)(void *user);
/* A received bit (0 or 1). */
typedef void (*smdsp_put_bit_fn)(void *user, int bit);

enum smdsp_status {
	SMDSP_STATUS_CARRIER_UP = 1,
	SMDSP_STATUS_CARRIER_DOWN,
	SMDSP_STATUS_TRAINING,
	SMDSP_STATUS_TRAINED,		/* data can flow; see the rate */
	SMDSP_STATUS_TRAINING_FAILED,
	SMDSP_STATUS_RETRAIN,
};

typedef void (*smdsp_status_fn)(void *user, enum smdsp_status status);

#endif /* SMDSP_BITS_H */
