#!/bin/sh
# run-guest.sh: boot Debian 12 with systemd 252 as PID 1 (pure cgroup v2) under QEMU/TCG once
# and run the real-systemd scenarios in it; report each one on the host.
#
# Usage: run-guest.sh [--build DIR] [--src DIR] [--results DIR] [SCENARIO.sh ...]
#   --build DIR    CMake build dir (memcgctl, tests/real/mcg-load, tests/real-v2/mcg-write)
#   --src DIR      source tree (default: two levels above this script)
#   --results DIR  keep the guest's results here (default: a temporary dir, removed)
#   SCENARIO.sh    run these instead of every tests/real-systemd/scenarios/*.sh
# A scenario named deb-* gets memcgctl's .deb in the guest as /mcg/deb/memcgctl.deb: MCG_SD_DEB,
# or built from the source tree by build-deb.sh (dpkg-buildpackage) into BUILD/deb.
# Env:
#   MCG_V2_CACHE            kernel cache of tests/real-v2/setup.sh (default /var/cache/memcgctl-v2)
#   MCG_V2_KERNEL_DIR       an unpacked linux-image .deb (default $MCG_V2_CACHE/current)
#   MCG_SD_CACHE            root filesystem cache of setup.sh (default /var/cache/memcgctl-systemd)
#   MCG_SD_IMAGE            the root filesystem image (default $MCG_SD_CACHE/current)
#   MCG_SD_TIMEOUT          host-side limit for the whole boot in seconds (default 1800)
#   MCG_SD_SCENARIO_TIMEOUT per-scenario limit inside the guest (default 600)
#   MCG_SD_MEM_MIB          guest RAM (default 1024)
#   MCG_SD_APPEND           more kernel command line (e.g. systemd.log_level=debug)
#   MCG_SD_VERBOSE=1        print every scenario's stdout/stderr, not only on failure
#   CI=true                 a missing QEMU, kernel or image is a failure, not a skip
# Exit: 0 every scenario passed or skipped, 1 a scenario or the guest failed, 77 the tier
# cannot run here (outside CI).
#
# Disks, all on one NVMe controller (built into the cloud kernel: no initramfs), by namespace:
#   nvme0n1  the cached root image, snapshot=on: guest writes go to a throwaway overlay
#   nvme0n2  ext4 made per run with mkfs.ext4 -d: /mcg (binaries, libraries the image
#            lacks, sources, env) and the scenarios' data directories
#   nvme0n3  raw, the guest writes a tar of its results there
set -eu

here=$(cd "$(dirname "$0")" && pwd)
tier=real-systemd
# shellcheck source=../real-v2/guest-lib.sh
. "$here/../real-v2/guest-lib.sh"
timeout_s=${MCG_SD_TIMEOUT:-1800}
scen_timeout=${MCG_SD_SCENARIO_TIMEOUT:-600}
mem=${MCG_SD_MEM_MIB:-1024}
kcache=${MCG_V2_CACHE:-/var/cache/memcgctl-v2}
kdir=${MCG_V2_KERNEL_DIR:-$kcache/current}
sdcache=${MCG_SD_CACHE:-/var/cache/memcgctl-systemd}
image=${MCG_SD_IMAGE:-$sdcache/current}
verbose=${MCG_SD_VERBOSE:-0}
cpu=${MCG_SD_CPU:-max}

guest_options "$@"
shift "$gl_nopts"

# ---- what the tier needs ----------------------------------------------------
guest_kernel
command -v mkfs.ext4 >/dev/null 2>&1 || unavailable "mkfs.ext4 not found (apt-get install e2fsprogs)"
image=$(readlink -f "$image" 2>/dev/null || true)
[ -n "$image" ] && [ -f "$image" ] && [ -f "$image.complete" ] ||
	unavailable "no root filesystem image in $sdcache (run tests/real-systemd/setup.sh as root)"
[ -r "$image" ] || unavailable "$image is not readable"

memcgctl=$build/memcgctl
[ -x "$memcgctl" ] || die "$memcgctl not built (cmake --build $build)"

# ---- scenarios --------------------------------------------------------------
guest_scenarios "$here/scenarios" "$@"

# ---- scratch space, removed on every exit path ------------------------------
guest_workspace sd

# ---- the per-run disk -------------------------------------------------------
t_start=$(date +%s.%N)
m=$work/mcg
mkdir -p "$m/build/tests/real" "$m/build/tests/real-v2" "$m/lib" "$m/src/tests" "$m/data"
# Libraries the image has are used from the image (same Debian release as this host); the
# rest (the sanitizer runtimes, a dependency added since setup.sh ran) go to /mcg/lib.
have_libs=$image.libs
copy_with_libs() { # host binary, guest path under /mcg
	cp -L "$1" "$m$2"
	guest_libs "$1" | while read -r lib; do
		base=${lib##*/}
		[ -e "$m/lib/$base" ] && continue
		grep -qxF "$base" "$have_libs" 2>/dev/null && continue
		cp -L "$lib" "$m/lib/$base"
	done
}
copy_with_libs "$memcgctl" /build/memcgctl
# export --listen loads libmicrohttpd with dlopen(), which ldd does not see: from this host
# when the image lacks it (issue 24: the export units under systemd)
mhd=$(ldconfig -p 2>/dev/null | awk '$1 == "libmicrohttpd.so.12" { print $NF; exit }')
if [ -n "$mhd" ] && ! grep -qxF libmicrohttpd.so.12 "$have_libs" 2>/dev/null; then
	copy_with_libs "$mhd" /lib/libmicrohttpd.so.12
fi
# The image has no kernel modules (and no kmod): the few a scenario loads with busybox insmod
# come from the kernel's package, as /mcg/modules/NAME.ko (overlay: podman's storage driver,
# issue 30; the cloud kernel builds it as a module).
mkdir -p "$m/modules"
for mod in fs/overlayfs/overlay; do
	ko=$(ls "$kdir/lib/modules/$kver/kernel/$mod".ko* 2>/dev/null | head -n 1 || true)
	case $ko in
	"") ;;
	*.xz) xz -dc "$ko" >"$m/modules/${mod##*/}.ko" ;;
	*.zst) zstd -qdc "$ko" >"$m/modules/${mod##*/}.ko" ;;
	*) cp "$ko" "$m/modules/${mod##*/}.ko" ;;
	esac
done
for h in tests/real/mcg-load tests/real-v2/mcg-write; do
	if [ -x "$build/$h" ]; then
		copy_with_libs "$build/$h" "/build/$h"
	fi
done
cp -R "$src/tests/real" "$m/src/tests/real"
case " $(for f in $scenarios; do echo "${f##*/}"; done | tr '\n' ' ')" in
*" deb-"*)
	deb=${MCG_SD_DEB:-}
	if [ -z "$deb" ]; then
		deb=$(sh "$here/build-deb.sh" "$src" "$build/deb") || {
			rc=$?
			[ "$rc" = 77 ] && unavailable "dpkg-buildpackage not installed (apt-get install debhelper dpkg-dev)"
			die "building the .deb failed (see $build/deb/build-deb.log)"
		}
	fi
	mkdir -p "$m/deb"
	cp "$deb" "$m/deb/memcgctl.deb"
	;;
esac
mkdir -p "$m/src/tests/real-systemd/scenarios"
cp "$here"/*.sh "$m/src/tests/real-systemd/"
# the unit files as shipped (lib/systemd/*.in: the scenarios fill in the paths)
mkdir -p "$m/src/lib/systemd"
cp "$src"/lib/systemd/* "$m/src/lib/systemd/"
# and contrib's (the node_exporter textfile unit, issue 24)
mkdir -p "$m/src/contrib/systemd"
cp "$src"/contrib/systemd/* "$m/src/contrib/systemd/"
guest_scenarios=
for f in $scenarios; do
	cp "$f" "$m/src/tests/real-systemd/scenarios/"
	guest_scenarios="$guest_scenarios /mcg/src/tests/real-systemd/scenarios/${f##*/}"
done
# LeakSanitizer cannot run under ptrace: scenarios that strace memcgctl turn it off for
# that run only.
{
	guest_env /mcg/src/tests/real-systemd/lib.sh
	cat <<ENV
export LD_LIBRARY_PATH=/mcg/lib
MCG_SD_SCENARIOS='${guest_scenarios# }'
MCG_SD_SCENARIO_TIMEOUT=${scen_timeout}
ENV
} >"$m/env"
truncate -s 1G "$work/mcg.img"
mkfs.ext4 -q -F -L mcgrun -d "$m" -E lazy_itable_init=1,lazy_journal_init=1 "$work/mcg.img" ||
	die "mkfs.ext4 -d failed (e2fsprogs >= 1.43 needed)"
truncate -s 64M "$work/results.img"

# ---- boot -------------------------------------------------------------------
# No udev, no initramfs: root by device name. The unit runs the scenarios and powers off.
append="console=ttyS0 panic=-1 quiet loglevel=4 root=/dev/nvme0n1 rootfstype=ext4 rw"
append="$append init=/lib/systemd/systemd systemd.unified_cgroup_hierarchy=1"
append="$append systemd.unit=memcgctl-tests.target systemd.show_status=error"
# no_timer_check: a TCG guest descheduled on a busy host fails the IO-APIC timer check and
# panics at boot ("IO-APIC + timer doesn't work!", seen in real-v2 under load)
append="$append random.trust_cpu=on mitigations=off no_timer_check ${MCG_SD_APPEND:-}"
guest_boot -kernel "$vmlinuz" -append "$append" \
	-device nvme,id=nvme0,serial=mcgsd \
	-drive "file=$image,if=none,id=root,format=raw,snapshot=on" \
	-device nvme-ns,drive=root,bus=nvme0,nsid=1 \
	-drive "file=$work/mcg.img,if=none,id=mcg,format=raw,cache=unsafe" \
	-device nvme-ns,drive=mcg,bus=nvme0,nsid=2 \
	-drive "file=$work/results.img,if=none,id=results,format=raw" \
	-device nvme-ns,drive=results,bus=nvme0,nsid=3

guest_results "$qrc" "MCG_SD_TIMEOUT=${timeout_s}s"
say "guest kernel $(info uname_r), $(info systemd), PID 1 $(info pid1), qemu -accel tcg"
say "cgroup2: $(info cgroup2_mount); root subtree_control: $(info root_subtree_control)"
guest_status

# ---- report -----------------------------------------------------------------
guest_report MCG_SD_SCENARIO_TIMEOUT
timing=$(awk -v a="$t_start" -v b="$t_boot" -v c="$t_end" -v u="$(info uptime_at_runner)" \
	-v e="$(info uptime_at_end)" \
	'BEGIN { printf "disks %.1fs, guest %.1fs (runner up at %.1fs, scenarios %.1fs), total %.1fs",
		b - a, c - b, u, e - u, c - a }')
guest_finish "$timing"
