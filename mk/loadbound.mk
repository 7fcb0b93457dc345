# make loadbound: the load-bound study's experiment 1 on the modem (issue 13,
# tools/loadbound/experiment.py --help): per kernel (KERNELS, default the 6.1
# generic and PREEMPT_RT flavours) and context (CONTEXTS, plus control: no
# module), one guest on the instruction-counted clock with lbprobe at
# SCHED_FIFO PROBE_PRIO below the modem's work for DURATION seconds (then the
# osnoise tracer where the kernel has it), JOBS guests at a time.
# Writes out/loadbound/{summary.json,table.md,*.png} (LB_OUT).
#
#   make loadbound [KERNELS="..."] [CONTEXTS="int thr"] [DURATION=5] [JOBS=2]
LB_DURATION   ?= 5
LB_OUT        ?= out/loadbound
PROBE_PRIO    ?= 40

.PHONY: loadbound loadbound-probe

# the probe alone, for any Linux machine (static)
loadbound-probe: build/loadbound/lbprobe
build/loadbound/lbprobe: tools/loadbound/probe.c
	@mkdir -p $(dir $@)
	gcc -static -O2 -Wall -Wextra -Werror -o $@ $<

loadbound: deps venv
	@$(MAKE) --no-print-directory modules
	LB_OUT=$(LB_OUT) PROBE_PRIO=$(PROBE_PRIO) JOBS=$(JOBS) \
	DURATION=$(if $(filter command line environment,$(origin DURATION)),$(DURATION),$(LB_DURATION)) \
	$(PYTHON) tools/loadbound/experiment.py
