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
# -j4: a real-v2 guest, a real-systemd guest, a real-v1 scenario (they run one at a time:
# RESOURCE_LOCK real-cgroups) and a unit/cli/fuzz test side by side. The two guests use
# less than one CPU together on average (tests/real-v2/CMakeLists.txt) and the real-v1
# scenarios mostly wait on the kernel; at -j3 the host's tests shared one slot, and the
# suite took 967 s of CI's 982 s (stop 32), the three serial chains (real-v2 748 s,
# real-systemd 668 s, real-v1 559 s) waiting on it.
exec ctest --test-dir build-test --output-on-failure -j4 "$@"
