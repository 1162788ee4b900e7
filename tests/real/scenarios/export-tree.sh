#!/bin/sh
# tiers: v1 v2
# export on this kernel's real tree (the host's v1 hierarchy, the v2 guest's): promtool check
# metrics is clean on the whole tree (in the guest promtool comes from run-guest.sh
# --extra /usr/bin/promtool; without it the exposition is kept in the artifacts and the
# check skipped); every limit knob set on a scratch cgroup reads back as the kernel's value,
# one-shot and from --listen (v2: max, high, low, min, swap.max, oom.group; v1: limit, soft
# limit, swappiness); an unlimited knob has no sample; the global dirty thresholds are
# /proc/vmstat's nr_dirty_threshold and nr_dirty_background_threshold (in the guest with
# vm.dirty_bytes set: exactly; on the shared host: within 2% of reads around it);
# exactly one dirty state is 1 for the system and for each cgroup (v2: a cgroup with its own
# writeback domain in memcgctl dirty's state); --listen serves the
# taskstats stall only while kernel.task_delayacct is 1 (switched in the guest), as a counter.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/export/lib-export.sh"
require_cgroups
PS=$(getconf PAGESIZE 2>/dev/null || echo 4096)
promtool=$(command -v promtool || echo "${MCG_EXTRA_DIR:-/nonexistent}/promtool")
[ -x "$promtool" ] || promtool=
# fetch URL: the body (curl on the host, busybox wget in the guest)
fetch() { curl -fsS "$1" 2>/dev/null || wget -qO- "$1" 2>/dev/null; }
# port: the kernel's pick on the host; a fixed one in the guest (nothing else listens there,
# and its loopback starts down: the guest has no network otherwise)
port=$(free_port 2>/dev/null || echo $((20000 + $$ % 10000)))
if [ "$MCG_TIER" = real-v2 ]; then
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null || true
fi

scratch_new tree
[ "$MCG_CGVER" = 2 ] && echo +memory >"$CG/cgroup.subtree_control"
mkdir "$CG/unlimited"
if [ "$MCG_CGVER" = 2 ]; then
	echo $((64 * MIB)) >"$CG/memory.max"
	echo $((48 * MIB)) >"$CG/memory.high"
	echo $((8 * MIB)) >"$CG/memory.low"
	echo $((4 * MIB)) >"$CG/memory.min"
	[ -f "$CG/memory.swap.max" ] && echo $((16 * MIB)) >"$CG/memory.swap.max"
	echo 1 >"$CG/memory.oom.group"
	checks="memcgctl_limit_bytes:memory.max memcgctl_high_bytes:memory.high memcgctl_low_bytes:memory.low"
	checks="$checks memcgctl_min_bytes:memory.min memcgctl_oom_group:memory.oom.group"
	[ -f "$CG/memory.swap.max" ] && checks="$checks memcgctl_swap_limit_bytes:memory.swap.max"
	unl="memcgctl_limit_bytes memcgctl_high_bytes"
else
	echo $((64 * MIB)) >"$CG/memory.limit_in_bytes"
	echo $((32 * MIB)) >"$CG/memory.soft_limit_in_bytes"
	echo 20 >"$CG/memory.swappiness"
	checks="memcgctl_limit_bytes:memory.limit_in_bytes memcgctl_soft_limit_bytes:memory.soft_limit_in_bytes"
	checks="$checks memcgctl_swappiness:memory.swappiness"
	unl="memcgctl_limit_bytes memcgctl_soft_limit_bytes"
fi
# a child with page cache (on v2 the scratch cgroup, with a memory child, takes no process)
run_in "$CG/unlimited" dd if=/dev/zero of="$MCG_DATA/f" bs=1M count=4 conv=fsync 2>/dev/null

vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
# The thresholds follow free memory, which memcgctl's own allocations move. In the guest
# (a machine of its own) vm.dirty_bytes fixes them: the kernel's values are exact. On the
# shared host the sysctls stay as they are and the value must be within 2% of the reads.
if [ "$MCG_TIER" = real-v2 ]; then
	ratio=$(cat /proc/sys/vm/dirty_ratio) bg_ratio=$(cat /proc/sys/vm/dirty_background_ratio)
	echo $((64 * MIB)) >/proc/sys/vm/dirty_bytes
	echo $((32 * MIB)) >/proc/sys/vm/dirty_background_bytes
fi
t0=$(vm nr_dirty_threshold) b0=$(vm nr_dirty_background_threshold)
"$MEMCGCTL" export >"$MCG_TMP/all.prom" 2>"$MCG_TMP/all.err" || fail "export failed: $(cat "$MCG_TMP/all.err")"
t1=$(vm nr_dirty_threshold) b1=$(vm nr_dirty_background_threshold)
[ -n "${MCG_ARTIFACTS:-}" ] && cp "$MCG_TMP/all.prom" "$MCG_ARTIFACTS/export-v$MCG_CGVER.prom"
! grep -q 'Sanitizer\|runtime error' "$MCG_TMP/all.err" || fail "$(cat "$MCG_TMP/all.err")"
say "the v$MCG_CGVER tree: $(grep -c '^memcgctl_usage_bytes{' "$MCG_TMP/all.prom") cgroups, $(wc -c <"$MCG_TMP/all.prom") bytes"

# promtool_check NAME: promtool check metrics is clean on $MCG_TMP/NAME.prom (when here)
promtool_check() {
	if [ -z "$promtool" ]; then
		[ "${CI:-}" = true ] && [ "$MCG_TIER" != real-v2 ] && fail "promtool (Debian package prometheus) is missing"
		return 0
	fi
	"$promtool" check metrics <"$MCG_TMP/$1.prom" >"$MCG_TMP/promtool.out" 2>&1 ||
		fail "$1: promtool check metrics: $(head -c 600 "$MCG_TMP/promtool.out")"
	[ ! -s "$MCG_TMP/promtool.out" ] || fail "$1: promtool says: $(head -c 600 "$MCG_TMP/promtool.out")"
	ok "promtool check metrics clean on the v$MCG_CGVER tree ($1: $(wc -l <"$MCG_TMP/$1.prom") lines)"
}
promtool_check all

# val FILE METRIC CGROUP: the sample's value, or "absent"
val() {
	M="$2{cgroup=\"$3\"}" awk '$1 == ENVIRON["M"] { print $2; f = 1 }
		END { if (!f) print "absent" }' "$1"
}
check_values() { # FILE WHAT
	for c in $checks; do
		assert_eq "$2: ${c%%:*}" "$(knob "$CG" "${c#*:}")" "$(val "$1" "${c%%:*}" "$CGREL")"
	done
	for m in $unl; do
		assert_eq "$2: unlimited child's $m" absent "$(val "$1" "$m" "$CGREL/unlimited")"
	done
}
check_values "$MCG_TMP/all.prom" "one-shot"

# the dirty thresholds and states
thr=$(awk '$1 == "memcgctl_dirty_threshold_bytes" { print $2 }' "$MCG_TMP/all.prom")
bg=$(awk '$1 == "memcgctl_dirty_background_threshold_bytes" { print $2 }' "$MCG_TMP/all.prom")
in_range() { # WHAT VALUE A B: VALUE within 2% of A*PS..B*PS
	awk -v v="$2" -v a="$(($3 * PS))" -v b="$(($4 * PS))" \
		'BEGIN { lo = a < b ? a : b; hi = a < b ? b : a; exit !(v >= lo * 0.98 && v <= hi * 1.02) }' ||
		fail "$1 $2 outside the kernel's [$(($3 * PS)), $(($4 * PS))] +-2%"
	ok "$1 $2 within 2% of the kernel's [$(($3 * PS)), $(($4 * PS))]"
}
if [ "$MCG_TIER" = real-v2 ]; then
	assert_eq "the kernel's threshold (dirty_bytes)" $((64 * MIB)) $((t0 * PS))
	assert_eq "dirty threshold" $((64 * MIB)) "$thr"
	assert_eq "background threshold" $((32 * MIB)) "$bg"
	# writing a ratio sets its _bytes back to 0
	echo "$ratio" >/proc/sys/vm/dirty_ratio
	echo "$bg_ratio" >/proc/sys/vm/dirty_background_ratio
else
	in_range "dirty threshold" "$thr" "$t0" "$t1"
	in_range "background threshold" "$bg" "$b0" "$b1"
fi
assert_eq "global dirty states that are 1" 1 "$(grep -c '^memcgctl_dirty_global_state{state="[a-z-]*"} 1$' "$MCG_TMP/all.prom")"
for c in "$CGREL" "$CGREL/unlimited"; do
	assert_eq "$c: dirty states that are 1" 1 \
		"$(grep -c "^memcgctl_dirty_state{cgroup=\"$c\",state=\"[a-z-]*\"} 1\$" "$MCG_TMP/all.prom")"
done

# v2: a cgroup with a writeback domain of its own (memory.max 32 MiB, 16 MiB written, not
# synced): export's state (the domain from its rows' limits) is `memcgctl dirty`'s (from its
# own sampler up to the root), taken when dirty's reads before and after agree
if [ "$MCG_CGVER" = 2 ]; then
	mkdir "$CG/writer"
	echo $((32 * MIB)) >"$CG/writer/memory.max"
	run_in "$CG/writer" dd if=/dev/zero of="$MCG_DATA/w" bs=1M count=16 2>/dev/null
	dstate() { "$MEMCGCTL" dirty --json "$CGREL/writer" | jq -r '.cgroups[0].state'; }
	n=0
	while :; do
		a=$(dstate)
		"$MEMCGCTL" export --families dirty "$CGREL" >"$MCG_TMP/d.prom"
		b=$(dstate)
		[ "$a" = "$b" ] && break
		n=$((n + 1))
		[ $n -lt 10 ] || fail "memcgctl dirty's state keeps changing: $a, $b"
	done
	got=$(sed -n "s|^memcgctl_dirty_state{cgroup=\"$CGREL/writer\",state=\"\([a-z-]*\)\"} 1\$|\1|p" "$MCG_TMP/d.prom")
	assert_eq "v2 writeback domain: export's state is memcgctl dirty's" "$a" "$got"
	rm -f "$MCG_DATA/w"
fi

# --listen: the same values from the sampler
"$MEMCGCTL" export --listen "127.0.0.1:$port" "$CGREL" >"$MCG_TMP/listen.log" 2>&1 &
srv=$!
echo "$srv" >>"$MCG_CLEAN_PIDS"
i=0
until fetch "http://127.0.0.1:$port/metrics" >"$MCG_TMP/listen.prom"; do
	if ! kill -0 "$srv" 2>/dev/null; then
		# libmicrohttpd is dlopen()ed: the guest has it only from run-guest.sh
		# --extra /usr/lib/x86_64-linux-gnu/libmicrohttpd.so.12
		if [ "$MCG_TIER" = real-v2 ] && grep -q 'cannot load libmicrohttpd' "$MCG_TMP/listen.log"; then
			skip "libmicrohttpd is not in the guest (run-guest.sh --extra .../libmicrohttpd.so.12); one-shot checks passed"
		fi
		fail "export --listen exited: $(cat "$MCG_TMP/listen.log")"
	fi
	i=$((i + 1))
	[ $i -gt 300 ] && fail "no answer on port $port after 30 s: $(cat "$MCG_TMP/listen.log"; ip addr 2>&1 | head -5)"
	sleep 0.1
done
[ -n "${MCG_ARTIFACTS:-}" ] && cp "$MCG_TMP/listen.prom" "$MCG_ARTIFACTS/listen-v$MCG_CGVER.prom"
check_values "$MCG_TMP/listen.prom" "--listen"
# the taskstats stall: only while delay accounting is on. The guest switches it on and off
# (a machine of its own); the host's setting is left as it is.
stall() { # FILE: the scratch cgroup's stall sample, or "absent"
	val "$1" memcgctl_stall_seconds_total "$CGREL"
}
if [ "$(cat /proc/sys/kernel/task_delayacct 2>/dev/null || echo x)" = 0 ]; then
	assert_eq "delay accounting off: stall" absent "$(stall "$MCG_TMP/listen.prom")"
fi
if [ "$MCG_TIER" = real-v2 ] && [ -w /proc/sys/kernel/task_delayacct ]; then
	SPAWN_NOWAIT=1 spawn_in "$CG/unlimited" sleep 300
	sleeper=$SPAWN_PID
	echo 1 >/proc/sys/kernel/task_delayacct
	# the first scrape sees the setting, the next ones collect
	for i in 1 2 3; do fetch "http://127.0.0.1:$port/metrics" >"$MCG_TMP/st$i.prom"; done
	s2=$(stall "$MCG_TMP/st2.prom") s3=$(stall "$MCG_TMP/st3.prom")
	[ "$s2" != absent ] && [ "$s3" != absent ] || fail "delay accounting on: no stall sample ($s2, $s3)"
	awk -v a="$s2" -v b="$s3" 'BEGIN { exit !(a >= 0 && b >= a) }' || fail "stall went back: $s2 then $s3"
	grep -q '^# TYPE memcgctl_stall_seconds_total counter$' "$MCG_TMP/st3.prom" || fail "stall is not a counter"
	ok "delay accounting on: stall $s2 then $s3 s"
	echo 0 >/proc/sys/kernel/task_delayacct
	for i in 4 5; do fetch "http://127.0.0.1:$port/metrics" >"$MCG_TMP/st$i.prom"; done
	assert_eq "delay accounting off again: stall" absent "$(stall "$MCG_TMP/st5.prom")"
	stop_pid "$sleeper"
fi
kill -TERM "$srv"
st=0
wait "$srv" || st=$?
assert_eq "--listen after SIGTERM: exit" 0 "$st"
! grep -q 'Sanitizer\|runtime error' "$MCG_TMP/listen.log" || fail "$(cat "$MCG_TMP/listen.log")"

promtool_check listen
[ -n "$promtool" ] || skip "promtool is not here (the v2 guest: run-guest.sh --extra /usr/bin/promtool); values checked, expositions in the artifacts"
rm -f "$MCG_DATA/f"
