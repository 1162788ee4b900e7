#!/bin/sh
# Build the root filesystem of the real-systemd QEMU tier: Debian 12 minbase with systemd as
# PID 1, made with debootstrap from this machine's apt mirror, as a read-only ext4 image.
#
# Usage (as root): tests/real-systemd/setup.sh
# Env: MCG_SD_CACHE   cache directory (default /var/cache/memcgctl-systemd)
#      MCG_SD_MIRROR  Debian mirror (default: the first bookworm URI of the apt sources)
# Leaves $MCG_SD_CACHE/rootfs-<key>.img (key: a hash of the package list and of this script)
# and $MCG_SD_CACHE/current -> it, and prints the image path. Idempotent: an image with the
# same key is reused, downloaded .debs are kept in $MCG_SD_CACHE/debs for the next rebuild.
# The image is never written by a guest: run-guest.sh boots it with QEMU's snapshot=on.
# It holds no memcgctl: the binary under test, its sanitizer runtimes and the scenarios
# come in on a second disk per run.
set -eu

cache=${MCG_SD_CACHE:-/var/cache/memcgctl-systemd}
suite=bookworm
# systemd and what the guest tests use; libcgroup2..libncursesw6 are what memcgctl links
# (libasan/libubsan of a sanitized build come per run). No udev: the disks are mounted by
# device name, and udev's coldplug would cost seconds under TCG.
# podman (issue 30): rootful, with crun (podman's first choice; runc is 8 MiB more) and
# netavark as the network stack its containers-common needs (CNI's plugins are 44 MiB;
# the scenarios run --network none), busybox-static for the image they import.
packages="systemd systemd-sysv dbus libcgroup2 libnl-3-200 libnl-genl-3-200 libncursesw6
	strace jq procps podman crun conmon netavark gpg busybox-static"

say() { printf 'real-systemd setup: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (debootstrap and the image's file owners need it)"
command -v debootstrap >/dev/null 2>&1 || die "debootstrap not found (apt-get install debootstrap)"
command -v mkfs.ext4 >/dev/null 2>&1 || die "mkfs.ext4 not found (apt-get install e2fsprogs)"

# shellcheck disable=SC2086 # the list splits into package names
key=$( (printf '%s\n' $packages; cat "$0") | sha256sum | cut -c1-16)
img=$cache/rootfs-$key.img
mkdir -p "$cache"
if [ -f "$img" ] && [ -f "$img.complete" ]; then
	ln -sfn "${img##*/}" "$cache/current"
	say "cached: $img"
	printf '%s\n' "$img"
	exit 0
fi

mirror=${MCG_SD_MIRROR:-}
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list.d/debian.sources ]; then
	# deb822: the URIs of the first stanza whose Suites name the release itself
	mirror=$(awk -v s="$suite" '
		/^$/ { if (u != "" && ok) { print u; exit } u = ""; ok = 0; next }
		$1 == "URIs:" { u = $2 }
		$1 == "Suites:" { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
		END { if (u != "" && ok) print u }' /etc/apt/sources.list.d/debian.sources | head -n 1)
fi
if [ -z "$mirror" ] && [ -r /etc/apt/sources.list ]; then
	mirror=$(awk -v s="$suite" '$1 == "deb" && $3 == s { print $2; exit }' /etc/apt/sources.list)
fi
[ -n "$mirror" ] || die "no $suite mirror in the apt sources (set MCG_SD_MIRROR)"

t0=$(date +%s)
# dpkg fsyncs every file it unpacks: on tmpfs that costs nothing (about half the time)
scratch=$cache
shm_kb=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
[ "${shm_kb:-0}" -gt 1048576 ] && scratch=/dev/shm
tmp=$(mktemp -d "$scratch/memcgctl-sd-build.XXXXXX")
cleanup() {
	# debootstrap leaves /proc and /sys mounted in the target when it fails half-way
	for m in proc sys dev/pts dev; do
		mountpoint -q "$tmp/root/$m" 2>/dev/null && umount -l "$tmp/root/$m"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
mkdir -p "$cache/debs"
# shellcheck disable=SC2086
include=$(printf '%s\n' $packages | paste -sd, -)
say "debootstrap $suite ($include) from $mirror"
debootstrap --variant=minbase --include="$include" --cache-dir="$cache/debs" \
	"$suite" "$tmp/root" "$mirror" >"$tmp/debootstrap.log" 2>&1 ||
	{ tail -n 30 "$tmp/debootstrap.log" >&2; die "debootstrap failed"; }

r=$tmp/root
# libgpgme11 (podman's) takes "gnupg | gpg" and debootstrap the first: gnupg's agent,
# dirmngr, gpgsm, their translations and LDAP (14 MiB) go, gpg stays.
chroot "$r" dpkg --purge gnupg gnupg-l10n gnupg-utils dirmngr gpgsm gpg-wks-server \
	gpg-wks-client gpg-agent pinentry-curses libldap-2.5-0 libsasl2-2 libsasl2-modules-db \
	libksba8 >"$tmp/purge.log" 2>&1 || { cat "$tmp/purge.log" >&2; die "dpkg --purge of gnupg failed"; }
# A fixed machine id: an empty one is a first boot (presets applied to every unit).
echo 6d656d6367636d656d6367636d656d63 >"$r/etc/machine-id"
echo memcgctl-sd >"$r/etc/hostname"
printf '127.0.0.1 localhost memcgctl-sd\n' >"$r/etc/hosts"
: >"$r/etc/fstab"
mkdir -p "$r/mcg" "$r/etc/systemd/journald.conf.d" "$r/etc/systemd/system.conf.d"
printf '[Journal]\nStorage=volatile\nRateLimitBurst=0\n' \
	>"$r/etc/systemd/journald.conf.d/mcg.conf"
# Memory accounting for every unit, as on a stock 252 system, spelled out.
printf '[Manager]\nDefaultMemoryAccounting=yes\nDefaultTimeoutStopSec=10s\n' \
	>"$r/etc/systemd/system.conf.d/mcg.conf"

# What the guest boots into (systemd.unit=memcgctl-tests.target on the kernel command line):
# basic.target and the runner, which mounts the per-run disk and hands over to the runner
# script on it (tests/real-systemd/guest-run.sh), then powers the guest off.
cat >"$r/etc/systemd/system/memcgctl-tests.target" <<'EOF'
[Unit]
Description=memcgctl real-systemd tests
Requires=basic.target memcgctl-tests.service
After=basic.target memcgctl-tests.service
AllowIsolate=yes
EOF
cat >"$r/etc/systemd/system/memcgctl-tests.service" <<'EOF'
[Unit]
Description=memcgctl real-systemd scenario runner
After=basic.target
SuccessAction=poweroff-force
FailureAction=poweroff-force
[Service]
Type=oneshot
ExecStart=/usr/local/sbin/mcg-guest-boot
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity
EOF
mkdir -p "$r/usr/local/sbin"
cat >"$r/usr/local/sbin/mcg-guest-boot" <<'EOF'
#!/bin/sh
# The per-run disk is NVMe namespace 2 (run-guest.sh); no udev, so by device name.
i=0
while [ ! -b /dev/nvme0n2 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
mount -t ext4 -o noatime /dev/nvme0n2 /mcg || { echo "mcg-guest-boot: cannot mount /dev/nvme0n2"; exit 1; }
exec /bin/sh /mcg/src/tests/real-systemd/guest-run.sh
EOF
chmod 755 "$r/usr/local/sbin/mcg-guest-boot"
# Nothing else starts: no timers, no getty, no network (multi-user.target is never reached,
# basic.target still pulls timers.target and sockets).
for u in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
	fstrim.timer systemd-tmpfiles-clean.timer systemd-timesyncd.service \
	serial-getty@ttyS0.service getty@tty1.service systemd-networkd.service \
	systemd-resolved.service systemd-update-utmp.service systemd-pstore.service \
	systemd-binfmt.service proc-sys-fs-binfmt_misc.automount sys-kernel-debug.mount \
	sys-kernel-tracing.mount dev-hugepages.mount dev-mqueue.mount sys-fs-fuse-connections.mount \
	sys-kernel-config.mount systemd-hwdb-update.service systemd-journal-catalog-update.service \
	ldconfig.service systemd-firstboot.service systemd-machine-id-commit.service \
	systemd-random-seed.service systemd-journal-flush.service systemd-sysusers.service \
	systemd-udevd.service systemd-udev-trigger.service systemd-udev-settle.service \
	systemd-modules-load.service kmod-static-nodes.service systemd-fsck-root.service \
	systemd-remount-fs.service; do
	ln -sfn /dev/null "$r/etc/systemd/system/$u"
done
# Docs, locales and apt's lists and archives are not needed in the guest.
rm -rf "$r/usr/share/doc" "$r/usr/share/man" "$r/usr/share/info" "$r/usr/share/locale" \
	"$r/var/lib/apt/lists"/* "$r/var/cache/apt"/*.bin "$r/var/cache/apt/archives"/*.deb \
	"$r/var/log"/*.log
# the guest's own libraries, so that run-guest.sh copies only what the image lacks
(cd "$r" && find lib usr/lib lib64 -maxdepth 2 -name '*.so*' 2>/dev/null |
	sed 's|.*/||' | sort -u) >"$tmp/libs.txt"

used_kb=$(du -sk "$r" | cut -f1)
size_mb=$((used_kb / 1024 * 3 / 2 + 128))
truncate -s "${size_mb}M" "$tmp/rootfs.img"
mkfs.ext4 -q -F -L mcgroot -d "$r" -E lazy_itable_init=1,lazy_journal_init=1 \
	"$tmp/rootfs.img" || die "mkfs.ext4 -d failed"
chmod 0444 "$tmp/rootfs.img"
mv "$tmp/libs.txt" "$img.libs"
mv "$tmp/rootfs.img" "$img.part"
mv "$img.part" "$img"
touch "$img.complete"
ln -sfn "${img##*/}" "$cache/current"
# older images (another package list or setup.sh) are of no further use
for old in "$cache"/rootfs-*.img; do
	[ "$old" = "$img" ] || rm -f "$old" "$old.complete" "$old.libs"
done
say "built $img: $((used_kb / 1024)) MiB of files in a ${size_mb} MiB image, $(($(date +%s) - t0)) s"
printf '%s\n' "$img"
