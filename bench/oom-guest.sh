#!/bin/sh
# bench/oom-guest.sh: bench/oom.sh on cgroup v2, inside the real-v2 QEMU guest (tests/real-v2:
# Debian's cloud kernel, TCG, 2 vCPUs, MCG_V2_MEM_MIB RAM), where every process is the bench's.
# The guest has no compiler: oom-probe is built here against BUILD's libmemcg.a and copied in
# (run-guest.sh --extra), with bench/oom.sh; the guest runs BUILD's memcgctl and mcg-load.
# usage: bench/oom-guest.sh [BUILD_DIR]   (default build-rel; a Release build of this tree)
# N (200), ROUNDS (1), LIMIT_MB (8), IDLE_CG (1000), IDLE_S (0) as bench/oom.sh's;
# MCG_V2_SCENARIO_TIMEOUT (3600) the guest's limit for the run; RESULTS (a directory: the guest's
# results, with the run's files under s/bench-oom/artifacts: kernel log, autopsies, probe lines).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build-rel}" && pwd)
tmp=$(mktemp -d /tmp/memcgctl-bench-oom-guest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2046
cc -O2 -Wall -o "$tmp/oom-probe" "$src/bench/oom-probe.c" -I"$src/lib/include" \
	"$build/libmemcg.a" $(pkg-config --cflags libsystemd) \
	$(pkg-config --cflags --libs libnl-genl-3.0 libzstd) -lm -ldl
cp "$src/bench/oom.sh" "$tmp/oom.sh"
# the guest's scenario: the environment it runs with is the guest's own, not this one's
cat >"$tmp/bench-oom.sh" <<SCEN
#!/bin/sh
set -eu
echo "guest: \$(uname -r), \$(awk '\$1 == "MemTotal:" { print \$2 }' /proc/meminfo) kB, \$(nproc 2>/dev/null || grep -c ^processor /proc/cpuinfo) CPUs; load \$(cat /proc/loadavg)"
OOM_PROBE=\$MCG_EXTRA_DIR/oom-probe N=${N:-200} ROUNDS=${ROUNDS:-1} LIMIT_MB=${LIMIT_MB:-8} \\
	IDLE_CG=${IDLE_CG:-1000} IDLE_S=${IDLE_S:-0} BENCH_PREFIX=memcgctl-bench-oom-guest \\
	KEEP=${RESULTS:+1} sh ${OOM_GUEST_X:+-x} \$MCG_EXTRA_DIR/oom.sh /mcg/build
# RESULTS: the run's files (kernel log, autopsies, probe lines) kept in the results' artifacts
[ -z "${RESULTS:-}" ] || cp -R /tmp/memcgctl-bench-oom.* "\$MCG_ARTIFACTS/"
echo "guest load after: \$(cat /proc/loadavg)"
SCEN
echo "host load before: $(cat /proc/loadavg)"
st=${MCG_V2_SCENARIO_TIMEOUT:-3600}
MCG_V2_VERBOSE=1 MCG_V2_SCENARIO_TIMEOUT=$st MCG_V2_TIMEOUT=$((st + 300)) \
	sh "$src/tests/real-v2/run-guest.sh" --build "$build" --src "$src" ${RESULTS:+--results "$RESULTS"} \
	--extra "$tmp/oom-probe" --extra "$tmp/oom.sh" "$tmp/bench-oom.sh"
echo "host load after: $(cat /proc/loadavg)"
