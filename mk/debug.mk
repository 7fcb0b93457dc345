# make check-debug: the module's guest tests on a debug kernel (lockdep,
# KASAN, kmemleak, DEBUG_OBJECTS, ...), what the kernel community would run.
#
#   make debug-kernel   build it once per machine (tools/lab/debug-kernel.sh,
#                       options in tools/lab/debug-kernel.config), cached in
#                       $(DEBUG_CACHE)/<source version>-<fragment hash>/
#   make debug-module   build/<its release>/smodem.ko against it (with -g)
#   make check-debug    both, then DEBUG_TESTS on it
#
# The cache lives outside build/: make clean keeps it.  DEBUG_CACHE is
# tools/lab/debug-kernel.sh's SMODEM_DEBUG_CACHE, DEBUG_JOBS its JOBS.
DEBUG_CACHE  ?= /var/cache/smodem/debug-kernel
DEBUG_JOBS   ?= 2
DEBUG_SH     := tools/lab/debug-kernel.sh
DEBUG_ENV    := SMODEM_DEBUG_CACHE=$(DEBUG_CACHE) JOBS=$(DEBUG_JOBS)
# guest timeouts are sized for Debian's kernel; KASAN + lockdep under TCG
# need more wall time (about 3x measured, see the README): a margin on top
DEBUG_TIMEOUT_SCALE ?= 4
# insmod/rmmod cycles of tests/debug/test_debug_kernel.py
DEBUG_CYCLES ?= 1000
# the module's compiler flags (-g: a splat's file:line, scripts/faddr2line;
# tools/kbuild-module adds its own, so file names are driver/at.c and so on)
DEBUG_KCFLAGS ?= -g
DEBUG_TESTS  ?= tests/debug tests/module/test_tty.py tests/module/test_call.py \
		tests/module/test_modem.py

.PHONY: debug-kernel debug-module check-debug

debug-kernel:
	@$(DEBUG_ENV) $(DEBUG_SH) build

debug-module: debug-kernel
	@dir=$$($(DEBUG_ENV) $(DEBUG_SH) dir) && kver=$$(cat $$dir/kver) && \
	SMODEM_KDIR=$$dir/lib/modules/$$kver/build KCFLAGS="$(DEBUG_KCFLAGS)" MAKE="$(MAKE)" \
		tools/kbuild-module $(TOP) $$kver && \
	echo "debug-module: build/$$kver/smodem.ko"

# modules too: test_debug_faults.py boots Debian's 6.12 beside the debug
# kernel (bhw needs 6.12), with its own module
check-debug: deps venv
	@$(MAKE) --no-print-directory debug-module modules $(if $(wildcard tools/line/line.mk),line)
	@dir=$$($(DEBUG_ENV) $(DEBUG_SH) dir) && kver=$$(cat $$dir/kver) && \
	echo "check-debug: kernel $$kver from $$dir" && \
	SMODEM_KERNEL_ROOT=$$dir SMODEM_GUEST_BOOT=bzimage SMODEM_DEBUG_KERNEL=$$kver SMODEM_TTY_KERNEL=$$kver \
	SMODEM_KO=$(TOP)/build/$$kver/smodem.ko SMODEM_TIMEOUT_SCALE=$(DEBUG_TIMEOUT_SCALE) \
	SMODEM_DEBUG_CYCLES=$(DEBUG_CYCLES) \
	$(PYTHON) -m pytest -p no:cacheprovider -rfE --durations=10 $(DEBUG_TESTS)
