#!/bin/sh
# mk-fixture.sh: capture a fixture tree for the cli tier from real scratch cgroups.
# usage: mk-fixture.sh MCG_LOAD CGROOT VERSION OUTDIR DATADIR
# Makes <prefix>/{app (limit 512M, 24M dirty + 16M clean cache + 8M anon), idle (empty)},
# copies every file of each cgroup (write-only files as empty files) and the /proc files
# the commands read into OUTDIR/cgroup/... and OUTDIR/proc/..., then removes what it made.
set -eu
load=$1 root=$2 ver=$3 out=$4 data=$5
prefix=mcgfix-$$
top="$root/$prefix"
pids=""
cleanup() {
	for p in $pids; do kill -KILL "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
	for d in "$top/app" "$top/idle" "$top"; do [ -d "$d" ] && rmdir "$d" 2>/dev/null || true; done
	rm -rf "$data/$prefix"
}
trap cleanup EXIT
mkdir -p "$data/$prefix"
mkdir "$top"
[ "$ver" = 2 ] && echo +memory >"$top/cgroup.subtree_control"
mkdir "$top/app" "$top/idle"
if [ "$ver" = 2 ]; then
	echo $((1024 * 1024 * 1024)) >"$top/memory.max"
	echo $((512 * 1024 * 1024)) >"$top/app/memory.max"
	echo $((384 * 1024 * 1024)) >"$top/app/memory.high"
else
	echo $((1024 * 1024 * 1024)) >"$top/memory.limit_in_bytes"
	echo $((512 * 1024 * 1024)) >"$top/app/memory.limit_in_bytes"
fi
start() {
	sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$@" >"$data/$prefix/out.$#" 2>&1 &
	pids="$pids $!"
}
sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$top/app" "$load" write "$data/$prefix/clean" 16 --sync >/dev/null
start "$top/app" "$load" write "$data/$prefix/dirty" 24 --hold
start "$top/app" "$load" anon 8 --hold
sleep 1
rm -rf "$out"
mkdir -p "$out/cgroup" "$out/proc/sys/vm"
copy_dir() { # SRC DST
	mkdir -p "$2"
	for f in "$1"/*; do
		[ -f "$f" ] || continue
		name=${f##*/}
		cat "$f" >"$2/$name" 2>/dev/null || : >"$2/$name"
	done
}
# the root's own files, but not other software's cgroups
copy_dir "$root" "$out/cgroup"
copy_dir "$top" "$out/cgroup/$prefix"
copy_dir "$top/app" "$out/cgroup/$prefix/app"
copy_dir "$top/idle" "$out/cgroup/$prefix/idle"
# process ids are not stable: keep the count, not the numbers
for d in "$out/cgroup/$prefix/app"; do
	n=$(wc -l <"$d/cgroup.procs"); : >"$d/cgroup.procs"; i=0
	while [ $i -lt "$n" ]; do echo $((1000 + i)) >>"$d/cgroup.procs"; i=$((i + 1)); done
	[ -f "$d/tasks" ] && cp "$d/cgroup.procs" "$d/tasks"
done
: >"$out/cgroup/cgroup.procs"
[ -f "$out/cgroup/tasks" ] && : >"$out/cgroup/tasks"
mv "$out/cgroup/$prefix" "$out/cgroup/fixture"
for f in meminfo vmstat; do cat "/proc/$f" >"$out/proc/$f"; done
[ -r /proc/pressure/memory ] && { mkdir -p "$out/proc/pressure"; cat /proc/pressure/memory >"$out/proc/pressure/memory"; }
for f in /proc/sys/vm/dirty_*; do cat "$f" >"$out/proc/sys/vm/${f##*/}"; done
echo "captured $out"
