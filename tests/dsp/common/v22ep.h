/* V.22/V.22bis endpoints for the tests: ours or SpanDSP behind one interface. */
#ifndef V22EP_H
#define V22EP_H
#include "refs.h"
#include <smdsp/v22bis.h>
#include "chars.h"

#define EP_BYTES 4096

struct prbs_src {
	uint32_t reg;
};

struct prbs_chk {
	uint32_t hist;
	long bits, errors, skip;
	int started;
};

struct v22ep {
	int ours, caller, rate, guard;
	int passive;			/* shadow receiver: its output goes nowhere */
	struct smdsp_v22bis *m;
	v22bis_state_t *sp;
	int bert;			/* raw PRBS bits instead of 8N1 bytes */
	struct char_src src;
	struct char_sink sink;
	struct prbs_src psrc;
	struct prbs_chk pchk;
	uint8_t data[EP_BYTES];
	uint8_t got[EP_BYTES + 256];
	long trained_at;		/* sample count when data mode began (ours) */
	int carrier_downs, carrier_ups, retrains, trained;
	long now;
};

void v22ep_init(struct v22ep *e, int ours, int caller, int rate, int guard, int bert, uint64_t seed);
void v22ep_hold_on_loss(struct v22ep *e);
void v22ep_free(struct v22ep *e);
void v22ep_tx(struct v22ep *e, int16_t *buf, int n);
void v22ep_rx(struct v22ep *e, const int16_t *buf, int n);
/* ours: combined rx+tx in 1 ms steps (what the pump does) */
void v22ep_process(struct v22ep *e, const int16_t *rx, int16_t *tx, int n);
const char *v22ep_name(const struct v22ep *e);

#endif
