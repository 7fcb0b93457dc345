# smodem top-level Makefile.  Every target that needs packages installs them
# itself (tools/lab/deps.sh reads tools/lab/packages.txt), so the README's two
# commands work on a fresh Debian 12 machine.

TOP      := $(CURDIR)
# The project's Python: a venv over Debian's /usr/bin/python3 that still sees
# Debian's numpy, matplotlib and pytest (--system-site-packages), with the
# project (pyproject.toml: smlab, smtrace) installed editable and qemu.qmp
# from PyPI.  Made once (make venv); every target that runs Python needs it.
HOST_PYTHON := /usr/bin/python3
VENV        := build/venv
PYTHON      := $(VENV)/bin/python
VENV_STAMP  := $(VENV)/.installed
# tools/line/line.mk's tests import smlab too
LINE_PYTHON ?= $(PYTHON)
# Installed kernel flavours, from their headers: never the running kernel.
KVERS     = $(sort $(notdir $(patsubst %/build,%,$(wildcard /lib/modules/*/build))))
KVER_GEN  = $(firstword $(filter 6.1.%,$(filter-out %-rt-amd64,$(KVERS))) $(KVERS))
KVER     ?= $(KVER_GEN)
KO        = build/$(KVER)/smodem.ko

# Comparison run (make compare / make demo).
CONTEXTS     ?= int dpc thr res usr
DURATION     ?= 10
LOAD_US      ?= 1840
KERNEL       ?= $(KVER_GEN)
CLOCK        ?= virtual
ICOUNT_SHIFT ?= 0
OUT          ?= out/compare
# LOAD=pump: each context's run again with load_us=0 and calls to smline
# through the window (the real data pump), and once on a slowed guest CPU
# (SLOW_SHIFT, SLOW_CONTEXT); PUMP_DURATION, PUMP_BYTES, PUMP_FAR (the far
# modem's route words), PUMP_LINE (smline options), PUMP_AT: compare.py --help
LOAD         ?= emulated
export CONTEXTS DURATION LOAD_US KERNEL CLOCK ICOUNT_SHIFT OUT LOAD

.PHONY: all module modules deps venv check check-fast check-real check-build check-build-fast compare demo bench-module bench-modem resmap stolen upcalls clean help FORCE

all: module

# make help: every target, one line each (tests/unit/test_manpages.py checks
# that every target the Makefile and its fragments define is here).
help:
	@printf '%s\n' \
	'smodem: make TARGET [VARIABLE=value ...]   (doc/getting-started.md has the details)' \
	'' \
	'The two commands (fresh Debian 12, as root; both install their packages):' \
	'  demo              a call from the guest to smline, the contexts compared -> out/demo/report.md' \
	'  check             everything built, check-fast then every guest test (CI runs this; ~22 min)' \
	'' \
	'Build:' \
	'  all, module       build/$$(KVER)/smodem.ko against installed headers (default: 6.1 generic)' \
	'  modules           the module for every installed kernel flavour' \
	'  line              build/line/smline and its test programs (tools/line)' \
	'  smodemd           build/smodemd/smodemd and smodemd-static (context=usr)' \
	'  dsp-lib           build/dsp/libsmdsp.a, the data pump for user space' \
	'  loadbound-probe   build/loadbound/lbprobe, static' \
	'  loadbound-tasks   build/loadbound/lbtasks, static' \
	'  deps              install the packages the lab needs (tools/lab/deps.sh)' \
	'  venv              build/venv, the Python every tool runs' \
	'  clean             remove build/ and out/' \
	'  clean-line        remove build/line' \
	'' \
	'Test:' \
	'  check-fast        every test without a guest or kernel builds (~2 min)' \
	'  check-real        the real-time tests: a live call over JACK (not in check)' \
	'  check-debug       the guest tests on a debug kernel (lockdep, KASAN, kmemleak)' \
	'  debug-kernel      build the debug kernel once (cached in DEBUG_CACHE)' \
	'  debug-module      smodem.ko against the debug kernel' \
	'  check-dsp         the data pump tests (tests/dsp)' \
	'  check-recordings  the V.32bis and V.34 INFO receivers over real modems (RECORDINGS=dir; not in check)' \
	'  check-recordings-v32bis  only the V.32bis receiver over the V.32bis recordings (RECORDINGS=dir)' \
	'  check-recordings-v34     the V.34 INFO receiver and line probing analysis over the V.34 recordings (RECORDINGS=dir)' \
	'  check-line        the line tests (tests/line)' \
	'  fuzz              the libFuzzer targets, FUZZ_SECONDS each' \
	'' \
	'Install:' \
	'  install           module, udev rule, smodemd and its unit, man pages, docs (DESTDIR, PREFIX, KVER)' \
	'  uninstall         remove what install installed' \
	'  install-dkms      the sources in /usr/src/smodem-<version> for DKMS' \
	'  uninstall-dkms    remove them (and dkms remove without DESTDIR)' \
	'  deb               build/deb/smodem-dkms_<version>_all.deb' \
	'' \
	'Experiments and benchmarks (results in out/):' \
	'  compare           the contexts under the study load, beside the study (CONTEXTS, DURATION, KERNEL, CLOCK; LOAD=pump: the real pump in calls)' \
	'  study             the soft-modem study on four kernels (QUICK=1: the reduced grid)' \
	'  resmap            the reservation boundary: a call per SCHED_DEADLINE reservation X/Y' \
	'  stolen            the augmented-reservation study (stolen time, catchup, feedback, reclaim)' \
	'  upcalls           the real-time upcall study: 1..8 modems in one smodemd' \
	'  loadbound         the load-bound study: loadbound-modem, then loadbound-net' \
	'  lab-worker        join a study'"'"'s Dask scheduler (SCHEDULER=tcp://host:8786 JOBS=cores [SHARED_FS=0])' \
	'  loadbound-modem   its experiment 1: the modem per kernel and context' \
	'  loadbound-net     its experiments 2 and 3: network receive processing' \
	'  bench-module      the module: ISR cost, interrupt-to-processing latency, trace overhead' \
	'  bench-modem       the modem: throughput against SpanDSP, set-up, contexts, line vs wall time' \
	'  bench-dsp         the data pump: CPU, memory, stack, BER -> out/bench-dsp.json' \
	'  bench-v34         V.34 every symbol rate x data rate: the SNR at BER 1e-5 beside theory (BENCH_JOBS)' \
	'' \
	'Internal (prerequisites of the above):' \
	'  check-build       check-build-fast plus the module for every flavour' \
	'  check-build-fast  what check-fast needs built' \
	'  dsp-tests         the data pump C tests, and their UBSan builds' \
	'  dsp-ubsan         the UBSan builds (gcc, clang) of the library, tests and fuzz targets' \
	'  dsp-fuzz-build    the libFuzzer targets' \
	'  help              this list'

module: $(KO)

# KBUILD_CHECK (make check sets "W=1 C=2"): a whole build with those flags,
# its log kept for test_kernel_build.py (tools/kbuild-module says how).
KBUILD_CHECK ?=
build/%/smodem.ko: FORCE
	@test -d /lib/modules/$*/build || { echo "no headers for $* (try: make deps)"; exit 1; }
	@MAKE="$(MAKE)" tools/kbuild-module $(TOP) $* "$(KBUILD_CHECK)"

# The module for every installed kernel flavour.
modules:
	@for k in $(KVERS); do $(MAKE) --no-print-directory build/$$k/smodem.ko || exit 1; done

deps:
	@tools/lab/deps.sh

venv: $(VENV_STAMP)

# Rebuilt from scratch when pyproject.toml changes.  --no-build-isolation:
# the build uses the venv's own setuptools and Debian's wheel (no download).
$(VENV_STAMP): pyproject.toml | deps
	rm -rf $(VENV)
	$(HOST_PYTHON) -m venv --system-site-packages $(VENV)
	$(PYTHON) -m pip install -q --disable-pip-version-check --no-build-isolation -e .
	@touch $@

-include dsp/dsp.mk
-include tools/line/line.mk
-include tools/smodemd/smodemd.mk
# one fragment per feature with targets of its own (install, check-debug, ...)
-include $(sort $(wildcard mk/*.mk))
check-line: venv

# Everything the tests need, built before pytest starts: check-fast's
# (no kernel module), and the module for every flavour besides.
check-build-fast: dsp-tests dsp-fuzz-build $(if $(wildcard tools/line/line.mk),line) smodemd
check-build: modules check-build-fast

# make check = make check-fast, then the guest tests (tests/conftest.py
# says which files boot a guest or build the module: markers guest and
# kbuild).  Real-time tests (a live call over JACK) are not repeatable on a
# shared machine: they run with check-real, not in check; the debug
# kernel's with check-debug.  The test files run JOBS at a time
# (pytest-xdist, a file per worker: the tests of one file share its guest
# boot); each guest is on the instruction-counted clock, so its results do
# not depend on that.  The last line counts both runs.
JOBS ?= $(shell nproc)
PYTEST = $(PYTHON) -m pytest -p no:cacheprovider -rfE -n $(JOBS) --dist loadfile \
	--ignore=tests/realtime --ignore=tests/debug
TESTSUM = $(PYTHON) tools/lab/testsum.py
check-fast: venv
	@$(MAKE) --no-print-directory -j$(JOBS) check-build-fast
	@mkdir -p out/tests
	SMLAB_NO_GUEST=1 $(PYTEST) --durations=10 -m "not guest and not kbuild" \
		--junitxml=out/tests/check-fast.xml tests

# The guests of make check boot with noapictimer: a kernel calibrates the
# local APIC timer by polling the TSC with PAUSE for 100 ms of guest time,
# and each PAUSE leaves TCG's translated code: on the instruction-counted
# clock that was half of every boot's host time (5 of 10 s; a study piece's
# guest boots for longer than it measures).  The clock events then come
# from the HPET: cyclictest's figures in a guest are the same to the
# microsecond (3/3/5 against 3/3/6 us).  make study and the other
# experiments keep the local APIC timer.  Their lines on QEMU's D-Bus audio
# get the guest's input every 4 ms instead of every 1 ms: each tick is a
# synchronous D-Bus round trip to smline, much of a call's host CPU
# (tools/lab/smlab/dbusline.py, tick_default).
check: export SMLAB_CMDLINE_EXTRA = noapictimer
check: export SMLAB_DBUS_TICK_US = 4000
# The modules' build (W=1 C=2 for every flavour: about 3.5 min of CPU) runs beside check-fast's tests
# (they leave little of the cores idle: the two together take about what they took in turn); its output
# goes to out/tests/modules-build.log, shown if it fails.  check-fast's failure still stops the check,
# after the build.
check: deps venv
	@$(MAKE) --no-print-directory -j$(JOBS) check-build-fast
	@mkdir -p out/tests
	@$(MAKE) --no-print-directory -j$(JOBS) modules KBUILD_CHECK="W=1 C=2" >out/tests/modules-build.log 2>&1 & \
	bpid=$$!; $(MAKE) --no-print-directory check-fast; rc=$$?; \
	if ! wait $$bpid; then tail -60 out/tests/modules-build.log; echo "make check: the modules' build failed"; exit 1; fi; \
	exit $$rc
	@rm -f out/tests/guest-retries.log
	$(PYTEST) --durations=25 -m "guest or kbuild" --junitxml=out/tests/check-guest.xml tests; \
		rc=$$?; $(TESTSUM) --retries out/tests/guest-retries.log \
		out/tests/check-fast.xml out/tests/check-guest.xml; exit $$rc

check-real: deps venv
	@$(MAKE) --no-print-directory modules line
	$(PYTHON) -m pytest -p no:cacheprovider -rfE tests/realtime

compare: deps venv
	@$(MAKE) --no-print-directory build/$(KERNEL)/smodem.ko $(if $(filter usr,$(CONTEXTS)),smodemd) $(if $(filter pump,$(LOAD)),line)
	$(PYTHON) tools/lab/compare.py

# The demo: a call from the guest's modem to smline (file each way, hang-up),
# then the contexts comparison, and a report (out/demo/report.md). CLOCK=virtual
# (default): the line on QEMU's D-Bus audio, instruction-counted; CLOCK=real: JACK.
demo: deps venv
	@$(MAKE) --no-print-directory build/$(KERNEL)/smodem.ko line $(if $(filter usr,$(CONTEXTS)),smodemd)
	$(PYTHON) tools/demo.py

# The modem's benchmarks: throughput against SpanDSP back to back, set-up
# time, the contexts under the study's load, line time against wall time
# (out/bench-modem.json, out/bench-modem.md). CLOCK as for the demo. The
# reference and the calls are smlab.runner pieces (tools/bench_modem.py
# --help; JOBS, default 1, SCHEDULER), recorded in out/bench-modem/record.jsonl
# and not made again with the same settings unless FORCE=1.
NBYTES    ?= 4096
IDLE_S    ?= 20
BENCH_OUT ?= out
bench-modem: deps venv
	@$(MAKE) --no-print-directory build/$(KERNEL)/smodem.ko line smodemd
	NBYTES=$(NBYTES) IDLE_S=$(IDLE_S) BENCH_OUT=$(BENCH_OUT) $(PYTHON) tools/bench_modem.py $(if $(FORCE),--force)

# The study's reservation boundary (Table 3, Figure 17): a call per hard
# SCHED_DEADLINE reservation X/Y, the map against the model (tools/resmap.py
# --help; CELLS=study|sweep|"X/Y ...", JOBS, RESMAP_OUT, FORCE=1).
resmap: deps venv
	@$(MAKE) --no-print-directory build/$(KERNEL)/smodem.ko line
	$(PYTHON) tools/resmap.py $(if $(FORCE),--force)

# The augmented-reservation study (Figures 3 and 4, its overhead figures,
# its devices table): stolen time from a network stream and from disks in
# a SCHED_DEADLINE reservation kept plain, catchup, feedback and reclaim
# (tools/stolen_study.py --help; KERNELS, WORKS, POINTS, QUICK=1, JOBS,
# STOLEN_OUT, FORCE=1).
stolen: deps venv
	@$(MAKE) --no-print-directory modules
	$(PYTHON) tools/stolen_study.py $(if $(FORCE),--force)

# The real-time upcall study's experiments with modems as the periodic work:
# 1..8 modems in context=usr, smodemd's single rate-monotonic thread against
# one thread per modem, under the study's background loads, the admission
# test against what held (tools/upcalls.py --help; LOADS, NS, JOBS,
# UPCALLS_OUT, FORCE=1).  About 40 min on 2 cores.
upcalls: deps venv
	@$(MAKE) --no-print-directory build/$(KERNEL)/smodem.ko smodemd
	$(PYTHON) tools/upcalls.py $(if $(FORCE),--force)

bench-module: deps venv
	@$(MAKE) --no-print-directory build/$(KERNEL)/smodem.ko
	$(PYTHON) tools/bench_module.py --out $(BENCH_OUT)

clean:
	rm -rf build out

FORCE:
