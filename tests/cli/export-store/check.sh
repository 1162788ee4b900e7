#!/bin/bash
# check.sh: export --families store on a store tests/cli/dump/mk-store writes: the counts by
# cgroup and type are those of the events `dump --events --json` reads (the hostile name's
# label escaped as every family's), promtool-clean where promtool is installed; a torn last
# frame (a recorder writing) is counted by neither; a store that is absent, untrusted or not
# a store leaves the family with its state sample and the other families whole (exit 0);
# --textfile (once and with --interval) writes the same; the family is opt-in; --store without it is a usage error; CGROUP bounds the events; past
# 1000 series (mk-events: 1200 cgroups' set-limits) the oldest make room, counted.
# usage: check.sh MEMCGCTL MK-STORE FIXTURES [MK-EVENTS]
set -u
bin=$1 mk=$2 fix=$3 mkev=${4:-}
root=$fix/v1/cgroup
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
eq() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', want '$3'"; fi; }
command -v jq >/dev/null || { echo "jq is missing"; exit 77; }
"$mk" "$tmp/st" || { echo "mk-store failed"; exit 1; }
X() { "$bin" --root "$root" export "$@"; }

# the counts: export's against dump's, per cgroup and type
X --families store --store "$tmp/st" >"$tmp/e.prom" 2>"$tmp/e.err"
eq "exit status" "$?" 0
eq "nothing on stderr" "$(cat "$tmp/e.err")" ""
"$bin" dump --store "$tmp/st" --events --json >"$tmp/d.json" || fail "dump --events --json failed"
# dump's: TYPE<TAB>CGROUP<TAB>N, the type as export names it, the cgroup as its label holds it
# (memcgctl's escape: a line feed as \n; then the format's: a backslash doubled, a quote \")
jq -r '[(if .event == "change" then .op else .event end | ascii_downcase |
		gsub("[^a-z0-9]+"; "_") | sub("^_"; "") | sub("_$"; "")),
	(.cgroup | gsub("\\\\"; "\\\\") | gsub("\n"; "\\n") | gsub("\\\\"; "\\\\") | gsub("\""; "\\\""))] |
	@tsv' "$tmp/d.json" | sed 's/\\\\/\\/g' | sort | uniq -c | awk '{ n = $1; sub(/^ *[0-9]+ /, ""); print $0 "\t" n }' |
	sort >"$tmp/want"
# export's: the same from its samples
sed -n 's/^memcgctl_store_events_total{cgroup="\(.*\)",type="\([^"]*\)"} \([0-9]*\)$/\2\t\1\t\3/p' "$tmp/e.prom" |
	sort >"$tmp/got"
eq "series" "$(wc -l <"$tmp/got")" 4
if diff "$tmp/want" "$tmp/got" >"$tmp/diff"; then
	ok "counts by cgroup and type = dump --events --json's ($(wc -l <"$tmp/got") series)"
else
	fail "counts differ from dump's: $(cat "$tmp/diff")"
fi
grep -qxF 'memcgctl_store_events_total{cgroup="/x,y\"z\\n",type="removed"} 1' "$tmp/e.prom" ||
	fail "the hostile name's label is not memcgctl's escaped name, format-escaped"
grep -qxF 'memcgctl_store_events_total{cgroup="/a/b",type="set_limit"} 1' "$tmp/e.prom" ||
	fail "no set_limit sample for /a/b"
eq "last set-limit time (2025-11-30T10:53:33Z, as dump)" \
	"$(awk '$1 == "memcgctl_store_last_event_timestamp_seconds{cgroup=\"/a/b\",type=\"set_limit\"}" { print $2 }' "$tmp/e.prom")" \
	"$(jq -r 'select(.op == "set-limit") | .timestamp_ns' "$tmp/d.json" | sed 's/\(.........\)$/.\1/')"
eq "state read" "$(grep -c '^memcgctl_store_state{state="read"} 1$' "$tmp/e.prom")" 1
eq "frames" "$(awk '$1 == "memcgctl_store_frames" { print $2 }' "$tmp/e.prom")" 6
eq "the limit is said" "$(awk '$1 == "memcgctl_store_series_limit" { print $2 }' "$tmp/e.prom")" 1000
eq "nothing dropped" "$(awk '$1 == "memcgctl_store_dropped_series" { print $2 }' "$tmp/e.prom")" 0
if command -v promtool >/dev/null; then
	promtool check metrics <"$tmp/e.prom" >"$tmp/pt" 2>&1 && [ ! -s "$tmp/pt" ] &&
		ok "promtool check metrics clean" || fail "promtool: $(cat "$tmp/pt")"
fi

# --textfile writes the same series (once: the whole store; with --interval: read on)
mkdir -m 0755 "$tmp/tf"
X --families store --store "$tmp/st" --textfile "$tmp/tf" || fail "--textfile failed"
eq "--textfile: the same event series" "$(grep '^memcgctl_store_events_total' "$tmp/tf/memcgctl.prom")" \
	"$(grep '^memcgctl_store_events_total' "$tmp/e.prom")"
X --families store --store "$tmp/st" --textfile "$tmp/tf" -d 100ms -n 2 || fail "--textfile --interval failed"
eq "--textfile --interval: the same event series" "$(grep '^memcgctl_store_events_total' "$tmp/tf/memcgctl.prom")" \
	"$(grep '^memcgctl_store_events_total' "$tmp/e.prom")"

# opt-in: not in the default set; --store alone is a usage error
X >"$tmp/all.prom" 2>/dev/null
grep -q '^memcgctl_store_' "$tmp/all.prom" && fail "the default families include store"
X --store "$tmp/st" >/dev/null 2>"$tmp/err"
eq "--store without the family: 64" "$?" 64

# CGROUP bounds the events: /a/b's under /a, none under /fixture
n=$(X --families store --store "$tmp/st" /fixture | grep -c '^memcgctl_store_events_total{')
eq "no event of the store under /fixture" "$n" 0

# --depth too: from the root, depth 1 keeps the hostile name's removal, not /a/b's events
eq "--depth 1: the series of depth 1" "$(X --families store --store "$tmp/st" --depth 1 |
	sed -n 's/^memcgctl_store_events_total{cgroup="\([^,]*\),.*/\1/p' | sort -u | tr '\n' ' ')" "/x "

# a torn last frame: a recorder writing it. Neither dump nor export counts it.
cp -a "$tmp/st" "$tmp/torn"
seg=$(ls "$tmp/torn"/history-*.seg)
truncate -s -7 "$seg"
"$bin" dump --store "$tmp/torn" --events --json 2>/dev/null | jq -s length >"$tmp/dn"
X --families store --store "$tmp/torn" >"$tmp/t.prom" 2>/dev/null
eq "torn: frames" "$(awk '$1 == "memcgctl_store_frames" { print $2 }' "$tmp/t.prom")" 5
eq "torn: events = dump's" \
	"$(awk '/^memcgctl_store_events_total\{/ { n += $2 } END { print n + 0 }' "$tmp/t.prom")" "$(cat "$tmp/dn")"
eq "torn: not a corrupt frame" "$(awk '$1 == "memcgctl_store_corrupt_frames" { print $2 }' "$tmp/t.prom")" 0

# absent, untrusted, not a store: the reason as the state, the other families whole, exit 0
X --families usage >"$tmp/u.prom"
for c in absent untrusted; do
	case $c in
	absent) d=$tmp/none ;;
	untrusted) cp -a "$tmp/st" "$tmp/open" && chmod o+w "$tmp/open" && d=$tmp/open ;;
	esac
	X --families usage,store --store "$d" >"$tmp/$c.prom" 2>"$tmp/$c.err"
	eq "$c: exit status" "$?" 0
	eq "$c: state" "$(sed -n 's/^memcgctl_store_state{state="\(.*\)"} 1$/\1/p' "$tmp/$c.prom")" "$c"
	eq "$c: no event series" "$(grep -c '^memcgctl_store_events_total' "$tmp/$c.prom")" 0
	grep -q "history store" "$tmp/$c.err" && ok "$c: said on stderr" || fail "$c: nothing said: $(cat "$tmp/$c.err")"
	eq "$c: the usage family unchanged" "$(grep '^memcgctl_usage' "$tmp/$c.prom")" "$(grep '^memcgctl_usage' "$tmp/u.prom")"
done
# the series limit: 1200 series, the 1000 whose last event is the newest shown
if [ -n "$mkev" ]; then
	"$mkev" "$tmp/many" 1200 || fail "mk-events failed"
	X --families store --store "$tmp/many" >"$tmp/m.prom"
	eq "limit: dump's events" "$("$bin" dump --store "$tmp/many" --events --json | wc -l)" 1200
	eq "limit: series shown" "$(grep -c '^memcgctl_store_events_total{' "$tmp/m.prom")" 1000
	eq "limit: timestamps shown" "$(grep -c '^memcgctl_store_last_event_timestamp_seconds{' "$tmp/m.prom")" 1000
	eq "limit: the oldest shown is the 201st" \
		"$(sed -n 's/^memcgctl_store_events_total{cgroup="\([^"]*\)".*/\1/p' "$tmp/m.prom" | sort | head -n 1)" /c0200
	eq "limit: dropped series" "$(awk '$1 == "memcgctl_store_dropped_series" { print $2 }' "$tmp/m.prom")" 200
	eq "limit: dropped events" "$(awk '$1 == "memcgctl_store_dropped_events" { print $2 }' "$tmp/m.prom")" 200
	if command -v promtool >/dev/null; then
		promtool check metrics <"$tmp/m.prom" >"$tmp/pt" 2>&1 && [ ! -s "$tmp/pt" ] &&
			ok "limit: promtool check metrics clean" || fail "limit: promtool: $(cat "$tmp/pt")"
	fi
fi
echo "$fails failure(s)"
[ "$fails" = 0 ]
