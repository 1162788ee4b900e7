#!/bin/sh
# guest-run.sh: the scenario runner of the real-systemd guest. systemd (PID 1) starts it as
# memcgctl-tests.service (baked into the image by setup.sh) once basic.target is up, with the
# per-run disk mounted on /mcg; it runs the scenarios listed in /mcg/env, writes the results
# to the results disk and returns: the unit's SuccessAction/FailureAction powers off.
#
# Results disk (NVMe namespace 3, /dev/nvme0n3): a tar archive written raw, holding
#   guest.status        "ok" or "setup-failed: REASON"
#   guest.info          kernel, systemd version, PID 1, cgroup2 mount, uptime at start, ...
#   journal.txt dmesg.txt   the boot's journal and kernel log
#   s/NAME/out|err|rc|secs   each scenario's exact stdout, stderr, exit status, wall seconds
#   s/NAME/artifacts/   whatever the scenario left in $MCG_ARTIFACTS
# Progress lines go to the serial console (the unit's output is journal+console).

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
umask 022
up_start=$(cut -d' ' -f1 /proc/uptime)

log() { echo "mcg-sd-guest: $*"; }

# shellcheck disable=SC1091
. /mcg/env
# shellcheck source=../real/guest-scenarios.sh
. "$MCG_SRCDIR/tests/real/guest-scenarios.sh"

res=/run/mcg-results
rm -rf "$res"
mkdir -p "$res/s"

finish() {
	echo "$status" >"$res/guest.status"
	journalctl -b --no-pager -o short-monotonic >"$res/journal.txt" 2>&1
	dmesg >"$res/dmesg.txt" 2>&1
	if [ -b /dev/nvme0n3 ]; then
		(cd "$res" && tar -cf /dev/nvme0n3 .) || log "cannot write the results to /dev/nvme0n3"
		sync
	else
		log "no results disk /dev/nvme0n3"
	fi
	log "powering off"
	exit 0
}

[ "$(readlink /proc/1/exe)" = /usr/lib/systemd/systemd ] ||
	[ "$(readlink /proc/1/exe)" = /lib/systemd/systemd ] ||
	fail_setup "PID 1 is $(readlink /proc/1/exe), not systemd"
grep -q '^cgroup2 /sys/fs/cgroup cgroup2 ' /proc/mounts ||
	fail_setup "/sys/fs/cgroup is not a cgroup2 mount (hybrid or legacy hierarchy?)"
grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
	fail_setup "memory is not in the root cgroup.subtree_control"
[ -x "$MEMCGCTL" ] || fail_setup "no $MEMCGCTL on the per-run disk"
mkdir -p /mcg/data

sdver=$(systemctl --version | head -n 1) # under TCG every process start counts
{
	echo "uname_r=$(uname -r)"
	echo "systemd=$sdver"
	echo "pid1=$(readlink /proc/1/exe)"
	echo "cgroup2_mount=$(grep ' /sys/fs/cgroup ' /proc/mounts)"
	echo "root_subtree_control=$(cat /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null)"
	echo "runner_cgroup=$(cut -d: -f3 /proc/self/cgroup)"
	echo "uptime_at_runner=$up_start"
	echo "mem_total_kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)"
	echo "cpus=$(nproc)"
	echo "cmdline=$(cat /proc/cmdline)"
} >"$res/guest.info"
log "$(uname -r), $sdver, runner started at ${up_start}s uptime"

[ "$status" = ok ] || finish

# a scenario killed by the timeout leaves its transient units behind (one that exits stops
# its own: lib.sh)
scenario_done() {
	if [ "$1" -ge 128 ]; then
		systemctl stop 'mcgtest-*' >/dev/null 2>&1
		systemctl reset-failed 'mcgtest-*' >/dev/null 2>&1
	fi
}
# shellcheck disable=SC2086 # a list of paths
guest_run_scenarios /mcg/data "$res" "$MCG_SD_SCENARIO_TIMEOUT" $MCG_SD_SCENARIOS
echo "uptime_at_end=$(cut -d' ' -f1 /proc/uptime)" >>"$res/guest.info"

finish
