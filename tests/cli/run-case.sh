#!/bin/sh
# run-case.sh: run memcgctl on a copy of a fixture tree and compare stdout, stderr and the
# exit status with the case's expected files. MCG_UPDATE=1 rewrites the expected files.
# A case is NAME.cmd (one line of arguments; @FIX@ is the copied fixtures directory),
# NAME.out, NAME.err, NAME.status, and optionally NAME.files (a list of fixture files
# whose content after the run must equal NAME.files.d/<path>) and NAME.env (VAR=VALUE
# lines exported for the run, e.g. COLUMNS=60). The C locale is exported (ASCII tree
# art and \xHH for non-ASCII names in tables); "timestamp_ns":N prints as @TS@, and the
# measured interval of top -b's later samples as @IV@.
# usage: run-case.sh MEMCGCTL CASE.cmd FIXTURES
set -eu
bin=$1 case=$2 fixtures=$3
dir=${case%.cmd}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -a "$fixtures" "$tmp/fix"
args=$(sed "s|@FIX@|$tmp/fix|g" "$case")
set +e
# shellcheck disable=SC2086
# (assignments before eval are not exported by every sh: LC_ALL is exported here)
envf=
[ -f "$dir.env" ] && envf=$(realpath "$dir.env")
( cd "$tmp" && export LC_ALL=C && if [ -n "$envf" ]; then set -a; . "$envf"; set +a; fi &&
	MEMCGCTL_RUNDIR="$tmp/run" eval "\"$bin\" $args" ) \
	>"$tmp/out" 2>"$tmp/err" </dev/null
status=$?
set -e
echo "$status" >"$tmp/status"
# a later sample's interval is the time measured between samples, which a loaded machine
# stretches (top -b -d 0.1 printed 0.2s): @IV@; the first sample's 0.0s stays checked
sed -i -e "s|$tmp/fix|@FIX@|g" -e 's/"timestamp_ns":[0-9]*/"timestamp_ns":@TS@/g' \
	-e '/, sample [2-9][0-9]*, /s/, interval [0-9.]*s$/, interval @IV@/' "$tmp/out" "$tmp/err"
if [ "${MCG_UPDATE:-0}" = 1 ]; then
	cp "$tmp/out" "$dir.out"
	cp "$tmp/err" "$dir.err"
	cp "$tmp/status" "$dir.status"
	echo "updated $dir"
	exit 0
fi
rc=0
for s in out err status; do
	if ! diff -u "$dir.$s" "$tmp/$s"; then
		echo "cli case $(basename "$dir"): $s differs" >&2
		rc=1
	fi
done
if [ -f "$dir.files" ]; then
	while read -r f; do
		diff -u "$dir.files.d/$f" "$tmp/fix/$f" || { echo "file $f differs" >&2; rc=1; }
	done <"$dir.files"
fi
exit $rc
