#!/bin/sh
# tiers: v1
# export --families store while memcgctl record writes the store: an --listen server counts a
# set-limit, an empty and a second set-limit on a scratch cgroup at the scrapes after them
# (read on incrementally from the growing store, whole frames only), the kernel holding the
# limits set; the last set-limit's timestamp lies within the command's run; at the end the
# server's counts, a one-shot export's and what dump --events --json reads of the same store
# agree per type; a recorder started again (a new segment) is followed; when the first segment
# goes (as retention removes it), a new pass counts only what the store still holds; every
# scrape is promtool-clean, a gzip and an OpenMetrics answer hold the same event series;
# SIGTERM stops the server with 0.
set -eu
. "$MCG_TESTLIB"
. "$MCG_SRCDIR/tests/real/export/lib-export.sh"
require_cgroups
need_tool python3 python3
need_tool jq jq
need_tool curl curl

scratch_new store
W=$CG WREL=$CGREL
STORE="$MCG_TMP/store"
record_start "$WREL" -d 250ms

p=$(free_port)
serve exs "$MEMCGCTL" export --listen "127.0.0.1:$p" --families usage,store --store "$STORE" "$WREL"
ex=$SERVE_PID
U="http://127.0.0.1:$p/metrics"
wait_http "$U" "$ex"

# scrape FILE: one scrape into FILE, promtool-clean where promtool is installed
scrape() {
	curl -fsS -m 10 "$U" >"$1" || fail "scrape failed"
	if command -v promtool >/dev/null; then
		promtool check metrics <"$1" >"$MCG_TMP/pt" 2>&1 && [ ! -s "$MCG_TMP/pt" ] ||
			fail "promtool: $(head -c 600 "$MCG_TMP/pt")"
	fi
}
# val FILE METRIC TYPE: the sample of the workload's TYPE, or "absent"
val() { M="$2{cgroup=\"$WREL\",type=\"$3\"}" awk '$1 == ENVIRON["M"] { print $2; f = 1 }
	END { if (!f) print "absent" }' "$1"; }
# wait_count TYPE N: until a scrape counts N events of TYPE on the workload (60 s)
wait_count() {
	i=0
	until scrape "$MCG_TMP/w.prom" && [ "$(val "$MCG_TMP/w.prom" memcgctl_store_events_total "$1")" = "$2" ]; do
		kill -0 "$ex" 2>/dev/null || fail "the server exited: $(cat "$MCG_TMP/exs.log")"
		kill -0 "$REC" 2>/dev/null || fail "record exited: $(cat "$MCG_TMP/rec.err")"
		i=$((i + 1))
		[ $i -le 600 ] || fail "no scrape counted $2 $1 event(s) in 60 s: $(grep store_ "$MCG_TMP/w.prom")"
		sleep 0.1
	done
	ok "a scrape counts $2 $1 event(s)"
}

scrape "$MCG_TMP/s0.prom"
assert_eq "state read" 1 "$(awk '$1 == "memcgctl_store_state{state=\"read\"}" { print $2 }' "$MCG_TMP/s0.prom")"
assert_eq "no set-limit yet" absent "$(val "$MCG_TMP/s0.prom" memcgctl_store_events_total set_limit)"

"$MEMCGCTL" set-limit "$WREL" 64M >/dev/null
assert_eq "the kernel's limit" 67108864 "$(knob "$W" "$K_LIMIT")"
wait_count set_limit 1
"$MEMCGCTL" empty "$WREL" >/dev/null
wait_count empty 1
TS0=$(now_floor)
"$MEMCGCTL" set-limit "$WREL" 48M >/dev/null
TS1=$(now_ceil)
assert_eq "the kernel's limit" 50331648 "$(knob "$W" "$K_LIMIT")"
wait_count set_limit 2
ts=$(val "$MCG_TMP/w.prom" memcgctl_store_last_event_timestamp_seconds set_limit)
ms=$(printf '%s\n' "$ts" | sed -n 's/^\([0-9]*\)\.\([0-9][0-9][0-9]\)[0-9]*$/\1\2/p')
assert_le "last set-limit at or after the command's start" "$TS0" "$((ms + 1))"
assert_le "last set-limit at or before its end" "$ms" "$TS1"

kill -TERM "$REC" || fail "record died: $(cat "$MCG_TMP/rec.err")"
wait "$REC" || fail "record exited $?"
# the server reads the frames record wrote last, then the one-shot and dump read the same store
sleep_frames=0
until scrape "$MCG_TMP/last.prom" &&
	"$MEMCGCTL" export --families store --store "$STORE" "$WREL" >"$MCG_TMP/one.prom" &&
	[ "$(awk '$1 == "memcgctl_store_frames"' "$MCG_TMP/last.prom")" = "$(awk '$1 == "memcgctl_store_frames"' "$MCG_TMP/one.prom")" ]; do
	sleep_frames=$((sleep_frames + 1))
	[ $sleep_frames -le 100 ] || fail "the server's frames never reached the store's"
	sleep 0.1
done
counts() { sed -n 's/^memcgctl_store_events_total{cgroup="\([^"]*\)",type="\([^"]*\)"} \([0-9]*\)$/\2 \1 \3/p' "$1" | sort; }
"$MEMCGCTL" dump --store "$STORE" --events --json >"$MCG_TMP/d.json" || fail "dump failed"
jq -r --arg w "$WREL" 'select(.cgroup == $w or (.cgroup | startswith($w + "/"))) |
	[(if .event == "change" then .op else .event end | ascii_downcase | gsub("[^a-z0-9]+"; "_") |
	sub("^_"; "") | sub("_$"; "")), .cgroup] | join(" ")' "$MCG_TMP/d.json" |
	sort | uniq -c | awk '{ print $2, $3, $1 }' | sort >"$MCG_TMP/want"
counts "$MCG_TMP/last.prom" >"$MCG_TMP/got"
counts "$MCG_TMP/one.prom" >"$MCG_TMP/got1"
cat "$MCG_TMP/want"
assert_eq "the server's counts = dump --events --json's" "$(cat "$MCG_TMP/want")" "$(cat "$MCG_TMP/got")"
assert_eq "the one-shot's counts = dump --events --json's" "$(cat "$MCG_TMP/want")" "$(cat "$MCG_TMP/got1")"
assert_eq "dump's set-limits" 2 "$(awk '$1 == "set_limit" { print $3 }' "$MCG_TMP/want")"

# gzip and OpenMetrics (the store stands still now): the same event series
curl -fsS -m 10 -H 'Accept-Encoding: gzip' "$U" | gzip -dc >"$MCG_TMP/gz.prom" || fail "the gzip answer is not gzip"
assert_eq "gzip: the same event series" "$(grep '^memcgctl_store_events_total' "$MCG_TMP/last.prom")" \
	"$(grep '^memcgctl_store_events_total' "$MCG_TMP/gz.prom")"
curl -fsS -m 10 -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' "$U" >"$MCG_TMP/om.prom"
assert_eq "OpenMetrics: the same event series" "$(grep '^memcgctl_store_events_total' "$MCG_TMP/last.prom")" \
	"$(grep '^memcgctl_store_events_total' "$MCG_TMP/om.prom")"
grep -qx '# TYPE memcgctl_store_events counter' "$MCG_TMP/om.prom" || fail "OpenMetrics: no counter family memcgctl_store_events"
grep -qx '# UNIT memcgctl_store_last_event_timestamp_seconds seconds' "$MCG_TMP/om.prom" ||
	fail "OpenMetrics: no unit for the last event's time"
assert_eq "OpenMetrics: the last line" "# EOF" "$(tail -n 1 "$MCG_TMP/om.prom")"

# a new recorder writes a new segment: the server follows it
seg1=$(ls "$STORE" | grep '^history-.*\.seg$' | head -n 1)
record_start "$WREL" -d 250ms
# (record_start sees the first recorder's frames: the new segment is waited for here)
i=0
until [ "$(ls "$STORE" | grep -c '^history-.*\.seg$')" = 2 ]; do
	kill -0 "$REC" 2>/dev/null || fail "record exited: $(cat "$MCG_TMP/rec.err")"
	i=$((i + 1))
	[ $i -le 600 ] || fail "no second segment in 60 s"
	sleep 0.1
done
ok "a second segment"
"$MEMCGCTL" set-limit "$WREL" 40M >/dev/null
wait_count set_limit 3
kill -TERM "$REC" || fail "record died: $(cat "$MCG_TMP/rec.err")"
wait "$REC" || fail "record exited $?"
# retention removes the oldest segment: the counts are what is left (a counter reset)
rm "$STORE/$seg1"
wait_count set_limit 1
assert_eq "the empty went with its segment" absent "$(val "$MCG_TMP/w.prom" memcgctl_store_events_total empty)"
assert_eq "state read" 1 "$(awk '$1 == "memcgctl_store_state{state=\"read\"}" { print $2 }' "$MCG_TMP/w.prom")"

stop_server "$ex"
assert_eq "SIGTERM: exit" 0 "$STOP_STATUS"
