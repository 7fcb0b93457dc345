# smline: the host side of the telephone line.
# Include from the top-level Makefile, or run from the repository root:
#   make -f tools/line/line.mk line        build build/line/smline (+ test programs, faxtiff)
#   make -f tools/line/line.mk check-line  build and run tests/line under pytest
# Needs libspandsp-dev and libliquid-dev (the resamplers; no pkg-config file,
# and its header needs -Wno-deprecated-declarations); the jack transport is built when pkg-config finds jack
# (libjack-jackd2-dev), the dbus transport when it finds gio-unix-2.0
# (libglib2.0-dev); the pipe transport is always there.

LINE_DIR   := tools/line
LINE_TDIR  := tests/line
LINE_OUT   := build/line
LINE_CC    ?= cc
# the tests import smlab: the project's venv (make venv) when there is one
LINE_PYTHON ?= $(if $(wildcard build/venv/bin/python),build/venv/bin/python,/usr/bin/python3)
LINE_CFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Wshadow -Wno-unused-parameter \
	-Wno-deprecated-declarations -I$(LINE_DIR) -MMD -MP
LINE_LIBS  := -lspandsp -ltiff -lliquid -lm

LINE_HAVE_JACK := $(shell pkg-config --exists jack 2>/dev/null && echo yes)
ifeq ($(LINE_HAVE_JACK),yes)
LINE_JACK_CFLAGS := -DSML_HAVE_JACK $(shell pkg-config --cflags jack)
LINE_JACK_LIBS   := $(shell pkg-config --libs jack) -lpthread
LINE_JACK_OBJ    := $(LINE_OUT)/transport_jack.o
endif

LINE_HAVE_DBUS := $(shell pkg-config --exists gio-unix-2.0 2>/dev/null && echo yes)
ifeq ($(LINE_HAVE_DBUS),yes)
LINE_DBUS_CFLAGS := -DSML_HAVE_DBUS $(shell pkg-config --cflags gio-unix-2.0)
LINE_DBUS_LIBS   := $(shell pkg-config --libs gio-unix-2.0)
LINE_DBUS_OBJ    := $(LINE_OUT)/transport_dbus.o
endif

# the core: everything that only counts samples
LINE_CORE_OBJS := $(addprefix $(LINE_OUT)/, util.o modem.o wire.o resample.o echopath.o \
	service.o exchange.o hook.o fax.o v32far.o v34far.o v42bis_far.o)

# V.32bis (v32far.c) and V.34 (v34far.c) are the project's own: dsp/*.c, built here into an archive of
# smline's, so that this file stands alone
LINE_DSP_OBJS := $(patsubst dsp/%.c,$(LINE_OUT)/dsp/%.o,$(wildcard dsp/*.c))
LINE_DSP_LIB  := $(LINE_OUT)/libsmdsp.a
LINE_DSP_HDRS := $(wildcard dsp/include/smdsp/*.h dsp/include/smdsp/private/*.h)
LINE_OBJS := $(LINE_CORE_OBJS) $(LINE_OUT)/transport_pipe.o $(LINE_OUT)/options.o \
	$(LINE_OUT)/main.o \
	$(LINE_JACK_OBJ) $(LINE_DBUS_OBJ)

LINE_PROGS := $(LINE_OUT)/smline $(LINE_OUT)/testmodem $(LINE_OUT)/b2b \
	$(LINE_OUT)/unit $(LINE_OUT)/faxtiff $(LINE_OUT)/callfar

.PHONY: line check-line clean-line

line: $(LINE_PROGS)

$(LINE_OUT):
	mkdir -p $@

$(LINE_OUT)/%.o: $(LINE_DIR)/%.c | $(LINE_OUT)
	$(LINE_CC) $(LINE_CFLAGS) $(LINE_JACK_CFLAGS) $(LINE_DBUS_CFLAGS) -c -o $@ $<

$(LINE_OUT)/v32far.o $(LINE_OUT)/v34far.o: LINE_CFLAGS += -Idsp/include

$(LINE_OUT)/dsp/%.o: dsp/%.c $(LINE_DSP_HDRS)
	@mkdir -p $(dir $@)
	$(LINE_CC) -O2 -g -Wall -Wextra -Idsp/include -c -o $@ $<

$(LINE_DSP_LIB): $(LINE_DSP_OBJS)
	rm -f $@
	ar rcs $@ $^

$(LINE_OUT)/t_%.o: $(LINE_TDIR)/%.c | $(LINE_OUT)
	$(LINE_CC) $(LINE_CFLAGS) -c -o $@ $<

$(LINE_OUT)/smline: $(LINE_OBJS) $(LINE_DSP_LIB)
	$(LINE_CC) -o $@ $^ $(LINE_LIBS) $(LINE_JACK_LIBS) $(LINE_DBUS_LIBS)

$(LINE_OUT)/testmodem: $(LINE_OUT)/t_testmodem.o $(LINE_CORE_OBJS) $(LINE_DSP_LIB)
	$(LINE_CC) -o $@ $^ $(LINE_LIBS)

$(LINE_OUT)/b2b: $(LINE_OUT)/t_b2b.o $(LINE_CORE_OBJS) $(LINE_DSP_LIB)
	$(LINE_CC) -o $@ $^ $(LINE_LIBS)

# our engine (dsp/modem.c) calling the far modem: its public header, and the C tests' CHECK
$(LINE_OUT)/t_callfar.o: LINE_CFLAGS += -Idsp/include -Itests/common

$(LINE_OUT)/t_check.o: tests/common/check.c | $(LINE_OUT)
	$(LINE_CC) $(LINE_CFLAGS) -c -o $@ $<

$(LINE_OUT)/callfar: $(LINE_OUT)/t_callfar.o $(LINE_OUT)/t_check.o $(LINE_CORE_OBJS) $(LINE_DSP_LIB)
	$(LINE_CC) -o $@ $^ $(LINE_LIBS)

$(LINE_OUT)/unit: $(LINE_OUT)/t_unit.o $(LINE_CORE_OBJS) $(LINE_DSP_LIB)
	$(LINE_CC) -o $@ $^ $(LINE_LIBS)

$(LINE_OUT)/faxtiff: $(LINE_OUT)/t_faxtiff.o
	$(LINE_CC) -o $@ $^ -ltiff

check-line: line
	$(LINE_PYTHON) -m pytest -q $(LINE_TDIR)

clean-line:
	rm -rf $(LINE_OUT)

-include $(wildcard $(LINE_OUT)/*.d)
