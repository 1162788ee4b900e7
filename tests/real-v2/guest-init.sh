#!/bin/sh
# guest-init.sh: PID 1 of the real-v2 QEMU guest (busybox ash): mount cgroup2, run the
# scenarios listed in /etc/mcg-v2.env, hand the results back on the results disk, power off.
#
# Results disk layout: a tar archive written raw to the virtio disk with serial
# "mcgresults", holding
#   guest.status        "ok" or "setup-failed: REASON"
#   guest.info          uname -r, cgroup2 mount line, root cgroup.subtree_control, ...
#   dmesg.txt           the kernel log at the end of the run
#   s/NAME/out|err|rc|secs   each scenario's exact stdout, stderr, exit status, wall seconds
#   s/NAME/artifacts/   whatever the scenario left in $MCG_ARTIFACTS
# Progress lines go to the serial console so that a hung guest can be diagnosed.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
umask 022

log() { echo "mcg-v2-guest: $*"; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm /tmp /run /mnt/data /results
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs tmpfs /run

# shellcheck disable=SC1091
. /etc/mcg-v2.env
# shellcheck source=../real/guest-scenarios.sh
. "$MCG_SRCDIR/tests/real/guest-scenarios.sh"

find_disk() { # serial -> /dev/vdX
	for s in /sys/block/vd*/serial; do
		[ -r "$s" ] || continue
		if [ "$(cat "$s")" = "$1" ]; then
			d=${s%/serial}
			echo "/dev/${d##*/}"
			return 0
		fi
	done
	return 1
}

finish() {
	echo "$status" >/results/guest.status
	dmesg >/results/dmesg.txt 2>&1
	dev=$(find_disk mcgresults)
	if [ -n "$dev" ]; then
		(cd /results && tar -cf "$dev" .) || log "cannot write results to $dev"
		sync
	else
		log "no results disk"
	fi
	log "powering off"
	poweroff -f
	sleep 5
	exit 1 # panic=-1 with -no-reboot ends QEMU
}

kver=$(uname -r)
for m in $MCG_V2_MODULES; do
	ko=$(find "/lib/modules/$kver" -name "$m.ko" | head -n 1)
	if [ -n "$ko" ]; then
		insmod "$ko" || fail_setup "insmod $m failed"
	elif ! grep -q "/$m.ko" "/lib/modules/$kver/modules.builtin" 2>/dev/null; then
		fail_setup "module $m not found"
	fi
done

if mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup; then
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control ||
		fail_setup "cannot enable +memory in the root cgroup.subtree_control"
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
		fail_setup "memory not in the root cgroup.subtree_control"
else
	fail_setup "cannot mount cgroup2"
fi

# The disks probe asynchronously after insmod (60 s at most: TCG on a busy host is slow).
i=0
while ! data=$(find_disk mcgdata) || ! find_disk mcgresults >/dev/null; do
	i=$((i + 1))
	[ $i -gt 600 ] && break
	sleep 0.1
done
if [ -n "$data" ]; then
	mount -t ext4 "$data" /mnt/data || fail_setup "cannot mount $data on /mnt/data"
else
	fail_setup "no data disk (virtio serial mcgdata)"
fi

{
	echo "uname_r=$kver"
	echo "cgroup2_mount=$(grep ' /sys/fs/cgroup ' /proc/mounts)"
	echo "root_controllers=$(cat /sys/fs/cgroup/cgroup.controllers 2>/dev/null)"
	echo "root_subtree_control=$(cat /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null)"
	echo "data_mount=$(grep ' /mnt/data ' /proc/mounts)"
	echo "mem_total_kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)"
	echo "cpus=$(nproc)"
	echo "cmdline=$(cat /proc/cmdline)"
} >/results/guest.info
log "kernel $kver, cgroup2 subtree_control: $(cat /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null)"

if [ "$status" != ok ]; then
	finish
fi

# shellcheck disable=SC2086 # a list of paths
guest_run_scenarios /mnt/data /results "$MCG_V2_SCENARIO_TIMEOUT" $MCG_V2_SCENARIOS

finish
