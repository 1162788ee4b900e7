#!/bin/sh
# run-v1.sh: run one real-kernel scenario against this host's cgroup v1 memory controller.
# usage: run-v1.sh SCENARIO.sh MEMCGCTL MCG_LOAD SRCDIR DATADIR
set -eu
scenario=$1
export MEMCGCTL=$2 MCG_LOAD=$3 MCG_SRCDIR=$4 MCG_DATADIR=$5
export MCG_TESTLIB="$MCG_SRCDIR/tests/real/lib.sh" MCG_TIER=real-v1 MCG_CGVER=1
export MCG_CGROOT=${MCG_CGROOT:-/sys/fs/cgroup/memory}
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: the real-v1 tier needs root to create memory cgroups"
	exit 77
fi
if ! grep -qE '^[^ ]+ [^ ]+ cgroup [^ ]*memory' /proc/mounts || [ ! -w "$MCG_CGROOT" ]; then
	echo "SKIP: no writable cgroup v1 memory controller at $MCG_CGROOT"
	exit 77
fi
mkdir -p "$MCG_DATADIR"
exec sh "$scenario"
