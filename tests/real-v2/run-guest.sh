#!/bin/sh
# run-guest.sh: boot Debian's cloud kernel (pure cgroup v2) under QEMU/TCG once and run the
# real-kernel scenarios tagged "# tiers: ... v2" inside it; report each one on the host.
#
# Usage: run-guest.sh [--build DIR] [--src DIR] [--results DIR] [--extra FILE]... [SCENARIO.sh ...]
#   --build DIR    CMake build dir (memcgctl, tests/real/mcg-load, tests/real-v2/mcg-write)
#   --extra FILE   also copy this host binary (and its ldd libraries) into the guest as
#                  /mcg/extra/NAME ($MCG_EXTRA_DIR in scenarios); repeatable
#   --src DIR      source tree (default: two levels above this script)
#   --results DIR  keep the guest's results here (default: a temporary dir, removed)
#   SCENARIO.sh    run these instead of every v2 scenario in tests/real/scenarios/
# Env:
#   MCG_V2_CACHE            kernel cache of setup.sh (default /var/cache/memcgctl-v2)
#   MCG_V2_KERNEL_DIR       an unpacked linux-image .deb (default $MCG_V2_CACHE/current)
#   MCG_V2_TIMEOUT          host-side limit for the whole boot in seconds (default 1800)
#   MCG_V2_BOOT_WAIT        a guest silent on its console after this many seconds of QEMU's CPU
#                           time is booted once more (90)
#   MCG_V2_SCENARIO_TIMEOUT per-scenario limit inside the guest (default 600)
#   MCG_V2_MEM_MIB          guest RAM (default 768)
#   MCG_V2_DISK_BPS_WRITE   QEMU write throttle on the data disk in bytes/s (default: none)
#   MCG_V2_VERBOSE=1        print every scenario's stdout/stderr, not only on failure
#   CI=true                 a missing QEMU, busybox-static or kernel is a failure, not a skip
# Exit: 0 every scenario passed or skipped, 1 a scenario or the guest failed, 77 the tier
# cannot run here (outside CI).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
tier=real-v2
# shellcheck source=../real-v2/guest-lib.sh
. "$here/guest-lib.sh"
extras=
timeout_s=${MCG_V2_TIMEOUT:-1800}
boot_wait=${MCG_V2_BOOT_WAIT:-90}
scen_timeout=${MCG_V2_SCENARIO_TIMEOUT:-600}
mem=${MCG_V2_MEM_MIB:-768}
cache=${MCG_V2_CACHE:-/var/cache/memcgctl-v2}
kdir=${MCG_V2_KERNEL_DIR:-$cache/current}
bps=${MCG_V2_DISK_BPS_WRITE:-}
verbose=${MCG_V2_VERBOSE:-0}
cpu=${MCG_V2_CPU:-max}

tier_option() {
	[ "$1" = --extra ] || return 1
	[ -f "$2" ] || die "no extra file $2"
	case ${2##*/} in
	*[!A-Za-z0-9_.-]*) die "extra file name must be [A-Za-z0-9_.-]: $2" ;;
	esac
	extras="$extras $2"
}
guest_options "$@"
shift "$gl_nopts"

# ---- what the tier needs ----------------------------------------------------
guest_kernel
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || unavailable "busybox not found (apt-get install busybox-static)"
if ldd "$busybox" >/dev/null 2>&1; then
	unavailable "$busybox is dynamically linked (apt-get install busybox-static)"
fi
for tool in mkfs.ext4 jq; do
	command -v "$tool" >/dev/null 2>&1 || unavailable "$tool not found (apt-get install e2fsprogs jq)"
done
moddir=$kdir/lib/modules/$kver
[ -d "$moddir" ] || unavailable "no modules for $kver in $kdir/lib/modules"

memcgctl=$build/memcgctl
mcgload=$build/tests/real/mcg-load
mcgwrite=$build/tests/real-v2/mcg-write
[ -x "$memcgctl" ] || die "$memcgctl not built (cmake --build $build)"

# ---- scenarios --------------------------------------------------------------
# the ones tagged "# tiers: ... v2 ..."
tier_wants() {
	case " $(sed -n 's/^# *tiers: *//p' "$1" | head -n 1) " in
	*" v2 "*) return 0 ;;
	esac
	return 1
}
guest_scenarios "$src/tests/real/scenarios" "$@"

# ---- scratch space, removed on every exit path ------------------------------
guest_workspace v2

# ---- initramfs --------------------------------------------------------------
# Two cpio archives, one after the other (the kernel unpacks each in turn): the part every
# boot shares (busybox, memcgctl, mcg-load, mcg-write, jq, their libraries, the virtio
# modules), kept in the build directory under a key of what went into it (their sizes and
# times, the system's library cache and package database, this script), and this boot's
# own (the sources, the scenarios, the extras, the environment, /init). The shared part took
# 10 s of each of the nine groups' boots at a load of 13.
t_start=$(date +%s.%N)
root=$work/root
base=$work/base
mkdir -p "$root/etc" "$root/mcg/src/tests" "$base"
# memcgctl dlopen()s libmicrohttpd for export --listen (cli/mhd-dl.c): ldd does not list it
mhd=$(ldconfig -p 2>/dev/null | awk '/libmicrohttpd\.so\.12 .*x86-64/ { print $NF; exit }')
modules="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk"

copy_with_libs() { # host binary, guest path (under $root)
	mkdir -p "$root${2%/*}"
	cp -L "$1" "$root$2"
	guest_libs "$1" | while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$root${lib%/*}"
		cp -L "$lib" "$root$lib"
	done
}
guest_libdirs() { (cd "$1" && find . -name '*.so*' | sed 's|^\.||; s|/[^/]*$||' | sort -u); }

icache=$build/tests/real-v2/initrd-cache
ikey=$(for f in "$memcgctl" "$mcgload" "$mcgwrite" "$busybox" "$(command -v jq)" $mhd \
	"$here/run-guest.sh" /etc/ld.so.cache /var/lib/dpkg/status; do
	[ -e "$f" ] && ls -lLd --time-style=+%s.%N "$f"
done | cat - "$moddir/modules.builtin" 2>/dev/null | cksum | cut -d' ' -f1)
icpio=$icache/base-$ikey.cpio
if [ ! -s "$icpio" ] || [ ! -f "$icpio.libdirs" ]; then
	run_root=$root
	root=$base
	mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" "$root/etc" \
		"$root/proc" "$root/sys" "$root/dev" "$root/root" "$root/mcg/build/tests/real" \
		"$root/mcg/build/tests/real-v2"
	cp "$busybox" "$root/bin/busybox"
	for applet in $("$busybox" --list); do
		[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
	done
	copy_with_libs "$memcgctl" /mcg/build/memcgctl
	[ -n "$mhd" ] && copy_with_libs "$mhd" "$mhd"
	[ -x "$mcgload" ] && copy_with_libs "$mcgload" /mcg/build/tests/real/mcg-load
	[ -x "$mcgwrite" ] && copy_with_libs "$mcgwrite" /mcg/build/tests/real-v2/mcg-write
	copy_with_libs "$(command -v jq)" /usr/bin/jq
	mkdir -p "$root/lib/modules/$kver"
	cp "$moddir"/modules.builtin "$root/lib/modules/$kver/" 2>/dev/null || true
	for m in $modules; do
		ko=$(find "$moddir" -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" | head -n 1)
		[ -n "$ko" ] || continue # built in, or the guest reports it missing
		case $ko in
		*.xz) xz -dc "$ko" >"$root/lib/modules/$kver/$m.ko" ;;
		*.zst) zstd -qdc "$ko" >"$root/lib/modules/$kver/$m.ko" ;;
		*) cp "$ko" "$root/lib/modules/$kver/$m.ko" ;;
		esac
	done
	root=$run_root
	# another group's boot may write the same key at the same time: each renames its own;
	# other keys' archives are removed an hour after they were made (a boot may still copy one)
	mkdir -p "$icache"
	find "$icache" -name 'base-*' -mmin +60 -delete 2>/dev/null || true
	guest_libdirs "$base" >"$icache/.libdirs.$$"
	(cd "$base" && find . | "$busybox" cpio -o -H newc 2>/dev/null) >"$icache/.cpio.$$"
	mv -f "$icache/.libdirs.$$" "$icpio.libdirs"
	mv -f "$icache/.cpio.$$" "$icpio"
	rm -rf "$base"
fi
for f in $extras; do
	copy_with_libs "$f" "/mcg/extra/${f##*/}"
done
libdirs=$({ cat "$icpio.libdirs"; guest_libdirs "$root"; } | sort -u | tr '\n' ':')

cp -R "$src/tests/real" "$root/mcg/src/tests/real"
cp -R "$src/tests/real-v2" "$root/mcg/src/tests/real-v2"
mkdir -p "$root/mcg/src/tests/cli"
for f in "$src"/tests/cli/*.sh; do
	[ -f "$f" ] && cp "$f" "$root/mcg/src/tests/cli/"
done
guest_scenarios=
for f in $scenarios; do
	cp "$f" "$root/mcg/src/tests/real/scenarios/" 2>/dev/null || true
	guest_scenarios="$guest_scenarios /mcg/src/tests/real/scenarios/${f##*/}"
done

{
	guest_env /mcg/src/tests/real/lib.sh
	cat <<ENV
export MCG_EXTRA_DIR=/mcg/extra
export MCG_DISK_BPS_WRITE='${bps}'
export LD_LIBRARY_PATH='${libdirs%:}'
MCG_V2_MODULES='${modules}'
MCG_V2_SCENARIOS='${guest_scenarios# }'
MCG_V2_SCENARIO_TIMEOUT=${scen_timeout}
ENV
} >"$root/etc/mcg-v2.env"
cp "$here/guest-init.sh" "$root/init"
chmod 755 "$root/init"
# (a copy: the cache's may be replaced by another boot's while QEMU reads it)
cp "$icpio" "$work/initrd.cpio"
(cd "$root" && find . | "$busybox" cpio -o -H newc 2>/dev/null) >>"$work/initrd.cpio"

# ---- disks ------------------------------------------------------------------
truncate -s 1G "$work/data.img"
mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 "$work/data.img"
truncate -s 256M "$work/results.img"
throttle=
[ -n "$bps" ] && throttle=",throttling.bps-write=$bps"

# ---- boot -------------------------------------------------------------------
# no_timer_check: a TCG guest descheduled on a busy host fails the IO-APIC timer check and
# panics at boot ("IO-APIC + timer doesn't work!", seen once with the host's CPUs busy)
guest_boot -kernel "$vmlinuz" -initrd "$work/initrd.cpio" \
	-append "console=ttyS0 panic=-1 quiet loglevel=4 rdinit=/init no_timer_check" \
	-drive "file=$work/data.img,if=none,id=data,format=raw,cache=unsafe$throttle" \
	-device virtio-blk-pci,drive=data,serial=mcgdata \
	-drive "file=$work/results.img,if=none,id=results,format=raw" \
	-device virtio-blk-pci,drive=results,serial=mcgresults

guest_results "$qrc" "MCG_V2_TIMEOUT=${timeout_s}s"
say "guest kernel $(info uname_r), $(info mem_total_kb) kB RAM, $(info cpus) vCPUs, qemu -accel tcg"
say "cgroup2 mounted: $(info cgroup2_mount)"
say "root cgroup.subtree_control: $(info root_subtree_control)"
guest_status

# ---- report -----------------------------------------------------------------
guest_report MCG_V2_SCENARIO_TIMEOUT
timing=$(awk -v a="$t_start" -v b="$t_boot" -v c="$t_end" \
	'BEGIN { printf "initramfs+disks %.1fs, guest %.1fs, total %.1fs", b - a, c - b, c - a }')
guest_finish "$timing"
