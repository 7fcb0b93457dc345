/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Between the AT interpreter (at.c) and its fax Class 1 (at_class1.c):
 * what Class 1 uses of the interpreter (its command line cursor, output
 * and results), and what the interpreter hands to Class 1.  Nothing
 * outside these two files includes it; the tty and the modem see Class 1
 * through at.h (at_fax_result(), enum at_fax_op, AT_RC_FAX_*).
 */
#ifndef SMODEM_AT_CLASS1_H
#define SMODEM_AT_CLASS1_H

#include "at.h"

/* Room kept at the end of the output for the final result code. */
#define AT_RESULT_RESERVE	24

/* An extended command the interpreter does not know: not Class 1's. */
#define AT_EXT_UNKNOWN	(-2)
/* One that stops the line: an operation runs, its result ends it. */
#define AT_EXT_STOP	1

/* A command line being run, at p of its n characters. */
struct at_cur {
	const char *s;
	unsigned int n, p;
};

/* -- the interpreter's, for Class 1 (at.c) -------------------------------- */

void at_put_ch(struct at_out *o, char c, unsigned int reserve);
void at_put_uint(struct at_out *o, u32 v, unsigned int width,
		 unsigned int reserve);
void at_info_begin(const struct at_state *at, struct at_out *o);
void at_info_end(const struct at_state *at, struct at_out *o);
void at_info(const struct at_state *at, struct at_out *o, const char *s);
void at_result(const struct at_state *at, struct at_out *o,
	       enum at_result rc, u32 rate);
void at_editor_reset(struct at_state *at);

bool at_accept(struct at_cur *c, char ch);
bool at_number(struct at_cur *c, u32 max, u32 *v);
bool at_ext_name(struct at_cur *c, const char *name);
bool at_ext_end(struct at_cur *c);
/* +GMI and the like: information text, no parameters. */
int at_ext_info(struct at_state *at, struct at_cur *c, struct at_out *o,
		const char *text);
/* A command line; 1: it stopped without a final result. */
int at_run(struct at_state *at, const char *line, unsigned int n, u64 now,
	   struct at_out *o);

/* ATI0, ATI1: the manufacturer and the model, for +FMI and +FMM too. */
extern const char *const at_info_text[10];

/* -- Class 1's, for the interpreter (at_class1.c) ------------------------- */

/*
 * The T.31 command after '+' at c, if it is one: 0 done, -1 ERROR,
 * AT_EXT_STOP (an operation starts: at_state.fax_op, AT_ACT_FAX), or
 * AT_EXT_UNKNOWN with c unmoved.
 */
int at_class1_ext(struct at_state *at, struct at_cur *c, struct at_out *o);

/* A character from the DTE while an operation waits or receives. */
void at_class1_dte_char(struct at_state *at, struct at_out *o);

#endif
