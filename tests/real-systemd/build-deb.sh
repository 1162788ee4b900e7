#!/bin/sh
# build-deb.sh: build memcgctl's .deb (debian/, dpkg-buildpackage) from a copy of the source
# tree (the files git tracks and the untracked ones it does not ignore, as the build sees
# them; never the build directories) into OUTDIR, and print the .deb's path.
# Usage: build-deb.sh SRC OUTDIR
# A .deb OUTDIR holds from the same files (their names, sizes and times) is reused, and runs
# side by side build once (flock on OUTDIR/.lock): the deb and deb-upgrade groups each want it.
# Exit: 0 built or reused, 77 dpkg-buildpackage or debhelper missing, else the build's status.
set -eu
src=$1 out=$2
command -v dpkg-buildpackage >/dev/null 2>&1 && command -v dh >/dev/null 2>&1 || {
	echo "build-deb: SKIP: dpkg-buildpackage or debhelper not installed" >&2
	exit 77
}
version=$(sed -n '1s/^memcgctl (\([^)]*\)).*/\1/p' "$src/debian/changelog")
mkdir -p "$out"
if [ -z "${MCG_BUILD_DEB_LOCKED:-}" ] && command -v flock >/dev/null 2>&1; then
	MCG_BUILD_DEB_LOCKED=1 exec flock "$out/.lock" sh "$0" "$@"
fi
files() {
	if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$src" ls-files -z --cached --others --exclude-standard
	else
		(cd "$src" && find . \( -path './build*' -o -path ./.git \) -prune -o -type f -print0)
	fi
}
key=$(files | (cd "$src" && xargs -0 stat -c '%n %s %Y' 2>/dev/null) | cksum | cut -d' ' -f1)
set -- "$out"/memcgctl_"${version}"_*.deb
if [ -f "$1" ] && [ "$(cat "$out/.key" 2>/dev/null)" = "$key" ]; then
	echo "$1"
	exit 0
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/memcgctl-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/memcgctl-$version
mkdir -p "$tree"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	files | (cd "$src" && xargs -0 cp --parents -P -t "$tree" 2>/dev/null || true)
else
	(cd "$src" && tar --exclude='./build*' --exclude=./.git -cf - .) | (cd "$tree" && tar -xf -)
fi
(cd "$tree" && dpkg-buildpackage -us -uc -b -j2) >"$out/build-deb.log" 2>&1 || {
	tail -n 30 "$out/build-deb.log" >&2
	exit 1
}
rm -f "$out"/memcgctl_*.deb "$out/.key"
cp "$work"/memcgctl_"${version}"_*.deb "$out/"
echo "$key" >"$out/.key"
ls "$out"/memcgctl_"${version}"_*.deb
