# smodem top-level Makefile.  Every target that needs packages installs them
# itself (tools/lab/deps.sh reads tools/lab/packages.txt), so the README's two
# commands work on a fresh Debian 12 machine.

PYTHON   := /usr/bin/python3
TOP      := $(CURDIR)
# Installed kernel flavours, from their headers: never the running kernel.
KVERS     = $(sort $(notdir $(patsubst %/build,%,$(wildcard /lib/modules/*/build))))
KVER_GEN  = $(firstword $(filter 6.1.%,$(filter-out %-rt-amd64,$(KVERS))) $(KVERS))
KVER     ?= $(KVER_GEN)
KO        = build/$(KVER)/smodem.ko

# Comparison run (make compare / make demo).
CONTEXTS     ?= int dpc thr res
DURATION     ?= 10
LOAD_US      ?= 1840
KERNEL       ?= $(KVER_GEN)
CLOCK        ?= virtual
ICOUNT_SHIFT ?= 0
OUT          ?= out/compare
export CONTEXTS DURATION LOAD_US KERNEL CLOCK ICOUNT_SHIFT OUT

.PHONY: all module modules deps check check-real check-build compare demo bench-module bench-modem clean FORCE

all: module

module: $(KO)

build/%/smodem.ko: FORCE
	@test -d /lib/modules/$*/build || { echo "no headers for $* (try: make deps)"; exit 1; }
	@tools/kbuild-tree $(TOP) $(TOP)/build/$*/src
	$(MAKE) -C /lib/modules/$*/build M=$(TOP)/build/$*/src modules
	@cp build/$*/src/smodem.ko $@

# The module for every installed kernel flavour.
modules:
	@for k in $(KVERS); do $(MAKE) --no-print-directory build/$$k/smodem.ko || exit 1; done

deps:
	@tools/lab/deps.sh

-include dsp/dsp.mk
-include tools/line/line.mk

# Everything the tests need, built before pytest starts.
check-build: modules dsp-tests dsp-fuzz-build $(if $(wildcard tools/line/line.mk),line)

# Real-time tests (a live call over JACK) are not repeatable on a shared
# machine: they run with check-real, not in check.
check: deps
	@$(MAKE) --no-print-directory check-build
	$(PYTHON) -m pytest -p no:cacheprovider -rfE --ignore=tests/realtime tests

check-real: deps
	@$(MAKE) --no-print-directory modules line
	$(PYTHON) -m pytest -p no:cacheprovider -rfE tests/realtime

compare: deps
	@$(MAKE) --no-print-directory build/$(KERNEL)/smodem.ko
	$(PYTHON) tools/lab/compare.py

# The demo: a call from the guest's modem to smline (file each way, hang-up),
# then the contexts comparison, and a report (out/demo/report.md). CLOCK=virtual
# (default): the line on QEMU's D-Bus audio, instruction-counted; CLOCK=real: JACK.
demo: deps
	@$(MAKE) --no-print-directory build/$(KERNEL)/smodem.ko line
	$(PYTHON) tools/demo.py

# The modem's benchmarks: throughput against SpanDSP back to back, set-up
# time, the contexts under the study's load, line time against wall time
# (out/bench-modem.json, out/bench-modem.md). CLOCK as for the demo.
NBYTES    ?= 4096
IDLE_S    ?= 20
BENCH_OUT ?= out
bench-modem: deps
	@$(MAKE) --no-print-directory build/$(KERNEL)/smodem.ko line
	NBYTES=$(NBYTES) IDLE_S=$(IDLE_S) BENCH_OUT=$(BENCH_OUT) $(PYTHON) tools/bench_modem.py

bench-module: deps
	@$(MAKE) --no-print-directory build/$(KERNEL)/smodem.ko
	$(PYTHON) tools/bench_module.py

clean:
	rm -rf build out

FORCE:
