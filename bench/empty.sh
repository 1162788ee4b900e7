#!/bin/sh
# empty.sh: time 'memcgctl empty --batch B' against the kernel's memory.force_empty, side by side.
#
# For each size and page-cache state (read: clean cache faulted in by reads; synced:
# written then fsynced; dirty: written, not synced), fill a scratch cgroup from a child
# process, then empty it, alternating the configurations (force_empty, B = 32, 1024,
# 65536 pages) in a rotating order, ROUNDS rounds. Prints, per state and size, the median
# of the paired ratios time(memcgctl --batch B) / time(force_empty) of the same round,
# and the control-file writes each needed. Both sides run as one memcgctl process
# ('empty --kernel' is one write to memory.force_empty); the time compared is the span
# memcgctl reports (lock taken to limit written back), the same on both sides, and the
# wall clock of the whole process is printed too. A fifth configuration, "raw", is
# bench/empty-rawloop.c at --batch 1024: the bare stepping loop (kept descriptors, one
# limit write and one usage read per step, nothing else), the floor any tool that steps
# the v1 limit pays to the kernel; the last two columns are raw/force_empty and
# memcgctl/raw at 1024, which separate the kernel's per-step cost from memcgctl's own.
# (Not for dirty cache: the bare loop stops at the first EBUSY, before writeback is done.)
# Then measures SIGINT-to-exit during a dirty empty and checks the limit read back is
# the one set before.
#
# Environment: MEMCGCTL, MCG_LOAD (default: ./build), SIZES (MiB, default "1024 2048 4096"),
# ROUNDS (default 3), BATCHES (default "32 1024 65536"), STATES (default "read synced
# dirty"), BENCH_DIR (data files; default /var/tmp), SIGINT_MIB (default: largest size),
# SIGINT_ROUNDS (default 5),
# SIGINT_AFTER_MIB (signal once this much is reclaimed, default 64). Needs root and a cgroup v1 memory controller (force_empty).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
MEMCGCTL=${MEMCGCTL:-$here/build/memcgctl}
MCG_LOAD=${MCG_LOAD:-$here/build/tests/real/mcg-load}
SIZES=${SIZES:-1024 2048 4096}
ROUNDS=${ROUNDS:-3}
BATCHES=${BATCHES:-32 1024 65536}
STATES=${STATES:-read synced dirty}
BENCH_DIR=${BENCH_DIR:-/var/tmp}
SIGINT_ROUNDS=${SIGINT_ROUNDS:-5}
CGROOT=${CGROOT:-/sys/fs/cgroup/memory}

[ "$(id -u)" = 0 ] || { echo "empty.sh: needs root" >&2; exit 77; }
[ -f "$CGROOT/memory.limit_in_bytes" ] || { echo "empty.sh: no cgroup v1 memory controller at $CGROOT (force_empty is v1 only)" >&2; exit 77; }
[ -x "$MEMCGCTL" ] && [ -x "$MCG_LOAD" ] || { echo "empty.sh: build first (MEMCGCTL=$MEMCGCTL MCG_LOAD=$MCG_LOAD)" >&2; exit 1; }
command -v jq >/dev/null || { echo "empty.sh: needs jq" >&2; exit 1; }

name=memcgctl-bench-empty-$$
CG=$CGROOT/$name
DATA=$BENCH_DIR/$name
TMP=$(mktemp -d)
# journals and locks on tmpfs, as /run is in production (this machine's /run is on ext4,
# where the journal's create/rename/unlink cost up to half a millisecond each)
RUNTMP=$(mktemp -d /dev/shm/memcgctl-bench-empty.XXXXXX)
export MEMCGCTL_RUNDIR="$RUNTMP/run"
bgpid=

cleanup() {
	set +e
	[ -n "$bgpid" ] && { kill -KILL "$bgpid" 2>/dev/null; wait "$bgpid" 2>/dev/null; }
	if [ -d "$CG" ]; then
		i=0
		while [ -s "$CG/cgroup.procs" ] && [ $i -lt 100 ]; do
			for p in $(cat "$CG/cgroup.procs"); do kill -KILL "$p" 2>/dev/null; done
			sleep 0.05
			i=$((i + 1))
		done
		echo 0 >"$CG/memory.force_empty" 2>/dev/null
		rmdir "$CG" 2>/dev/null || echo "warning: could not remove $CG" >&2
	fi
	rm -rf "$DATA" "$TMP" "$RUNTMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir "$CG"
mkdir -p "$DATA"
cc -O2 -o "$TMP/rawloop" "$here/bench/empty-rawloop.c"
RAW_PAGES=1024

now_ns() { date +%s%N; }
in_cg() { sh -c 'echo $$ >"$1/cgroup.procs" || exit 99; shift; exec "$@"' sh "$CG" "$@" >/dev/null; }
usage() { cat "$CG/memory.usage_in_bytes"; }

# fill STATE MIB: leave MIB of page cache in STATE charged to the (emptied) cgroup.
fill() {
	case $1 in
	read) in_cg "$MCG_LOAD" read "$DATA/read-$2" ;;
	synced) in_cg "$MCG_LOAD" write "$DATA/synced" "$2" --sync ;;
	dirty) in_cg "$MCG_LOAD" write "$DATA/dirty" "$2" ;;
	esac
}

# run_empty CONFIG: empty the cgroup; prints "RECLAIM_S WRITES USAGE_AFTER WALL_S": the time
# memcgctl reports from taking the lock to the limit written back (the reclaim itself, the
# same span on both sides), and the wall clock from process start to exit.
run_empty() {
	if [ "$1" = raw ]; then
		t0=$(now_ns)
		set -- $("$TMP/rawloop" "$CG" "$RAW_PAGES")
		t1=$(now_ns)
		printf '%s %s %s %s\n' "$1" "$2" "$3" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')"
		return
	fi
	if [ "$1" = kernel ]; then set -- --kernel; else set -- --batch "$1"; fi
	t0=$(now_ns)
	"$MEMCGCTL" empty --json "$@" "/$name" >"$TMP/out.json"
	t1=$(now_ns)
	printf '%s %s %s %s\n' "$(jq -r '.elapsed_ms / 1000' "$TMP/out.json")" \
		"$(jq -r .writes "$TMP/out.json")" "$(jq -r .usage_after "$TMP/out.json")" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", (b - a) / 1e9 }')"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# paired NUM DEN COL: the median over rounds of config NUM's column COL divided by config
# DEN's in the same round (columns of $TMP/res: 3 reclaim span, 7 wall clock)
paired() {
	awk -v n="$1" -v d="$2" -v c="$3" '$2 == d { k[$1] = $c } $2 == n { m[$1] = $c }
		END { for (r in m) if (k[r] > 0) print m[r] / k[r] }' "$TMP/res" | median
}

echo "# memcgctl empty vs memory.force_empty; kernel $(uname -r); $(nproc) CPUs; rounds $ROUNDS"
echo "# ratio = median over rounds of time(memcgctl empty --batch B) / time(force_empty) in the same"
echo "# round; time = what memcgctl reports from taking the lock to the limit written back"
printf '%-7s %6s %8s %10s %8s %10s %8s %10s %8s %10s %10s\n' state MiB force_s "ratio@${BATCHES%% *}" writes \
	"ratio@1024" writes "ratio@$(echo "$BATCHES" | awk '{ print $NF }')" writes raw/force mcg/raw
for mib in $SIZES; do
	# the read state's file exists before the rounds; written once, then evicted
	in_cg "$MCG_LOAD" write "$DATA/read-$mib" "$mib" --sync
	echo 0 >"$CG/memory.force_empty"
	for state in $STATES; do
		if [ "$state" = dirty ]; then configs="kernel $BATCHES"; else configs="kernel raw $BATCHES"; fi
		nconf=$(echo "$configs" | wc -w)
		: >"$TMP/res"
		r=1
		while [ $r -le "$ROUNDS" ]; do
			# rotate the order each round so no configuration always goes first
			k=0
			while [ $k -lt "$nconf" ]; do
				idx=$(((k + r) % nconf + 1))
				c=$(echo "$configs" | awk -v i="$idx" '{ print $i }')
				fill "$state" "$mib"
				before=$(usage)
				set -- $(run_empty "$c")
				echo "$r $c $1 $2 $3 $before $4" >>"$TMP/res"
				echo 0 >"$CG/memory.force_empty" # the residue of one run is not the next one's
				k=$((k + 1))
			done
			r=$((r + 1))
		done
		ktime=$(awk '$2 == "kernel" { print $3 }' "$TMP/res" | median)
		line=$(printf '%-7s %6s %8.3f' "$state" "$mib" "$ktime")
		wline=$(printf '%-7s %6s %8.3f' "$state" "$mib" "$(awk '$2 == "kernel" { print $7 }' "$TMP/res" | median)")
		for b in $BATCHES; do
			ratio=$(paired "$b" kernel 3)
			wratio=$(paired "$b" kernel 7)
			writes=$(awk -v b="$b" '$2 == b { print $4 }' "$TMP/res" | median)
			line="$line $(printf '%10.3f %8.0f' "$ratio" "$writes")"
			wline="$wline $(printf '%10.3f' "$wratio")"
		done
		if awk '$2 == "raw" { f = 1 } END { exit !f }' "$TMP/res"; then
			line="$line $(printf '%10.3f %10.3f' "$(paired raw kernel 3)" "$(paired "$RAW_PAGES" raw 3)")"
		else
			line="$line $(printf '%10s %10s' - -)"
		fi
		echo "$line"
		echo "$wline" >>"$TMP/wall"
		cp "$TMP/res" "$TMP/res-$state-$mib"
	done
	rm -f "$DATA/read-$mib"
done
echo "# the same runs, wall clock from process start to exit (start-up and the final"
echo "# memory.stat read on both sides; noisier on a shared machine):"
printf '# %-7s %6s %8s %10s %10s %10s\n' state MiB force_s "ratio@${BATCHES%% *}" ratio@1024 \
	"ratio@$(echo "$BATCHES" | awk '{ print $NF }')"
sed 's/^/# /' "$TMP/wall"
if [ "${VERBOSE:-0}" = 1 ]; then
	echo "# raw: round config reclaim_s writes usage_after usage_before wall_s"
	for f in "$TMP"/res-*; do echo "## ${f##*/res-}"; cat "$f"; done
fi

# ---- SIGINT during a dirty empty: time to exit, and the limit read back ----
sig_mib=${SIGINT_MIB:-$(echo "$SIZES" | awk '{ print $NF }')}
limit=$((sig_mib * 3 * 1048576))
echo "$limit" >"$CG/memory.limit_in_bytes"
limit=$(cat "$CG/memory.limit_in_bytes")
: >"$TMP/sig"
i=1
while [ "$i" -le "$SIGINT_ROUNDS" ]; do
	fill dirty "$sig_mib"
	full=$(usage)
	"$MEMCGCTL" empty --batch 1024 --json "/$name" >"$TMP/sig.json" 2>/dev/null &
	bgpid=$!
	# interrupt once SIGINT_AFTER MiB are gone, while most of the dirty data is still there
	while [ "$(usage)" -gt $((full - ${SIGINT_AFTER_MIB:-64} * 1048576)) ] && kill -0 "$bgpid" 2>/dev/null; do :; done
	t0=$(now_ns)
	kill -INT "$bgpid" 2>/dev/null || echo "# run $i finished before the signal" >&2
	set +e
	wait "$bgpid"
	st=$?
	set -e
	t1=$(now_ns)
	bgpid=
	got=$(cat "$CG/memory.limit_in_bytes")
	ok=yes
	[ "$got" = "$limit" ] || ok="NO ($got)"
	echo "$(((t1 - t0) / 1000)) $st $(jq -r '.stop + " " + (.reclaimed|tostring)' "$TMP/sig.json" 2>/dev/null || echo '? ?') $ok" >>"$TMP/sig"
	echo 0 >"$CG/memory.force_empty"
	i=$((i + 1))
done
echo "# SIGINT during a dirty ${sig_mib} MiB empty (--batch 1024), $SIGINT_ROUNDS runs:"
echo "#   us_to_exit exit_status stop reclaimed_bytes limit_restored"
sed 's/^/#   /' "$TMP/sig"
printf 'sigint_to_exit_ms median %.1f max %.1f; limit restored in %s/%s runs\n' \
	"$(awk '{ print $1 / 1000 }' "$TMP/sig" | median)" \
	"$(awk '{ print $1 / 1000 }' "$TMP/sig" | sort -g | tail -1)" \
	"$(grep -c ' yes$' "$TMP/sig" || true)" "$SIGINT_ROUNDS"
echo -1 >"$CG/memory.limit_in_bytes"
