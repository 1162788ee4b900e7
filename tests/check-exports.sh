#!/bin/sh
# check-exports.sh: the public header, the version script and the shared library's
# dynamic symbols must name the same functions. With --write, regenerate the map.
# usage: check-exports.sh SRCDIR [LIBMEMCG.so] | --write SRCDIR
set -eu
write=0
if [ "${1:-}" = "--write" ]; then write=1; shift; fi
src=$1
so=${2:-}
header_syms() {
	cat "$src/lib/include/memcg.h" "$src"/lib/include/memcg/*.h | grep -v '^#define' | tr '\n' ' ' | grep -o 'MCG_EXPORT[^(;]*(' |
		sed -E 's/.*[ *]([a-z0-9_]+)[ ]*\($/\1/' | sort -u
}
map_syms() {
	sed -n '/^global:/,/^local:/p' "$src/lib/libmemcg.map" | grep -E '^\s+[a-z0-9_]+;' | tr -d ' \t;' | sort -u
}
if [ $write = 1 ]; then
	{
		echo "/* libmemcg.map: the symbols libmemcg exports; tests/check-exports.sh keeps it equal to memcg.h. */"
		echo "MEMCG_0 {"
		echo "global:"
		header_syms | sed 's/^/\t/;s/$/;/'
		echo "local:"
		printf '\t*;\n'
		echo "};"
	} >"$src/lib/libmemcg.map"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
header_syms >"$tmp/h"
map_syms >"$tmp/m"
status=0
if ! diff -u "$tmp/h" "$tmp/m" >"$tmp/d1"; then
	echo "check-exports: lib/libmemcg.map differs from MCG_EXPORT in memcg.h (run tests/check-exports.sh --write .):"
	cat "$tmp/d1"
	status=1
fi
if [ -n "$so" ]; then
	nm -D --defined-only "$so" | awk '$2 == "T" { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/s"
	if ! diff -u "$tmp/h" "$tmp/s" >"$tmp/d2"; then
		echo "check-exports: $so exports differ from memcg.h:"
		cat "$tmp/d2"
		status=1
	fi
fi
[ $status = 0 ] && echo "check-exports: $(wc -l <"$tmp/h") symbols agree"
exit $status
