# bench/lib.sh: what the benchmark scripts share (sourced, POSIX sh). The caller sets src
# (the source tree) and build (the build directory) and calls bench_setup NAME first.
#
# bench_setup NAME: root check; $root, the memory hierarchy's root (v1 memory or v2);
# $tmp, a scratch directory; $parent and $rel, a scratch cgroup memcgctl-bench-NAME-PID
# (created, +memory for its children on v2; BENCH_PREFIX replaces memcgctl-bench, so that
# several runs on one machine stay apart); $tmp/top-raw, the CPU/RSS meter; an EXIT trap
# that runs the caller's bench_cleanup_hook (if defined), then removes every cgroup below
# $parent, $parent and $tmp.

bench_setup() {
	if [ -d /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/memory.stat ]; then
		root=/sys/fs/cgroup/memory
	else
		root=/sys/fs/cgroup
	fi
	[ "$(id -u)" = 0 ] || { echo "bench/$1: needs root" >&2; exit 1; }
	case ${BENCH_PREFIX:-memcgctl-bench} in *[!A-Za-z0-9_-]*) echo "bench: BENCH_PREFIX: letters, digits, - and _ only" >&2; exit 64 ;; esac
	tmp=$(mktemp -d "/tmp/${BENCH_PREFIX:-memcgctl-bench}-$1.XXXXXX")
	rel=/${BENCH_PREFIX:-memcgctl-bench}-$1-$$
	parent=$root$rel
	trap bench_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	mkdir "$parent"
	[ -f "$root/cgroup.subtree_control" ] && echo +memory >"$parent/cgroup.subtree_control"
	# shellcheck disable=SC2046
	cc -O2 -Wall -o "$tmp/top-raw" "$src/bench/top-raw.c" -I"$src/lib/include" \
		"$build/libmemcg.a" $(bench_libs) -lm
}

bench_libs() {
	# libsystemd: headers only (lib/systemd/sd-dl.c loads it with dlopen())
	pkg-config --cflags libsystemd
	pkg-config --cflags --libs libnl-genl-3.0 libzstd
}

bench_cleanup() {
	set +e
	command -v bench_cleanup_hook >/dev/null 2>&1 && bench_cleanup_hook
	if [ -d "$parent" ]; then
		find "$parent" -mindepth 1 -depth -type d -print0 | xargs -0 -r rmdir 2>/dev/null
		rmdir "$parent"
	fi
	rm -rf "$tmp"
}

# bench_fill N: N cgroups $parent/c0 ... c(N-1), each with 64 KiB of page cache charged by a
# short-lived child of ours (its file under $tmp/data)
bench_fill() {
	mkdir -p "$tmp/data"
	bf_i=0
	while [ $bf_i -lt "$1" ]; do
		mkdir "$parent/c$bf_i"
		sh -c 'echo $$ >"$1/cgroup.procs" && head -c 65536 /dev/zero >"$2"' sh "$parent/c$bf_i" \
			"$tmp/data/f$bf_i"
		bf_i=$((bf_i + 1))
	done
}

# median of the numbers on standard input
median() {
	sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}'
}

# CPU (ms, user + system) of a running PID
bench_cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) * 1000 / hz }' "/proc/$1/stat"
}
