# Installing smodem as a driver: make install / uninstall (the
# module built here for KVER, the udev rule, the README; context=usr's
# daemon smodemd and its systemd unit, the man pages), make install-dkms /
# uninstall-dkms (the sources for DKMS, any distribution), make deb (the
# smodem-dkms Debian package, build/deb/).  Included by the top Makefile.
#
#   make install [KVER=<ver>] [DESTDIR=<root>] [PREFIX=/usr]
#
# KVER is the top Makefile's (default: the installed 6.1 generic flavour,
# never uname -r).  Without DESTDIR, depmod runs for KVER.

# The version's one place: driver/smodem_version.h.
SMODEM_VERSION := $(shell sed -n 's/^\#define SMODEM_VERSION "\(.*\)"$$/\1/p' driver/smodem_version.h)
DEB_VERSION     = $(shell dpkg-parsechangelog -S Version -l debian/changelog)

DESTDIR      ?=
PREFIX       ?= /usr
# The kernel and udev look in /lib whatever PREFIX is.
MODDIR       ?= /lib/modules/$(KVER)/updates
UDEVRULESDIR ?= /lib/udev/rules.d
DOCDIR       ?= $(PREFIX)/share/doc/smodem
SBINDIR      ?= $(PREFIX)/sbin
MANDIR       ?= $(PREFIX)/share/man
# man/<name>.<section>: smodem(4), smodemd(8), smline(1)
MANPAGES     := $(sort $(wildcard man/*.[1-8]))
# systemd looks in /lib (Debian 12) whatever PREFIX is, as udev does.
SYSTEMDUNITDIR ?= /lib/systemd/system
DKMSSRCDIR   ?= /usr/src/smodem-$(SMODEM_VERSION)
DEPMOD       ?= /sbin/depmod
DEB_OUT      ?= build/deb

.PHONY: install uninstall install-dkms uninstall-dkms deb

# The module keeps its symbols, without debug info (as Debian's own, and
# as DKMS installs it).
install: $(KO) $(SMODEMD_DIR)/smodemd
	install -d $(DESTDIR)$(MODDIR)
	strip --strip-debug -o $(DESTDIR)$(MODDIR)/smodem.ko $(KO)
	chmod 644 $(DESTDIR)$(MODDIR)/smodem.ko
	install -D -m 644 tools/udev/60-smodem.rules $(DESTDIR)$(UDEVRULESDIR)/60-smodem.rules
	install -D -m 644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -D -m 755 $(SMODEMD_DIR)/smodemd $(DESTDIR)$(SBINDIR)/smodemd
	for m in $(MANPAGES); do \
		install -D -m 644 $$m $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m##*/} || exit 1; done
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' \
		tools/systemd/smodemd@.service.in > $(DESTDIR)$(SYSTEMDUNITDIR)/smodemd@.service
	chmod 644 $(DESTDIR)$(SYSTEMDUNITDIR)/smodemd@.service
	$(if $(DESTDIR),,$(DEPMOD) -a $(KVER))
	$(if $(DESTDIR),,$(SYSTEMD_RELOAD))

uninstall:
	rm -f $(DESTDIR)$(MODDIR)/smodem.ko $(DESTDIR)$(UDEVRULESDIR)/60-smodem.rules \
		$(DESTDIR)$(DOCDIR)/README.md $(DESTDIR)$(SBINDIR)/smodemd \
		$(DESTDIR)$(SYSTEMDUNITDIR)/smodemd@.service \
		$(foreach m,$(MANPAGES),$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m)))
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null
	$(if $(DESTDIR),,$(DEPMOD) -a $(KVER))
	$(if $(DESTDIR),,$(SYSTEMD_RELOAD))

# Where systemd runs, it rereads its units (the unit is new or gone).
SYSTEMD_RELOAD = if [ -d /run/systemd/system ]; then systemctl daemon-reload; fi

# The sources where DKMS expects them, the files tools/kbuild-tree lists
# (what every build of the lab compiles) as plain files; then, as root
# and without DESTDIR: dkms install smodem/$(SMODEM_VERSION).
install-dkms:
	@test -n "$(SMODEM_VERSION)" || { echo "no SMODEM_VERSION in driver/smodem_version.h"; exit 1; }
	rm -rf build/dkms-tree
	tools/kbuild-tree $(TOP) $(TOP)/build/dkms-tree
	install -d $(DESTDIR)$(DKMSSRCDIR)
	cd build/dkms-tree && tar -chf - -T .srclist | tar -C $(DESTDIR)$(DKMSSRCDIR) -xf -
	sed 's/#MODULE_VERSION#/$(SMODEM_VERSION)/' dkms.conf > $(DESTDIR)$(DKMSSRCDIR)/dkms.conf
	rm -rf build/dkms-tree

uninstall-dkms:
	$(if $(DESTDIR),,-dkms remove smodem/$(SMODEM_VERSION) --all)
	rm -rf $(DESTDIR)$(DKMSSRCDIR)

# The Debian package, from a copy of the tree's files that go into it (the
# work tree is not touched): build/deb/smodem-dkms_<ver>_all.deb.
DEB_SRC = $(DEB_OUT)/src/smodem-$(SMODEM_VERSION)
deb: deps
	@test -n "$(SMODEM_VERSION)" || { echo "no SMODEM_VERSION in driver/smodem_version.h"; exit 1; }
	@test "$(DEB_VERSION)" = "$(SMODEM_VERSION)" || { \
		echo "debian/changelog is at $(DEB_VERSION), smodem_version.h at $(SMODEM_VERSION):"; \
		echo "  dch -v $(SMODEM_VERSION) (or fix driver/smodem_version.h)"; exit 1; }
	rm -rf $(DEB_OUT)
	tools/kbuild-tree $(TOP) $(TOP)/$(DEB_OUT)/links
	mkdir -p $(DEB_SRC)
	cd $(DEB_OUT)/links && tar -chf - -T .srclist | tar -C $(TOP)/$(DEB_SRC) -xf -
	cp -a debian dkms.conf README.md man $(DEB_SRC)/
	install -D -m 644 tools/udev/60-smodem.rules $(DEB_SRC)/tools/udev/60-smodem.rules
	install -D -m 755 tools/kbuild-tree $(DEB_SRC)/tools/kbuild-tree
	cd $(DEB_SRC) && nice dpkg-buildpackage -us -uc -b
	mv $(DEB_OUT)/src/*.deb $(DEB_OUT)/src/*.buildinfo $(DEB_OUT)/src/*.changes $(DEB_OUT)/
	rm -rf $(DEB_OUT)/src $(DEB_OUT)/links
	@ls -l $(DEB_OUT)/*.deb
