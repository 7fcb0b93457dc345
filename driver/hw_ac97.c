// SPDX-License-Identifier: GPL-2.0
/*
 * Intel 82801AA AC'97 controller (8086:2415) as the modem's DMA engine:
 * PCM in (PI) carries the line's receive samples, PCM out (PO) its transmit
 * samples, both as bus-master DMA through 32-entry buffer descriptor lists.
 *
 * The descriptor list is used as a queue, not a fixed ring: the handler keeps
 * QUEUE_PERIODS periods queued ahead of the hardware, each period one or two
 * descriptors (two when it wraps the ring), so any period length works with
 * any ring length and the interrupt comes exactly once per period.  A driver
 * that is late in processing therefore never starves the engine; only a
 * handler that is itself blocked for longer than the queue lets the hardware
 * reach the last valid descriptor and halt, which is detected and recovered.
 *
 * PCM in paces the interrupts; PCM out is only refilled from them, and an
 * emulated codec may pull its output far ahead of its input: QEMU's fills
 * its mixing buffer at once and sends its D-Bus audio in 1024-frame
 * chunks; with a 4 ms audio tick its PCM out ran 900 frames (all nine
 * 12.5 ms periods queued) ahead of PCM in's first 32 right after the start,
 * and halted.  So PCM out is queued in chunks, not periods, at least
 * PO_LEAD frames ahead of its own position (bounded by the ring), and never
 * less than PCM in's nine periods.
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/interrupt.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>
#include "smodem.h"
#include "smodem_ring.h"
#include "smodem_trace.h"

/* Mixer (BAR0) registers. */
#define NAM_RESET		0x00
#define NAM_MASTER_VOL		0x02
#define NAM_PCM_OUT_VOL		0x18
#define NAM_REC_SELECT		0x1a
#define NAM_REC_GAIN		0x1c
#define NAM_POWERDOWN		0x26
#define NAM_EXT_AUDIO_CTRL	0x2a
#define NAM_FRONT_DAC_RATE	0x2c
#define NAM_LR_ADC_RATE		0x32
#define EACS_VRA		0x0001
#define REC_LINE_IN		0x0404

/* Bus master (BAR1) registers, per channel and global. */
#define CH_PI			0x00
#define CH_PO			0x10
#define CH_MC			0x20
#define CH_BDBAR		0x00
#define CH_CIV			0x04
#define CH_LVI			0x05
#define CH_SR			0x06
#define CH_PICB			0x08
#define CH_CR			0x0b
#define GLOB_CNT		0x2c
#define GLOB_STA		0x30

#define SR_DCH			0x01
#define SR_LVBCI		0x04
#define SR_BCIS			0x08
#define SR_FIFOE		0x10
#define SR_ACK			(SR_LVBCI | SR_BCIS | SR_FIFOE)
#define CR_RPBM			0x01
#define CR_RR			0x02
#define CR_LVBIE		0x04
#define CR_FEIE			0x08
#define CR_IOCE			0x10
#define GC_COLD			0x02
#define GS_PIINT		0x20
#define GS_POINT		0x40
#define GS_MINT			0x80
#define GS_CODEC_READY		0x100

#define BD_IOC			0x80000000u
#define BD_ENTRIES		32
#define QUEUE_PERIODS		8
/* PCM out: frames queued ahead at least (up to a ring), in PO_CHUNKS pieces */
#define PO_LEAD			2048
#define PO_CHUNKS		12
#define CHANNELS		2
/* inject_fault order: CIV reads this many descriptors back */
#define ORDER_BACK		3
/* inject_fault shared: another device's interrupts this far apart */
#define SHARED_NS		50000

struct ac97_bd {
	__le32 addr;
	__le32 ctl;
};

struct ac97_chan {
	enum smodem_chan chan;	/* for the trace */
	u8 reg;
	bool ioc;		/* this channel paces the period interrupts */
	struct ac97_bd *bdl;
	dma_addr_t bdl_dma;
	s16 *buf;
	dma_addr_t buf_dma;
	u64 slot_abs[BD_ENTRIES];	/* absolute frame at each slot's start */
	u32 slot_len[BD_ENTRIES];	/* frames */
	u8 lvi;
	u64 next_abs;		/* where the next queued period starts */
	u32 queued_periods;
	u64 period_end[BD_ENTRIES];	/* ends of queued periods, FIFO */
	u8 pe_head, pe_tail;
};

struct ac97 {
	struct smodem_dev *sd;
	struct pci_dev *pci;
	void __iomem *nam;
	void __iomem *nabm;
	/* one handler at a time: the line's, or inject_fault shared's */
	raw_spinlock_t isr_lock;
	struct hrtimer shared;	/* inject_fault shared: the other device */
	raw_spinlock_t lock;	/* the queues; taken in hard IRQ */
	struct ac97_chan ch[2];	/* PI, PO */
	u64 tx_cleared;		/* output silenced up to here */
	bool irq_on;
	bool running;		/* a stopped channel reads as halted too */
};

static inline u8 ch_rb(struct ac97 *a, struct ac97_chan *c, int r)
{
	return ioread8(a->nabm + c->reg + r);
}

static inline void ch_wb(struct ac97 *a, struct ac97_chan *c, int r, u8 v)
{
	iowrite8(v, a->nabm + c->reg + r);
}

/* Queue len frames at c->next_abs: one or two descriptors. */
static void queue_frames(struct ac97 *a, struct ac97_chan *c, u32 len)
{
	struct smodem_dev *sd = a->sd;
	struct smodem_piece pc[2];
	unsigned int k, i;

	k = smodem_split_period(c->next_abs, len, sd->p.ring, pc);
	for (i = 0; i < k; i++) {
		u8 slot = (c->lvi + 1) % BD_ENTRIES;
		u32 ctl = pc[i].len * CHANNELS;

		if (c->ioc && i == k - 1)
			ctl |= BD_IOC;
		c->bdl[slot].addr = cpu_to_le32(c->buf_dma +
						pc[i].off * CHANNELS * 2);
		c->bdl[slot].ctl = cpu_to_le32(ctl);
		c->slot_abs[slot] = c->next_abs;
		c->slot_len[slot] = pc[i].len;
		c->next_abs += pc[i].len;
		c->lvi = slot;
	}
}

/* PCM in: one period, its interrupt at its end. */
static void queue_period(struct ac97 *a, struct ac97_chan *c)
{
	queue_frames(a, c, READ_ONCE(a->sd->period));
	c->period_end[c->pe_tail] = c->next_abs;
	c->pe_tail = (c->pe_tail + 1) % BD_ENTRIES;
	c->queued_periods++;
}

/*
 * PCM out: queued up to lead frames past pos, in chunks of a PO_CHUNKS'th
 * of it: PO_CHUNKS + 2 chunks outstanding at most (the one playing and the
 * last one's overshoot), one descriptor more for each ring wrap in them;
 * nine periods of half a ring wrap five times: 19 of the list's 32.
 */
static void po_fill(struct ac97 *a, struct ac97_chan *c, u64 pos)
{
	u32 ring = a->sd->p.ring;
	u32 lead = max((QUEUE_PERIODS + 1) * READ_ONCE(a->sd->period),
		       min_t(u32, PO_LEAD, ring));
	u32 chunk = DIV_ROUND_UP(lead, PO_CHUNKS);

	while (c->next_abs < pos + lead)
		queue_frames(a, c, chunk);
}

/*
 * CIV and PICB read as a pair: retry if the slot changed in between.  back:
 * inject_fault order's CIV, that many descriptors behind the real one.
 */
static u64 chan_pos_at(struct ac97 *a, struct ac97_chan *c, u8 *civ_out,
		       u8 back)
{
	u8 civ, civ2;
	u16 picb;
	u32 done;

	do {
		civ = ch_rb(a, c, CH_CIV) % BD_ENTRIES;
		picb = ioread16(a->nabm + c->reg + CH_PICB);
		civ2 = ch_rb(a, c, CH_CIV) % BD_ENTRIES;
	} while (civ != civ2);
	civ = (civ + BD_ENTRIES - back) % BD_ENTRIES;
	if (civ_out)
		*civ_out = civ;
	done = c->slot_len[civ] - min_t(u32, picb / CHANNELS, c->slot_len[civ]);
	return c->slot_abs[civ] + done;
}

static u64 chan_pos(struct ac97 *a, struct ac97_chan *c, u8 *civ_out)
{
	return chan_pos_at(a, c, civ_out, 0);
}

/*
 * Keep the queue full from pos on: PCM in retires its finished periods and
 * keeps QUEUE_PERIODS + 1 queued, PCM out po_fill()'s frames.
 */
static void refill(struct ac97 *a, struct ac97_chan *c, u64 pos)
{
	if (c->ioc) {
		while (c->queued_periods &&
		       c->period_end[c->pe_head] <= pos) {
			c->pe_head = (c->pe_head + 1) % BD_ENTRIES;
			c->queued_periods--;
		}
		while (c->queued_periods < QUEUE_PERIODS + 1)
			queue_period(a, c);
	} else {
		po_fill(a, c, pos);
	}
	ch_wb(a, c, CH_LVI, c->lvi);
}

static u64 ac97_position(struct smodem_dev *sd, u64 *tx_pos)
{
	struct ac97 *a = sd->hw_priv;
	unsigned long flags;
	u64 rx;

	raw_spin_lock_irqsave(&a->lock, flags);
	rx = chan_pos(a, &a->ch[0], NULL);
	if (tx_pos)
		*tx_pos = chan_pos(a, &a->ch[1], NULL);
	raw_spin_unlock_irqrestore(&a->lock, flags);
	smodem_fault_pos(sd, &rx, tx_pos);
	return rx;
}

/*
 * Silence what the output engine has played, so a late pump leaves a gap on
 * the line instead of replaying a ring-old signal.
 */
static void tx_clear_played(struct ac97 *a, u64 *cleared, u64 played)
{
	struct smodem_dev *sd = a->sd;
	struct smodem_piece pc[2];
	unsigned int k, i;
	u64 n;

	if (played <= *cleared)
		return;
	n = min_t(u64, played - *cleared, sd->p.ring);
	k = smodem_split_period(played - n, (u32)n, sd->p.ring, pc);
	for (i = 0; i < k; i++)
		memset(sd->tx_ring + pc[i].off * CHANNELS, 0,
		       pc[i].len * CHANNELS * sizeof(s16));
	*cleared = played;
}

/*
 * The fault injections act on what the handler reads and writes: storm
 * drops the acknowledgement of the input channel, so that its level
 * interrupt fires again at once; miss hides a period's completion (BCIS)
 * from the handler; order reads CIV a few descriptors back.
 */
static irqreturn_t ac97_isr_locked(struct ac97 *a)
{
	struct smodem_dev *sd = a->sd;
	u64 t0 = ktime_get_ns(), t1, pos[2];
	u32 sta = ioread32(a->nabm + GLOB_STA);
	bool period = false, kicked = false;
	int i;

	if (!(sta & (GS_PIINT | GS_POINT | GS_MINT))) {
		/* another device's, or a phantom one's, on a shared line */
		smodem_fault_seen(sd, SMODEM_FAULT_SHARED, sta);
		return IRQ_NONE;
	}

	if (unlikely(sd->stall_ms)) {
		mdelay(sd->stall_ms);
		sd->stall_ms = 0;
	}

	raw_spin_lock(&a->lock);
	for (i = 0; i < 2; i++) {
		struct ac97_chan *c = &a->ch[i];
		u16 sr = ioread16(a->nabm + c->reg + CH_SR);
		bool done = c->ioc && (sr & SR_BCIS);
		u8 civ, back = 0;

		if (!(done && smodem_fault_take(sd, SMODEM_FAULT_STORM)))
			iowrite16(sr & SR_ACK, a->nabm + c->reg + CH_SR);
		if (done && !smodem_fault_take(sd, SMODEM_FAULT_MISS)) {
			period = true;
			if (smodem_fault_take(sd, SMODEM_FAULT_ORDER))
				back = ORDER_BACK;
		}
		pos[i] = chan_pos_at(a, c, &civ, back);
		if ((sr & SR_DCH) && a->running) {
			/* Writing LVI below restarts a halted channel. */
			sd->stats.dma_halts++;
			trace_smodem_dma_halt(sd, c->chan, civ, c->lvi);
		}
		/* an order fault's position is no place to refill from */
		if (back)
			refill(a, c, chan_pos(a, c, NULL));
		else
			refill(a, c, pos[i]);
	}
	tx_clear_played(a, &a->tx_cleared, pos[1]);
	raw_spin_unlock(&a->lock);

	/* The MC channel is never started; ack it only if it ever claims. */
	if (unlikely(sta & GS_MINT))
		iowrite16(SR_ACK, a->nabm + CH_MC + CH_SR);

	if (period)
		kicked = smodem_irq(sd, pos[0]);
	t1 = ktime_get_ns();
	smodem_stat_add(&sd->stats.isr_ns, t1 - t0);
	trace_smodem_isr_exit(sd, t1 - t0);
	return kicked && sd->ctx->irq_thread ? IRQ_WAKE_THREAD : IRQ_HANDLED;
}

static irqreturn_t ac97_isr(int irq, void *dev_id)
{
	struct ac97 *a = dev_id;
	irqreturn_t ret;

	raw_spin_lock(&a->isr_lock);
	ret = ac97_isr_locked(a);
	raw_spin_unlock(&a->isr_lock);
	return ret;
}

/*
 * inject_fault shared: another device on the line interrupts between the
 * periods, and the line's handlers all run; so does this one, in hard IRQ
 * context as the line's would.  What it finds pending, if anything, it
 * handles as the line's handler would have.
 */
static enum hrtimer_restart ac97_shared_tick(struct hrtimer *t)
{
	struct ac97 *a = container_of(t, struct ac97, shared);

	if (!READ_ONCE(a->irq_on) ||
	    !smodem_fault_take(a->sd, SMODEM_FAULT_SHARED))
		return HRTIMER_NORESTART;
	if (ac97_isr(a->pci->irq, a) == IRQ_WAKE_THREAD)
		irq_wake_thread(a->pci->irq, a);
	hrtimer_forward_now(t, ns_to_ktime(SHARED_NS));
	return HRTIMER_RESTART;
}

/* Both engines running again, as started; the queues are as they were. */
static void chan_run(struct ac97 *a)
{
	ch_wb(a, &a->ch[0], CH_CR, CR_RPBM | CR_IOCE | CR_LVBIE | CR_FEIE);
	ch_wb(a, &a->ch[1], CH_CR, CR_RPBM | CR_LVBIE | CR_FEIE);
}

/*
 * halt: both bus masters stop (RPBM cleared, as a device that gave up
 * would leave them): no position moves, no interrupt comes; the watchdog
 * notices.  shared: the other device starts interrupting.
 */
static void ac97_inject(struct smodem_dev *sd, int kind)
{
	struct ac97 *a = sd->hw_priv;
	unsigned long flags;
	int i;

	if (kind == SMODEM_FAULT_SHARED && !hrtimer_active(&a->shared)) {
		hrtimer_start(&a->shared, ns_to_ktime(SHARED_NS),
			      HRTIMER_MODE_REL_HARD);
	} else if (kind == SMODEM_FAULT_HALT) {
		raw_spin_lock_irqsave(&a->lock, flags);
		for (i = 0; i < 2; i++)
			ch_wb(a, &a->ch[i], CH_CR, 0);
		raw_spin_unlock_irqrestore(&a->lock, flags);
	}
}

/*
 * The watchdog found the engine stopped or silent: whatever stopped it, the
 * bus masters run again with their interrupts enabled, and LVI written
 * restarts a channel that halted at its last descriptor.  An armed halt
 * refuses a restart per count, as a device that does not respond.
 */
static void ac97_recover(struct smodem_dev *sd)
{
	struct ac97 *a = sd->hw_priv;
	unsigned long flags;
	int i;

	if (smodem_fault_take(sd, SMODEM_FAULT_HALT))
		return;
	raw_spin_lock_irqsave(&a->lock, flags);
	if (a->running) {
		chan_run(a);
		for (i = 0; i < 2; i++)
			ch_wb(a, &a->ch[i], CH_LVI, a->ch[i].lvi);
	}
	raw_spin_unlock_irqrestore(&a->lock, flags);
}

static irqreturn_t ac97_irq_thread(int irq, void *dev_id)
{
	struct ac97 *a = dev_id;

	return a->sd->ctx->irq_thread(a->sd);
}

/* queue_period() reads sd->period as it queues: nothing to do here. */
static void ac97_set_period(struct smodem_dev *sd)
{
}

static int codec_wait_ready(struct ac97 *a)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (ioread32(a->nabm + GLOB_STA) & GS_CODEC_READY)
			return 0;
		usleep_range(1000, 2000);
	}
	return -ETIMEDOUT;
}

static void nam_w(struct ac97 *a, int reg, u16 v)
{
	iowrite16(v, a->nam + reg);
}

static int codec_setup(struct ac97 *a)
{
	u32 rate = a->sd->p.rate;

	iowrite32(GC_COLD, a->nabm + GLOB_CNT);
	if (codec_wait_ready(a))
		return -ETIMEDOUT;
	nam_w(a, NAM_RESET, 0);
	nam_w(a, NAM_POWERDOWN, 0);
	nam_w(a, NAM_EXT_AUDIO_CTRL, EACS_VRA);
	nam_w(a, NAM_FRONT_DAC_RATE, rate);
	nam_w(a, NAM_LR_ADC_RATE, rate);
	if (ioread16(a->nam + NAM_FRONT_DAC_RATE) != rate ||
	    ioread16(a->nam + NAM_LR_ADC_RATE) != rate)
		return -EIO;
	/*
	 * Unmuted and unity gain through the emulated codec, which scales the
	 * samples linearly over each register's range: attenuation fields 0,
	 * the record gain field at its top.  The line must be bit-transparent.
	 */
	nam_w(a, NAM_MASTER_VOL, 0x0000);
	nam_w(a, NAM_PCM_OUT_VOL, 0x0000);
	nam_w(a, NAM_REC_SELECT, REC_LINE_IN);
	nam_w(a, NAM_REC_GAIN, 0x0f0f);
	return 0;
}

static void chan_reset(struct ac97 *a, struct ac97_chan *c)
{
	int i;

	ch_wb(a, c, CH_CR, 0);
	ch_wb(a, c, CH_CR, CR_RR);
	for (i = 0; i < 100 && (ch_rb(a, c, CH_CR) & CR_RR); i++)
		udelay(10);
	iowrite16(SR_ACK, a->nabm + c->reg + CH_SR);
}

static void chan_prime(struct ac97 *a, struct ac97_chan *c)
{
	c->lvi = BD_ENTRIES - 1;	/* so the first queued slot is 0 */
	c->next_abs = 0;
	c->queued_periods = 0;
	c->pe_head = 0;
	c->pe_tail = 0;
	iowrite32(c->bdl_dma, a->nabm + c->reg + CH_BDBAR);
	refill(a, c, 0);
}

static int ac97_start(struct smodem_dev *sd)
{
	struct ac97 *a = sd->hw_priv;
	int err, i, cpu;

	err = codec_setup(a);
	if (err) {
		dev_err(&a->pci->dev, "AC'97 codec set-up failed (%d)\n", err);
		return err;
	}
	a->tx_cleared = 0;
	for (i = 0; i < 2; i++) {
		chan_reset(a, &a->ch[i]);
		chan_prime(a, &a->ch[i]);
	}
	/*
	 * The top half is short and must stay a hard interrupt on PREEMPT_RT
	 * too: it is the DMA engine's pacing, whatever context the processing
	 * is bound to.  context=irqt adds the processing as its thread.
	 */
	err = request_threaded_irq(a->pci->irq, ac97_isr,
				   sd->ctx->irq_thread ? ac97_irq_thread : NULL,
				   IRQF_SHARED | IRQF_NO_THREAD, "smodem", a);
	if (err) {
		dev_err(&a->pci->dev, "cannot get IRQ %d (%d)\n", a->pci->irq,
			err);
		goto reset;
	}
	/* cpus=: the interrupt there; a tasklet or the IRQ thread follows it. */
	cpu = smodem_dev_cpu(sd);
	if (cpu >= 0) {
		err = irq_set_affinity(a->pci->irq, cpumask_of(cpu));
		if (err) {
			dev_err(&a->pci->dev, "cannot move IRQ %d to CPU %d (%d)\n",
				a->pci->irq, cpu, err);
			free_irq(a->pci->irq, a);
			goto reset;
		}
	}
	WRITE_ONCE(a->irq_on, true);
	a->running = true;
	/* Both engines start together, so their positions stay in step. */
	chan_run(a);
	return 0;
reset:
	for (i = 0; i < 2; i++)
		chan_reset(a, &a->ch[i]);
	return err;
}

static void ac97_stop(struct smodem_dev *sd)
{
	struct ac97 *a = sd->hw_priv;
	int i;

	a->running = false;
	for (i = 0; i < 2; i++)
		ch_wb(a, &a->ch[i], CH_CR, 0);
	if (a->irq_on) {
		WRITE_ONCE(a->irq_on, false);
		/* the other device is gone before the handler is */
		hrtimer_cancel(&a->shared);
		free_irq(a->pci->irq, a);
	}
	for (i = 0; i < 2; i++)
		chan_reset(a, &a->ch[i]);
}

static int chan_alloc(struct ac97 *a, struct ac97_chan *c, u32 ring)
{
	struct device *d = &a->pci->dev;

	c->bdl = dmam_alloc_coherent(d, BD_ENTRIES * sizeof(*c->bdl),
				     &c->bdl_dma, GFP_KERNEL);
	c->buf = dmam_alloc_coherent(d, ring * CHANNELS * sizeof(s16),
				     &c->buf_dma, GFP_KERNEL);
	return c->bdl && c->buf ? 0 : -ENOMEM;
}

static int probe_err;

static int ac97_probe(struct pci_dev *pci, const struct pci_device_id *id)
{
	struct smodem_dev *sd;
	struct ac97 *a;
	int err;

	err = pcim_enable_device(pci);
	if (err)
		goto fail;
	err = pcim_iomap_regions(pci, BIT(0) | BIT(1), "smodem");
	if (err)
		goto fail;
	err = dma_set_mask_and_coherent(&pci->dev, DMA_BIT_MASK(32));
	if (err)
		goto fail;
	pci_set_master(pci);

	a = devm_kzalloc(&pci->dev, sizeof(*a), GFP_KERNEL);
	if (!a) {
		err = -ENOMEM;
		goto fail;
	}
	a->pci = pci;
	a->nam = pcim_iomap_table(pci)[0];
	a->nabm = pcim_iomap_table(pci)[1];
	raw_spin_lock_init(&a->lock);
	raw_spin_lock_init(&a->isr_lock);
	hrtimer_init(&a->shared, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	a->shared.function = ac97_shared_tick;
	a->ch[0] = (struct ac97_chan){ .chan = SMODEM_CHAN_IN, .reg = CH_PI,
				       .ioc = true };
	a->ch[1] = (struct ac97_chan){ .chan = SMODEM_CHAN_OUT, .reg = CH_PO };
	err = chan_alloc(a, &a->ch[0], smodem_p.ring) ?:
	      chan_alloc(a, &a->ch[1], smodem_p.ring);
	if (err)
		goto fail;

	sd = smodem_dev_alloc(pci_name(pci), &pci->dev);
	if (IS_ERR(sd)) {
		err = PTR_ERR(sd);
		goto fail;
	}
	snprintf(sd->name, sizeof(sd->name), "ac97-%s", pci_name(pci));
	sd->hw = &smodem_hw_ac97;
	sd->hw_priv = a;
	sd->rx_ring = a->ch[0].buf;
	sd->tx_ring = a->ch[1].buf;
	a->sd = sd;
	err = smodem_dev_register(sd);
	if (err) {
		smodem_dev_free(sd);
		goto fail;
	}
	pci_set_drvdata(pci, a);
	return 0;
fail:
	probe_err = err;
	return err;
}

static void ac97_remove(struct pci_dev *pci)
{
	struct ac97 *a = pci_get_drvdata(pci);

	smodem_dev_unregister(a->sd);
	smodem_dev_free(a->sd);
}

static const struct pci_device_id ac97_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_INTEL, 0x2415) },	/* 82801AA */
	{ }
};
MODULE_DEVICE_TABLE(pci, ac97_ids);

static struct pci_driver ac97_driver = {
	.name = "smodem",
	.id_table = ac97_ids,
	.probe = ac97_probe,
	.remove = ac97_remove,
};

static int ac97_bound(struct device *dev, void *data)
{
	(*(int *)data)++;
	return 0;
}

static int ac97_init(void)
{
	int err, n = 0;

	probe_err = 0;
	err = pci_register_driver(&ac97_driver);
	if (err)
		return err;
	err = driver_for_each_device(&ac97_driver.driver, NULL, &n, ac97_bound);
	if (!err && n)
		return 0;
	pci_unregister_driver(&ac97_driver);
	if (probe_err)
		return probe_err;
	pr_err("smodem: hw=ac97: no free Intel 82801AA AC'97 controller (8086:2415); unbind snd-intel8x0 or use hw=vline\n");
	return -ENODEV;
}

static void ac97_exit(void)
{
	pci_unregister_driver(&ac97_driver);
}

const struct smodem_backend_ops smodem_hw_ac97 = {
	.name = "ac97",
	.init = ac97_init,
	.exit = ac97_exit,
	.start = ac97_start,
	.stop = ac97_stop,
	.position = ac97_position,
	.set_period = ac97_set_period,
	.recover = ac97_recover,
	.inject = ac97_inject,
};
