/* The pump's public API: create/process/free and bad arguments. */
#include <smdsp/pump.h>
#include "tutil.h"

int main(void)
{
	struct smdsp_pump_config cfg = { .sample_rate = 8000 };
	struct smdsp_pump_config bad = { .sample_rate = 0 };
	struct smdsp_pump *p;
	int16_t rx[161], tx[161];
	int i;

	CHECK(smdsp_pump_create(&bad) == NULL, "rate 0 accepted");
	CHECK(smdsp_pump_create(NULL) == NULL, "NULL config accepted");
	p = smdsp_pump_create(&cfg);
	CHECK(p != NULL, "create failed");
	if (!p)
		return t_report("test_pump");
	for (i = 0; i < 161; i++)
		rx[i] = (int16_t)(i * 200 - 16000);
	CHECK(smdsp_pump_process(p, rx, tx, 0) == 0, "n=0");
	CHECK(smdsp_pump_process(p, rx, tx, 161) == 0, "odd n");
	CHECK(smdsp_pump_process(p, NULL, tx, 10) < 0, "NULL rx accepted");
	CHECK(smdsp_pump_process(NULL, rx, tx, 10) < 0, "NULL pump accepted");
	smdsp_pump_free(p);
	smdsp_pump_free(NULL);
	return t_report("test_pump");
}
