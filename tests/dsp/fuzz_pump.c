/*
 * libFuzzer target: the receive path of the whole engine. The first byte
 * picks the phase to fuzz (on hook, dialled, answering), the tone plan and
 * the modulations, the second the V.8/V.42/blind/no-answer-tone flags; the
 * rest is pairs (period length, samples).
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <smdsp/pump.h>
#include <smdsp/modem.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smdsp_modem_config cfg = { .sample_rate = 8000 };
	struct smdsp_modem *m;
	struct smdsp_modem_event ev;
	int16_t rx[512], tx[512];
	uint8_t buf[32];
	size_t pos = 2;

	if (size < 2)
		return 0;
	cfg.flags = data[1] & (SMDSP_MODEM_FLAG_V8 | SMDSP_MODEM_FLAG_V42 |
			       SMDSP_MODEM_FLAG_BLIND | SMDSP_MODEM_FLAG_NO_ANS);
	cfg.tone_plan = (data[0] & 4) ? SMDSP_CALLPROG_PLAN_ETSI : SMDSP_CALLPROG_PLAN_NA;
	cfg.auto_answer_rings = data[0] >> 6;
	cfg.modulations = (data[0] >> 3) & 7;
	m = smdsp_modem_create(&cfg);
	if (!m)
		return 0;
	if ((data[0] & 3) == 1)
		smdsp_modem_dial(m, "1234");
	else if ((data[0] & 3) == 2)
		smdsp_modem_answer(m);
	while (pos < size) {
		unsigned int n = data[pos++] % 401;
		size_t avail = (size - pos) / 2;
		unsigned int reps = 1;

		if (n > avail) {
			/* stretch short inputs: repeat what there is */
			reps = 8;
			n = (unsigned int)avail;
		}
		memcpy(rx, data + pos, n * 2);
		pos += n * 2;
		while (reps--)
			smdsp_modem_process(m, rx, tx, n);
		while (smdsp_modem_get_event(m, &ev))
			;
		smdsp_modem_read(m, buf, sizeof(buf));
		smdsp_modem_write(m, buf, 4);
		if (n == 0 && avail == 0)
			break;
	}
	smdsp_modem_free(m);
	return 0;
}
