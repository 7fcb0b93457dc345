/*
 * libFuzzer target: the fax side of the pump (dsp/faxmodem.c) behind the
 * DCE's DTE side (dsp/faxdte.c, DLE shielding both ways). The input
 * is records: an operation byte (the T.31 command, a write, a read, a
 * frame end, nothing), a modulation byte, a period length, then that many
 * samples; every operation runs on what the previous ones left.
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <smdsp/faxdte.h>

static const unsigned int mods[16] = { 3, 24, 48, 72, 73, 74, 96, 97, 98, 121, 122, 145, 146, 0, 1, 255 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smdsp_faxmodem *f = smdsp_faxmodem_create(NULL);
	struct smdsp_faxdte *d;
	enum smdsp_faxdte_rc rc;
	int16_t rx[512], tx[512];
	uint8_t buf[SMDSP_FAX_FRAME_MAX];
	size_t pos = 0;

	if (!f)
		return 0;
	d = smdsp_faxdte_create(f);
	if (!d) {
		smdsp_faxmodem_free(f);
		return 0;
	}
	while (pos + 3 <= size) {
		unsigned int op = data[pos] % 20, mod = mods[data[pos + 1] & 15], n = data[pos + 2] % 401;
		size_t avail = (size - pos - 3) / 2;

		pos += 3;
		switch (op) {
		case 0: smdsp_faxdte_command(d, SMDSP_FAXDTE_FTH, 3); break;
		case 1: smdsp_faxdte_command(d, SMDSP_FAXDTE_FRH, 3); break;
		case 2: smdsp_faxdte_command(d, SMDSP_FAXDTE_FTM, mod); break;
		case 3: smdsp_faxdte_command(d, SMDSP_FAXDTE_FRM, mod); break;
		case 4: smdsp_faxdte_command(d, SMDSP_FAXDTE_FTS, data[pos - 2]); break;
		case 5: smdsp_faxdte_command(d, SMDSP_FAXDTE_FRS, data[pos - 2]); break;
		case 6: smdsp_faxdte_command(d, SMDSP_FAXDTE_ABORT, 0); break;
		case 7: smdsp_faxmodem_end_frame(f, data[pos - 2] & 1); break;
		case 8: smdsp_faxmodem_end_data(f); break;
		case 9: smdsp_faxdte_call(d, "12,3", data[pos - 2] * 10u); break;
		case 10: smdsp_faxdte_command(d, SMDSP_FAXDTE_ANSWER, 0); break;
		case 11: smdsp_faxdte_hangup(d); break;
		case 12: case 13:
			/* DTE octets, DLEs and ETXs among them */
			smdsp_faxdte_from_dte(d, data + pos, (unsigned int)(size - pos < 64 ? size - pos : 64));
			break;
		case 14:
			smdsp_faxmodem_write(f, data + pos, (unsigned int)(size - pos < 16 ? size - pos : 16));
			break;
		default:
			break;
		}
		if (n > avail)
			n = (unsigned int)avail;
		memcpy(rx, data + pos, n * 2);
		pos += n * 2;
		smdsp_faxmodem_process(f, rx, tx, n);
		/* a silent stretch lets timed stages finish */
		if (op == 19) {
			memset(rx, 0, sizeof(rx));
			smdsp_faxmodem_process(f, rx, tx, 400);
		}
		/* to the DTE, in small pieces too */
		while (smdsp_faxdte_to_dte(d, buf, 1 + data[pos - 1] % sizeof(buf), &rc) ||
		       rc != SMDSP_FAXDTE_RC_NONE)
			;
	}
	smdsp_faxdte_free(d);
	smdsp_faxmodem_free(f);
	return 0;
}
