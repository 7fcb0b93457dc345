/*
 * libFuzzer target for the V.42 receive side: the LAPM frame parser
 * (smdsp_v42_rx_frame), the HDLC deframer and the detection phase
 * (smdsp_v42_put_bit), with a second, well-behaved instance on the other
 * end so that the state machines get past link set-up; with V.42bis
 * negotiated when the configuration byte's top bit says so.
 *
 * Input: one configuration byte, then records of [op, len, len bytes].
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <smdsp/v42.h>

static void run_bits(struct smdsp_v42 *a, struct smdsp_v42 *b, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		int x = smdsp_v42_get_bit(a);
		int y = smdsp_v42_get_bit(b);

		smdsp_v42_put_bit(b, x);
		smdsp_v42_put_bit(a, y);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smdsp_v42_config ca, cb;
	struct smdsp_v42 *a, *b;
	uint8_t buf[300];
	size_t pos = 1;
	unsigned int total = 0;

	if (size < 1)
		return 0;
	memset(&ca, 0, sizeof(ca));
	ca.calling = data[0] & 1;
	ca.detect = (data[0] >> 1) & 1;
	ca.srej = (data[0] >> 2) & 1;
	ca.fcs32 = (data[0] >> 3) & 1;
	ca.bit_rate = 2400;
	ca.n401 = (data[0] & 0x10) ? 32 : 0;
	ca.k = (data[0] & 0x20) ? 3 : 0;
	ca.rx_buf = (data[0] & 0x40) ? 300 : 0;
	/* V.42bis both ways, small dictionaries: hostile frames reach its decoder */
	ca.v42bis = (data[0] >> 7) & 1;
	ca.v42bis_p1 = 512;
	ca.v42bis_p2 = 6 + data[0] % 8;
	cb = ca;
	cb.calling = !ca.calling;
	a = smdsp_v42_create(&ca);
	b = smdsp_v42_create(&cb);
	if (!a || !b)
		goto out;
	while (pos + 2 <= size && total < 200000) {
		unsigned int op = data[pos];
		unsigned int len = data[pos + 1];
		const uint8_t *p = data + pos + 2;
		unsigned int i;

		pos += 2;
		if (len > size - pos)
			len = (unsigned int)(size - pos);
		pos += len;
		switch (op % 6) {
		case 0:
			/* a raw frame (no FCS) straight into the parser */
			smdsp_v42_rx_frame(a, p, len);
			break;
		case 1:
			/* raw line bits */
			for (i = 0; i < len * 8; i++)
				smdsp_v42_put_bit(a, (p[i / 8] >> (i % 8)) & 1);
			total += len * 8;
			break;
		case 2:
			/* let the two ends talk */
			run_bits(a, b, (len + 1) * 16);
			total += (len + 1) * 16;
			break;
		case 3:
			smdsp_v42_write(a, p, len);
			smdsp_v42_write(b, p, len);
			break;
		case 4:
			smdsp_v42_read(a, buf, len);
			smdsp_v42_read(b, buf, sizeof(buf));
			break;
		default:
			if (len & 1)
				smdsp_v42_disconnect(a);
			smdsp_v42_tick(a, len * 97);
			break;
		}
	}
	run_bits(a, b, 2000);
out:
	smdsp_v42_free(a);
	smdsp_v42_free(b);
	return 0;
}
