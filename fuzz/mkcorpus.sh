#!/bin/sh
# fuzz/mkcorpus.sh: (re)make the seed corpus fuzz/corpus/<target>/ from the test fixtures
# and a few hand-written inputs. Journal and async-reclaim seeds come from the writers
# themselves (fuzz/seedgen.c, built with clang against the library).
#
#   sh fuzz/mkcorpus.sh [BUILDDIR]     (BUILDDIR: where fuzz/build.sh put the objects)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
c=$src/fuzz/corpus
fx=$src/tests/cli/fixtures
cd "$src"

seed() { # seed TARGET NAME: stdin becomes the seed
	mkdir -p "$c/$1"
	cat >"$c/$1/$2"
}
sections() { # sections FILE...: the files joined by NUL bytes ("-" for a missing file)
	first=1
	for f in "$@"; do
		[ $first = 1 ] || printf '\0'
		first=0
		[ "$f" = - ] || cat "$f"
	done
}

# ---- size: command-line sizes and durations ----
i=0
for s in 512M 1.5G max infinity -1 80% 12.5% +64M -64M 4096 512 0 512K 1G 2T 1.5GiB 64kb 100B \
	10s 500ms 2min 1h 0.25 1e3 18446744073709551615 99999999999999999999 "" 3000; do
	i=$((i + 1))
	printf '%s' "$s" | seed size "$(printf '%02d' $i)"
done

# ---- escape: hostile and ordinary cgroup names ----
printf 'web' | seed escape plain
printf 'system.slice' | seed escape dotted
printf 'a b' | seed escape space
printf '$(touch pwned)`id`;x' | seed escape shell
printf '\033]52;c;SGVsbG8=\a' | seed escape osc52
printf '\033]0;title\007\033[2J' | seed escape osc0-clear
printf 'caf\303\251 \346\227\245\346\234\254' | seed escape utf8
printf '\360\237\230\200' | seed escape utf8-4
printf '\302\233' | seed escape c1-csi
printf '\377\376\300\200\355\240\200\364\220\200\200' | seed escape invalid-utf8
printf 'a\\b\\\\' | seed escape backslash
printf 'a\nb\tc\rd\177' | seed escape controls
printf '.hidden' | seed escape leading-dot
head -c 255 /dev/zero | tr '\0' 'x' | seed escape name-255

# ---- stat: keyed files ----
for f in tests/unit/data/*.memory.stat; do
	seed stat "$(basename "$f")" <"$f"
done
seed stat v1.oom_control <"$fx/v1/cgroup/fixture/memory.oom_control"
seed stat v2.memory.events <"$fx/v2-guest/cgroup/fixture/app/memory.events"
seed stat v1.proc.cgroups <"$fx/v1/proc/cgroups"
seed stat v2.proc.cgroups <"$fx/v2/proc/cgroups"
head -n 40 "$fx/v1/proc/vmstat" | seed stat vmstat

# ---- psi ----
seed psi v2.memory.pressure <"$fx/v2-guest/cgroup/fixture/app/memory.pressure"
seed psi proc.pressure <"$fx/v1/proc/pressure/memory"
printf 'some avg10=1.50 avg60=0.25 avg300=0.01 total=123456\n' | seed psi some-only
printf 'full avg10=99.99 avg60=100.00 avg300=0.00 total=18446744073709551615\n' | seed psi full-only

# ---- oomlog: /dev/kmsg records of OOM reports (captured here, 6.18 v1; 6.1's v2 format) ----
seed oomlog v1-6.18 <tests/unit/data/oom-v1-6.18.kmsg
seed oomlog v2-6.1 <tests/unit/data/oom-v2-6.1.kmsg
seed oomlog v2-6.1-guest <tests/unit/data/oom-v2-6.1-guest.kmsg
printf '%s\n' '6,10,100,c;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/' \
	'6,11,101,+;,mems_allowed=0,oom_memcg=/a,task_memcg=/a,task=t,pid=3,uid=0' \
	'3,12,102,-;Memory cgroup out of memory: Killed process 3 (t) total-vm:1kB, anon-rss:1kB, file-rss:0kB, shmem-rss:0kB' |
	seed oomlog continued
printf '%s\n' '3,5,9,-;Out of memory: Killed process 77 (big) total-vm:100kB, anon-rss:50kB, file-rss:1kB, shmem-rss:0kB, UID:0 pgtables:1kB oom_score_adj:0' \
	'v1 seq=3 bd=kernel age_us=0 oom=%2fa victim=%2fa%2fb unit=- anon_rss=1 file_rss=2 shmem_rss=0 total_vm=4 pgtables=1 adj=-5 limit_name=memory.max limit=4096 usage=4096 r.anon=1 why=x%20y' |
	seed oomlog global-and-event

# ---- zoneinfo ----
seed zoneinfo v1 <"$fx/v1/proc/zoneinfo"
seed zoneinfo v2 <"$fx/v2/proc/zoneinfo"

# ---- proc: meminfo, vmstat, zoneinfo, cgroups, sys/vm, a memory.stat ----
for t in v1 v2; do
	d=$fx/$t/proc
	cat "$d/sys/vm/dirty_ratio" "$d/sys/vm/dirty_background_ratio" "$d/sys/vm/dirty_bytes" \
		"$d/sys/vm/dirty_background_bytes" "$d/sys/vm/dirty_expire_centisecs" \
		"$d/sys/vm/dirty_writeback_centisecs" >/tmp/mcg-sysvm.$$
	sections "$d/meminfo" "$d/vmstat" "$d/zoneinfo" "$d/cgroups" /tmp/mcg-sysvm.$$ \
		"$fx/$t/cgroup/fixture/app/memory.stat" | seed proc "$t"
	rm -f /tmp/mcg-sysvm.$$
done

# ---- cgroup: stat, events|oom_control, pressure, usage, limit, high|failcnt, procs,
#      meminfo, vmstat, /proc/pressure/memory ----
a=$fx/v2-guest/cgroup/fixture/app
p=$fx/v2-guest/proc
sections "$a/memory.stat" "$a/memory.events" "$a/memory.pressure" "$a/memory.current" \
	"$a/memory.max" "$a/memory.high" "$a/cgroup.procs" "$p/meminfo" "$p/vmstat" \
	"$p/pressure/memory" | seed cgroup v2-guest
a=$fx/v1/cgroup/fixture/app
p=$fx/v1/proc
sections "$a/memory.stat" "$a/memory.oom_control" - "$a/memory.usage_in_bytes" \
	"$a/memory.limit_in_bytes" "$a/memory.failcnt" "$a/cgroup.procs" "$p/meminfo" "$p/vmstat" \
	"$p/pressure/memory" | seed cgroup v1

# ---- containers: the containers fixture's state files and cgroup paths ----
cs=$fx/containers/state
dj=$(ls "$cs"/var/lib/docker/containers/*/config.v2.json | head -1)
pj=$cs/var/lib/containers/storage/overlay-containers/containers.json
cj=$(ls "$cs"/run/containerd/io.containerd.runtime.v2.task/k8s.io/*/config.json | head -1)
rj=$(ls "$cs"/var/lib/containers/storage/overlay-containers/*/userdata/config.json | tail -1)
i=0
for d in "$fx/containers/cgroup"/*/ "$fx/containers/cgroup"/*/*/ "$fx/containers/cgroup"/*/*/*/ \
	"$fx/containers/cgroup"/*/*/*/*/; do
	p=${d#"$fx/containers/cgroup"}
	p=${p%/}
	i=$((i + 1))
	{ sections "$dj" "$pj" "$cj" "$rj"; printf '\0%s' "$p"; } | seed containers "fixture-$i"
done
printf '{"Name":"/a\\u001b]52;c;eA==\\u0007"}\0[{"id":"x","names":[]}]\0{"linux":{"cgroupsPath":"-.slice:a:b"}}\0\0/x' |
	seed containers escapes

# ---- journal: the unit test's good journal; more below from the writer ----
printf 'memcgctl-journal 2\nop set-limit\npid 42\nversion 1\nboot 1111-aaaa\ndev 5\nino 77\nroot /sys/fs/cgroup/memory\npath /a%%20b/c\nknob memory.limit_in_bytes 536870912 00000000000536870912 00000000000268435456\nknob memory.memsw.limit_in_bytes 9223372036854771712 18446744073709551615 18446744073709551615\n' |
	seed journal unit-test-good

# ---- journal, async_conf: written by the library's own writers ----
if [ $# -ge 1 ] && [ -x "$1/seedgen" ]; then
	ASAN_OPTIONS=detect_leaks=0 "$1/seedgen" "$c"
fi
