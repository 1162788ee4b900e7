#!/bin/sh
# scripts/fuzz.sh: run the libFuzzer targets longer than CI does, by hand.
#
#   sh scripts/fuzz.sh [TARGET|all] [SECONDS]      (default: all, 300 s each)
#
# Builds into build-fuzz/ (git-ignored) and grows a working corpus in
# build-fuzz/corpus/TARGET, started from the committed fuzz/corpus/TARGET (which
# is never written). Crashes land in build-fuzz/crashes/TARGET/; fuzz/README.md
# says how to minimise one and add it to the committed corpus. Extra libFuzzer
# options can be given in FUZZ_ARGS (e.g. FUZZ_ARGS=-jobs=2).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=$src/build-fuzz
target=${1:-all}
secs=${2:-300}

sh "$src/fuzz/build.sh" "$out"
if [ "$target" = all ]; then
	set --
	for t in "$src"/fuzz/fuzz_*.c; do
		set -- "$@" "$(basename "$t" .c | sed 's/^fuzz_//')"
	done
else
	[ -f "$src/fuzz/fuzz_$target.c" ] || {
		echo "scripts/fuzz.sh: no target '$target' (fuzz/fuzz_$target.c)" >&2
		exit 64
	}
	set -- "$target"
fi

status=0
for t in "$@"; do
	corpus=$out/corpus/$t
	crashes=$out/crashes/$t
	mkdir -p "$corpus" "$crashes"
	dict=
	[ -f "$src/fuzz/$t.dict" ] && dict=-dict=$src/fuzz/$t.dict
	echo "== $t: $secs s, corpus $corpus (+ fuzz/corpus/$t)"
	# shellcheck disable=SC2086
	if "$out/fuzz_$t" -max_total_time="$secs" -timeout=5 -rss_limit_mb=1024 \
		-print_final_stats=1 -artifact_prefix="$crashes/" $dict ${FUZZ_ARGS:-} \
		"$corpus" "$src/fuzz/corpus/$t" >"$out/$t.log" 2>&1; then
		echo "   $(grep -E '^Done [0-9]+ runs' "$out/$t.log" | tail -n 1)," \
			"corpus $(ls "$corpus" | wc -l) inputs"
	else
		status=1
		grep -v -e '^#[0-9]' -e '^INFO:' "$out/$t.log" | tail -n 40
		echo "   $t FAILED: reproducer in $crashes/ (log $out/$t.log)"
	fi
done
exit $status
