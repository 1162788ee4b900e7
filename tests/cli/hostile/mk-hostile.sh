#!/bin/bash
# mk-hostile.sh: the hostile-name corpus. Copies the control files of one fixture cgroup
# under names an unprivileged owner of a delegated subtree could choose: terminal escapes
# (OSC 52 clipboard, OSC 0 title, clear screen), C0/C1 controls, bidi controls, DEL, invalid UTF-8,
# shell syntax ($(...), backticks, ;), newlines, globs, quotes, leading dots and dashes,
# printf formats, 255-byte names, and a chain of 19 nested 250-byte names (a path of
# 4774 bytes, past PATH_MAX). Generated at test time: git holds such names badly.
# usage: mk-hostile.sh ROOT TEMPLATE_CGROUP_DIR MANIFEST
#   creates ROOT/h/<name> for every name (and ROOT/deep/...), and writes every created
#   cgroup path (relative to ROOT, "/h/...") NUL-terminated to MANIFEST.
set -eu
root=$(realpath "$1") tmpl=$(realpath "$2") manifest=$(realpath "$3")
: >"$manifest"
files=()
for f in "$tmpl"/*; do
	[ -f "$f" ] && [ ! -L "$f" ] && files+=("$f")
done

mkcg() { # PATH relative to root
	mkdir "$root$1"
	cp -p "${files[@]}" "$root$1/"
	printf '%s\0' "$1" >>"$manifest"
}

long=$(printf 'x%.0s' $(seq 255))
# 85 three-byte characters: 255 bytes of valid UTF-8
long_utf8=$(printf '\xe5\x90\x8d%.0s' $(seq 85))

names=(
	'$(touch pwned)'
	'`touch pwned-bt`'
	'a;touch pwned-semi'
	'with space'
	$'line1\nline2'
	$'\nleading-newline'
	'star*'
	'q?'
	'[ab]'
	$'\e]52;c;aGVsbG8K\a'
	$'\e]0;pwned-title\a'
	$'\e[2J\e[H'
	$'\e[31mred\e[0m'
	$'ctl\x01\x02\x07\x08\x0b\x0c\x0d'
	$'tab\there'
	$'del\x7f'
	$'c1-utf8-\xc2\x9b2J'
	$'c1-raw-\x9b2J'
	$'bidi\xe2\x80\xaeexe.txt'
	$'isolate\xe2\x81\xa6rlm\xe2\x80\x8falm\xd8\x9c'
	$'bad-\xff\xfe'
	$'overlong-\xc0\xaf'
	$'truncated-\xe2\x82'
	$'surrogate-\xed\xa0\x80'
	'ünïcødé-名前'
	'.hidden'
	'..dotdot'
	'...'
	'-rf'
	'--help'
	'back\slash'
	"it's \"quoted\""
	'100%s%n%d'
	"$long"
	"$long_utf8"
)
mkdir -p "$root/h"
cp -p "${files[@]}" "$root/h/"
printf '%s\0' /h >>"$manifest"
for n in "${names[@]}"; do
	mkcg "/h/$n"
done
# hostile names nested under hostile names
mkcg $'/h/$(touch pwned)/\e]52;c;aGVsbG8K\a'
mkcg $'/h/line1\nline2/.hidden'
# 19 nested 250-byte names: a path past PATH_MAX
# (made one level at a time from inside the parent: mkdir of the whole path is ENAMETOOLONG)
p=/deep
mkcg "$p"
(
	cd "$root/deep"
	for i in $(seq -w 1 19); do
		n="d$i$(printf 'y%.0s' $(seq 247))"
		mkdir "$n"
		cd "$n"
		cp -p "${files[@]}" .
		p="$p/$n"
		printf '%s\0' "$p" >>"$manifest"
	done
)
