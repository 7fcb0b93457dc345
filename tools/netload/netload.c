// SPDX-License-Identifier: GPL-2.0
/*
 * netload: a repeatable network load for the lab's guests.
 *
 * A kernel thread at SCHED_FIFO 99, woken by a hard hrtimer, transmits on
 * one NIC (ifname) ICMP echo requests every period_ns and, if hb_period_ns
 * is set, a UDP heartbeat datagram (port hb_port, the payload its 64-bit
 * sequence number) every hb_period_ns, built here as whole Ethernet frames
 * to dst_mac/dst_ip from src_ip.  With the two NICs of one QEMU joined by a
 * hub, the frames reach the other NIC without the host: on the
 * instruction-counted clock every run is the same run.  The thread is above
 * any task a test runs and its cost (and its NIC's transmit interrupts) can
 * be measured alone by sending to a MAC address nobody has (the receiving
 * NIC filters it in hardware).  Counters: /sys/module/netload/parameters/.
 *
 * softirq=1 sends from the hrtimer's softirq instead (HRTIMER_MODE_ABS_SOFT):
 * the frames then come at their times whatever task runs, as frames from a
 * wire do, so their receive processing lands inside any thread, a
 * SCHED_DEADLINE one included (the thread's sender waits for such a thread
 * to sleep).  On PREEMPT_RT soft hrtimers expire in a kernel thread.
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/icmp.h>
#include <linux/udp.h>
#include <linux/inet.h>
#include <linux/hrtimer.h>
#include <linux/sched.h>
#include <uapi/linux/sched/types.h>
#include <net/checksum.h>
#include <net/ip.h>

static char *ifname = "eth0";
module_param(ifname, charp, 0444);
MODULE_PARM_DESC(ifname, "the NIC to send on (default eth0)");
static char *dst_mac = "ff:ff:ff:ff:ff:ff";
module_param(dst_mac, charp, 0444);
MODULE_PARM_DESC(dst_mac, "destination MAC address");
static char *src_ip = "10.77.0.1";
module_param(src_ip, charp, 0444);
MODULE_PARM_DESC(src_ip, "source IPv4 address (default 10.77.0.1)");
static char *dst_ip = "10.77.0.2";
module_param(dst_ip, charp, 0444);
MODULE_PARM_DESC(dst_ip, "destination IPv4 address (default 10.77.0.2)");
static ulong period_ns = 10000;
module_param(period_ns, ulong, 0444);
MODULE_PARM_DESC(period_ns, "one ICMP echo request every period_ns, 0: none (default 10000)");
static ulong hb_period_ns;
module_param(hb_period_ns, ulong, 0444);
MODULE_PARM_DESC(hb_period_ns, "one UDP heartbeat every hb_period_ns, 0: none (default)");
static ushort hb_port = 9000;
module_param(hb_port, ushort, 0444);
MODULE_PARM_DESC(hb_port, "UDP port of the heartbeat (default 9000)");
static uint payload = 56;
module_param(payload, uint, 0444);
MODULE_PARM_DESC(payload, "ICMP payload bytes, 8..1472 (default 56, ping's)");
static uint prio = 99;
module_param(prio, uint, 0444);
MODULE_PARM_DESC(prio, "the sender thread's SCHED_FIFO priority, 1..99 (default 99)");
static ulong delay_ms;
module_param(delay_ms, ulong, 0444);
MODULE_PARM_DESC(delay_ms, "start sending this long after loading (default 0)");

static ulong duration_ms;
module_param(duration_ms, ulong, 0444);
MODULE_PARM_DESC(duration_ms, "stop sending this long after starting, 0: never (default 0)");
static bool softirq;
module_param(softirq, bool, 0444);
MODULE_PARM_DESC(softirq, "0 or 1: send from the hrtimer softirq instead of a SCHED_FIFO thread (default 0)");

static ulong sent;
module_param(sent, ulong, 0444);
MODULE_PARM_DESC(sent, "echo requests sent (read only)");
static ulong hb_sent;
module_param(hb_sent, ulong, 0444);
MODULE_PARM_DESC(hb_sent, "heartbeats sent (read only)");
static ulong xmit_errors;
module_param(xmit_errors, ulong, 0444);
MODULE_PARM_DESC(xmit_errors, "frames the stack refused (read only)");
static ulong late;
module_param(late, ulong, 0444);
MODULE_PARM_DESC(late, "wake-ups more than one period late, periods skipped (read only)");

static struct net_device *dev;
static struct task_struct *thread;
static struct hrtimer timer;
static ktime_t start, stop, next, next_hb;
static u8 dmac[ETH_ALEN];
static __be32 saddr, daddr;

static struct sk_buff *frame(u8 proto, unsigned int len)
{
	unsigned int hlen = LL_RESERVED_SPACE(dev);
	struct sk_buff *skb = alloc_skb(hlen + sizeof(struct iphdr) + len,
					softirq ? GFP_ATOMIC : GFP_KERNEL);
	struct iphdr *iph;

	if (!skb)
		return NULL;
	skb_reserve(skb, hlen);
	skb_reset_network_header(skb);
	iph = skb_put(skb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = 0;
	iph->tot_len = htons(sizeof(*iph) + len);
	iph->id = htons((u16)(sent + hb_sent));
	iph->frag_off = htons(IP_DF);
	iph->ttl = 64;
	iph->protocol = proto;
	iph->saddr = saddr;
	iph->daddr = daddr;
	ip_send_check(iph);
	skb_set_transport_header(skb, sizeof(*iph));
	skb->dev = dev;
	skb->protocol = htons(ETH_P_IP);
	return skb;
}

static void xmit(struct sk_buff *skb)
{
	if (dev_hard_header(skb, dev, ETH_P_IP, dmac, dev->dev_addr, skb->len) < 0) {
		kfree_skb(skb);
		xmit_errors++;
		return;
	}
	if (dev_queue_xmit(skb) != NET_XMIT_SUCCESS)
		xmit_errors++;
}

static void send_ping(void)
{
	struct sk_buff *skb = frame(IPPROTO_ICMP, sizeof(struct icmphdr) + payload);
	struct icmphdr *ic;
	u8 *data;

	if (!skb) {
		xmit_errors++;
		return;
	}
	ic = skb_put(skb, sizeof(*ic));
	data = skb_put(skb, payload);
	memset(data, 0xa5, payload);
	put_unaligned_be64(sent, data);
	ic->type = ICMP_ECHO;
	ic->code = 0;
	ic->un.echo.id = htons(0x4e4c);
	ic->un.echo.sequence = htons((u16)sent);
	ic->checksum = 0;
	ic->checksum = ip_compute_csum(ic, sizeof(*ic) + payload);
	sent++;
	xmit(skb);
}

static void send_heartbeat(void)
{
	struct sk_buff *skb = frame(IPPROTO_UDP, sizeof(struct udphdr) + 8);
	struct udphdr *uh;

	if (!skb) {
		xmit_errors++;
		return;
	}
	uh = skb_put(skb, sizeof(*uh));
	uh->source = htons(hb_port);
	uh->dest = htons(hb_port);
	uh->len = htons(sizeof(*uh) + 8);
	uh->check = 0;		/* no checksum: allowed for IPv4 */
	put_unaligned_be64(hb_sent, skb_put(skb, 8));
	hb_sent++;
	xmit(skb);
}

/*
 * The next due time of a periodic activity; a wake-up more than one
 * period late skips the missed periods (counted).
 */
static bool due(ktime_t now, ktime_t *next, u64 period)
{
	if (!period || ktime_before(now, *next))
		return false;
	*next = ktime_add_ns(*next, period);
	if (ktime_before(*next, now)) {
		late++;
		*next = ktime_add_ns(now, period);
	}
	return true;
}

/* What is due at now, sent; the next time anything is due (KTIME_MAX: done). */
static ktime_t send_due(ktime_t now)
{
	ktime_t wake;

	if (duration_ms && !ktime_before(now, stop))
		return KTIME_MAX;
	if (!ktime_before(now, start)) {
		if (due(now, &next, period_ns))
			send_ping();
		if (due(now, &next_hb, hb_period_ns))
			send_heartbeat();
	}
	wake = period_ns ? next : next_hb;
	if (hb_period_ns && ktime_before(next_hb, wake))
		wake = next_hb;
	return wake;
}

static int sender(void *unused)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};
	ktime_t wake;

	sched_setattr_nocheck(current, &attr);
	while (!kthread_should_stop()) {
		wake = send_due(ktime_get());
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop()) {
			__set_current_state(TASK_RUNNING);
			break;
		}
		schedule_hrtimeout_range(&wake, 0, HRTIMER_MODE_ABS);
	}
	return 0;
}

static enum hrtimer_restart soft_sender(struct hrtimer *t)
{
	ktime_t wake = send_due(ktime_get());

	if (wake == KTIME_MAX)
		return HRTIMER_NORESTART;
	hrtimer_set_expires(t, wake);
	return HRTIMER_RESTART;
}

static int __init netload_init(void)
{
	if (!mac_pton(dst_mac, dmac) || !in4_pton(src_ip, -1, (u8 *)&saddr, -1, NULL) ||
	    !in4_pton(dst_ip, -1, (u8 *)&daddr, -1, NULL)) {
		pr_err("netload: bad dst_mac, src_ip or dst_ip\n");
		return -EINVAL;
	}
	if ((period_ns && period_ns < 1000) || (hb_period_ns && hb_period_ns < 1000) ||
	    (!period_ns && !hb_period_ns) || payload < 8 || payload > 1472 ||
	    prio < 1 || prio > 99) {
		pr_err("netload: periods >= 1000 ns (one of them set), payload 8..1472, prio 1..99\n");
		return -EINVAL;
	}
	dev = dev_get_by_name(&init_net, ifname);
	if (!dev) {
		pr_err("netload: no device %s\n", ifname);
		return -ENODEV;
	}
	start = ktime_add_ms(ktime_get(), delay_ms);
	stop = ktime_add_ms(start, duration_ms);
	next = start;
	next_hb = start;
	if (softirq) {
		hrtimer_init(&timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
		timer.function = soft_sender;
		hrtimer_start(&timer, start, HRTIMER_MODE_ABS_SOFT);
		return 0;
	}
	thread = kthread_run(sender, NULL, "netload");
	if (IS_ERR(thread)) {
		dev_put(dev);
		return PTR_ERR(thread);
	}
	return 0;
}

static void __exit netload_exit(void)
{
	if (softirq)
		hrtimer_cancel(&timer);
	else
		kthread_stop(thread);
	dev_put(dev);
	pr_info("netload: %lu echo requests, %lu heartbeats sent, %lu refused, %lu late\n",
		sent, hb_sent, xmit_errors, late);
}

module_init(netload_init);
module_exit(netload_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Repeatable network load for the smodem lab (hrtimer-paced sender)");
