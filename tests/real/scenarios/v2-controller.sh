#!/bin/sh
# tiers: v2
# The guest's cgroup2 hierarchy has the memory controller on and a child cgroup gets the
# memory.* files memcgctl reads.
set -eu
cg=$MCG_CGROOT/$MCG_PREFIX-ctl
trap 'rmdir "$cg" 2>/dev/null || true' EXIT
grep -qw memory "$MCG_CGROOT/cgroup.subtree_control"
mkdir "$cg"
for f in memory.current memory.max memory.high memory.low memory.min memory.stat \
	memory.events memory.reclaim memory.pressure; do
	[ -e "$cg/$f" ] || { echo "missing $f"; exit 1; }
done
echo "memory controller on, $(cat "$cg/memory.current") bytes charged to an empty cgroup"
