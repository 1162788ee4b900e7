# lib-units.sh: helpers of the scenarios that run memcgctl's units as shipped (issue 24):
# a unit file from lib/systemd or contrib/systemd installed for this run's binary, its
# offline security exposure, an HTTP GET without curl, a user and a delegated service.
# Sourced after lib.sh.

# sd_shipped_unit FILE: install FILE (lib/systemd/NAME[.in] or contrib/systemd/NAME) as
# /etc/systemd/system/NAME with this run's memcgctl in place of the installed one, and a
# drop-in (a service's) for this build's libraries (the sanitizer runtimes under /mcg/lib; LeakSanitizer
# stops the world with ptrace, which the sandbox forbids: off). Stopped and removed on exit.
# Sets SU_UNIT (its name) and SU_FILE (the installed file, as shipped but for the path).
sd_shipped_unit() {
	SU_UNIT=${1##*/}
	SU_UNIT=${SU_UNIT%.in}
	SU_FILE=/etc/systemd/system/$SU_UNIT
	echo "$SU_UNIT" >>"$MCG_SD_UNITS"
	echo "$SU_UNIT" >>"$MCG_SD_FILES"
	sed -e "s|@MEMCG_SBINDIR@/memcgctl|$MEMCGCTL|g" -e "s|/usr/sbin/memcgctl|$MEMCGCTL|g" \
		"$1" >"$SU_FILE"
	case $SU_UNIT in *.service) ;; *) cp "$SU_FILE" "$MCG_ARTIFACTS/$SU_UNIT" && return ;; esac
	mkdir -p "/run/systemd/system.control/$SU_UNIT.d"
	cat >"/run/systemd/system.control/$SU_UNIT.d/50-test-env.conf" <<CONF
[Service]
Environment=LD_LIBRARY_PATH=$LD_LIBRARY_PATH ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
CONF
	cp "$SU_FILE" "$MCG_ARTIFACTS/$SU_UNIT"
}

# exposure FILE: systemd-analyze security --offline's overall exposure of the unit file FILE
# (the unit as written, without this run's drop-ins); its table goes to the artifacts.
exposure() {
	ex_name=${1##*/}
	systemd-analyze security --offline=true --no-pager "$1" \
		>"$MCG_ARTIFACTS/security-$ex_name.txt" 2>&1 || true
	sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' \
		"$MCG_ARTIFACTS/security-$ex_name.txt"
}

# assert_exposure FILE MAX: the offline exposure of FILE is at most MAX.
assert_exposure() {
	ae_v=$(exposure "$1")
	[ -n "$ae_v" ] || fail "no exposure level for $1: $(tail -n 3 "$MCG_ARTIFACTS/security-${1##*/}.txt")"
	assert_le "systemd-analyze security --offline exposure of ${1##*/}" "$ae_v" "$2"
}

# http_get HOST PORT PATH OUT: GET PATH over HTTP/1.0 with bash's /dev/tcp (no curl in the
# guest), at most 20 s; the response (status line, headers, body) in OUT. Fails when the
# connection cannot be made.
http_get() {
	timeout 20 bash -c 'exec 3<>"/dev/tcp/$1/$2" || exit 1
		printf "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" "$3" "$1" >&3
		cat <&3' sh "$1" "$2" "$3" >"$4"
}

# http_status OUT: the status code of the response in OUT.
http_status() { sed -n '1s/^HTTP\/1\.[01] \([0-9]*\).*/\1/p' "$1" | tr -d '\r'; }

# listening PORT: some socket listens on TCP port PORT (IPv4 or IPv6), from /proc/net.
listening() {
	lp_hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p=":$lp_hex" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

# cap_has PID CAP: bit CAP (a number, linux/capability.h) of PID's effective capabilities.
cap_has() {
	ch_eff=$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$1/status")
	[ $(((0x$ch_eff >> $2) & 1)) = 1 ]
}

# sd_user NAME: a system user NAME (the guest's root filesystem is a throwaway snapshot).
sd_user() {
	id -u "$1" >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/sh "$1" ||
		fail "useradd $1 failed"
}

# sd_delegated_cache NAME USER MAX MIB: the service mcgtest-NAME, MemoryMax=MAX, run as USER
# with Delegate=yes: USER makes the cgroups main (its shell) and work below the unit's, turns
# memory on for them, sets work's memory.max to MAX too and reads a sparse file of MIB MiB in work, so that work's files, owned
# by USER, hold that page cache. Sets what sd_service sets and DG_CG (work's directory) and
# DG_CGREL (work as memcgctl takes it). (0 in cgroup.procs is the writer itself: systemd
# turns a "$$" in the command line into "$".)
sd_delegated_cache() {
	dg_dir=$MCG_DATA/$1
	mkdir -p "$dg_dir"
	truncate -s "$4M" "$dg_dir/file"
	chown "$2" "$dg_dir"
	sd_service "$1" -p Delegate=yes -p User="$2" -p MemoryMax="$3" -- sh -c '
		cg=/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)
		mkdir "$cg/main" "$cg/work" && echo 0 >"$cg/main/cgroup.procs" &&
			echo +memory >"$cg/cgroup.subtree_control" &&
			echo "$2" >"$cg/work/memory.max" || exit 1
		sh -c "echo 0 >\"\$1/work/cgroup.procs\" && cat \"\$2/file\" >/dev/null &&
			: >\"\$2/ready\" && exec sleep 1000" sh "$cg" "$1" &
		exec sleep 1000' sh "$dg_dir" "$3"
	DG_CG=$SD_CG/work
	DG_CGREL=$SD_CGREL/work
	wait_for "$SD_UNIT's delegate to read its file in work" 60 sh -c \
		'test -e "$1/ready" || { systemctl -q is-active "$2" || exit 0; exit 1; }' sh "$dg_dir" "$SD_UNIT"
	[ -e "$dg_dir/ready" ] || fail "$SD_UNIT exited: $(journalctl -u "$SD_UNIT" -o cat --no-pager | tail -n 3)"
}
