# dsp/dsp.mk - user-space build, tests, benchmark and fuzzing of the modem data pump.
# Included by the top-level Makefile, which runs from the repository top.
#
#   make dsp-lib     build/dsp/libsmdsp.a (the same dsp/*.c that goes into smodem.ko)
#   make check-dsp   build and run the C tests in tests/dsp/ through pytest (plus a short fuzz run)
#   make bench-dsp   CPU time, memory and stack figures -> out/bench-dsp.json
#   make bench-v34   V.34's line SNR at a BER of 1e-5, every symbol rate x data rate -> out/bench-v34-matrix.json
#   make fuzz        libFuzzer targets tests/dsp/fuzz_*.c, FUZZ_SECONDS each (default 60)
#   make check-recordings RECORDINGS=dir
#                    the V.32bis receiver and the V.34 INFO receiver over real modems' recordings (not in any check)

DSP_CC        ?= gcc
DSP_CLANG     ?= clang
DSP_PYTHON    ?= /usr/bin/python3
DSP_BUILD     := build/dsp
DSP_SRCS      := $(wildcard dsp/*.c)
DSP_HDRS      := $(wildcard dsp/include/smdsp/*.h dsp/include/smdsp/private/*.h dsp/*.h)
DSP_OBJS      := $(patsubst dsp/%.c,$(DSP_BUILD)/obj/%.o,$(DSP_SRCS))
DSP_LIB       := $(DSP_BUILD)/libsmdsp.a
DSP_CFLAGS    := -O2 -g -Wall -Wextra -Werror -fstack-usage -fcallgraph-info=su -Idsp/include
# Test programs may use floating point, libc, SpanDSP and liquid-dsp; the library may not.
# The in-memory line (tests/dsp/common/line.c) crosses clocks with smline's
# converter (tools/line/resample.c) and has its echo paths (tools/line/echopath.c):
# one resampler and one set of echo paths for both lines.
DSP_TCFLAGS   := -O2 -g -Wall -Wextra -Werror -Wno-deprecated-declarations -Idsp/include -Itests/dsp/common -Itests/common \
                 -Itools/line
DSP_TLIBS     := -lspandsp -lliquid -lm
DSP_TCOMMON   := $(wildcard tests/dsp/common/*.c) tests/common/check.c tools/line/resample.c tools/line/echopath.c
DSP_TCOMMON_H := $(wildcard tests/dsp/common/*.h) tests/common/check.h tools/line/resample.h \
                 tools/line/echopath.h
DSP_TESTS     := $(patsubst tests/dsp/%.c,$(DSP_BUILD)/tests/%,$(wildcard tests/dsp/test_*.c))
DSP_BENCH     := $(DSP_BUILD)/tests/bench_dsp
DSP_BENCH_V34 := $(DSP_BUILD)/tests/bench_v34_matrix
BENCH_JOBS    ?= 2
DSP_FUZZ      := $(patsubst tests/dsp/%.c,$(DSP_BUILD)/fuzz/%,$(wildcard tests/dsp/fuzz_*.c))
FUZZ_SECONDS  ?= 60

.SECONDARY:
.PHONY: dsp-lib check-dsp bench-dsp bench-v34 fuzz dsp-tests dsp-fuzz-build

dsp-lib: $(DSP_LIB)

$(DSP_BUILD)/obj/%.o: dsp/%.c $(DSP_HDRS)
	@mkdir -p $(dir $@)
	$(DSP_CC) $(DSP_CFLAGS) -c $< -o $@

$(DSP_LIB): $(DSP_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# The tests' shared sources are compiled once into an archive per build (plain, each UBSan kind), not
# once per program: with some 170 programs that was two thirds of make check's build time.
DSP_TCOMMON_A := $(DSP_BUILD)/tcommon/libtcommon.a
tcommon_objs = $(patsubst %.c,$(1)/tcommon/%.o,$(DSP_TCOMMON))

$(DSP_BUILD)/tcommon/%.o: %.c $(DSP_TCOMMON_H) $(DSP_HDRS)
	@mkdir -p $(dir $@)
	$(DSP_CC) $(DSP_TCFLAGS) -c $< -o $@

$(DSP_TCOMMON_A): $(call tcommon_objs,$(DSP_BUILD))
	rm -f $@
	ar rcs $@ $^

$(DSP_BUILD)/tests/%: tests/dsp/%.c $(DSP_TCOMMON_A) $(DSP_TCOMMON_H) $(DSP_LIB)
	@mkdir -p $(dir $@)
	$(DSP_CC) $(DSP_TCFLAGS) $< $(DSP_TCOMMON_A) $(DSP_LIB) $(DSP_TLIBS) -o $@

# Our engine against smline's far modem (SpanDSP's V.22bis, V.42 and V.42bis, and our V.32bis, as smline runs them):
# smline's modem, its V.42bis glue and its helpers linked in (their own warnings: tools/line/line.mk's).
DSP_T_FAR     := tools/line/modem.c tools/line/v42bis_far.c tools/line/v32far.c tools/line/v34far.c tools/line/util.c
$(DSP_BUILD)/tests/test_v42bis_far: tests/dsp/test_v42bis_far.c $(DSP_T_FAR) $(wildcard tools/line/*.h) \
		$(DSP_TCOMMON_A) $(DSP_TCOMMON_H) $(DSP_LIB)
	@mkdir -p $(dir $@)
	$(DSP_CC) $(DSP_TCFLAGS) -Wno-unused-parameter $< $(DSP_T_FAR) $(DSP_TCOMMON_A) $(DSP_LIB) \
		$(DSP_TLIBS) -o $@

# the matrix's quick run is a test (tests/dsp/test_dsp.py), its whole run make bench-v34
dsp-tests: $(DSP_TESTS) $(DSP_BENCH_V34) dsp-ubsan

# UBSan builds: the library, the C tests and the fuzz targets (each behind tests/dsp/standalone_fuzz.c,
# a main() that runs the inputs named on its command line) again with gcc and with clang,
# -fsanitize=undefined -fno-sanitize-recover=all: the first undefined operation ends the program
# (exit code 1). tests/dsp/test_ubsan.py runs a short subset of them on impaired and hostile inputs.
DSP_UB_KINDS  := gcc clang
DSP_UB_SAN    := -fsanitize=undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer
DSP_UB_CFLAGS := -O2 -g -Wall -Wextra -Wno-deprecated-declarations $(DSP_UB_SAN) -Idsp/include
DSP_UB_FUZZDRV := tests/dsp/standalone_fuzz.c
DSP_UB_TINC   := -Itests/dsp/common -Itests/common -Itools/line
dsp_ub_cc = $(if $(filter clang,$(1)),$(DSP_CLANG),$(DSP_CC))

define DSP_UB_RULES
$$(DSP_BUILD)/ubsan-$(1)/obj/%.o: dsp/%.c $$(DSP_HDRS)
	@mkdir -p $$(dir $$@)
	$$(call dsp_ub_cc,$(1)) $$(DSP_UB_CFLAGS) -c $$< -o $$@

$$(DSP_BUILD)/ubsan-$(1)/libsmdsp.a: $$(patsubst dsp/%.c,$$(DSP_BUILD)/ubsan-$(1)/obj/%.o,$$(DSP_SRCS))
	rm -f $$@
	ar rcs $$@ $$^

$$(DSP_BUILD)/ubsan-$(1)/tcommon/%.o: %.c $$(DSP_TCOMMON_H) $$(DSP_HDRS)
	@mkdir -p $$(dir $$@)
	$$(call dsp_ub_cc,$(1)) $$(DSP_UB_CFLAGS) $$(DSP_UB_TINC) -c $$< -o $$@

$$(DSP_BUILD)/ubsan-$(1)/tcommon/libtcommon.a: $$(call tcommon_objs,$$(DSP_BUILD)/ubsan-$(1))
	rm -f $$@
	ar rcs $$@ $$^

$$(DSP_BUILD)/ubsan-$(1)/tests/%: tests/dsp/%.c $$(DSP_BUILD)/ubsan-$(1)/tcommon/libtcommon.a $$(DSP_TCOMMON_H) \
		$$(DSP_BUILD)/ubsan-$(1)/libsmdsp.a
	@mkdir -p $$(dir $$@)
	$$(call dsp_ub_cc,$(1)) $$(DSP_UB_CFLAGS) $$(DSP_UB_TINC) $$< $$(DSP_BUILD)/ubsan-$(1)/tcommon/libtcommon.a \
		$$(DSP_BUILD)/ubsan-$(1)/libsmdsp.a $$(DSP_TLIBS) -o $$@

$$(DSP_BUILD)/ubsan-$(1)/fuzz/%: tests/dsp/%.c $$(DSP_UB_FUZZDRV) $$(DSP_BUILD)/ubsan-$(1)/libsmdsp.a
	@mkdir -p $$(dir $$@)
	$$(call dsp_ub_cc,$(1)) $$(DSP_UB_CFLAGS) -Itests/dsp/common $$< $$(DSP_UB_FUZZDRV) \
		$$(DSP_BUILD)/ubsan-$(1)/libsmdsp.a -o $$@
endef
$(foreach k,$(DSP_UB_KINDS),$(eval $(call DSP_UB_RULES,$(k))))

# not run there (the BER sweeps and test_hdlc_fer: minutes of line statistics), so not built;
# nor test_v42bis_far (smline's modem: SpanDSP's code, not the library's)
DSP_UB_SKIP   := $(filter %_ber %/test_hdlc_fer %/test_v42bis_far,$(DSP_TESTS))
DSP_UBSAN     := $(foreach k,$(DSP_UB_KINDS),$(patsubst $(DSP_BUILD)/%,$(DSP_BUILD)/ubsan-$(k)/%, \
                   $(filter-out $(DSP_UB_SKIP),$(DSP_TESTS)) $(DSP_FUZZ)))
.PHONY: dsp-ubsan
dsp-ubsan: $(DSP_UBSAN)

check-dsp: dsp-tests dsp-fuzz-build
	DSP_BUILD=$(DSP_BUILD) $(DSP_PYTHON) -m pytest -q tests/dsp

# V.34's whole matrix: every symbol rate and data rate, the line SNR at 1e-5 beside the theory (resumes from
# out/bench-v34-matrix/points.jsonl; remove it to measure again)
bench-v34: $(DSP_BENCH_V34)
	@mkdir -p out
	$(DSP_BENCH_V34) --jobs $(BENCH_JOBS) --json out/bench-v34-matrix.json > out/bench-v34-matrix.txt
	@cat out/bench-v34-matrix.txt

bench-dsp: $(DSP_BENCH) $(DSP_LIB) $(DSP_BUILD)/tests/test_v22bis_ber
	@mkdir -p out
	$(DSP_BENCH) --json out/bench-dsp.json
	$(DSP_PYTHON) dsp/tools/stack_depth.py --json out/bench-dsp.json $(DSP_BUILD)/obj
	-dsp/tools/kstack.sh $(DSP_BUILD)/kstack out/bench-dsp.json | tail -3
	@# V.34's rows: the deepest stack below each end's calls, the kernel build's (the user-space one without it)
	$(DSP_PYTHON) -c 'import json; b = json.load(open("out/bench-dsp.json")); k = b.get("kernel_stack", b["stack"]); \
		b["v34"]["stack_bytes"] = dict(build=k["build"], **{e: k["entries"].get(e) for e in \
			("smdsp_v34_train_rx_process", "smdsp_v34_train_tx_process", "smdsp_echo_process_block")}); \
		print("V.34 stack (%s): %s" % (k["build"], b["v34"]["stack_bytes"])); \
		json.dump(b, open("out/bench-dsp.json", "w"), indent=1)'
	$(DSP_BUILD)/tests/test_v22bis_ber --json $(DSP_BUILD)/ber-v22bis.json
	$(DSP_PYTHON) -c 'import json; b = json.load(open("out/bench-dsp.json")); \
		b["ber_v22bis"] = json.load(open("$(DSP_BUILD)/ber-v22bis.json")); \
		json.dump(b, open("out/bench-dsp.json", "w"), indent=1)'
	@echo "wrote out/bench-dsp.json"

# The optional check on real modems' recordings (never part of check-dsp: the files stay outside the
# repository): our V.32bis receiver follows each direction of the V.32bis calls in RECORDINGS
# (raw 8 kHz s16le, *V32bis*_L_caller.raw and *V32bis*_R_answerer.raw; see the recordings' README).
RECORDINGS    ?=
DSP_FOLLOW    := $(DSP_BUILD)/tools/v32bis_follow

$(DSP_FOLLOW): tests/dsp/v32bis_follow.c $(DSP_LIB)
	@mkdir -p $(dir $@)
	$(DSP_CC) $(DSP_TCFLAGS) $< $(DSP_LIB) -lm -o $@

check-recordings-v32bis: $(DSP_FOLLOW)
	@test -n "$(RECORDINGS)" || { echo "usage: make check-recordings RECORDINGS=/path/to/recordings"; exit 2; }
	@set -e; n=0; for f in $(RECORDINGS)/*V32bis*_L_caller.raw; do test -f "$$f" || continue; \
		echo "== $$f (the caller's signal)"; $(DSP_FOLLOW) --caller "$$f"; n=$$((n + 1)); done; \
	for f in $(RECORDINGS)/*V32bis*_R_answerer.raw; do test -f "$$f" || continue; \
		echo "== $$f (the answerer's signal)"; $(DSP_FOLLOW) --answerer "$$f"; n=$$((n + 1)); done; \
	test $$n -gt 0 || { echo "no *V32bis*_{L_caller,R_answerer}.raw in $(RECORDINGS)"; exit 1; }

# Fuzz builds: the library is rebuilt with clang and ASan/UBSan so that the fuzzer sees into it.
DSP_FCFLAGS   := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
                 -Idsp/include -Itests/dsp/common
DSP_FOBJS     := $(patsubst dsp/%.c,$(DSP_BUILD)/fobj/%.o,$(DSP_SRCS))

$(DSP_BUILD)/fobj/%.o: dsp/%.c $(DSP_HDRS)
	@mkdir -p $(dir $@)
	$(DSP_CLANG) $(DSP_FCFLAGS) -c $< -o $@

$(DSP_BUILD)/fuzz/%: tests/dsp/%.c $(DSP_FOBJS)
	@mkdir -p $(dir $@)
	$(DSP_CLANG) $(DSP_FCFLAGS) -fsanitize=fuzzer $< $(DSP_FOBJS) -o $@

dsp-fuzz-build: $(DSP_FUZZ)

fuzz: $(DSP_FUZZ)
	@set -e; for f in $(DSP_FUZZ); do \
		mkdir -p $(DSP_BUILD)/corpus/$$(basename $$f); \
		echo "== $$f ($(FUZZ_SECONDS) s)"; \
		$$f -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=1024 -timeout=10 \
			-artifact_prefix=$(DSP_BUILD)/corpus/$$(basename $$f)- \
			$(DSP_BUILD)/corpus/$$(basename $$f); \
	done

# Real modems' V.34 calls (RECORDINGS: a directory of *_L_caller.raw and *_R_answerer.raw, raw
# 8 kHz s16le; never copied into the tree): tests/dsp/v34_recordings prints every INFO sequence
# our receiver decodes in each file and fails if a V.34 call's file (a name without "V32")
# gave no INFO0 with a good CRC; tests/dsp/v34_probe_recordings finds each file's L1/L2, prints
# the line probing analysis and the rate it would choose beside the rate in the file's name, and
# fails if a file has no probing signal; tests/dsp/v34_phase2_recordings runs our phase 2 controller
# listening only to each file (an answer modem hears *_L_caller, a call modem *_R_answerer), prints
# each step of the far end's phase 2 as it follows it, and fails if one was not followed to INFO1;
# tests/dsp/v34_train_recordings feeds what follows phase 2 to our training receiver configured for
# that direction (INFO1a and INFO1c from the call's two files), prints where S, S-bar, PP, J and phase
# 4 were found, the equaliser's error and TRN's descrambled ones, and fails if a file's TRN was not
# found or descrambled to under 99 % ones. Optional: the files are not in the repository.
RECORDINGS    ?=
DSP_V34REC    := $(DSP_BUILD)/tests/v34_recordings
DSP_V34PROBE  := $(DSP_BUILD)/tests/v34_probe_recordings
DSP_V34P2REC  := $(DSP_BUILD)/tests/v34_phase2_recordings
DSP_V34TRREC  := $(DSP_BUILD)/tests/v34_train_recordings
.PHONY: check-recordings check-recordings-v32bis check-recordings-v34
# both receivers over the recordings; each half says what it followed
check-recordings: check-recordings-v32bis check-recordings-v34

$(DSP_V34REC): tests/dsp/v34_recordings.c $(DSP_LIB)
	@mkdir -p $(dir $@)
	$(DSP_CC) $(DSP_TCFLAGS) $< $(DSP_LIB) -o $@

$(DSP_V34PROBE): tests/dsp/v34_probe_recordings.c $(DSP_LIB)
	@mkdir -p $(dir $@)
	$(DSP_CC) $(DSP_TCFLAGS) $< $(DSP_LIB) -o $@

$(DSP_V34P2REC): tests/dsp/v34_phase2_recordings.c $(DSP_LIB)
	@mkdir -p $(dir $@)
	$(DSP_CC) $(DSP_TCFLAGS) $< $(DSP_LIB) -o $@

$(DSP_V34TRREC): tests/dsp/v34_train_recordings.c $(DSP_LIB)
	@mkdir -p $(dir $@)
	$(DSP_CC) $(DSP_TCFLAGS) $< $(DSP_LIB) -lm -o $@

check-recordings-v34: $(DSP_V34REC) $(DSP_V34PROBE) $(DSP_V34P2REC) $(DSP_V34TRREC)
	@test -n "$(RECORDINGS)" || { echo "usage: make check-recordings RECORDINGS=dir"; exit 2; }
	@set -e; files=$$(ls $(RECORDINGS)/*_L_caller.raw $(RECORDINGS)/*_R_answerer.raw 2>/dev/null \
		| grep -iv v32 || true); \
	test -n "$$files" || { echo "no V.34 *_L_caller.raw / *_R_answerer.raw in $(RECORDINGS)"; exit 2; }; \
	$(DSP_V34REC) --require-info0 $$files; \
	echo "== line probing (L1/L2) in each file"; \
	$(DSP_V34PROBE) --require $$files; \
	echo "== phase 2 followed, listening only"; \
	$(DSP_V34P2REC) --require $$files; \
	echo "== phases 3 and 4 followed by our training receiver, listening only"; \
	$(DSP_V34TRREC) --require $$files
