#!/bin/bash
# scripts/deb-test.sh (`make deb-test`, part of `make test`) — the Debian package as a user
# gets it: `apt install ./build/scry_*.deb` (with libscry0/libscry-dev when built), what the
# package promises checked (the tracing group, /var/cache/scry root's and 0700, the systemd
# unit enabled and not started), a smoke test through the installed binaries only
# (/usr/bin/scry record of `cat /etc/hostname`, read back with /usr/bin/scry view and with
# babeltrace2; the daemon: systemctl start where systemd runs, else /usr/bin/scryd started by
# hand on a private run directory; its run directory the group tracing's; a session created,
# started, stopped and viewed; with libscry-dev, examples/c/opensnoop.c built with pkg-config
# against it and run), then `apt remove` (every file of the packages gone, the cache too; the
# unit's enablement kept) and `apt purge` (that too gone, dpkg knowing none of them).
# This runs on developers' machines too: the packages are removed whatever happens (a trap),
# an installed scry not put there by this test is refused, the group and cache directory are
# left as they were found, and the tree's ./scry is never touched.
#   scripts/deb-test.sh build/scry_VERSION_ARCH.deb [build/libscry*.deb...]
set -euo pipefail

fail() { echo "deb-test: $*" >&2; exit 1; }
[[ $# -ge 1 && -f $1 ]] || fail "usage: $0 build/scry_VERSION_ARCH.deb [build/libscry*.deb...]"
[[ $(id -u) -eq 0 ]] || fail "apt install needs root"
debs=()
for d in "$@"; do debs+=("$(realpath "$d")"); done
pkgs=()
for d in "${debs[@]}"; do pkgs+=("$(dpkg-deb -f "$d" Package)"); done
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[[ -z $st || $st == un* ]] || fail "package $p is already installed here ($st): remove it first, this test installs and purges it"
done

tmp=$(mktemp -d /tmp/deb-test.XXXXXX)
had_group=0; getent group tracing >/dev/null && had_group=1
had_cache=0; [[ -d /var/cache/scry ]] && had_cache=1
daemon_pid=""
systemd=0; [[ -d /run/systemd/system ]] && systemd=1
export DEBIAN_FRONTEND=noninteractive

# the given packages dpkg still knows (installed, or configuration left)
known() {
	local p st
	for p in "${pkgs[@]}"; do
		st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null)
		[[ -z $st || $st == un* ]] || echo "$p"
	done
}

cleanup() {
	local rc=$?
	set +e
	if [[ -n $daemon_pid ]]; then kill "$daemon_pid" 2>/dev/null; wait "$daemon_pid" 2>/dev/null; fi
	if ((systemd)); then systemctl stop scry-sessiond 2>/dev/null; fi
	local still
	mapfile -t still < <(known)
	if ((${#still[@]})) && ! apt-get purge -y -qq "${still[@]}" >>"$tmp/apt.log" 2>&1; then
		echo "deb-test: apt purge ${still[*]} failed (log $tmp/apt.log)" >&2; rc=1
	fi
	((had_group)) || ! getent group tracing >/dev/null || delgroup --quiet --system tracing >/dev/null
	((!had_cache)) || [[ -e /var/cache/scry ]] || install -d -m 0700 /var/cache/scry
	((rc)) && echo "deb-test: FAILED (work files kept in $tmp)" >&2 || rm -rf "$tmp"
	exit $rc
}
trap cleanup EXIT

t0=$(date +%s.%N)
apt-get install -y -qq --no-install-recommends "${debs[@]}" >"$tmp/apt.log" 2>&1 ||
	{ tail -n 20 "$tmp/apt.log" >&2; fail "apt install ${debs[*]} failed"; }
for p in "${pkgs[@]}"; do dpkg-query -L "$p"; done | sort -u > "$tmp/files"
[[ $(/usr/bin/scry --version) == "scry $(dpkg-deb -f "${debs[0]}" Version | sed 's/-[^-]*$//')" ]] ||
	fail "/usr/bin/scry --version: '$(/usr/bin/scry --version)', not the package's version"
[[ $(readlink /usr/bin/scryd) == scry ]] || fail "/usr/bin/scryd is not a link to scry"
for f in /usr/share/man/man1/scry.1.gz /usr/share/man/man8/scryd.8.gz /usr/share/bash-completion/completions/scry \
	 /usr/share/doc/scry/examples/metrics.yaml /usr/share/doc/scry/docs/DAEMON.md.gz /lib/systemd/system/scry-sessiond.service; do
	[[ -e $f ]] || fail "$f not installed"
done
getent group tracing >/dev/null || fail "postinst made no group 'tracing'"
[[ $(stat -c '%U %a' /var/cache/scry) == "root 700" ]] || fail "/var/cache/scry: $(stat -c '%U %a' /var/cache/scry), not root's 0700"
grep -qx 'ExecStart=/usr/bin/scryd --foreground' /lib/systemd/system/scry-sessiond.service ||
	fail "the unit does not start /usr/bin/scryd"
[[ -L /etc/systemd/system/multi-user.target.wants/scry-sessiond.service ]] || fail "scry-sessiond.service is not enabled"
if ((systemd)); then
	systemctl is-active -q scry-sessiond && fail "scry-sessiond was started by the install"
fi

# record and view through the installed binaries
/usr/bin/scry record -q -o "$tmp/rec" -e syscall:openat -- cat /etc/hostname >/dev/null 2>"$tmp/rec.log" ||
	{ cat "$tmp/rec.log" >&2; fail "/usr/bin/scry record failed"; }
grep -Eq '^scry: [1-9][0-9]* events recorded, 0 discarded' "$tmp/rec.log" || { cat "$tmp/rec.log" >&2; fail "no summary line"; }
/usr/bin/scry view "$tmp/rec" > "$tmp/view.txt"
grep -q 'syscall_entry_openat: .*procname = "cat" .*filename = "/etc/hostname"' "$tmp/view.txt" ||
	{ head "$tmp/view.txt" >&2; fail "scry view: no openat of /etc/hostname by cat"; }
babeltrace2 "$tmp/rec" > "$tmp/bt.txt" || fail "babeltrace2 cannot read the trace"
grep -q 'syscall_entry_openat: .*procname = "cat" .*filename = "/etc/hostname"' "$tmp/bt.txt" ||
	fail "babeltrace2: no openat of /etc/hostname by cat"

# the daemon: systemd's where it runs, else by hand on a run directory of this test's own
if ((systemd)); then
	export SCRY_RUNDIR=/run/scry
	systemctl start scry-sessiond || fail "systemctl start scry-sessiond failed"
else
	export SCRY_RUNDIR="$tmp/run"
	/usr/bin/scryd --foreground 2>"$tmp/scryd.log" &
	daemon_pid=$!
	for _ in $(seq 100); do [[ -S $SCRY_RUNDIR/control ]] && break; sleep 0.1; done
	[[ -S $SCRY_RUNDIR/control ]] || { cat "$tmp/scryd.log" >&2; fail "/usr/bin/scryd made no control socket"; }
fi
export HOME="$tmp"
# the group tracing may reach the control socket: the run directory is root's and theirs
[[ $(stat -c '%U %G %a' "$SCRY_RUNDIR") == "root tracing 750" ]] ||
	fail "$SCRY_RUNDIR: $(stat -c '%U %G %a' "$SCRY_RUNDIR"), not root's and the group tracing's, 0750"
ctl() { /usr/bin/scry "$@" >>"$tmp/ctl.log" 2>&1 || { cat "$tmp/ctl.log" >&2; fail "scry $* failed"; }; }
ctl create debtest -o "$tmp/sess"
ctl enable-event -k --syscall openat
ctl add-context -k -t procname
ctl start
cat /etc/hostname >/dev/null
ctl stop
ctl destroy debtest
/usr/bin/scry view "$tmp/sess" > "$tmp/sess.txt" || fail "/usr/bin/scry view of the session's trace failed"
grep -q 'syscall_entry_openat: .*procname = "cat" .*filename = "/etc/hostname"' "$tmp/sess.txt" ||
	fail "the daemon's session trace has no openat of /etc/hostname by cat"
if ((systemd)); then
	systemctl stop scry-sessiond
else
	[[ $(cut -d' ' -f1 "$SCRY_RUNDIR/scryd.pid") == "$daemon_pid" ]] || fail "the session ran in another daemon than /usr/bin/scryd"
	kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=""
fi

# libscry (when its packages were given): an example built against the installed package with
# pkg-config only, run on a command that opens /etc/hostname
if [[ " ${pkgs[*]} " == *" libscry-dev "* ]]; then
	cc -O2 -Wall $(pkg-config --cflags scry) -o "$tmp/opensnoop" /usr/share/doc/scry/examples/c/opensnoop.c \
		$(pkg-config --libs scry) 2>"$tmp/cc.log" || { cat "$tmp/cc.log" >&2; fail "opensnoop.c does not build against libscry-dev"; }
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	[[ $(ldd "$tmp/opensnoop") =~ libscry\.so\.0\ =\>\ (/usr)?/lib/$ma/libscry\.so\.0\  ]] ||
		{ ldd "$tmp/opensnoop" >&2; fail "opensnoop is not linked with the installed libscry.so.0"; }
	sh -c 'sleep 1.5; exec cat /etc/hostname' >/dev/null &
	"$tmp/opensnoop" $! > "$tmp/opensnoop.txt" 2>"$tmp/opensnoop.log" ||
		{ cat "$tmp/opensnoop.log" >&2; fail "opensnoop (libscry) failed"; }
	grep -Eq '^[0-9]+ +cat +3 +/etc/hostname$' "$tmp/opensnoop.txt" ||
		{ cat "$tmp/opensnoop.txt" >&2; fail "opensnoop (libscry): no openat of /etc/hostname by cat returning 3"; }
fi

# apt remove: none of the packages' files left (no file or link of their lists, no empty
# directory of them: a directory still holding other packages' files stays, as dpkg leaves it),
# the cache gone with them; what stays is configuration, the unit's enablement, until purge
leftovers() {
	local f
	left=()
	while read -r f; do
		[[ $f == /. ]] && continue
		if [[ -L $f && ! -d $f ]] || [[ -f $f ]]; then left+=("$f")
		elif [[ -d $f && ! -L $f && -z $(ls -A "$f") ]]; then left+=("$f/"); fi
	done < "$tmp/files"
	# /var/cache/scry: postrm's rm -rf must have taken the one scry used; on a machine where
	# other scry builds run meanwhile (a developer's ./scry uses the same default) one may
	# make it again: a new directory is theirs
	if [[ -d /var/cache/scry && $(stat -c %i /var/cache/scry) == "$cache_ino" ]]; then left+=(/var/cache/scry); fi
}
cache_ino=$(stat -c %i /var/cache/scry)
apt-get remove -y -qq "${pkgs[@]}" >>"$tmp/apt.log" 2>&1 || { tail -n 20 "$tmp/apt.log" >&2; fail "apt remove ${pkgs[*]} failed"; }
leftovers
((${#left[@]} == 0)) || fail "left after apt remove: ${left[*]}"
[[ -L /etc/systemd/system/multi-user.target.wants/scry-sessiond.service ]] ||
	fail "apt remove took the unit's enablement (configuration: kept until purge)"

# apt purge (of those dpkg still knows: a package without maintainer scripts is gone at
# remove): the enablement too, and dpkg knows none of the packages
mapfile -t still < <(known)
[[ " ${still[*]} " == *" scry "* ]] || fail "scry not in dpkg's configuration-files state after remove"
apt-get purge -y -qq "${still[@]}" >>"$tmp/apt.log" 2>&1 || { tail -n 20 "$tmp/apt.log" >&2; fail "apt purge ${still[*]} failed"; }
[[ -z $(known) ]] || fail "still known to dpkg after purge: $(known | tr '\n' ' ')"
leftovers
for f in /etc/systemd/system/multi-user.target.wants/scry-sessiond.service \
	 /var/lib/systemd/deb-systemd-helper-enabled/scry-sessiond.service.dsh-also; do
	if [[ -e $f || -L $f ]]; then left+=("$f"); fi
done
((${#left[@]} == 0)) || fail "left after apt purge: ${left[*]}"
printf 'deb-test: %s installed, smoke-tested (record, view, daemon%s), removed, purged, nothing left (%.1f s)\n' \
	"${pkgs[*]}" "$( ((systemd)) && echo ' via systemd' || echo ' by hand')" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')"
