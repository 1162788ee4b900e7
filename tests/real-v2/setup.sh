#!/bin/sh
# Fetch and unpack Debian's cloud kernel for the real-v2 QEMU tier (downloaded, never installed).
#
# Usage (as root): tests/real-v2/setup.sh
# Env: MCG_V2_CACHE  cache directory (default /var/cache/memcgctl-v2)
# Leaves $MCG_V2_CACHE/<package>/ (the unpacked .deb) and $MCG_V2_CACHE/current -> <package>,
# and prints the kernel directory. Idempotent: an unpacked package is reused; apt-get update
# runs only when resolving or downloading fails.
set -eu

cache=${MCG_V2_CACHE:-/var/cache/memcgctl-v2}
meta=linux-image-cloud-amd64

say() { printf 'real-v2 setup: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

resolve() {
	apt-cache depends "$meta" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-cloud-amd64\)$/\1/p' | head -n 1
}

mkdir -p "$cache"

pkg=$(resolve)
if [ -z "$pkg" ]; then
	say "cannot resolve $meta from the apt lists; running apt-get update"
	apt-get update -qq >&2 || say "apt-get update failed"
	pkg=$(resolve)
fi
if [ -z "$pkg" ]; then
	# Offline but cached earlier: keep using what we have.
	if [ -f "$cache/current/.complete" ]; then
		say "using cached $(readlink "$cache/current") (cannot resolve $meta)"
		printf '%s\n' "$cache/current"
		exit 0
	fi
	die "cannot resolve the kernel package that $meta depends on"
fi

dest=$cache/$pkg
if [ -f "$dest/.complete" ]; then
	ln -sfn "$pkg" "$cache/current"
	say "cached: $dest"
	printf '%s\n' "$dest"
	exit 0
fi

tmp=$(mktemp -d "$cache/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP
# apt-get download drops privileges to _apt when it can write the target directory.
chown _apt "$tmp" 2>/dev/null || true

fetch() { (cd "$tmp" && apt-get download -qq "$pkg" >&2); }
if ! fetch; then
	say "apt-get download $pkg failed; running apt-get update and retrying"
	apt-get update -qq >&2 || say "apt-get update failed"
	fetch || die "cannot download $pkg"
fi

set -- "$tmp"/*.deb
[ -f "$1" ] || die "apt-get download left no .deb in $tmp"
mkdir "$tmp/root"
dpkg-deb -x "$1" "$tmp/root"
set -- "$tmp"/root/boot/vmlinuz-*
[ -f "$1" ] || die "$pkg has no /boot/vmlinuz-*"
[ -d "$tmp/root/lib/modules" ] || die "$pkg has no /lib/modules"
touch "$tmp/root/.complete"
rm -rf "$dest"
mv "$tmp/root" "$dest"
ln -sfn "$pkg" "$cache/current"
say "unpacked $pkg into $dest"
printf '%s\n' "$dest"
