#!/bin/sh
# fuzz/run-ci.sh: the ctest side of the fuzz targets (label fuzz, tests/CMakeLists.txt).
#
#   sh fuzz/run-ci.sh build OUTDIR          build every target (fixture setup)
#   sh fuzz/run-ci.sh run OUTDIR TARGET     run TARGET over a copy of its committed corpus
#
# A run lasts FUZZ_SECONDS (5) and fails on any crash, leak, timeout, sanitizer
# report or broken property; the committed corpus is never written. Without clang
# the test is skipped (77), except under CI=true, where that is a failure.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: run-ci.sh build|run OUTDIR [TARGET]}
out=${2:?usage: run-ci.sh build|run OUTDIR [TARGET]}
target=${3:-}
secs=${FUZZ_SECONDS:-5}

if ! command -v "${FUZZ_CC:-clang}" >/dev/null 2>&1; then
	if [ "${CI:-}" = true ]; then
		echo "fuzz: clang is not installed, and CI=true: the fuzz tests must run here" >&2
		exit 1
	fi
	echo "fuzz: clang is not installed: skipped (apt-get install clang)"
	exit 77
fi

if [ "$mode" = build ]; then
	sh "$src/fuzz/build.sh" "$out"
	exit $?
fi
[ "$mode" = run ] && [ -n "$target" ] || {
	echo "usage: run-ci.sh build|run OUTDIR [TARGET]" >&2
	exit 64
}
# a no-op when the fixture's build is fresh; builds when this test runs alone
sh "$src/fuzz/build.sh" "$out" "$target" >/dev/null || exit 1

seeds=$src/fuzz/corpus/$target
if [ ! -d "$seeds" ] || [ -z "$(ls -A "$seeds")" ]; then
	echo "fuzz/$target: no seed corpus in $seeds" >&2
	exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/mcg-fuzz-ci.XXXXXX") || exit 1
# the targets' fixture trees: on tmpfs when there is one, and removed even after a crash
fixtures=$(mktemp -d "$( [ -w /dev/shm ] && echo /dev/shm || echo "$work")/mcg-fuzz-fx.XXXXXX") || exit 1
trap 'rm -rf "$work" "$fixtures"' EXIT INT TERM
export FUZZ_TMPDIR="$fixtures"
mkdir "$work/corpus" "$work/artifacts"
cp "$seeds"/* "$work/corpus/"
nseeds=$(ls "$work/corpus" | wc -l)
set -- -max_total_time="$secs" -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/"
[ -f "$src/fuzz/$target.dict" ] && set -- "$@" -dict="$src/fuzz/$target.dict"

"$out/fuzz_$target" "$@" "$work/corpus" >"$work/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
ncorp=$(ls "$work/corpus" | wc -l)
if [ $rc -ne 0 ] || [ -n "$(ls -A "$work/artifacts")" ] ||
	grep -q -e 'ERROR: AddressSanitizer' -e 'ERROR: LeakSanitizer' -e 'runtime error:' \
		-e 'property violated' "$work/log"; then
	# the report, without libFuzzer's progress lines
	grep -v -e '^#[0-9]' -e '^INFO:' "$work/log" | tail -n 80
	mkdir -p "$out/crashes/$target"
	for a in "$work"/artifacts/*; do
		[ -f "$a" ] || continue
		cp "$a" "$out/crashes/$target/"
		echo "fuzz/$target: reproducer kept as $out/crashes/$target/$(basename "$a")"
		echo "  replay: $out/fuzz_$target $out/crashes/$target/$(basename "$a")"
	done
	echo "fuzz/$target: FAILED (exit $rc) after ${runs:-?} executions"
	exit 1
fi
echo "fuzz/$target: ${runs:-?} executions in ${secs} s, no crash; corpus $nseeds seeds -> $ncorp inputs"
[ -n "$runs" ] && [ "$runs" -gt 0 ] || {
	echo "fuzz/$target: no executions reported" >&2
	exit 1
}
exit 0
