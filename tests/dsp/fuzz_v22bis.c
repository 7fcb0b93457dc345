/*
 * libFuzzer target: the V.22/V.22bis and V.21 receivers fed arbitrary
 * samples, with the handshake state forced by the first byte (so that data
 * mode and 16-way decisions are reached without a real training).
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <smdsp/v22bis.h>
#include <smdsp/fsk.h>
/* white-box: the handshake state is forced (hs, rx.sixteen, state) and both run in place */
#include <smdsp/private/v22bis.h>
#include <smdsp/private/fsk.h>

static void sink(void *user, int bit)
{
	(void)user;
	(void)bit;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smdsp_v22bis_config c = { .max_rate = 2400, .put_bit = sink };
	static struct smdsp_v22bis v;
	static struct smdsp_fsk_rx f;
	int16_t x[256], y[256];
	size_t pos = 1;

	if (size < 1)
		return 0;
	c.calling = data[0] & 1;
	smdsp_v22bis_init(&v, &c);
	smdsp_fsk_rx_init(&f, (data[0] & 2) ? SMDSP_V21_CH2 : SMDSP_V21_CH1, sink, NULL, NULL);
	v.hs = (data[0] >> 2) & 7;	/* any handshake step */
	v.rx.sixteen = data[0] & 0x20;
	v.rx.eq_adapt = data[0] & 0x40;
	if (data[0] & 0x80)
		v.state = SMDSP_V22BIS_DATA;
	while (pos + 1 < size) {
		size_t n = (size - pos) / 2;

		if (n > 256)
			n = 256;
		memcpy(x, data + pos, n * 2);
		pos += n * 2;
		smdsp_v22bis_process(&v, x, y, (unsigned int)n);
		smdsp_fsk_rx_process(&f, x, (unsigned int)n);
	}
	return 0;
}
