/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fax side of the data pump: what a T.31 (Class 1) DCE does on the
 * line, one operation at a time, as the AT layer asks for it.
 *
 *   +FTH=3   smdsp_faxmodem_tx_hdlc(): V.21 channel 2 flags (1 s of them
 *            before the first frame), frames from smdsp_faxmodem_write()
 *            closed by smdsp_faxmodem_end_frame() (FCS added), the carrier
 *            off after the final one
 *   +FRH=3   smdsp_faxmodem_rx_hdlc(): frames received on V.21 channel 2,
 *            with their FCS octets and status (smdsp_faxmodem_read_frame())
 *   +FTM=n   smdsp_faxmodem_tx_data(): V.27ter, V.29 or V.17 (long or short
 *            training), then the octets written, then the carrier off
 *            after smdsp_faxmodem_end_data()
 *   +FRM=n   smdsp_faxmodem_rx_data(): carrier search and training, the
 *            octets received (smdsp_faxmodem_read()), the carrier's loss
 *   +FTS=n   smdsp_faxmodem_tx_silence(): n x 10 ms of silence
 *   +FRS=n   smdsp_faxmodem_rx_silence(): until n x 10 ms of silence
 *   ATD      smdsp_faxmodem_call(): DTMF digits, CNG (1100 Hz) until V.21
 *            flags are heard, then as +FRH=3
 *   ATA      smdsp_faxmodem_answer(): CED (2100 Hz), then as +FTH=3
 *
 * Octets are T.4/T.31's: each sent least significant bit first. Every
 * operation ends in an event (smdsp_faxmodem_get_event()) that the AT layer
 * turns into its result code. No allocation after smdsp_faxmodem_create();
 * the caller serializes all calls on one instance.
 */
#ifndef SMDSP_FAXMODEM_H
#define SMDSP_FAXMODEM_H

#include <smdsp/compat.h>
#include <smdsp/tone.h>
#include <smdsp/dtmf.h>
#include <smdsp/fsk.h>
#include <smdsp/hdlc.h>
#include <smdsp/v27ter.h>
#include <smdsp/v29.h>
#include <smdsp/v17.h>

#define SMDSP_FAX_RATE		8000
#define SMDSP_FAX_FIFO		4096	/* each byte FIFO, a power of 2 */
#define SMDSP_FAX_RXFRAMES	4	/* received frames kept for +FRH */
#define SMDSP_FAX_FRAME_MAX	(SMDSP_HDLC_MAX_LEN + 2)	/* with the FCS */
#define SMDSP_FAX_EVENTS	16

/* T.31 Table 2's modulation codes: +FTM/+FRM's argument. */
enum smdsp_faxmodem_mod {
	SMDSP_FAX_V21 = 3,
	SMDSP_FAX_V27_2400 = 24,
	SMDSP_FAX_V27_4800 = 48,
	SMDSP_FAX_V29_7200 = 72,
	SMDSP_FAX_V17_7200 = 73,
	SMDSP_FAX_V17_7200S = 74,
	SMDSP_FAX_V29_9600 = 96,
	SMDSP_FAX_V17_9600 = 97,
	SMDSP_FAX_V17_9600S = 98,
	SMDSP_FAX_V17_12000 = 121,
	SMDSP_FAX_V17_12000S = 122,
	SMDSP_FAX_V17_14400 = 145,
	SMDSP_FAX_V17_14400S = 146,
};

/* What the pump does now (traced by the driver). */
enum smdsp_faxmodem_phase {
	SMDSP_FAX_ON_HOOK,
	SMDSP_FAX_IDLE,		/* off hook, between commands: silence */
	SMDSP_FAX_DIALING,
	SMDSP_FAX_CNG,		/* calling tone, listening for V.21 flags */
	SMDSP_FAX_CED,		/* answer tone and the silence after it */
	SMDSP_FAX_TX_HDLC,	/* V.21 channel 2 flags and frames */
	SMDSP_FAX_RX_HDLC,
	SMDSP_FAX_TX_TRAIN,	/* high-speed training */
	SMDSP_FAX_TX_DATA,
	SMDSP_FAX_RX_TRAIN,	/* carrier search and training */
	SMDSP_FAX_RX_DATA,
	SMDSP_FAX_TX_SILENCE,
	SMDSP_FAX_RX_SILENCE,
};

enum smdsp_faxmodem_event_type {
	/*
	 * +FTH (and ATA): ready for a frame (also after each non-final
	 * frame); +FTM: the transmitter is on; +FRH (and ATD): flags heard;
	 * +FRM: trained, octets follow
	 */
	SMDSP_FAX_EV_CONNECT = 1,
	SMDSP_FAX_EV_FRAME,	/* +FRH: a frame to read (arg: its status, smdsp_hdlc_rx_status) */
	/* +FTH final frame or +FTM data sent and the carrier off; +FTS, +FRS done: OK */
	SMDSP_FAX_EV_OK,
	/* +FRM/+FRH: carrier lost (after CONNECT); ATD/ATA: nothing heard in time */
	SMDSP_FAX_EV_NO_CARRIER,
	SMDSP_FAX_EV_FCERROR,	/* +FRM: V.21 flags instead of the modulation asked for */
	SMDSP_FAX_EV_ERROR,	/* +FTH: a frame the queue could not take */
};

struct smdsp_faxmodem_event {
	enum smdsp_faxmodem_event_type type;
	uint32_t arg;
};

struct smdsp_faxmodem_config {
	int tx_level_dbm0_10;	/* transmit level, tenths of dBm0 (0: -100) */
	unsigned int preamble_flags;	/* V.21 flags before the first frame (0: 38, 1 s) */
};

struct smdsp_faxmodem_stats {
	uint32_t frames_tx;
	uint32_t frames_rx_good;
	uint32_t frames_rx_bad;
	uint32_t frames_dropped;	/* the frame queue was full */
	uint32_t octets_tx;		/* +FTM */
	uint32_t octets_rx;		/* +FRM */
	uint32_t rx_overruns;		/* +FRM octets lost: the reader was slow */
	uint32_t tx_underruns;		/* +FTM octets the line wanted, none there (fill sent) */
	uint32_t trainings;		/* +FRM trainings that succeeded */
	uint32_t training_failures;
	uint32_t carrier_losses;
};

struct smdsp_faxmodem;

struct smdsp_faxmodem *smdsp_faxmodem_create(const struct smdsp_faxmodem_config *cfg);
void smdsp_faxmodem_free(struct smdsp_faxmodem *f);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_faxmodem_print(const struct smdsp_faxmodem *f, char *buf, size_t len);
/*
 * One period: n received samples in rx, n to send written to tx (any n).
 * 0, or -EINVAL.
 */
int smdsp_faxmodem_process(struct smdsp_faxmodem *f, const int16_t *rx, int16_t *tx,
			   unsigned int n);

/*
 * ATD: digits (0-9 * # A-D, ',' a 2 s pause; others ignored, at most 31)
 * 2 s after going off hook, then CNG until V.21 flags (EV_CONNECT, then as
 * +FRH) or wait_ms (EV_NO_CARRIER; 0: no limit). ATA: 0.2 s of silence,
 * 3 s of CED, 75 ms of silence, then as +FTH (EV_CONNECT).
 *
 * Operations; each replaces the one running (as a T.31 DCE aborts what it
 * does for a new command). 0 or -EINVAL (an unknown modulation).
 */
int smdsp_faxmodem_call(struct smdsp_faxmodem *f, const char *digits, unsigned int wait_ms);
int smdsp_faxmodem_answer(struct smdsp_faxmodem *f);
int smdsp_faxmodem_tx_hdlc(struct smdsp_faxmodem *f);
int smdsp_faxmodem_rx_hdlc(struct smdsp_faxmodem *f);
int smdsp_faxmodem_tx_data(struct smdsp_faxmodem *f, unsigned int mod);
int smdsp_faxmodem_rx_data(struct smdsp_faxmodem *f, unsigned int mod);
int smdsp_faxmodem_tx_silence(struct smdsp_faxmodem *f, unsigned int units_10ms);
int smdsp_faxmodem_rx_silence(struct smdsp_faxmodem *f, unsigned int units_10ms);
/* The DTE aborted a receive (+FRH, +FRM, +FRS): back to idle, off hook. */
void smdsp_faxmodem_stop(struct smdsp_faxmodem *f);
/* On hook: everything stops, queues emptied. */
void smdsp_faxmodem_hangup(struct smdsp_faxmodem *f);
/* Whether a modulation code is one of T.31's that the pump has (3 included). */
bool smdsp_faxmodem_mod_valid(unsigned int mod);

/*
 * +FTH: octets of the frame being queued (address, control, FIF; no FCS);
 * +FTM: octets to send. Returns how many were taken.
 */
unsigned int smdsp_faxmodem_write(struct smdsp_faxmodem *f, const uint8_t *buf, unsigned int len);
/* Room for smdsp_faxmodem_write(). */
unsigned int smdsp_faxmodem_write_space(const struct smdsp_faxmodem *f);
/*
 * +FTH: the frame written is complete (DLE ETX). final: the last one of
 * this transmission (the carrier goes off after it, then EV_OK); else
 * EV_CONNECT follows at once. 0, or -EINVAL (not in +FTH, or empty).
 */
int smdsp_faxmodem_end_frame(struct smdsp_faxmodem *f, bool final);
/* +FTM: no more data (DLE ETX): what is queued goes out, the carrier off, then EV_OK. */
void smdsp_faxmodem_end_data(struct smdsp_faxmodem *f);
/* +FRM: received octets. */
unsigned int smdsp_faxmodem_read(struct smdsp_faxmodem *f, uint8_t *buf, unsigned int len);
/*
 * +FRH: the oldest frame received, its FCS octets included; returns its
 * length (0: none) and its status. At most len octets are copied.
 */
unsigned int smdsp_faxmodem_read_frame(struct smdsp_faxmodem *f, uint8_t *buf, unsigned int len,
				       enum smdsp_hdlc_rx_status *status);
bool smdsp_faxmodem_get_event(struct smdsp_faxmodem *f, struct smdsp_faxmodem_event *ev);

enum smdsp_faxmodem_phase smdsp_faxmodem_phase(const struct smdsp_faxmodem *f);
bool smdsp_faxmodem_offhook(const struct smdsp_faxmodem *f);
/* The modulation of the running +FTM/+FRM (3 for V.21), 0 if none. */
unsigned int smdsp_faxmodem_mod(const struct smdsp_faxmodem *f);
void smdsp_faxmodem_get_stats(const struct smdsp_faxmodem *f, struct smdsp_faxmodem_stats *st);

#endif /* SMDSP_FAXMODEM_H */
