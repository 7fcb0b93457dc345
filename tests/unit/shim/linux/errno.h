/* The kernel errno values; the system errno.h would include this file back. */
#include <asm/errno.h>
