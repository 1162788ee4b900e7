#!/bin/sh
# tiers: v1
# record -d 100ms of a scratch top while, for about 15 s, cgroups below it come and go: leaves
# that held a process removed and created under new names, pods (a parent with nested
# children) removed whole bottom-up and made again, one pod replaced under the same name, leaves
# renamed. The top itself is never touched. No sample may fail (a removal below the top leaves
# its row out, it does not cost the sample: bench/README.md's soak note), no removed cgroup is
# in a frame taken after its removal, and the last frame holds exactly the tree the kernel has.
set -eu
. "$MCG_TESTLIB"
require_cgroups
command -v awk >/dev/null 2>&1 || skip "no awk"

CHURN_S=15
scratch_new top
TOP=$CG
TREL=$CGREL
STORE="$MCG_TMP/store"
REMOVED="$MCG_TMP/removed" # PATH MS: gone from the kernel at or before MS
: >"$REMOVED"
seq_no=0
for s in s1 s2 s3; do
	mkdir "$TOP/$s"
	i=0
	while [ $i -lt 20 ]; do
		seq_no=$((seq_no + 1))
		mkdir "$TOP/$s/c$seq_no"
		i=$((i + 1))
	done
done
# first PATH..., second PATH...: the base name of a glob's first (second) match
first() { printf '%s\n' "${1##*/}"; }
second() { printf '%s\n' "${2##*/}"; }
mk_pod() { # NAME
	mkdir "$TOP/$1" "$TOP/$1/ctr1" "$TOP/$1/ctr2" "$TOP/$1/ctr2/sub"
}
# rm_pod NAME: bottom-up, as a runtime tears a pod down; each path noted once it is gone
rm_pod() {
	for d in "$1/ctr2/sub" "$1/ctr2" "$1/ctr1" "$1"; do
		rmdir "$TOP/$d" || fail "cannot remove $TOP/$d"
		[ "$2" = same ] || echo "$TREL/$d $(now_ceil)" >>"$REMOVED"
	done
}
for p in 1 2 3; do mk_pod "pod$p"; done
mk_pod samepod
# renames within a parent: cgroupfs v1 allows them (kernfs); skip that part where it does not
can_rename=0
mkdir "$TOP/rn-a"
if mv "$TOP/rn-a" "$TOP/rn-b" 2>/dev/null; then
	can_rename=1
	rmdir "$TOP/rn-b"
else
	rmdir "$TOP/rn-a"
fi

record_start "$TREL" -d 100ms
start=$(date +%s)
n=0 pods=3 renames=0
while [ $(($(date +%s) - start)) -lt $CHURN_S ]; do
	n=$((n + 1))
	kill -0 "$REC" 2>/dev/null || fail "record exited during the churn: $(cat "$MCG_TMP/rec.err")"
	# a leaf that held a process (reaped), removed; a new one under a new name
	s=s$((n % 3 + 1))
	leaf=$(first "$TOP/$s"/c[0-9]*)
	[ -d "$TOP/$s/$leaf" ] || fail "no leaf left in $TOP/$s"
	run_in "$TOP/$s/$leaf" true || fail "cannot run a child in $TOP/$s/$leaf"
	rmdir "$TOP/$s/$leaf" || fail "cannot remove $TOP/$s/$leaf"
	echo "$TREL/$s/$leaf $(now_ceil)" >>"$REMOVED"
	seq_no=$((seq_no + 1))
	mkdir "$TOP/$s/c$seq_no"
	# every third round a pod replaced whole under a new name, and samepod under its own
	if [ $((n % 3)) = 0 ]; then
		old=$(first "$TOP"/pod*)
		rm_pod "$old" new
		pods=$((pods + 1))
		mk_pod "pod$pods"
		rm_pod samepod same
		mk_pod samepod
	fi
	if [ $can_rename = 1 ] && [ $((n % 4)) = 0 ]; then
		leaf=$(first "$TOP/$s"/c[0-9]*)
		[ "$leaf" != "c$seq_no" ] || leaf=$(second "$TOP/$s"/c[0-9]*)
		[ -d "$TOP/$s/$leaf" ] || fail "no leaf to rename in $TOP/$s"
		mv "$TOP/$s/$leaf" "$TOP/$s/r$seq_no" || fail "cannot rename $TOP/$s/$leaf"
		echo "$TREL/$s/$leaf $(now_ceil)" >>"$REMOVED"
		renames=$((renames + 1))
		# keep 20 leaves named c<number> in each parent however many rounds a fast host runs
		seq_no=$((seq_no + 1))
		mkdir "$TOP/$s/c$seq_no"
	fi
done
end=$(now_ceil)
ok "churned $n rounds: $(wc -l <"$REMOVED") cgroups removed or renamed away, $pods pods made, $renames renames"
# a frame of the top taken after the churn: it reads the tree as it now stands
frames_after "$TREL" "$end" 2 100
kill -TERM "$REC"
set +e
wait "$REC"
st=$?
set -e
assert_eq "record's exit status on SIGTERM" 0 "$st"
if grep -q 'cannot sample' "$MCG_TMP/rec.err"; then
	fail "samples failed during the churn: $(grep -c 'cannot sample' "$MCG_TMP/rec.err") of them: $(head -n 3 "$MCG_TMP/rec.err")"
fi
ok "no failed sample"

"$MEMCGCTL" dump --store "$STORE" --csv "$TREL" >"$MCG_TMP/dump.csv" ||
	fail "dump failed: $(head -n 3 "$MCG_TMP/dump.csv")"
# the frames: "MS PATH", one a line (rows of samples, not events)
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["event"] == "" { print substr($1, 1, length($1) - 6), $col["cgroup"] }' \
	"$MCG_TMP/dump.csv" >"$MCG_TMP/frames"
nframes=$(awk -v t="$TREL" '$2 == t { n++ } END { print n + 0 }' "$MCG_TMP/frames")
[ "$nframes" -gt 2 ] || fail "only $nframes frames of $TREL"
ok "$nframes frames of the top"
# no removed cgroup in a frame that started after its removal
late=$(awk 'NR == FNR { gone[$1] = $2; next } ($2 in gone) && $1 + 0 > gone[$2] + 0 { print $2 " at " $1 " (removed by " gone[$2] ")" }' \
	"$REMOVED" "$MCG_TMP/frames" | head -n 3)
[ -z "$late" ] || fail "removed cgroups still in later frames: $late"
# and each one was seen before it went (the rows are those of real cgroups)
seen=$(awk 'NR == FNR { f[$2] = 1; next } $1 in f { n++ } END { print n + 0 }' "$MCG_TMP/frames" "$REMOVED")
[ "$seen" -gt 0 ] || fail "no removed cgroup was ever in a frame"
ok "removed cgroups vanish ($seen of $(wc -l <"$REMOVED") were seen before they went)"
# the last frame: exactly the cgroups the kernel has now, new ones included
last=$(awk -v t="$TREL" '$2 == t { m = $1 } END { print m }' "$MCG_TMP/frames")
awk -v m="$last" '$1 == m { print $2 }' "$MCG_TMP/frames" | sort >"$MCG_TMP/last"
find "$TOP" -type d | sed "s|^$MCG_CGROOT||" | sort >"$MCG_TMP/kernel"
if ! cmp -s "$MCG_TMP/last" "$MCG_TMP/kernel"; then
	fail "the last frame is not the kernel's tree: $(diff "$MCG_TMP/kernel" "$MCG_TMP/last" | head -n 6)"
fi
assert_eq "pod$pods in the last frame" 1 "$(grep -cx "$TREL/pod$pods/ctr2/sub" "$MCG_TMP/last")"
assert_eq "leaf c$seq_no in the last frame" 1 "$(grep -c "^$TREL/s[123]/c$seq_no\$" "$MCG_TMP/last")"
ok "the last frame holds the kernel's $(wc -l <"$MCG_TMP/kernel") cgroups"
