#!/bin/sh
# capture-fixture.guest.sh: runs inside the real-v2 guest (via capture-fixture.sh): captures
# a v2 fixture tree with the cli tier's mk-fixture.sh into $MCG_ARTIFACTS/fixture.
set -eu
out=$MCG_ARTIFACTS/fixture
sh "$MCG_SRCDIR/tests/cli/mk-fixture.sh" "$MCG_LOAD" "$MCG_CGROOT" 2 "$out" "$MCG_DATADIR"
{
	echo "captured by tests/real-v2/capture-fixture.sh in the real-v2 QEMU guest"
	echo "kernel: $(uname -r) ($(uname -v))"
	echo "cgroup2 root subtree_control: $(cat "$MCG_CGROOT/cgroup.subtree_control")"
	echo "guest RAM: $(sed -n 's/^MemTotal: *//p' /proc/meminfo), no swap"
	echo "data disk: ext4 on virtio-blk at $MCG_DATADIR"
} >"$MCG_ARTIFACTS/SOURCE"
