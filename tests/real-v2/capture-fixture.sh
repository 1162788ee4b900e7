#!/bin/sh
# capture-fixture.sh: boot the real-v2 guest and capture the cli tier's v2 fixture tree from
# a real cgroup v2 kernel (tests/cli/mk-fixture.sh: a parent with a limit, children with
# page cache and anon), into tests/cli/fixtures/v2-guest/ (or OUTDIR).
# usage: capture-fixture.sh [--build DIR] [OUTDIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$src/build
if [ "${1:-}" = --build ]; then
	build=$2
	shift 2
fi
out=${1:-$src/tests/cli/fixtures/v2-guest}
[ -x "$build/tests/real/mcg-load" ] || { echo "capture-fixture: build mcg-load first" >&2; exit 1; }

results=$(mktemp -d "${TMPDIR:-/tmp}/memcgctl-v2-capture.XXXXXX")
trap 'rm -rf "$results"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP
MCG_V2_VERBOSE=1 sh "$here/run-guest.sh" --build "$build" --src "$src" --results "$results/r" \
	"$here/capture-fixture.guest.sh"
art=$results/r/s/capture-fixture.guest/artifacts
[ -d "$art/fixture/cgroup" ] || { echo "capture-fixture: the guest returned no fixture" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
cp -R "$art/fixture/." "$out/"
cp "$art/SOURCE" "$out/SOURCE"
echo "capture-fixture: wrote $out ($(find "$out" -type f | wc -l) files)"
