#!/bin/bash
# check-json-keys.sh: every key path memcgctl's --json prints is in memcgctl-json(7)'s
# KEYS section, and every path the section names is printed, per command.
# Runs each command with JSON output on copies of the cli fixtures (all columns where a
# command has -o), takes every path of the output (jq paths; an array's elements as [],
# a list row's children folded into the row), and compares them with the page's
# lists, both ways. The page's format: under ".SS NAME", between .nf and .fi, lines
# "PREFIX: KEY..." (PREFIX.KEY each; no PREFIX: top level); * in a KEY is any characters
# of one key. A failure names the section and the path.
# MCG_SHOW_KEYS=1 prints the paths seen per section instead of checking.
# usage: check-json-keys.sh MEMCGCTL SRCDIR
set -u
bin=$1 src=$2
page=$src/man/memcgctl-json.7
command -v jq >/dev/null || { echo "SKIP: no jq"; exit 77; }
tmp=$(mktemp -d)
rec=
trap '[ -n "$rec" ] && kill "$rec" 2>/dev/null; rm -rf "$tmp"' EXIT
cp -a "$src/tests/cli/fixtures" "$tmp/fix"
F=$tmp/fix
export LC_ALL=C MEMCGCTL_RUNDIR=$tmp/run
mkdir -p "$tmp/seen"
fail=0

# Keys no fixture run can print, by section, with the reason; the check fails if one of
# them is printed after all (then it belongs to the page alone) or is not on the page.
declare -A exempt=()
while IFS='|' read -r sec why keys; do
	[ -n "$sec" ] || continue
	read -ra ks <<<"$keys" # (no glob: .cgroups[] is a key, not a pattern)
	for k in "${ks[@]}"; do exempt[$sec:$k]=$why; done
done <<'EOF'
show|systemd: the fixtures have no unit|.unit
list|systemd|.cgroups[].unit
show|zswap (5.19 on): the fixtures were captured without it|.zswap_bytes .zswap_limit_bytes .zswap_writeback
show|the last size answer, kept by a probe: real-v1/size-watch|.size.needed_bytes .size.cold_bytes .size.cold_file_bytes .size.cold_anon_bytes .size.found_ns .size.age_ns .size.stop .size.signal .size.method
top|counters that move, delay accounting: real-v1/top-*|.cgroups[].efficiency_percent .cgroups[].stall_ns_per_s .global.delayacct
top|a kept size answer: real-v1/size-field|.cgroups[].needed_bytes
top|cgroups not read for want of descriptors: tests/unit/test_samplemem.c|.incomplete
dump|a kept size answer the recorder found: real-v1/size-field|.events[].needed_bytes .events[].cold_bytes .events[].cold_file_bytes .events[].cold_anon_bytes .events[].stop .events[].method
dump --events|a kept size answer the recorder found: real-v1/size-field|.needed_bytes .cold_bytes .cold_file_bytes .cold_anon_bytes .stop .method
dirty --watch|writeback under way between two samples: real-v1/dirty-*|.writeback_for_ns
dump|a dirty verdict that changes, a login session, a container's recorded name (cli/dump)|.events[].level .events[].loginuid .events[].name .cgroups[].name
dump --events|a dirty verdict that changes, a login session, a recorded name (cli/dump)|.level .loginuid .name
dump|an early warning: real-v1/oom-warning-store|.events[].unit .events[].usage_bytes .events[].limit_bytes .events[].limit_name .events[].reclaimable_bytes .events[].signal .events[].signal_rise .events[].interval_us .events[].psi_full_us .events[].explanation
dump --events|an early warning: real-v1/oom-warning-store|.unit .usage_bytes .limit_bytes .limit_name .reclaimable_bytes .signal .signal_rise .interval_us .psi_full_us .explanation
set-limit|systemd|.systemd.unit .systemd.runtime .systemd.done .systemd.properties[].name .systemd.properties[].value_bytes
set-limit|another writer between two steps: real-v1/*-conflict|.knob .found_bytes .expected_bytes
empty|another writer|.knob .found_bytes .expected_bytes .overwritten .writer_pid
size|another writer|.knob .found_bytes .expected_bytes
size|the answer of a probe that ran (not --dry-run): real-v1/size-*|.stop .needed_bytes .band_low_bytes .band_high_bytes .band_adjustments .floor_is_answer .cold_bytes .cold_file_bytes .cold_anon_bytes .advice.set_limit .advice.systemctl .advice.kubernetes_requests_memory
async-reclaim enable|a running reclaimd: real-v1/async-*|.reclaimd_pid
async-reclaim status|a running reclaimd|.reclaimd.pid .reclaimd.started .reclaimd.cpu_ns .reclaimd.wakeups
async-reclaim status|a running reclaimd|.cgroups[].reclaimed_bytes .cgroups[].wakeups .cgroups[].steps .cgroups[].short_steps .cgroups[].cpu_ns .cgroups[].deferred .cgroups[].refaulted_bytes .cgroups[].refault_percent .cgroups[].thrash_episodes .cgroups[].clean_skips .cgroups[].conflicts .cgroups[].last_error .cgroups[].last_error_time .cgroups[].updated .cgroups[].usage_bytes .cgroups[].thrashing .cgroups[].event_source .cgroups[].watermarks_reason
recover|a journal left by a killed run: real-v1/crash-*|.journals[].knob .journals[].found_bytes .journals[].expected_bytes
EOF
# oom: a kill needs a kernel that kills (real-v1/oom-* read oom --json); the fixtures'
# store has none, so every per-kill key of the page is exempt
oom_exempt=1

# run SECTION ARGS...: memcgctl's JSON into the section's paths
run() {
	local sec=$1 out rc
	shift
	out=$tmp/out
	"$bin" "$@" >"$out" 2>"$tmp/err" </dev/null
	rc=$?
	# 0, or a result that is not a failure of the run (2: empty's timeout; OK_RC)
	if [ $rc -ne 0 ] && [ $rc -ne 2 ] && [ "$rc" != "${OK_RC:-0}" ]; then
		echo "FAIL: memcgctl $* exited $rc: $(head -c 300 "$tmp/err")"
		fail=1
		return
	fi
	if ! [ -s "$out" ]; then
		echo "FAIL: memcgctl $* printed no JSON"
		fail=1
		return
	fi
	if ! jq -r '[paths(type != "array" and type != "object"), paths(arrays | select(length == 0)),
		    paths(objects | select(length == 0))] | .[] |
		    map(if type == "number" then "[]" else "." + . end) | join("")' \
		"$out" >"$tmp/paths" 2>"$tmp/jqerr"; then
		echo "FAIL: memcgctl $* printed what is not JSON: $(head -c 200 "$tmp/jqerr")"
		fail=1
		return
	fi
	# a row's children are rows: .cgroups[].children[].X counts as .cgroups[].X
	awk '{ i = index($0, ".children[]")
	       if (i) { print substr($0, 1, i + 10); gsub(/\.children\[\]/, "") }
	       print }' "$tmp/paths" >>"$tmp/seen/$sec"
}

# the columns -o takes, all of them
cols() { "$bin" "$@" --list-columns | awk '{ print $1 }' | paste -sd, -; }

v1=(--root "$F/v1/cgroup" --proc "$F/v1/proc")
v2=(--root "$F/v2/cgroup" --proc "$F/v2/proc")
v2g=(--root "$F/v2-guest/cgroup" --proc "$F/v2-guest/proc")
ct=(--root "$F/containers/cgroup" --cgroup-version 2 --proc "$F/v2/proc")
[ -d "$F/v2-guest/proc" ] || v2g=(--root "$F/v2-guest/cgroup" --proc "$F/v2/proc")

# ---- list, show ----
for t in v1 v2 v2g; do
	declare -n a=$t
	run list "${a[@]}" --json list -o "$(cols "${a[@]}" list)"
	run list "${a[@]}" --json list --flat -o "$(cols "${a[@]}" list)"
	run show "${a[@]}" --json show /
	run show "${a[@]}" --json show /fixture
	run show "${a[@]}" --json show /fixture/app
done
lc=$(cols "${ct[@]}" list)
# (the containers' names need MEMCGCTL_STATE_ROOT and crictl on PATH)
export MEMCGCTL_STATE_ROOT=$F/containers/state
PATH=$F/containers/bin:$PATH run list "${ct[@]}" --json list -o "$lc"
PATH=$F/containers/bin:$PATH run top "${ct[@]}" --json top -b -n 1 -o "$(cols "${ct[@]}" top)"
PATH=$F/containers/bin:$PATH run show "${ct[@]}" --json show \
	containerd:k8s.io/14c2529eb4498c5d1ffd6915d05bf58a91bdda796af59f41d480d11c099d0479
unset MEMCGCTL_STATE_ROOT

# ---- top, dirty ----
for t in v1 v2; do
	declare -n a=$t
	# top's async column: an enable in the run directory's state
	"$bin" "${a[@]}" async-reclaim enable /fixture/app --no-start >/dev/null 2>&1
	run top "${a[@]}" --json top -b -n 2 -d 50ms -o "$(cols "${a[@]}" top)"
	run top "${a[@]}" --json top -b -n 2 -d 50ms
	run dirty "${a[@]}" --json dirty -o "$(cols "${a[@]}" dirty)"
	run "dirty --watch" "${a[@]}" --json dirty --watch -d 50ms -n 2
done

# ---- async-reclaim ----
for t in v1 v2; do
	declare -n a=$t
	st=$tmp/state-$t
	run "async-reclaim enable" "${a[@]}" --json async-reclaim enable /fixture/app --no-start \
		--state-dir "$st"
	run "async-reclaim status" "${a[@]}" --json async-reclaim status --state-dir "$st"
	run "async-reclaim status" "${a[@]}" --json async-reclaim status /fixture/app \
		-o "$(cols "${a[@]}" async-reclaim status)" --state-dir "$st"
	run "async-reclaim disable" "${a[@]}" --json async-reclaim disable /fixture/app \
		--state-dir "$st"
done
# a state file memcgctl did not write: status names it under corrupt
st=$tmp/state-v2
mkdir -p "$st"
printf 'not a state file\n' >"$st/bad.conf"
run "async-reclaim status" "${v2[@]}" --json async-reclaim status --state-dir "$st"

# ---- set-limit, empty, size, recover ----
for t in v1 v2; do
	declare -n a=$t
	run set-limit "${a[@]}" --json set-limit /fixture/app 90% --step 32M --dry-run
	run set-limit "${a[@]}" --json set-limit /fixture/app 500M --timeout 10s
	run empty "${a[@]}" --json empty /fixture/app --timeout 200ms
	run size "${a[@]}" --json size /fixture/app --dry-run --interval 50ms
done
run empty "${v1[@]}" --json empty /fixture/app --kernel
run recover "${v1[@]}" --json recover --dry-run
# a journal memcgctl did not write: recover moves it aside and says why
mkdir -p "$MEMCGCTL_RUNDIR/journal"
printf 'garbage\n' >"$MEMCGCTL_RUNDIR/journal/x.journal"
OK_RC=1 run recover "${v1[@]}" --json recover

# ---- dump, oom: a store recorded from the fixtures ----
for t in v1 v2; do
	declare -n a=$t
	"$bin" "${a[@]}" record -n 3 -d 50ms --store "$tmp/store-$t" >/dev/null 2>"$tmp/err" ||
		{ echo "FAIL: cannot record the $t fixture: $(cat "$tmp/err")"; exit 1; }
	run dump "${a[@]}" --json dump --store "$tmp/store-$t"
	# one value, one name and one number: dump's PSI total is show's and top's, in ns
	d=$("$bin" "${a[@]}" --json dump --store "$tmp/store-$t" |
		jq -s -c '[.[-1].cgroups[] | select(.cgroup == "/fixture/app") | .psi_some_total_ns]')
	s=$("$bin" "${a[@]}" --json show /fixture/app | jq -c '[.pressure.some.total_ns]')
	p=$("$bin" "${a[@]}" --json top -b -n 1 /fixture/app |
		jq -c '[.cgroups[] | select(.cgroup == "/fixture/app") | .counters.psi_some_total_ns]')
	if [ "$d" != "$s" ] || [ "$d" != "$p" ] || [ "$d" = "[]" ] || { [ $t = v2 ] && [ "$d" = "[null]" ]; }; then
		echo "FAIL: $t: the PSI total of /fixture/app: dump $d, show $s, top $p"
		fail=1
	fi
	# (no event in a store of three samples of a fixture: nothing printed)
	"$bin" "${a[@]}" --json dump --events --store "$tmp/store-$t" >"$tmp/evs" 2>&1
	[ -s "$tmp/evs" ] && run "dump --events" "${a[@]}" --json dump --events --store "$tmp/store-$t"
	"$bin" "${a[@]}" --json oom --store "$tmp/store-$t" >"$tmp/oom" 2>&1
	[ -s "$tmp/oom" ] && run oom "${a[@]}" --json oom --store "$tmp/store-$t"
done

# dump's events: a recorder running while memcgctl changes a limit (a change event), a
# cgroup appears (created) and memory.events counts a high event (high, with a count)
cp -a "$src/tests/cli/fixtures/v2" "$tmp/ev"
ev=(--root "$tmp/ev/cgroup" --proc "$tmp/ev/proc")
"$bin" "${ev[@]}" record -d 50ms --store "$tmp/store-ev" >/dev/null 2>"$tmp/rec.err" &
rec=$!
# (poll: the first sample stored, then all three events; 120 s at the most, for a loaded
# machine)
events() { "$bin" "${ev[@]}" --json dump --events --store "$tmp/store-ev" 2>/dev/null; }
end=$((SECONDS + ${MCG_WAIT:-120}))
while [ -z "$("$bin" "${ev[@]}" --json dump --store "$tmp/store-ev" 2>/dev/null | head -1)" ] &&
	[ $SECONDS -lt $end ]; do sleep 0.1; done
"$bin" "${ev[@]}" set-limit /fixture/app 500M >/dev/null 2>"$tmp/sl.err" || cat "$tmp/sl.err"
mkdir "$tmp/ev/cgroup/fixture/new"
cp "$tmp/ev/cgroup/fixture/app/"memory.* "$tmp/ev/cgroup/fixture/new/"
# (rewritten in place, the same length, not truncated: the sampler keeps the file open and
# may read it at any moment; "high 3" is the fixture's)
grep -qx 'high 3' "$tmp/ev/cgroup/fixture/app/memory.events" || { echo "FAIL: the v2 fixture changed"; exit 1; }
sed 's/^high 3$/high 9/' "$tmp/ev/cgroup/fixture/app/memory.events" >"$tmp/events.new"
cat "$tmp/events.new" 1<>"$tmp/ev/cgroup/fixture/app/memory.events"
until [ "$(events | jq -s '[.[].event] | (index("change") != null and
	index("created") != null and index("high") != null)')" = true ]; do
	[ $SECONDS -lt $end ] || {
		echo "FAIL: the recorder did not store a change, a created and a high event:" \
			"$(events | head -5)"
		fail=1
		break
	}
	sleep 0.1
done
kill "$rec" 2>/dev/null
wait "$rec"
rec=
run "dump --events" "${ev[@]}" --json dump --events --store "$tmp/store-ev"
run dump "${ev[@]}" --json dump --store "$tmp/store-ev"

if [ "${MCG_SHOW_KEYS:-0}" = 1 ]; then
	for f in "$tmp/seen"/*; do echo "== ${f##*/}"; sort -u "$f"; done
	exit 0
fi

# a page path with * as a regular expression: * is any characters but . and [
glob_re() { printf '%s' "$1" | sed -e 's/[]$^.[\\]/\\&/g' -e 's/\*/[^.[]*/g'; }

# ---- the page's KEYS section ----
awk '
	/^\.SH / { keys = ($0 ~ /^\.SH KEYS/); next }
	!keys { next }
	/^\.SS / { sec = substr($0, 5); gsub(/"/, "", sec); gsub(/\\-/, "-", sec); next }
	/^\.nf/ { inb = 1; next }
	/^\.fi/ { inb = 0; next }
	inb && sec != "" {
		line = $0
		gsub(/\\&/, "", line); gsub(/\\f[BIR]/, "", line); gsub(/\\-/, "-", line)
		pre = ""
		if (match(line, /^[^ ]*:( |$)/)) {
			pre = substr(line, 1, RLENGTH); sub(/: ?$/, "", pre)
			line = substr(line, RLENGTH + 1)
		}
		n = split(line, k, /[ \t]+/)
		for (i = 1; i <= n; i++) if (k[i] != "") print sec "\t" pre "." k[i]
	}' "$page" >"$tmp/doc"
[ -s "$tmp/doc" ] || { echo "FAIL: no KEYS section in $page"; exit 1; }

for f in "$tmp/seen"/*; do
	sec=${f##*/}
	# an empty object or array counts only where no run printed keys under it
	sort -u "$f" | awk '{ p[NR] = $0 } END { for (i = 1; i <= NR; i++)
		if (i == NR || (index(p[i + 1], p[i] ".") != 1 && index(p[i + 1], p[i] "[") != 1))
			print p[i] }' >"$f.u"
	awk -F'\t' -v s="$sec" '$1 == s { print $2 }' "$tmp/doc" | sort -u >"$tmp/doc.sec"
	if ! [ -s "$tmp/doc.sec" ]; then
		echo "FAIL: $sec: no section '.SS $sec' under KEYS in memcgctl-json(7)"
		fail=1
		continue
	fi
	# printed, not on the page (a * on the page stands for any characters of one key)
	while read -r p; do
		grep -qxF -- "$p" "$tmp/doc.sec" && continue
		found=0
		while read -r d; do
			[[ $d == *'*'* ]] || continue
			printf '%s\n' "$p" | grep -qx -- "$(glob_re "$d")" && { found=1; break; }
		done <"$tmp/doc.sec"
		[ $found = 1 ] && continue
		echo "FAIL: $sec: '$p' is printed but not in memcgctl-json(7)"
		fail=1
	done <"$f.u"
	# on the page, never printed
	while read -r d; do
		if [[ $d == *'*'* ]]; then
			grep -qx -- "$(glob_re "$d")" "$f.u" && continue
		elif grep -qxF -- "$d" "$f.u"; then
			if [ -n "${exempt[$sec:$d]:-}" ]; then
				echo "FAIL: $sec: '$d' is printed: take it out of the exempt list"
				fail=1
			fi
			continue
		fi
		[ -n "${exempt[$sec:$d]:-}" ] && continue
		[ "$sec" = oom ] && [ $oom_exempt = 1 ] && continue
		echo "FAIL: $sec: '$d' is in memcgctl-json(7) but no command printed it"
		fail=1
	done <"$tmp/doc.sec"
done
# every exempt key is on the page
for k in "${!exempt[@]}"; do
	sec=${k%%:*} p=${k#*:}
	awk -F'\t' -v s="$sec" -v p="$p" '$1 == s && $2 == p { f = 1 } END { exit !f }' "$tmp/doc" ||
		{ echo "FAIL: $sec: exempt '$p' is not in memcgctl-json(7)"; fail=1; }
done
# every section of the page was run (oom: only its top level, see oom_exempt)
for sec in $(cut -f1 "$tmp/doc" | sort -u | tr ' ' '@'); do
	sec=${sec//@/ }
	[ -f "$tmp/seen/$sec" ] || [ "$sec" = oom ] ||
		{ echo "FAIL: section '$sec' of memcgctl-json(7) has no run here"; fail=1; }
done
[ $fail = 0 ] && echo "ok: $(wc -l <"$tmp/doc") documented key paths in $(ls "$tmp/seen" | grep -vc '\.u$') sections agree with the output"
exit $fail
