# make loadbound: the load-bound study's experiments.
#
# Experiment 1, the modem (make loadbound-modem, tools/loadbound/experiment.py
# --help).  Per kernel (KERNELS, default: the installed 6.1 generic and
# PREEMPT_RT, 6.12 generic and PREEMPT_RT), context (CONTEXTS, plus control:
# no module) and load_us (LOAD_US, default "1840 0": the study's processing,
# and the data pump alone) one guest on the instruction-counted clock,
# preempt=full: lbprobe at SCHED_FIFO PROBE_PRIO below the modem's work for
# DURATION seconds (default 5 here), then the osnoise tracer for as long where
# the kernel has it (the rt flavours); JOBS guests at a time.  Writes
# out/loadbound/{summary.json,table.md,*.png} (LB_OUT) and the raw runs in
# out/loadbound/runs/.  About 11 minutes of wall time on a shared 2-core machine.
#
# Experiments 2 and 3, network receive processing (make loadbound-net,
# tools/loadbound/net_experiment.py --help): two e1000 NICs on one QEMU hub
# and an in-guest hrtimer-paced sender (tools/netload, tools/lab/smlab/netload.py).
# Experiment 2: per 6.1 kernel (generic, PREEMPT_RT) lbprobe for DURATION s
# (default 3 here) under no load, a ping flood (10 us) with and without
# replies and the sender alone; experiment 3: tau1/tau2 (lbtasks) beside a
# flood (FLOOD3_NS) in four configurations (CONFIGS3), TAU2_US swept,
# DURATION3 s per point.  Writes out/loadbound/net/{summary.json,table.md,
# *.png} (LB_NET_OUT).  Both experiments' boots are pieces of smlab.runner:
# JOBS at a time, or on a Dask scheduler's workers (SCHEDULER=tcp://host:8786);
# boots recorded in <out>/record.jsonl with the same settings are not run
# again (FORCE=1 runs them).
#
#   make loadbound [KERNELS="..."] [CONTEXTS="int thr"] [LOAD_US=1840] [DURATION=5] [JOBS=2]
#   make loadbound-modem | loadbound-net [NET_EXPERIMENTS="2 3"] [DURATION3=2] [TAU2_US=1000,...]
#   make loadbound-probe      build/loadbound/lbprobe, static, for any Linux machine
#   make loadbound-tasks      build/loadbound/lbtasks, static
LB_DURATION   ?= 5
LB_NET_DURATION ?= 3
LB_LOAD_US    ?= 1840 0
LB_OUT        ?= out/loadbound
LB_NET_OUT    ?= $(LB_OUT)/net
PROBE_PRIO    ?= 40
# the top Makefile's DURATION (10) and LOAD_US (1840) are compare's defaults:
# only a value given on the command line or in the environment is taken
lb_given = $(filter command line environment,$(origin $(1)))

.PHONY: loadbound loadbound-modem loadbound-net loadbound-probe loadbound-tasks

loadbound-probe: build/loadbound/lbprobe
build/loadbound/lbprobe: tools/loadbound/probe.c
	@mkdir -p $(dir $@)
	gcc -static -O2 -Wall -Wextra -Werror -o $@ $<

loadbound-tasks: build/loadbound/lbtasks
build/loadbound/lbtasks: tools/loadbound/tasks.c
	@mkdir -p $(dir $@)
	gcc -static -O2 -Wall -Wextra -Werror -o $@ $< -lpthread

loadbound: loadbound-modem loadbound-net

loadbound-modem: deps venv
	@$(MAKE) --no-print-directory modules
	LB_OUT=$(LB_OUT) PROBE_PRIO=$(PROBE_PRIO) JOBS=$(JOBS) \
	DURATION="$(if $(call lb_given,DURATION),$(DURATION),$(LB_DURATION))" \
	LOAD_US="$(if $(call lb_given,LOAD_US),$(LOAD_US),$(LB_LOAD_US))" \
	$(PYTHON) tools/loadbound/experiment.py $(if $(FORCE),--force)

loadbound-net: deps venv
	LB_NET_OUT=$(LB_NET_OUT) PROBE_PRIO=$(PROBE_PRIO) JOBS=$(JOBS) \
	DURATION="$(if $(call lb_given,DURATION),$(DURATION),$(LB_NET_DURATION))" \
	$(PYTHON) tools/loadbound/net_experiment.py $(if $(FORCE),--force)
