/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.42bis for smline's far modem: SpanDSP 0.0.6's own compressor and
 * decompressor between its V.42 and the data service, run with what the
 * XID exchange agreed (SpanDSP's v42.c only sends the XID group; it has no
 * V.42bis in its data path). See v42bis_far.c.
 */
#ifndef SML_V42BIS_FAR_H
#define SML_V42BIS_FAR_H

#include "sml.h"

/* what SpanDSP 0.0.6's V.42bis can do (its dictionary is 4096 entries) */
#define SML_V42BIS_MIN_P1 512
#define SML_V42BIS_MAX_P1 4096
#define SML_V42BIS_MIN_P2 6
#define SML_V42BIS_MAX_P2 250

struct sml_v42bis_cfg {
	bool off;		/* offer and accept no V.42bis */
	int p1;			/* the largest dictionary offered / accepted */
	int p2;			/* the longest string offered / accepted */
};

/* what the call agreed and moved (all zero without V.42bis) */
struct sml_v42bis_stats {
	bool tx, rx;		/* we compress / decompress */
	int p1, p2;
	uint64_t tx_in, tx_out;	/* user bytes in, compressed bytes out */
	uint64_t rx_in, rx_out;	/* compressed bytes in, user bytes out */
	uint64_t resets;	/* C-INIT: link set-ups that started the dictionaries */
	/* the V.42bis group of the last XID we sent (P0 -1: none) */
	int xid_p0, xid_p1, xid_p2;
};

void sml_v42bis_cfg_default(struct sml_v42bis_cfg *c);
/* "nov42bis", "v42bis", "v42bis_p1=N", "v42bis_p2=N": 0, or -1 if not ours */
int sml_v42bis_cfg_parse_word(struct sml_v42bis_cfg *c, const char *w);

struct sml_v42bis;
struct v42_state_s;

/*
 * Set v42's XID offer to cfg (before v42_restart()); calling: whether this
 * end is V.42's originator (it sends the XID command). txf/rxf: the data
 * service's FIFOs (bytes to send, bytes received).
 */
struct sml_v42bis *sml_v42bis_new(const struct sml_v42bis_cfg *cfg,
				  struct v42_state_s *v42, bool calling,
				  struct sml_fifo *txf, struct sml_fifo *rxf,
				  const char *who);
void sml_v42bis_free(struct sml_v42bis *b);
/*
 * Every good frame on the line, sent or received, before V.42 itself takes
 * a received one: the XID exchange is read from here.
 */
void sml_v42bis_frame(struct sml_v42bis *b, bool sent, const uint8_t *f, int len,
		      int64_t now);
/* the link is (re)established: C-INIT with what XID agreed */
void sml_v42bis_link_up(struct sml_v42bis *b, int64_t now);
/* V.42 wants an I frame's data: at most max bytes; *user: user bytes taken */
int sml_v42bis_get(struct sml_v42bis *b, uint8_t *msg, int max, size_t *user);
/* an I frame's data received in sequence; returns the user bytes delivered */
size_t sml_v42bis_put(struct sml_v42bis *b, const uint8_t *msg, int len);
/* compressed bytes waiting for an I frame */
bool sml_v42bis_tx_pending(const struct sml_v42bis *b);
const struct sml_v42bis_stats *sml_v42bis_stats(const struct sml_v42bis *b);

#endif /* SML_V42BIS_FAR_H */
