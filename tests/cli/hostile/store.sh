#!/bin/bash
# store.sh: the history store and the run directory against a hostile or full machine
# (issue 24): a FIFO where a file is expected, a torn frame, a full disk, a reader that
# is not root, links planted in the parents of --store, times past 2554. Every command
# runs under a timeout: a hang is a failure. Runs as root on a v2 fixture copy.
# usage: store.sh MEMCGCTL SRCDIR
set -u
bin=$(realpath "$1") src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp" # nobody reaches the store below it
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}
# run EXPECTED_STATUS ARGS...: memcgctl ARGS, stdout in $out, stderr in $err
run() {
	local want=$1
	shift
	MEMCGCTL_RUNDIR="$tmp/run" timeout -k 5 20 "$bin" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	st=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
	[ "$want" = any ] || [ "$st" = "$want" ] || fail "memcgctl $*: status $st, expected $want: $err"
	! grep -q 'Sanitizer\|runtime error' "$tmp/err" || fail "memcgctl $*: $err"
}
cp -a "$src/tests/cli/fixtures/v2" "$tmp/fix"
ROOT=$tmp/fix/cgroup
nseg() { find "$1" -maxdepth 1 -name 'history-*.seg' | wc -l; }

# ---- 5: a FIFO journal: recover refuses it at once; a FIFO knob: read as absent ----
mkdir -p "$tmp/run/journal" "$tmp/run/locks"
mkfifo "$tmp/run/journal/x.journal"
run 1 --root "$ROOT" recover
echo "$err" | grep -q "x.journal': not a regular file of ours" || fail "recover of a FIFO: $err"
rm -rf "$tmp/run"
mv "$ROOT/fixture/memory.max" "$tmp/memory.max"
mkfifo "$ROOT/fixture/memory.max"
run any --root "$ROOT" show /fixture
[ "$st" -lt 124 ] || fail "show with a FIFO memory.max: status $st (hung?)"
run any --root "$ROOT" set-limit /fixture 1G
[ "$st" -lt 124 ] && [ "$st" != 0 ] || fail "set-limit on a FIFO memory.max: status $st"
rm "$ROOT/fixture/memory.max"
mv "$tmp/memory.max" "$ROOT/fixture/memory.max"

# ---- 7: the store is root's and adm's, the spool root's alone ----
S=$tmp/store
run 0 --root "$ROOT" record --interval 100ms --count 3 --store "$S"
[ "$(stat -c '%a %U %G' "$S")" = "750 root adm" ] || fail "store mode: $(stat -c '%a %U %G' "$S")"
for f in "$S"/history-*.seg; do
	[ "$(stat -c '%a %G' "$f")" = "640 adm" ] || fail "segment mode: $(stat -c '%a %G' "$f")"
done
[ "$(stat -c '%a' "$tmp/run/history-events")" = 600 ] || fail "spool mode $(stat -c '%a' "$tmp/run/history-events")"
# a store an earlier memcgctl made 0755 is closed at the next record
chmod 755 "$S"
run 0 --root "$ROOT" record --interval 100ms --count 1 --store "$S"
[ "$(stat -c '%a' "$S")" = 750 ] || fail "an 0755 store left $(stat -c '%a' "$S")"
if MEMCGCTL_RUNDIR="$tmp/run" timeout -k 5 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$bin" --root "$ROOT" dump --store "$S" >"$tmp/out" 2>"$tmp/err"; then
	fail "dump as nobody read the store"
fi
grep -q "reading history needs root or membership of the group 'adm'" "$tmp/err" ||
	fail "dump as nobody: $(cat "$tmp/err")"
MEMCGCTL_RUNDIR="$tmp/run" timeout -k 5 20 setpriv --reuid=65534 --regid=65534 --groups=adm \
	"$bin" --root "$ROOT" dump --store "$S" >"$tmp/out" 2>"$tmp/err" ||
	fail "dump as nobody in group adm: $(cat "$tmp/err")"
grep -q '/fixture$' "$tmp/out" || fail "dump as adm printed no samples"

# ---- 11: past 2554 ----
run 64 --root "$ROOT" dump --store "$S" --from 2600-01-01
echo "$err" | grep -q "past 2554" || fail "--from 2600-01-01: $err"

# ---- 12: torn last frames are expected; only the newest segment is waited on ----
T=$tmp/torn
mkdir -m 700 "$T"
seg=$(ls "$S"/history-*.seg | head -n 1)
for i in $(seq 10 39); do
	head -c -7 "$seg" >"$T/history-000000000000000000$i.seg"
done
run 0 --root "$ROOT" dump --store "$T"
[ -z "$err" ] || fail "dump of torn segments said: $err"
if command -v strace >/dev/null; then
	MEMCGCTL_RUNDIR="$tmp/run" strace -f -qq -e trace=nanosleep,clock_nanosleep -o "$tmp/st" \
		"$bin" --root "$ROOT" dump --store "$T" >/dev/null 2>&1
	n=$(grep -c nanosleep "$tmp/st")
	[ "$n" -le 1 ] || fail "dump slept $n times over 30 torn segments"
fi

# ---- 12: a full disk: no empty segment per restart, retention runs all the same ----
F=$tmp/full
mkdir -m 700 "$F"
# two segments from 2020 (before a third), and the recent one
cp "$seg" "$F/history-01577836800000000000.seg"
cp "$seg" "$F/history-01577836900000000000.seg"
cp "$seg" "$F/history-01577837000000000000.seg"
cp "$seg" "$F/$(basename "$seg")"
for i in 1 2 3; do
	# (stderr through a pipe: RLIMIT_FSIZE does not limit a pipe)
	( trap '' XFSZ; ulimit -f 0; MEMCGCTL_RUNDIR="$tmp/run" exec timeout -k 5 20 "$bin" --root "$ROOT" \
		record --interval 100ms --count 1 --retain-age 1h --store "$F" ) 2>&1 >/dev/null |
		cat >"$tmp/err"
	st=${PIPESTATUS[0]}
	[ "$st" = 1 ] || fail "record on a full disk: status $st: $(cat "$tmp/err")"
	grep -q "cannot write to history store" "$tmp/err" || fail "record on a full disk: $(cat "$tmp/err")"
done
[ "$(find "$F" -name 'history-*.seg' -size 0 | wc -l)" = 0 ] || fail "empty segments left: $(ls "$F")"
[ ! -e "$F/history-01577836800000000000.seg" ] && [ ! -e "$F/history-01577836900000000000.seg" ] ||
	fail "retention did not run when the write failed: $(ls "$F")"
[ "$(nseg "$F")" = 2 ] || fail "segments left: $(ls "$F")"
run 0 --root "$ROOT" dump --store "$F"

# ---- 8: links in the parents of --store ----
mkdir -m 777 "$tmp/ww"
mkdir "$tmp/victim" "$tmp/real"
setpriv --reuid=65534 --regid=65534 --clear-groups ln -s "$tmp/victim" "$tmp/ww/link"
run 1 --root "$ROOT" record --interval 100ms --count 1 --store "$tmp/ww/link/store"
echo "$err" | grep -q "not trusted" || fail "a planted link in the parents: $err"
[ -z "$(ls -A "$tmp/victim")" ] || fail "root made the store through a planted link"
run 1 --root "$ROOT" record --interval 100ms --count 1 --store "$tmp/ww/store"
[ ! -e "$tmp/ww/store" ] || fail "a store made under a world-writable directory"
run 1 --root "$ROOT" dump --store "$tmp/ww/link/store"
MEMCGCTL_RUNDIR="$tmp/ww/link/run" timeout -k 5 20 "$bin" --root "$ROOT" set-limit /fixture 1G \
	>/dev/null 2>&1
[ -z "$(ls -A "$tmp/victim")" ] || fail "root made a run directory through a planted link"
# a link root made (as /var/run -> /run) is followed, and missing parents made below it
ln -s "$tmp/real" "$tmp/rootlink"
run 0 --root "$ROOT" record --interval 100ms --count 1 --store "$tmp/rootlink/a/b/store"
[ "$(nseg "$tmp/real/a/b/store")" = 1 ] || fail "no store through a root-owned link"
# under root's sticky /tmp: a directory of nobody's is not a parent to trust
d=$(setpriv --reuid=65534 --regid=65534 --clear-groups mktemp -d /tmp/mcg-h24-XXXXXX)
chmod 755 "$d"
run 1 --root "$ROOT" record --interval 100ms --count 1 --store "$d/store"
[ ! -e "$d/store" ] || fail "a store made in nobody's directory"
rm -rf "$d"

if [ "$fails" -gt 0 ]; then
	echo "store.sh: $fails failures" >&2
	exit 1
fi
echo "store.sh: FIFO, modes, non-root reader, 2554, torn frames, full disk, planted links: ok"
