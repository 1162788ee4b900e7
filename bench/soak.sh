#!/bin/sh
# bench/soak.sh: do 'memcgctl record' and 'memcgctl export --listen' stay flat in memory over a
# long run at 1,000 cgroups with churn? (issue 28, item 1)
#
# Builds a release build of this tree (BUILD_DIR, default build-soak), creates N (1,000) scratch
# cgroups nested as on a real host (SLICES slices, each with pods of LEAVES leaves), then runs
# for DURATION seconds:
#   - churn (nice -n 10): every CHURN_EVERY s, CHURN leaves removed and as many created under new
#     names; every POD_EVERY-th tick a whole pod replaced; WORK short-lived children of ours,
#     each in a random leaf, charge page cache (a file written under $tmp/data, removed with its
#     leaf) and anonymous memory, hold it about a second and exit (all reaped);
#   - 'memcgctl record' of the scratch subtree into a scratch store, default interval;
#   - 'memcgctl export --listen' of the scratch subtree on a loopback port, every family (the
#     default), scraped with curl every SCRAPE_EVERY s;
# and every SAMPLE_EVERY s prints, for each of the two: RSS (VmRSS), peak RSS (VmHWM), CPU seconds
# (utime + stime), open descriptors, and with HEAP=1 (the default) the heap in use (malloc's
# mallinfo2(): uordblks + hblkhd, all arenas, read every HEAP_EVERY s by a thread of a small
# LD_PRELOAD library built here, bench/soak.sh's only addition to the two programs); the store's
# size; the last scrape's bytes and time; the number of cgroups the scrape named. At the end the
# verdict: RSS and heap growth from minute 5 to the end, per hour (endpoints and a least-squares
# slope), for record and export.
# HEAPTRACK=FILE: a second record of the same subtree (into its own store) under heaptrack,
# its data written to FILE.zst (heaptrack_print -f FILE.zst; its RSS is heaptrack's too, so
# not in the table). KEEP=DIR: the samples, the heap readouts and the scrape log copied there.
# usage: bench/soak.sh [BUILD_DIR]   (root; creates BENCH_PREFIX-soak-PID under the memory root,
# default memcgctl-bench-soak-PID; children, cgroups, store and scratch files are removed on
# every exit). DURATION=3600 N=1000 SKIP_BUILD=1 (use BUILD_DIR as it is). curl, cc needed.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-soak}
bin=$build/memcgctl
DURATION=${DURATION:-3600}
N=${N:-1000}
SLICES=${SLICES:-10}
LEAVES=${LEAVES:-10}
CHURN_EVERY=${CHURN_EVERY:-5}
CHURN=${CHURN:-10}
POD_EVERY=${POD_EVERY:-12}
WORK=${WORK:-2}
WORK_CACHE_MIB=${WORK_CACHE_MIB:-1}
WORK_ANON_MIB=${WORK_ANON_MIB:-4}
SCRAPE_EVERY=${SCRAPE_EVERY:-15}
SAMPLE_EVERY=${SAMPLE_EVERY:-60}
BASELINE_MIN=${BASELINE_MIN:-5}
HEAP=${HEAP:-1}
HEAP_EVERY=${HEAP_EVERY:-5}

for v in DURATION N SLICES LEAVES CHURN_EVERY CHURN POD_EVERY WORK WORK_CACHE_MIB WORK_ANON_MIB \
	SCRAPE_EVERY SAMPLE_EVERY BASELINE_MIN HEAP HEAP_EVERY; do
	eval "val=\$$v"
	# shellcheck disable=SC2154
	case $val in '' | *[!0-9]*) echo "bench/soak: $v=$val: not a whole number" >&2; exit 64 ;; esac
done
[ "$SAMPLE_EVERY" -gt 0 ] && [ "$CHURN_EVERY" -gt 0 ] && [ "$SCRAPE_EVERY" -gt 0 ] && [ "$HEAP_EVERY" -gt 0 ] ||
	{ echo "bench/soak: the intervals must be above 0" >&2; exit 64; }
[ "$N" -ge $((SLICES * (LEAVES + 2))) ] || { echo "bench/soak: N=$N is too small for SLICES=$SLICES" >&2; exit 64; }
command -v curl >/dev/null || { echo "bench/soak: needs curl" >&2; exit 1; }
[ -z "${HEAPTRACK:-}" ] || command -v heaptrack >/dev/null || { echo "bench/soak: HEAPTRACK: needs heaptrack" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench/soak: needs root" >&2; exit 1; }

if [ "${SKIP_BUILD:-0}" != 1 ]; then
	echo "building a release build (RelWithDebInfo, for heaptrack's stacks) in $build"
	cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMCG_SANITIZE=OFF >/dev/null
	nice -n 10 cmake --build "$build" -j2 --target memcgctl memcg_static >/dev/null
fi
[ -x "$bin" ] || { echo "bench/soak: $bin: not built" >&2; exit 1; }

# shellcheck source=lib.sh
. "$src/bench/lib.sh"
rec="" exp="" churn="" scraper="" ht="" htrec=""
bench_cleanup_hook() {
	# the churn first (it reaps its workload children), then the servers (heaptrack's record,
	# then heaptrack, which writes its data out); then lib.sh removes the cgroups and $tmp
	# (store, data files)
	for p in $churn $scraper $rec $exp $htrec; do
		kill -TERM "$p" 2>/dev/null || true
	done
	for p in $churn $scraper $rec $exp $ht; do
		wait "$p" 2>/dev/null || true
	done
	if [ -n "${KEEP:-}" ]; then
		mkdir -p "$KEEP"
		for f in samples scrapes record.heap export.heap record.err export.err heaptrack.out; do
			[ -f "$tmp/$f" ] && cp "$tmp/$f" "$KEEP/"
		done
	fi
	rm -rf "$tmp/data"
}
bench_setup soak
mkdir "$tmp/data" "$tmp/run"
export MEMCGCTL_RUNDIR="$tmp/run"

# the workload: move into the cgroup, write CACHE MiB to a file (page cache), touch ANON MiB of
# anonymous memory, hold both about a second, exit
cat >"$tmp/soak-work.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (argc != 5)
		return 64;
	char pid[32];
	int n = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
	int fd = open(argv[1], O_WRONLY);
	if (fd < 0 || write(fd, pid, (size_t)n) != n)
		return 1;
	close(fd);
	size_t cache = strtoul(argv[3], NULL, 10) << 20, anon = strtoul(argv[4], NULL, 10) << 20;
	static char buf[65536];
	memset(buf, 'c', sizeof buf);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 1;
	for (size_t done = 0; done < cache; done += sizeof buf)
		if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
			return 1;
	close(fd);
	char *a = malloc(anon ? anon : 1);
	if (!a)
		return 1;
	for (size_t i = 0; i < anon; i += 4096)
		a[i] = 1;
	struct timespec ts = { 1, 0 };
	nanosleep(&ts, NULL);
	free(a);
	return 0;
}
EOF
cc -O2 -Wall -o "$tmp/soak-work" "$tmp/soak-work.c"

# the heap meter (HEAP=1): preloaded into record and export, a thread that writes mallinfo2()
# every HEAP_EVERY s to SOAK_HEAP_OUT: time, uordblks (bytes in use in the arenas), hblkhd
# (bytes in mmap()ed chunks), arena (bytes the arenas hold from the system), fordblks (free in
# them). The thread itself does not allocate (so it adds no arena); the constructor takes
# LD_PRELOAD out of the environment, so nothing started by the programs carries it.
cat >"$tmp/heapmeter.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static int out = -1;
static unsigned every = 5;
static void *meter(void *arg)
{
	(void)arg;
	for (;;) {
		struct mallinfo2 m = mallinfo2();
		char line[160];
		int n = snprintf(line, sizeof line, "%lld %zu %zu %zu %zu\n", (long long)time(NULL),
				 m.uordblks, m.hblkhd, m.arena, m.fordblks);
		if (n > 0 && write(out, line, (size_t)n) < 0)
			return NULL;
		sleep(every);
	}
}
__attribute__((constructor)) static void start(void)
{
	const char *path = getenv("SOAK_HEAP_OUT"), *e = getenv("SOAK_HEAP_EVERY");
	unsetenv("LD_PRELOAD");
	if (!path)
		return;
	if (e)
		every = (unsigned)strtoul(e, NULL, 10);
	out = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 65536);
	pthread_t t;
	if (out >= 0)
		pthread_create(&t, &a, meter, NULL);
	pthread_attr_destroy(&a);
}
EOF
preload=""
if [ "$HEAP" = 1 ]; then
	cc -O2 -Wall -shared -fPIC -o "$tmp/heapmeter.so" "$tmp/heapmeter.c" -lpthread
	preload=$tmp/heapmeter.so
fi

# the tree: SLICES slices s*, pods p* of LEAVES leaves each, until N cgroups
seq_no=0
mk_pod() { # SLICE_DIR
	seq_no=$((seq_no + 1))
	mkdir "$1/p$seq_no"
	mp_pod=$1/p$seq_no
	mp_i=0
	while [ $mp_i -lt "$LEAVES" ]; do
		seq_no=$((seq_no + 1))
		mkdir "$mp_pod/c$seq_no"
		mp_i=$((mp_i + 1))
	done
}
i=0
while [ $i -lt "$SLICES" ]; do mkdir "$parent/s$i"; i=$((i + 1)); done
made=$SLICES
i=0
while [ $((made + LEAVES + 1)) -le "$N" ]; do
	mk_pod "$parent/s$((i % SLICES))"
	made=$((made + LEAVES + 1))
	i=$((i + 1))
done
while [ "$made" -lt "$N" ]; do # the rest as leaves of the first pod
	seq_no=$((seq_no + 1))
	mkdir "$(find "$parent/s0" -mindepth 1 -maxdepth 1 -type d | head -n 1)/c$seq_no"
	made=$((made + 1))
done
count_cgroups() { find "$parent" -mindepth 1 -type d | wc -l; }
echo "tree: $(count_cgroups) cgroups under $rel ($SLICES slices, pods of $LEAVES leaves)"

# the churn, in the background at nice 10: its own loop, its children reaped each tick and on
# SIGTERM (the EXIT trap of lib.sh is not its own)
busy() { [ -n "$(cat "$1/cgroup.procs" 2>/dev/null)" ]; }
rm_leaf() { # LEAF_DIR: its page cache file(s) first, then the cgroup
	busy "$1" && return 1
	rm -f "$tmp/data/${1##*/}".*
	rmdir "$1" 2>/dev/null
}
churn_loop() {
	set +e
	trap - EXIT
	trap 'wait; exit 0' TERM
	trap 'wait; exit 0' INT
	seq_no=$1
	tick=0 created=0 removed=0 works=0 failed=0
	while :; do
		wait # the previous tick's workload children
		tick=$((tick + 1))
		# CHURN leaves out, as many in (new names), in random pods
		for leaf in $(find "$parent" -mindepth 3 -maxdepth 3 -type d -name 'c*' | shuf -n "$CHURN"); do
			if rm_leaf "$leaf"; then removed=$((removed + 1)); else failed=$((failed + 1)); continue; fi
			seq_no=$((seq_no + 1))
			pod=$(find "$parent" -mindepth 2 -maxdepth 2 -type d | shuf -n 1)
			mkdir "$pod/c$seq_no" && created=$((created + 1))
		done
		# a whole pod replaced now and then, in another slice
		if [ $((tick % POD_EVERY)) = 0 ]; then
			pod=$(find "$parent" -mindepth 2 -maxdepth 2 -type d | shuf -n 1)
			n_pod=0 ok=1
			for leaf in "$pod"/c*; do
				[ -d "$leaf" ] || continue
				if rm_leaf "$leaf"; then n_pod=$((n_pod + 1)); else ok=0; fi
			done
			if [ $ok = 1 ] && rmdir "$pod"; then
				removed=$((removed + n_pod + 1))
				mk_pod "$parent/s$(shuf -i 0-$((SLICES - 1)) -n 1)"
				created=$((created + LEAVES + 1))
				# keep the count: the pod removed may have had more or fewer leaves
				while [ "$n_pod" -lt "$LEAVES" ]; do
					leaf=$(find "$parent" -mindepth 3 -maxdepth 3 -type d -name 'c*' | shuf -n 1)
					rm_leaf "$leaf" && removed=$((removed + 1))
					n_pod=$((n_pod + 1))
				done
				while [ "$n_pod" -gt "$LEAVES" ]; do
					seq_no=$((seq_no + 1))
					mkdir "$mp_pod/c$seq_no"
					created=$((created + 1))
					n_pod=$((n_pod - 1))
				done
			else
				removed=$((removed + n_pod))
				failed=$((failed + 1))
				# the leaves removed come back under new names
				while [ "$n_pod" -gt 0 ]; do
					seq_no=$((seq_no + 1))
					mkdir "$pod/c$seq_no" && created=$((created + 1))
					n_pod=$((n_pod - 1))
				done
			fi
		fi
		# WORK short-lived children charging page cache and anon memory
		for leaf in $(find "$parent" -mindepth 3 -maxdepth 3 -type d -name 'c*' | shuf -n "$WORK"); do
			works=$((works + 1))
			"$tmp/soak-work" "$leaf/cgroup.procs" "$tmp/data/${leaf##*/}.$works" \
				"$WORK_CACHE_MIB" "$WORK_ANON_MIB" &
		done
		echo "$tick $created $removed $works $failed" >"$tmp/churn.stat.new"
		mv "$tmp/churn.stat.new" "$tmp/churn.stat"
		sleep "$CHURN_EVERY" &
		wait $!
	done
}

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# with_heap NAME PROGRAM ARGS...: PROGRAM with the heap meter writing $tmp/NAME.heap (HEAP=1)
with_heap() {
	wh_name=$1
	shift
	if [ -n "$preload" ]; then
		LD_PRELOAD=$preload SOAK_HEAP_OUT=$tmp/$wh_name.heap SOAK_HEAP_EVERY=$HEAP_EVERY exec "$@"
	else
		exec "$@"
	fi
}
(with_heap record "$bin" record --store="$tmp/store" "$rel") >"$tmp/record.out" 2>"$tmp/record.err" &
rec=$!
(with_heap export "$bin" export --listen="127.0.0.1:$port" "$rel") >"$tmp/export.out" 2>"$tmp/export.err" &
exp=$!
if [ -n "${HEAPTRACK:-}" ]; then
	# heaptrack (a shell script) runs record as its child; that child is the one stopped at
	# the end, and heaptrack then writes its data out and exits
	heaptrack -o "$HEAPTRACK" "$bin" record --store="$tmp/store-heaptrack" "$rel" >"$tmp/heaptrack.out" 2>&1 &
	ht=$!
	i=0
	while [ -z "$htrec" ] && [ $i -lt 100 ]; do
		htrec=$(pgrep -P "$ht" -x memcgctl || true)
		[ -n "$htrec" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -n "$htrec" ] || { echo "bench/soak: heaptrack did not start record:" >&2; cat "$tmp/heaptrack.out" >&2; exit 1; }
fi
t0=$(date +%s)
# wait for the server (at most 30 s)
up=0
while [ $(($(date +%s) - t0)) -lt 30 ]; do
	if curl -s -o /dev/null "http://127.0.0.1:$port/metrics"; then up=1; break; fi
	kill -0 "$exp" 2>/dev/null || break
	sleep 0.2
done
[ $up = 1 ] || { echo "bench/soak: export --listen did not answer on port $port:" >&2; cat "$tmp/export.err" >&2; exit 1; }

churn_loop "$seq_no" &
churn=$!
renice -n 10 -p "$churn" >/dev/null

# the scraper: every SCRAPE_EVERY s, bytes and seconds of one scrape, the body kept for counting
(
	trap - EXIT
	trap 'exit 0' TERM
	while :; do
		if w=$(curl -s -o "$tmp/last.prom.new" -w '%{size_download} %{time_total}' \
			"http://127.0.0.1:$port/metrics"); then
			mv "$tmp/last.prom.new" "$tmp/last.prom"
			echo "$(date +%s) $w" >>"$tmp/scrapes"
		else
			echo "$(date +%s) fail" >>"$tmp/scrapes"
		fi
		sleep "$SCRAPE_EVERY" &
		wait $!
	done
) &
scraper=$!

hz=$(getconf CLK_TCK)
kib() { awk -v k="$2" '$1 == k ":" { print $2 }' "/proc/$1/status"; }
cpu_s() { awk -v hz="$hz" '{ sub(/^.*\) /, ""); printf "%.2f\n", ($12 + $13) / hz }' "/proc/$1/stat"; }
fds() { find "/proc/$1/fd" -mindepth 1 -maxdepth 1 | wc -l; }
heap_kib() { # NAME: the last readout's bytes in use (uordblks + hblkhd), KiB; - without one
	if [ -s "$tmp/$1.heap" ]; then
		tail -n 1 "$tmp/$1.heap" | awk '{ printf "%d\n", ($2 + $3) / 1024 }'
	else
		echo -
	fi
}

printf 'memcgctl soak: %s, %s cgroups, %s s, record and export --listen (every family) of %s,\n' \
	"$(uname -r)" "$N" "$DURATION" "$rel"
printf 'churn every %s s (%s leaves, a pod every %s ticks, %s workload children of %s MiB cache + %s MiB anon), scrape every %s s\n' \
	"$CHURN_EVERY" "$CHURN" "$POD_EVERY" "$WORK" "$WORK_CACHE_MIB" "$WORK_ANON_MIB" "$SCRAPE_EVERY"
printf '%4s | %8s %8s %8s %7s %5s | %8s %8s %8s %7s %6s | %8s | %8s %6s %5s | %5s %5s %5s | %5s\n' \
	min rec_rss rec_hwm rec_heap rec_cpu fds exp_rss exp_hwm exp_heap exp_cpu fds store_K scrape_B ms cg \
	cg_now made gone load
: >"$tmp/samples"
k=0
while :; do
	k=$((k + 1))
	next=$((t0 + k * SAMPLE_EVERY))
	[ $((next - t0)) -le "$DURATION" ] || break
	now=$(date +%s)
	[ "$now" -lt "$next" ] && sleep $((next - now))
	for p in "$rec:record" "$exp:export"; do
		kill -0 "${p%%:*}" 2>/dev/null || {
			echo "bench/soak: ${p#*:} exited early:" >&2
			cat "$tmp/${p#*:}.err" >&2
			exit 1
		}
	done
	kill -0 "$churn" 2>/dev/null || { echo "bench/soak: the churn loop stopped" >&2; exit 1; }
	store=$(du -sk "$tmp/store" | cut -f1)
	last=$(tail -n 1 "$tmp/scrapes" 2>/dev/null || echo "0 0 0")
	sb=$(echo "$last" | awk '{ print $2 }')
	sms=$(echo "$last" | awk '{ printf "%.0f", $3 * 1000 }')
	scg=$(grep -o 'cgroup="[^"]*"' "$tmp/last.prom" 2>/dev/null | sort -u | wc -l)
	set -- $(cat "$tmp/churn.stat" 2>/dev/null || echo "0 0 0 0 0")
	line=$(printf '%4s | %8s %8s %8s %7s %5s | %8s %8s %8s %7s %6s | %8s | %8s %6s %5s | %5s %5s %5s | %5s' \
		$((k * SAMPLE_EVERY / 60)) "$(kib "$rec" VmRSS)" "$(kib "$rec" VmHWM)" "$(heap_kib record)" \
		"$(cpu_s "$rec")" "$(fds "$rec")" \
		"$(kib "$exp" VmRSS)" "$(kib "$exp" VmHWM)" "$(heap_kib export)" "$(cpu_s "$exp")" "$(fds "$exp")" \
		"$store" "$sb" "$sms" "$scg" "$(count_cgroups)" "$2" "$3" "$(cut -d' ' -f1 /proc/loadavg)")
	echo "$line"
	echo "$((k * SAMPLE_EVERY)) $line" >>"$tmp/samples"
done

fails=$(grep -c fail "$tmp/scrapes" || true)
scrapes=$(wc -l <"$tmp/scrapes")
echo "scrapes: $scrapes ($fails failed); churn (tick created removed workloads skipped): $(cat "$tmp/churn.stat")"
echo "record stderr: $(wc -l <"$tmp/record.err") lines; export stderr: $(wc -l <"$tmp/export.err") lines"
for f in record export; do
	[ -s "$tmp/$f.err" ] && head -n 5 "$tmp/$f.err" | sed "s/^/  $f: /"
done
# the verdict: RSS and heap in use (KiB; fields 4, 10 and 6, 12 of a sample line: the time, then
# the printed line) from minute BASELINE_MIN to the end, per hour: the endpoints and a
# least-squares slope (a heap of "-", HEAP=0 or no readout yet, is left out)
awk -v base=$((BASELINE_MIN * 60)) '
	BEGIN { split("4 10 6 12", col); split("record RSS,export RSS,record heap,export heap", name, ",") }
	$1 >= base {
		t = $1
		for (j = 1; j <= 4; j++) {
			v = $(col[j])
			if (v == "-") continue
			if (!n[j]) { a0[j] = t; v0[j] = v }
			n[j]++; a1[j] = t; v1[j] = v
			st[j] += t; stt[j] += t * t; sv[j] += v; stv[j] += t * v
		}
	}
	END {
		if (n[1] < 2) { print "verdict: too short (fewer than two samples after minute " base / 60 ")"; exit }
		printf "verdict, from minute %d to %d (%.2f h):\n", a0[1] / 60, a1[1] / 60, (a1[1] - a0[1]) / 3600
		for (j = 1; j <= 4; j++) {
			if (n[j] < 2) continue
			h = (a1[j] - a0[j]) / 3600
			d = n[j] * stt[j] - st[j] * st[j]
			printf "  %-12s %d -> %d KiB, %+d KiB, %+.0f KiB/h (least squares: %+.0f KiB/h)\n", name[j] ":",
				v0[j], v1[j], v1[j] - v0[j], (v1[j] - v0[j]) / h, (n[j] * stv[j] - st[j] * sv[j]) / d * 3600
		}
	}' "$tmp/samples"
