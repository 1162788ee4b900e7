#!/bin/bash
# completion.sh: the bash, zsh and fish completions over cgroup names that are shell syntax:
# $(...), backticks, ';', spaces, newlines, globs (* ? [), terminal escapes, invalid UTF-8.
# Each shell's real completion function is driven without a terminal (bash: COMP_WORDS /
# COMP_CWORD; zsh: a compadd stub records what it is given; fish: complete -C --escape).
# Asserts the exact candidates (one per cgroup, a name with a newline is one candidate),
# that inserting a candidate gives back the name, and that no canary file appeared.
# usage: completion.sh MEMCGCTL SRCDIR
set -u
bin=$(realpath "$1") src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fails=0 checks=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}
# same LABEL GOT EXPECTED: two files of NUL-terminated candidates, compared as sets
same() {
	checks=$((checks + 1))
	if ! cmp -s <(LC_ALL=C sort -z "$2") <(LC_ALL=C sort -z "$3"); then
		fail "$1: candidates differ (< got, > expected)"
		diff <(LC_ALL=C sort -z "$2" | tr '\0' '\n' | cat -v | cut -c1-100) \
			<(LC_ALL=C sort -z "$3" | tr '\0' '\n' | cat -v | cut -c1-100) | head -10 >&2
	fi
}
count() { tr -cd '\0' <"$1" | wc -c; }
canaries() { # LABEL
	local c
	checks=$((checks + 1))
	for c in pwned pwned-bt pwned-semi; do
		[ -e "$tmp/$c" ] && { fail "$1: canary $c created: a cgroup name was executed"; rm -f "$tmp/$c"; }
	done
}

cp -a "$src/tests/cli/fixtures/v1" "$tmp/v1"
root="$tmp/v1/cgroup"
bash "$src/tests/cli/hostile/mk-hostile.sh" "$root" "$root/fixture/app" "$tmp/manifest" || exit 1
# files a glob in a name could expand to, if a completion globbed
touch "$tmp/star-glob-bait" "$tmp/q1" "$tmp/a"
# every cgroup the completion offers (the walk goes 6 levels deep), NUL-terminated, raw
(cd "$root" && find . -maxdepth 6 -type d -print0 | sed -z 's|^\.||; s|^$|/|') >"$tmp/all.z"

# ---- bash ----
bash_complete() { # CUR: prints COMPREPLY NUL-terminated
	bash -c '
		. "$1/completions/memcgctl.bash"
		PATH="$(dirname "$2"):$PATH"
		COMP_WORDS=(memcgctl --root "$3" show "$4")
		COMP_CWORD=4
		_memcgctl
		printf "%s\0" "${COMPREPLY[@]}"
	' _ "$src" "$bin" "$root" "$1"
}
bash_quote() { # NUL list in, %q NUL list out; PREFIX filter on the raw names
	bash -c 'mapfile -d "" -t a; for x in "${a[@]}"; do [[ $x == "$1"* ]] && printf "%q\0" "$x"; done' _ "$1"
}
bash_quote "" <"$tmp/all.z" >"$tmp/want.z"
bash_complete "" >"$tmp/got.z"
same "bash: show <TAB>" "$tmp/got.z" "$tmp/want.z"
n=$(count "$tmp/got.z")
canaries "bash: show <TAB>"
for prefix in '/h/$' '/h/`' '/h/a;' '/h/with' $'/h/line1' '/h/star' '/h/q' '/h/[' $'/h/\e]52'; do
	bash_quote "$prefix" <"$tmp/all.z" >"$tmp/want.z"
	bash_complete "$prefix" >"$tmp/got.z"
	same "bash: show $(printf %q "$prefix")<TAB>" "$tmp/got.z" "$tmp/want.z"
	[ -s "$tmp/want.z" ] || fail "bash: the prefix $(printf %q "$prefix") matches nothing (test error)"
	canaries "bash: show $prefix<TAB>"
done
# what bash inserts, read back by the shell, is the name itself
checks=$((checks + 1))
bash_complete "" | bash -c '
	mapfile -d "" -t c
	bad=0
	for x in "${c[@]}"; do
		eval "v=$x"   # what running the completed line does with the word
		[ -d "$1$v" ] || { printf "not a cgroup after insertion: %q\n" "$v"; bad=1; }
	done
	exit $bad' _ "$root" || fail "bash: an inserted candidate does not name its cgroup"
canaries "bash: insertion"
echo "bash: $n candidates for 'show <TAB>'"
# an option whose value is a cgroup (reclaimd --size CGROUP, --size=CGROUP): the same names,
# quoted the same way
bash_complete_size() { # CUR [=]
	bash -c '
		. "$1/completions/memcgctl.bash"
		PATH="$(dirname "$2"):$PATH"
		if [ -n "$5" ]; then COMP_WORDS=(memcgctl --root "$3" reclaimd --size = "$4"); COMP_CWORD=6
		else COMP_WORDS=(memcgctl --root "$3" reclaimd --size "$4"); COMP_CWORD=5; fi
		_memcgctl
		printf "%s\0" "${COMPREPLY[@]}"
	' _ "$src" "$bin" "$root" "$1" "${2:-}"
}
for prefix in '' '/h/$' '/h/`' $'/h/line1' '/h/star'; do
	bash_quote "$prefix" <"$tmp/all.z" >"$tmp/want.z"
	bash_complete_size "$prefix" >"$tmp/got.z"
	same "bash: reclaimd --size $(printf %q "$prefix")<TAB>" "$tmp/got.z" "$tmp/want.z"
	bash_complete_size "$prefix" = >"$tmp/got.z"
	same "bash: reclaimd --size=$(printf %q "$prefix")<TAB>" "$tmp/got.z" "$tmp/want.z"
	canaries "bash: reclaimd --size $prefix<TAB>"
done

# ---- zsh ----
if command -v zsh >/dev/null; then
	zsh_complete() { # CUR
		zsh -f -c '
			compadd() { while (( $# )) && [[ $1 != -- ]]; do shift; done; shift; printf "%s\0" "$@"; }
			PATH="${2:h}:$PATH"
			words=(memcgctl --root $3 show "$4")
			CURRENT=5
			source $1/completions/memcgctl.zsh
		' _ "$src" "$bin" "$root" "$1"
	}
	zsh_complete "" >"$tmp/got.z"
	same "zsh: show <TAB>" "$tmp/got.z" "$tmp/all.z"
	canaries "zsh: show <TAB>"
	for w in --size --size=; do # reclaimd --size CGROUP, --size=CGROUP
		zsh -f -c '
			compadd() { while (( $# )) && [[ $1 != -- ]]; do shift; done; shift; printf "%s\0" "$@"; }
			compset() { return 0; }
			PATH="${2:h}:$PATH"
			if [[ $4 == *= ]]; then words=(memcgctl --root $3 reclaimd $4); CURRENT=5
			else words=(memcgctl --root $3 reclaimd $4 ""); CURRENT=6; fi
			source $1/completions/memcgctl.zsh
		' _ "$src" "$bin" "$root" "$w" >"$tmp/got.z"
		same "zsh: reclaimd $w<TAB>" "$tmp/got.z" "$tmp/all.z"
		canaries "zsh: reclaimd $w<TAB>"
	done
	echo "zsh: $(count "$tmp/got.z") candidates handed to compadd"
else
	echo "zsh: not installed, skipped"
fi

# ---- fish ----
if command -v fish >/dev/null; then
	# --escape: each candidate as fish inserts it, one per line (a newline is written \n)
	PATH="$(dirname "$bin"):$PATH" fish -c "source '$src/completions/memcgctl.fish'
		complete --escape -C 'memcgctl --root $root show '" | tr '\n' '\0' |
		sed -z 's/\t.*//' >"$tmp/got.z" # (a tab starts the description)
	# (a tab starts the description in fish's completion protocol: such a name is offered up to
	# its tab; a known fish limit, no code runs)
	fish -c 'for p in (string split0 < $argv[1])
			string escape --no-quoted -- (string split -m1 \t -- $p)[1]
		end' \
		"$tmp/all.z" | tr '\n' '\0' >"$tmp/want.z"
	same "fish: show <TAB>" "$tmp/got.z" "$tmp/want.z"
	canaries "fish: show <TAB>"
	# reclaimd --size CGROUP: the same candidates; --size=CGROUP: each after "--size="
	PATH="$(dirname "$bin"):$PATH" fish -c "source '$src/completions/memcgctl.fish'
		complete --escape -C 'memcgctl --root $root reclaimd --size '" | tr '\n' '\0' |
		sed -z 's/\t.*//' >"$tmp/got.z"
	same "fish: reclaimd --size <TAB>" "$tmp/got.z" "$tmp/want.z"
	PATH="$(dirname "$bin"):$PATH" fish -c "source '$src/completions/memcgctl.fish'
		complete --escape -C 'memcgctl --root $root reclaimd --size='" | tr '\n' '\0' |
		sed -z 's/\t.*//' >"$tmp/got.z"
	sed -z 's/^/--size=/' "$tmp/want.z" >"$tmp/want-eq.z"
	same "fish: reclaimd --size=<TAB>" "$tmp/got.z" "$tmp/want-eq.z"
	canaries "fish: reclaimd --size<TAB>"
	echo "fish: $(count "$tmp/got.z") candidates"
else
	echo "fish: not installed, skipped"
fi

echo "completion: $checks checks, $fails failures"
[ "$fails" = 0 ]
