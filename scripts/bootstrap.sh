#!/bin/sh
# bootstrap.sh: install what memcgctl needs on Debian 12 (as root), build it, show the tree.
# usage: scripts/bootstrap.sh [--deps-only]
set -eu
cd "$(dirname "$0")/.."
pkgs="build-essential cmake pkg-config libnl-3-dev libnl-genl-3-dev libncurses-dev
      libcmocka-dev jq tmux util-linux procps qemu-system-x86 qemu-utils busybox-static e2fsprogs
      bash strace clang zsh fish debootstrap libsmartcols-dev
      libmicrohttpd-dev libsystemd-dev libzstd-dev zlib1g-dev zstd prometheus prometheus-node-exporter python3 curl
      debhelper dpkg-dev fakeroot lintian podman runc python3-prometheus-client"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || { echo "bootstrap: run as root to install:$missing" >&2; exit 1; }
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
fi
[ "${1:-}" = --deps-only ] && exit 0
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
echo "built build/memcgctl; the memory cgroup tree:"
./build/memcgctl
