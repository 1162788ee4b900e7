#!/bin/sh
# build-deb.sh: build memcgctl's .deb (debian/, dpkg-buildpackage) from a copy of the source
# tree (the files git tracks and the untracked ones it does not ignore, as the build sees
# them; never the build directories) into OUTDIR, and print the .deb's path.
# Usage: build-deb.sh SRC OUTDIR
# Exit: 0 built, 77 dpkg-buildpackage or debhelper missing, else the build's status.
set -eu
src=$1 out=$2
command -v dpkg-buildpackage >/dev/null 2>&1 && command -v dh >/dev/null 2>&1 || {
	echo "build-deb: SKIP: dpkg-buildpackage or debhelper not installed" >&2
	exit 77
}
version=$(sed -n '1s/^memcgctl (\([^)]*\)).*/\1/p' "$src/debian/changelog")
work=$(mktemp -d "${TMPDIR:-/tmp}/memcgctl-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
tree=$work/memcgctl-$version
mkdir -p "$tree" "$out"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$src" ls-files -z --cached --others --exclude-standard |
		(cd "$src" && xargs -0 cp --parents -P -t "$tree" 2>/dev/null || true)
else
	(cd "$src" && tar --exclude='./build*' --exclude=./.git -cf - .) | (cd "$tree" && tar -xf -)
fi
(cd "$tree" && dpkg-buildpackage -us -uc -b -j2) >"$out/build-deb.log" 2>&1 || {
	tail -n 30 "$out/build-deb.log" >&2
	exit 1
}
rm -f "$out"/memcgctl_*.deb
cp "$work"/memcgctl_"${version}"_*.deb "$out/"
ls "$out"/memcgctl_"${version}"_*.deb
