/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The version's one place: MODULE_VERSION, ATI3/AT+GMR, the DKMS tree and
 * the Debian package (mk/install.mk reads it; debian/changelog repeats it).
 */
#ifndef SMODEM_VERSION_H
#define SMODEM_VERSION_H

#define SMODEM_VERSION "0.1"

#endif
