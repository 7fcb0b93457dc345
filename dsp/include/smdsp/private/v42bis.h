/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/v42bis.h> (v42bis.c). Users
 * outside dsp/ go through the public header.
 */
#ifndef SMDSP_PRIVATE_V42BIS_H
#define SMDSP_PRIVATE_V42BIS_H

#include <smdsp/v42bis.h>

/* V.42bis section 7 constants */
#define V42BIS_N3		8	/* character size */
#define V42BIS_N4		256	/* characters in the alphabet */
#define V42BIS_N6		3	/* control codewords */
#define V42BIS_N5		(V42BIS_N4 + V42BIS_N6)	/* first string entry */
#define V42BIS_ESC_STEP		51	/* the escape character moves on by this */

/* the encoder's output queue: room for a few characters' worst case */
#define V42BIS_OUTQ		64

/*
 * A dictionary entry: its parent, first child and next sibling (0: none;
 * entries 0-2 are the control codewords, never in a tree), its last
 * character and the length of its string (0: the entry is empty).
 */
struct v42bis_node {
	uint16_t parent;
	uint16_t child;
	uint16_t next;
	uint8_t octet;
	uint8_t depth;
};

/* one direction's dictionary and string matcher (7.x, the same both ends) */
struct v42bis_dict {
	struct v42bis_node *node;
	unsigned int n2;		/* P1 */
	unsigned int n7;		/* P2 */
	unsigned int n1;		/* largest codeword size, bits */
	unsigned int c1;		/* next empty entry */
	unsigned int c2;		/* codeword size */
	unsigned int c3;		/* 2^c2 */
	uint16_t cur;			/* string being matched (0: none) */
	uint16_t update_at;		/* string the next character extends into a new entry */
	uint16_t last_added;		/* entry made by the last string (0: none) */
	uint8_t esc;
	uint8_t transparent;
	uint32_t bits;			/* codeword bits not yet a whole octet */
	unsigned int nbits;
};

struct smdsp_v42bis {
	struct smdsp_v42bis_config cfg;
	unsigned int alloc_p1;
	struct v42bis_dict enc;
	struct v42bis_dict dec;
	/* encoder */
	uint8_t outq[V42BIS_OUTQ];
	unsigned int outq_head;
	unsigned int outq_tail;
	unsigned int win_chars;		/* compressibility test window */
	uint32_t win_raw;		/* bits transparent mode spent (or would have) */
	uint32_t win_comp;		/* bits compressed mode spent (or would have) */
	/* decoder */
	uint8_t dec_escaped;
	uint8_t dec_failed;
	struct smdsp_v42bis_stats st;
};

#endif /* SMDSP_PRIVATE_V42BIS_H */
