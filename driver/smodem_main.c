// SPDX-License-Identifier: GPL-2.0
/*
 * smodem: a soft modem whose per-period signal processing is bound, at load
 * time, to a hard IRQ, a bottom half, a SCHED_FIFO thread or a SCHED_DEADLINE
 * reservation, to measure what each choice costs everything else.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/idr.h>
#include <smdsp/modem.h>
#include "smodem.h"
#include "smodem_version.h"
#include "smodem_modem.h"
#include "smodem_trace.h"
#include "smodem_tty.h"

static char *context = "thr";
module_param(context, charp, 0444);
MODULE_PARM_DESC(context, "where the per-period processing runs: int (hard IRQ), dpc (tasklet), bhw (BH workqueue, 6.9+), thr (SCHED_FIFO kthread), res (SCHED_DEADLINE kthread), oth (SCHED_OTHER kthread at nice), irqt (the IRQ's own thread, request_threaded_irq; hw=ac97) or usr (an upcall per period to the process that opened /dev/smodem<n>: smodemd) [thr]");

static char *hw = "ac97";
module_param(hw, charp, 0444);
MODULE_PARM_DESC(hw, "DMA engine: ac97 (Intel 82801AA, 8086:2415) or vline (hrtimer with in-kernel loopback line) [ac97]");

static uint rate = 8000;
module_param(rate, uint, 0444);
MODULE_PARM_DESC(rate, "line sample rate in Hz: 7200, 8000, 9600 or 16000 [8000]");

static uint ring_samples = 512;
module_param(ring_samples, uint, 0444);
MODULE_PARM_DESC(ring_samples, "DMA ring length in samples, 64..8192 [512, as in the study]");

static uint period_samples = 100;
module_param(period_samples, uint, 0444);
MODULE_PARM_DESC(period_samples, "samples per period interrupt, 8..ring_samples/2; need not divide the ring [100 = 12.5 ms at 8 kHz]");

static uint load_us;
module_param(load_us, uint, 0444);
MODULE_PARM_DESC(load_us, "EMULATION: extra arithmetic per period costing this many microseconds of CPU (calibrated at load), to stand in for the study's 1.84 ms V.90 pump; 0..100000, below the period for int [0]");

static uint prio = 50;
module_param(prio, uint, 0444);
MODULE_PARM_DESC(prio, "SCHED_FIFO priority of the thr thread, 1..99 [50]");

static int nice;
module_param(nice, int, 0444);
MODULE_PARM_DESC(nice, "nice value of the oth thread (SCHED_OTHER, time-shared with every normal task: the study's THR-8), -20..19 [0]");

static uint res_runtime_us = 2000;
module_param(res_runtime_us, uint, 0444);
MODULE_PARM_DESC(res_runtime_us, "res: SCHED_DEADLINE runtime per period, microseconds, 2..res_deadline_us [2000]");

static uint res_period_us = 8000;
module_param(res_period_us, uint, 0444);
MODULE_PARM_DESC(res_period_us, "res: SCHED_DEADLINE period, microseconds, res_runtime_us..4000000 [8000]");

static uint res_deadline_us;
module_param(res_deadline_us, uint, 0444);
MODULE_PARM_DESC(res_deadline_us, "res: SCHED_DEADLINE relative deadline, microseconds, res_runtime_us..res_period_us, 0 = the period [0]");

static char *res_mode = "plain";
module_param(res_mode, charp, 0444);
MODULE_PARM_DESC(res_mode, "res: how the reservation is kept: plain (the runtime as set), feedback (Rez-FB: once a period runtime += res_gain_pm/1000 * (res_runtime_us - (runtime - stolen)), within res_ceiling_us, through admission control), catchup (Rez-C: res_ceiling_us admitted, the thread itself stops at res_runtime_us of its own time in a period, so what interrupts took in it is given back in it) or reclaim (SCHED_FLAG_RECLAIM, GRUB); feedback and catchup turn stolen=1 on [plain]");

static uint res_gain_pm = 500;
module_param(res_gain_pm, uint, 0444);
MODULE_PARM_DESC(res_gain_pm, "res_mode=feedback: the controller's gain G in thousandths, 1..1000 [500]");

static uint res_ceiling_us;
module_param(res_ceiling_us, uint, 0444);
MODULE_PARM_DESC(res_ceiling_us, "res_mode=feedback, catchup: the most runtime the thread gets in a period, microseconds, res_runtime_us..the deadline, 0 = twice res_runtime_us within the deadline [0]");

static bool stolen;
module_param(stolen, bool, 0444);
MODULE_PARM_DESC(stolen, "0 or 1: stolen-time accounting of the processing thread (thr, res, oth, irqt): what hard IRQs, softirqs and other threads take from each activation, from the kernel's irq, softirq and sched_switch tracepoints; debugfs stats and the smodem_stolen tracepoint [0]");

static uint usr_mode = 0600;
module_param(usr_mode, uint, 0444);
MODULE_PARM_DESC(usr_mode, "usr: permission bits of /dev/smodem<n>, the device smodemd attaches to (root always may), 0..0777 [0600]");

static uint engine = 1;
module_param(engine, uint, 0444);
MODULE_PARM_DESC(engine, "1: /dev/ttySM<n> dials and answers through the modem's call control (rate=8000 only), hook signalled by a +4096 DC offset on the transmitted samples; 0: no call control (any rate), ATD/ATA answer NO CARRIER [1]");

static uint phase_periods;
module_param(phase_periods, uint, 0444);
MODULE_PARM_DESC(phase_periods, "1: the interrupt period follows the call's phase (2.5 ms on hook, 12.5 ms otherwise), ring_samples must hold two 12.5 ms periods; 0: period_samples throughout [0]");

static uint devices = 1;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "hw=vline: how many independent modems, each with its own /dev/ttySM<n>, debugfs directory vline<n>, stats and trace dev=<n>, 1..8 [1]");

static uint vline_pairs;
module_param(vline_pairs, uint, 0444);
MODULE_PARM_DESC(vline_pairs, "hw=vline: 1 wires modems 2k and 2k+1 to each other (each one's output is the other's input, through a DC block that removes the hook offset) so that one calls the other; devices must be even; 0: each modem's line loops back to itself [0]");

static int cpus[SMODEM_DEVICES_MAX] = { [0 ... SMODEM_DEVICES_MAX - 1] = -1 };
static unsigned int ncpus;
module_param_array(cpus, int, &ncpus, 0444);
MODULE_PARM_DESC(cpus, "per device, in order (vline: devices 0..N-1; ac97: the controllers as found): the CPU, 0..n-1 on an n-CPU machine, that takes its interrupt and runs its processing (its kthread bound there; usr: smodemd pins the device's thread), or -1 for any; not with context=res [-1 for every device]");

struct smodem_params smodem_p;

int smodem_dev_cpu(const struct smodem_dev *sd)
{
	return sd->id < smodem_p.ncpus ? smodem_p.cpus[sd->id] : -1;
}

static const struct smodem_backend_ops *const backends[SMODEM_HW_COUNT] = {
	[SMODEM_HW_AC97] = &smodem_hw_ac97,
	[SMODEM_HW_VLINE] = &smodem_hw_vline,
};

static const struct smodem_ctx_ops *const contexts[SMODEM_CTX_COUNT] = {
	[SMODEM_CTX_INT] = &smodem_ctx_int,
	[SMODEM_CTX_DPC] = &smodem_ctx_dpc,
	[SMODEM_CTX_THR] = &smodem_ctx_thr,
	[SMODEM_CTX_RES] = &smodem_ctx_res,
	[SMODEM_CTX_OTH] = &smodem_ctx_oth,
	[SMODEM_CTX_IRQT] = &smodem_ctx_irqt,
	[SMODEM_CTX_BHW] = &smodem_ctx_bhw,
	[SMODEM_CTX_USR] = &smodem_ctx_usr,
};

static const struct smodem_backend_ops *backend;
static DEFINE_IDA(smodem_ids);

struct smodem_dev *smodem_dev_alloc(const char *name, struct device *dev)
{
	/* Room for the longest period a phase may ask for. */
	u32 max = smodem_p.ring / 2;
	struct smodem_dev *sd;
	int id, err;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return ERR_PTR(-ENOMEM);
	id = ida_alloc(&smodem_ids, GFP_KERNEL);
	if (id < 0) {
		kfree(sd);
		return ERR_PTR(id);
	}
	sd->id = id;
	strscpy(sd->name, name, sizeof(sd->name));
	sd->dev = dev;
	sd->p = smodem_p;
	sd->ctx = contexts[smodem_p.context];
	sd->period = smodem_p.period;
	smodem_overrun_init(&sd->ovr);
	/* Fitted to the engines' skew on hook, grown in a call: tx_grow(). */
	sd->tx_lead = smodem_p.period + smodem_p.period / 2;
	sd->load_units = smodem_load_units(smodem_p.load_us);
	sd->rx_buf = kcalloc(max, sizeof(s16), GFP_KERNEL);
	sd->tx_buf = kcalloc(max, sizeof(s16), GFP_KERNEL);
	sd->fill.buf = kcalloc(smodem_p.ring, sizeof(s16), GFP_KERNEL);
	sd->fill.chunk = max;
	sd->fill.place = smodem_fill_place;
	if (!sd->rx_buf || !sd->tx_buf || !sd->fill.buf) {
		err = -ENOMEM;
		goto free;
	}
	smodem_link_init(sd);
	/* context=usr: the daemon runs it, the context stands in for it. */
	if (smodem_p.context != SMODEM_CTX_USR)
		sd->modem = smodem_load_modem(
			smodem_modem_create(&sd->link, sd->p.rate,
					    sd->p.engine, sd->p.phase_periods),
			sd->load_units);
	if (IS_ERR(sd->modem)) {
		err = PTR_ERR(sd->modem);
		sd->modem = NULL;
		goto free;
	}
	return sd;

free:
	smodem_dev_free(sd);
	return ERR_PTR(err);
}

void smodem_dev_free(struct smodem_dev *sd)
{
	if (sd->modem)
		sd->modem->ops->free(sd->modem);
	kfree(sd->rx_buf);
	kfree(sd->tx_buf);
	kfree(sd->fill.buf);
	ida_free(&smodem_ids, sd->id);
	kfree(sd);
}

/*
 * Set-up: the context (nothing runs it yet), the tty, the hardware (the
 * interrupts start), then debugfs, which shows all three.  Teardown is the
 * reverse: no reader of the stats outlives what it reads.
 */
int smodem_dev_register(struct smodem_dev *sd)
{
	int err;

	err = sd->ctx->start(sd);
	if (err)
		return err;
	smodem_stolen_watch(sd, true);
	err = smodem_tty_register(sd, sd->p.engine);
	if (err)
		goto stop_ctx;
	trace_smodem_phase(sd, SMDSP_PHASE_ONHOOK, 0);
	sd->stats.since_ns = ktime_get_ns();
	smodem_fault_init(sd);
	err = sd->hw->start(sd);
	if (err)
		goto unregister_tty;
	smodem_fault_start(sd);
	smodem_debugfs_add(sd);
	pr_info("smodem: %s: context=%s rate=%u ring=%u period=%u load_us=%u\n",
		sd->name, sd->ctx->name, sd->p.rate, sd->p.ring, sd->p.period,
		sd->p.load_us);
	return 0;

unregister_tty:
	smodem_tty_unregister(sd);
stop_ctx:
	smodem_stolen_watch(sd, false);
	sd->ctx->stop(sd);
	return err;
}

void smodem_dev_unregister(struct smodem_dev *sd)
{
	smodem_debugfs_remove(sd);
	/* No restart of the engine, no report to the tty from the watchdog. */
	smodem_fault_stop(sd);
	/* No more interrupts, so no more kicks. */
	sd->hw->stop(sd);
	/* Whoever has the port open is hung up. */
	smodem_tty_unregister(sd);
	/* The last processing has finished. */
	smodem_stolen_watch(sd, false);
	sd->ctx->stop(sd);
}

static int __init smodem_init(void)
{
	const char *why = NULL;
	unsigned int i;
	int err;

	smodem_p = (struct smodem_params){
		.rate = rate, .ring = ring_samples, .period = period_samples,
		.load_us = load_us, .prio = prio, .nice = nice,
		.res_runtime_us = res_runtime_us,
		.res_period_us = res_period_us,
		.res_deadline_us = res_deadline_us, .usr_mode = usr_mode,
		.res_gain_pm = res_gain_pm, .res_ceiling_us = res_ceiling_us,
		.stolen = stolen, .engine = engine,
		.phase_periods = phase_periods,
		.devices = devices, .vline_pairs = vline_pairs,
		.ncpus = ncpus,
	};
	memcpy(smodem_p.cpus, cpus, sizeof(smodem_p.cpus));
	if (smodem_parse_context(context, &smodem_p.context)) {
		pr_err("smodem: context=%s: must be int, dpc, thr, res, oth, irqt, bhw or usr\n",
		       context);
		return -EINVAL;
	}
	if (smodem_parse_hw(hw, &smodem_p.hw)) {
		pr_err("smodem: hw=%s: must be ac97 or vline\n", hw);
		return -EINVAL;
	}
	if (smodem_parse_res_mode(res_mode, &smodem_p.res_mode)) {
		pr_err("smodem: res_mode=%s: must be plain, feedback, catchup or reclaim\n",
		       res_mode);
		return -EINVAL;
	}
	/* the controller acts on what the accounting measures */
	if (smodem_p.res_mode == SMODEM_RES_FEEDBACK ||
	    smodem_p.res_mode == SMODEM_RES_CATCHUP)
		smodem_p.stolen = true;
	err = smodem_params_check(&smodem_p, &why);
	if (err) {
		pr_err("smodem: invalid parameters: %s\n", why);
		return err;
	}
	for (i = 0; i < smodem_p.ncpus; i++) {
		int cpu = smodem_p.cpus[i];

		if (cpu >= 0 && (cpu >= nr_cpu_ids || !cpu_online(cpu))) {
			pr_err("smodem: cpus=: CPU %d (device %u) is not online\n",
			       cpu, i);
			return -EINVAL;
		}
	}
	smodem_load_calibrate();
	if (smodem_p.stolen) {
		err = smodem_stolen_init();
		if (err)
			return err;
	}
	smodem_debugfs_init();
	err = smodem_tty_init();
	if (err)
		goto debugfs_exit;
	backend = backends[smodem_p.hw];
	err = backend->init();
	if (err)
		goto tty_exit;
	return 0;

tty_exit:
	smodem_tty_exit();
debugfs_exit:
	smodem_debugfs_exit();
	smodem_stolen_exit();
	return err;
}

static void __exit smodem_exit(void)
{
	backend->exit();
	smodem_tty_exit();
	smodem_debugfs_exit();
	smodem_stolen_exit();
}

module_init(smodem_init);
module_exit(smodem_exit);
MODULE_DESCRIPTION("smodem: soft modem with load-time selectable execution context");
MODULE_AUTHOR("smodem developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(SMODEM_VERSION);
