#!/bin/bash
# check.sh: memcgctl dump on a store written at fixed times (mk-store.c): its output in each
# format against the expected files here (MCG_UPDATE=1 rewrites them), the fields -o takes,
# events in time order, recorded names (also as a CGROUP argument after the cgroup is gone),
# the errors a script sees (unknown cgroup 64, empty window 1), the time-zone rule and
# --output-file's atomic replace; a store of the old writer (old-format/) read as it was.
# usage: check.sh MEMCGCTL MK-STORE FIXTURES
set -u
bin=$(realpath "$1") mk=$(realpath "$2") fixtures=$(realpath "$3")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcg-dump.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC MEMCGCTL_RUNDIR="$tmp/run"
"$mk" "$tmp/store" || { echo "FAIL: cannot write the test store"; exit 1; }
rc=0
fail() { echo "FAIL: $*"; rc=1; }
d() { "$bin" --root "$fixtures/v2/cgroup" dump --store "$tmp/store" "$@"; }
dj() { "$bin" --root "$fixtures/v2/cgroup" --json dump --store "$tmp/store" "$@"; }

# case NAME CMD...: stdout, stderr and the status against NAME.out (store path as @STORE@)
case_() {
	local name=$1 st
	shift
	"$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	{ cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; echo "--- status $st"; } |
		sed "s|$tmp/store|@STORE@|g" >"$tmp/got"
	if [ "${MCG_UPDATE:-0}" = 1 ]; then
		cp "$tmp/got" "$here/$name.out"
		return
	fi
	diff -u "$here/$name.out" "$tmp/got" || fail "case $name differs"
}

case_ text d
case_ csv-fields d --csv -o time,cgroup,name,limit_bytes,pgfault_per_s,event,detail
case_ events-json dj --events
case_ json-fields dj -o name,limit_bytes,swappiness,pgfault_per_s --from 2025-11-30T10:53:40Z
# a cgroup by the name recorded for it, after it is gone: its rows and its events
case_ by-name d --csv -o time,cgroup,name,usage_bytes,event docker:web
case_ unknown-cgroup d --csv /nosuch
case_ empty-window d --from 2025-11-29 --to 2025-11-29T12:00:00Z
case_ not-in-window d --from 2025-11-30T10:53:41Z --to 2025-11-30T11:00:00Z /a/b
case_ bad-field d -o time,usage_bytes_per_s
case_ from-after-to d --from 2025-11-30T11:00:00Z --to 2025-11-30T10:00:00Z
# input without a zone is local time (UTC+3 here), output UTC: 13:53:30 local is 10:53:30Z
case_ local-time env TZ=XST-3 "$bin" dump --store "$tmp/store" -o time,cgroup \
	--from '2025-11-30 13:53:30' --to '2025-11-30T13:53:35' /

# only event counters have rates; the full header has every field once, as --list-fields
h=$(d --csv | head -1)
[ "$h" = "$(d --list-fields | cut -f1 | paste -sd,)" ] || fail "--list-fields is not the CSV header"
[ "$("$bin" __complete values dump -o | cut -f1 | paste -sd,)" = "$h" ] ||
	fail "completion of dump -o does not offer the fields"
for c in limit_bytes_per_s swappiness_per_s nr_children_per_s usage_bytes_per_s; do
	case ",$h," in *",$c,"*) fail "the CSV header has the rate of a setting or gauge: $c" ;; esac
done
for c in timestamp_ns time cgroup name limit_bytes pgfault pgfault_per_s event detail; do
	case ",$h," in *",$c,"*) ;; *) fail "the CSV header lacks $c" ;; esac
done
# unlimited: null in JSON, empty in CSV; no per_second of a setting
if command -v jq >/dev/null; then
	v=$(dj | head -1 | jq -c '[.cgroups[] | select(.cgroup == "/a") | .limit_bytes, (.per_second | has("limit_bytes_per_s"))]')
	[ "$v" = '[null,false]' ] || fail "JSON /a limit_bytes and per_second: $v"
	n=$(dj --events | jq -s 'map(select(.events)) | length')
	[ "$n" = 0 ] || fail "--events --json printed frames"
fi
v=$(d --csv -o cgroup,limit_bytes /a | sed -n 2p)
[ "$v" = "/a," ] || fail "CSV unlimited limit_bytes is not empty: $v"

# --output-file: the same bytes as stdout, replaced whole, mode kept; refusals leave the target
mkdir "$tmp/w"
d --csv >"$tmp/stdout.csv"
(cd "$tmp/w" && d --csv --output-file out.csv) || fail "--output-file out.csv failed"
cmp -s "$tmp/stdout.csv" "$tmp/w/out.csv" || fail "--output-file differs from stdout"
echo old >"$tmp/w/keep.csv"
chmod 0604 "$tmp/w/keep.csv"
d --csv --output-file "$tmp/w/keep.csv" /nosuch 2>/dev/null
[ $? = 64 ] || fail "--output-file with an unknown cgroup: not 64"
[ "$(cat "$tmp/w/keep.csv")" = old ] || fail "a failed dump changed its --output-file"
d --csv --output-file "$tmp/w/keep.csv" || fail "--output-file over a file failed"
cmp -s "$tmp/stdout.csv" "$tmp/w/keep.csv" || fail "--output-file did not replace the file"
[ "$(stat -c %a "$tmp/w/keep.csv")" = 604 ] || fail "the file replaced lost its mode"
ln -s "$tmp/w/target" "$tmp/w/link"
echo t >"$tmp/w/target"
d --csv --output-file "$tmp/w/link" 2>"$tmp/err"
[ $? = 64 ] && grep -q "not a regular file" "$tmp/err" || fail "--output-file through a symlink not refused"
[ -L "$tmp/w/link" ] && [ "$(cat "$tmp/w/target")" = t ] || fail "the symlink or its target changed"
d --csv --output-file "$tmp/w" 2>/dev/null
[ $? = 64 ] || fail "--output-file naming a directory not refused"
d --csv --output-file "$tmp/nodir/x.csv" 2>/dev/null
[ $? = 64 ] || fail "--output-file in a missing directory: not 64"
left=$(ls -A "$tmp/w" | grep -v -x -e out.csv -e keep.csv -e link -e target)
[ -z "$left" ] || fail "files left behind: $left"

# a store the writer of 3cac62d (before MCG_HOST) wrote with record on the v1 fixture, PSI
# 12.34/0.57: the host rows and PSI read back as that commit's dump and top --replay said
# (old-format/*.out); the frames keep the rows of MCG_HOST_RECORDED only
mkdir -m 750 "$tmp/old"
cp "$here"/old-format/*.seg "$tmp/old/"
"$bin" --root "$fixtures/v1/cgroup" --json dump --store "$tmp/old" >"$tmp/old.json" 2>&1
diff -u "$here/old-format/dump.json.out" "$tmp/old.json" || fail "dump of the old store differs"
"$bin" --root "$fixtures/v1/cgroup" top --replay -b -n 3 --store "$tmp/old" >"$tmp/old.top" 2>&1
diff -u "$here/old-format/top-replay.out" "$tmp/old.top" || fail "top --replay of the old store differs"

[ $rc = 0 ] && echo "dump: every case as expected"
exit $rc
