# dist/deb.mk — Debian packages (included by the Makefile).
#   make deb       build/scry_VERSION_ARCH.deb (and libscry0, libscry-dev when the tree has
#                  libscry), then lintian on them (an error fails the target)
#   make deb-test  make deb, then scripts/deb-test.sh: apt install, a smoke test through the
#                  installed binaries, apt purge, nothing of the package left (part of make test)
# dpkg-buildpackage runs on a copy of the tree's files (git's list: tracked and untracked but
# not ignored) under $(BUILD)/deb/scry, so the packages reflect the working tree and nothing
# is written outside build/.  The copy gets the tree's BPF objects and skeletons (clang-16
# builds them in ~20 s of the ~45 s the whole build takes; they do not depend on the C flags),
# the C code is compiled again with Debian's flags (hardening), without the tests (nocheck).
DEB_STAGE   := $(BUILD)/deb
DEB_JOBS    ?= 2
# The build needs no kernel BTF (src/bpf/vmlinux/README.md): as root, it runs in a mount
# namespace where /sys/kernel/btf is an empty directory
DEB_NOBTF   := $(if $(shell [ "$$(id -u)" = 0 ] && command -v unshare),\
                 unshare -m sh -c 'mount -t tmpfs -o ro none /sys/kernel/btf && exec "$$0" "$$@"')
# libscry0 and libscry-dev are built when the tree has libscry (a build profile leaves them out)
DEB_PROFILE := $(if $(wildcard src/api/libscry.map),,-Ppkg.scry.nolib)

.PHONY: deb deb-test

deb: $(SKELS)
	@git rev-parse --show-toplevel >/dev/null 2>&1 || \
	  { echo "make deb: not a git checkout (the package holds git's list of the tree's files)" >&2; exit 1; }
	rm -rf $(DEB_STAGE) $(BUILD)/scry_*.deb $(BUILD)/scry-dbgsym_*.deb $(BUILD)/libscry*.deb
	mkdir -p $(DEB_STAGE)/scry/build
	git ls-files -z --cached --others --exclude-standard | \
	  tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C $(DEB_STAGE)/scry
	cp -p $(SKELS:.skel.h=.bpf.o) $(SKELS) $(DEB_STAGE)/scry/build/
	cd $(DEB_STAGE)/scry && DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=$(DEB_JOBS)" \
	  $(DEB_NOBTF) dpkg-buildpackage -b -nc --no-sign $(DEB_PROFILE) >../build.log 2>&1 || \
	  { tail -n 30 ../build.log >&2; echo "make deb: dpkg-buildpackage failed (log: $(DEB_STAGE)/build.log)" >&2; exit 1; }
	mv $(DEB_STAGE)/*.deb $(BUILD)/
	lintian --fail-on error $(BUILD)/scry_*.deb $$(ls $(BUILD)/libscry*.deb 2>/dev/null)
	@ls -1 $(BUILD)/*.deb

deb-test: deb
	scripts/deb-test.sh $(BUILD)/scry_*.deb $$(ls $(BUILD)/libscry*.deb 2>/dev/null)   # made by deb: listed after it ran
