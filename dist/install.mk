# dist/install.mk — `make install` and `make uninstall` (included by the Makefile).
#   make install   [DESTDIR=] [PREFIX=/usr/local] [LIBDIR=] [UNITDIR=] [DOCDIR=]
#   make uninstall (the same variables): removes exactly the files install put, then the
#                  directories that are scry's own (doc/scry and below) once empty
# What is installed: scry and scryd (a link), their man pages, the bash completion (scry and
# scryd), the systemd unit scry-sessiond.service (ExecStart at $(BINDIR)/scryd), README.md and
# docs/*.md under $(DOCDIR), examples/*.yaml (and examples/c when present) under
# $(DOCDIR)/examples, and libscry (the Makefile's install-lib and uninstall-lib: the shared
# library and its links, the header, scry.pc) when the tree has it (src/api/libscry.map).
# debian/rules installs through these targets.

BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
MANDIR  ?= $(PREFIX)/share/man
COMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR  ?= $(PREFIX)/share/doc/scry

INST_DOCS      := README.md $(wildcard docs/*.md)
INST_EXAMPLES  := $(wildcard examples/*.yaml)
INST_EXAMPLESC := $(wildcard examples/c/*.c examples/c/*.h examples/c/Makefile examples/c/*.md)
# libscry: built and installed by its own targets (lib, install-lib) when the tree has it
HAVE_LIBSCRY   := $(wildcard src/api/libscry.map)

.PHONY: install install-bin uninstall

install: install-bin $(if $(HAVE_LIBSCRY),install-lib)

install-bin: $(BUILD)/scry
	install -D -m 755 $(BUILD)/scry $(DESTDIR)$(BINDIR)/scry
	ln -sf scry $(DESTDIR)$(BINDIR)/scryd
	install -D -m 644 dist/scry.1 $(DESTDIR)$(MANDIR)/man1/scry.1
	install -D -m 644 dist/scryd.8 $(DESTDIR)$(MANDIR)/man8/scryd.8
	install -D -m 644 dist/scry.bash $(DESTDIR)$(COMPDIR)/scry
	ln -sf scry $(DESTDIR)$(COMPDIR)/scryd
	mkdir -p $(DESTDIR)$(UNITDIR)
	sed 's|/usr/local/bin/|$(BINDIR)/|' dist/scry-sessiond.service > $(DESTDIR)$(UNITDIR)/scry-sessiond.service
	install -d $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/examples
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 644 $(filter docs/%,$(INST_DOCS)) $(DESTDIR)$(DOCDIR)/docs/
	install -m 644 $(INST_EXAMPLES) $(DESTDIR)$(DOCDIR)/examples/
	$(if $(INST_EXAMPLESC),install -d $(DESTDIR)$(DOCDIR)/examples/c && \
	    install -m 644 $(INST_EXAMPLESC) $(DESTDIR)$(DOCDIR)/examples/c/)

uninstall: $(if $(HAVE_LIBSCRY),uninstall-lib)
	rm -f $(DESTDIR)$(BINDIR)/scry $(DESTDIR)$(BINDIR)/scryd \
	      $(DESTDIR)$(MANDIR)/man1/scry.1 $(DESTDIR)$(MANDIR)/man8/scryd.8 \
	      $(DESTDIR)$(COMPDIR)/scry $(DESTDIR)$(COMPDIR)/scryd \
	      $(DESTDIR)$(UNITDIR)/scry-sessiond.service \
	      $(addprefix $(DESTDIR)$(DOCDIR)/,$(INST_DOCS) $(INST_EXAMPLES) $(INST_EXAMPLESC))
	for d in examples/c examples docs ""; do \
		[ ! -d $(DESTDIR)$(DOCDIR)/$$d ] || rmdir $(DESTDIR)$(DOCDIR)/$$d || exit 1; done
