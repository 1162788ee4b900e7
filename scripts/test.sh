#!/bin/sh
# test.sh: build with warnings as errors and AddressSanitizer+UBSan, then run every tier:
# unit, cli, real-v1 (this host's cgroup v1, as root) and real-v2 (a QEMU guest).
# usage: scripts/test.sh [ctest arguments, e.g. -L unit]
set -eu
cd "$(dirname "$0")/.."
sh scripts/bootstrap.sh --deps-only
if [ -x tests/real-v2/setup.sh ] || [ -f tests/real-v2/setup.sh ]; then
	sh tests/real-v2/setup.sh || echo "test: the real-v2 guest could not be set up (the tier will say why)"
fi
if [ -f tests/real-systemd/setup.sh ]; then
	sh tests/real-systemd/setup.sh || echo "test: the real-systemd guest could not be set up (the tier will say why)"
fi
cmake -S . -B build-test -DMEMCG_WERROR=ON -DMEMCG_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-test -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# -j6: four guest chains (real-v2's two, RESOURCE_LOCK qemu-v2 and qemu-v2b, real-systemd's
# two, qemu-systemd and qemu-systemd-b), a real-v1 scenario (they run one at a time:
# RESOURCE_LOCK real-cgroups) and a unit/cli/fuzz test side by side. A guest mostly waits on
# its scenarios' own waits (a v2 qemu used 36% of a CPU at a load of 8) and the real-v1
# scenarios mostly wait on the kernel. With one chain per tier (-j4) the real-v2 chain was
# the suite's critical path: about 1,600 s of guest time at a load of 10-15, real-systemd's
# 1,500 s.
exec ctest --test-dir build-test --output-on-failure -j6 "$@"
