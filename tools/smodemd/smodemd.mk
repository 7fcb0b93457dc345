# tools/smodemd: the daemon of context=usr, included by the top Makefile.
# One source set: smodemd.c, the module's own call control
# (driver/smodem_modem.c) and the data pump (dsp/, build/dsp/libsmdsp.a),
# built for user space as they are: what the kernel would give the modem
# is driver/smodem_compat.h's, what it talks to is smodemd.c's link.
#
#   make smodemd   build/smodemd/smodemd (the host's) and
#                  build/smodemd/smodemd-static (the guests', as ttyat)

SMODEMD_DIR    := build/smodemd
SMODEMD_SRCS   := tools/smodemd/smodemd.c driver/smodem_modem.c
SMODEMD_HDRS   := driver/smodem_usr.h driver/smodem_link.h driver/smodem_modem.h \
		  driver/smodem_call.h driver/smodem_compat.h driver/at.h
SMODEMD_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
		  -Idriver -Idsp/include

.PHONY: smodemd

smodemd: $(SMODEMD_DIR)/smodemd $(SMODEMD_DIR)/smodemd-static

$(SMODEMD_DIR)/smodemd: $(SMODEMD_SRCS) $(SMODEMD_HDRS) $(DSP_LIB)
	@mkdir -p $(dir $@)
	$(DSP_CC) $(SMODEMD_CFLAGS) $(SMODEMD_SRCS) $(DSP_LIB) -lpthread -lm -o $@

$(SMODEMD_DIR)/smodemd-static: $(SMODEMD_SRCS) $(SMODEMD_HDRS) $(DSP_LIB)
	@mkdir -p $(dir $@)
	$(DSP_CC) -static $(SMODEMD_CFLAGS) $(SMODEMD_SRCS) $(DSP_LIB) -lpthread -lm -o $@
