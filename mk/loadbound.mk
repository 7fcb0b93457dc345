# make loadbound: the load-bound study's experiment 1 on the modem (issue 13,
# tools/loadbound/experiment.py --help).  Per kernel (KERNELS, default: the
# installed 6.1 generic and PREEMPT_RT, 6.12 generic and PREEMPT_RT), context
# (CONTEXTS, plus control: no module) and load_us (LOAD_US, default "1840 0":
# the study's processing, and the data pump alone) one guest on the
# instruction-counted clock, preempt=full: lbprobe at SCHED_FIFO PROBE_PRIO
# below the modem's work for DURATION seconds (default 5 here), then the
# osnoise tracer for as long where the kernel has it (the rt flavours);
# JOBS guests at a time.  Writes out/loadbound/{summary.json,table.md,*.png}
# (LB_OUT) and the raw runs in out/loadbound/runs/.  About 11 minutes of
# wall time on a shared 2-core machine with the defaults.
#
#   make loadbound [KERNELS="..."] [CONTEXTS="int thr"] [LOAD_US=1840] [DURATION=5] [JOBS=2]
#   make loadbound-probe      build/loadbound/lbprobe, static, for any Linux machine
LB_DURATION   ?= 5
LB_LOAD_US    ?= 1840 0
LB_OUT        ?= out/loadbound
PROBE_PRIO    ?= 40
# the top Makefile's DURATION (10) and LOAD_US (1840) are compare's defaults:
# only a value given on the command line or in the environment is taken
lb_given = $(filter command line environment,$(origin $(1)))

.PHONY: loadbound loadbound-probe

loadbound-probe: build/loadbound/lbprobe
build/loadbound/lbprobe: tools/loadbound/probe.c
	@mkdir -p $(dir $@)
	gcc -static -O2 -Wall -Wextra -Werror -o $@ $<

loadbound: deps venv
	@$(MAKE) --no-print-directory modules
	LB_OUT=$(LB_OUT) PROBE_PRIO=$(PROBE_PRIO) JOBS=$(JOBS) \
	DURATION="$(if $(call lb_given,DURATION),$(DURATION),$(LB_DURATION))" \
	LOAD_US="$(if $(call lb_given,LOAD_US),$(LOAD_US),$(LB_LOAD_US))" \
	$(PYTHON) tools/loadbound/experiment.py
