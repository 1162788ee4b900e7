#!/bin/sh
# fuzz/build.sh: build the libFuzzer targets (fuzz/fuzz_*.c) with clang into OUTDIR.
#
#   sh fuzz/build.sh OUTDIR [TARGET...]
#
# Every lib/*.c is compiled once into OUTDIR/obj (again only when it, a header or
# the flags changed); each target links those objects. clang only: the CMake
# build is gcc, and libFuzzer needs clang. Exit 77 when clang is missing.
set -eu

src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: fuzz/build.sh OUTDIR [TARGET...]}
shift
CC=${FUZZ_CC:-clang}

if ! command -v "$CC" >/dev/null 2>&1; then
	echo "fuzz/build.sh: $CC not found (install clang)" >&2
	exit 77
fi

mkdir -p "$out/obj"
out=$(cd "$out" && pwd)

# one builder at a time per output directory (ctest -j, scripts/fuzz.sh)
exec 9>"$out/.build.lock"
flock 9

pkgs="libnl-3.0 libnl-genl-3.0 libzstd"
# libsystemd: headers only (lib/systemd/sd-dl.c loads it with dlopen())
pc_cflags=$(pkg-config --cflags $pkgs libsystemd)
pc_libs=$(pkg-config --libs $pkgs)
warn="-Wall -Wextra -Wformat=2 -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wpointer-arith \
-Wwrite-strings -Wundef -Wvla -Wimplicit-fallthrough -Wno-unused-parameter"
cflags="-std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
-fno-sanitize-recover=all -D_GNU_SOURCE -DMEMCG_VERSION=\"fuzz\" -I$src/lib -I$src/lib/include \
$pc_cflags $warn"
ldflags="-fsanitize=fuzzer,address,undefined"

# flags or compiler changed: rebuild everything
stamp="$out/obj/.flags"
want="$($CC --version | head -n 1) $cflags"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
	rm -f "$out"/obj/*.o
	printf '%s' "$want" >"$stamp"
fi

# newest header: every object depends on all of them (there are few)
newest_h=$(ls -t "$src"/lib/*/*.h "$src"/lib/include/*.h "$src"/lib/include/memcg/*.h | head -n 1)

stale() { # stale OBJ SRC...: OBJ missing or older than a source
	[ -f "$1" ] || return 0
	o=$1
	shift
	for s in "$@"; do
		[ "$s" -nt "$o" ] && return 0
	done
	return 1
}

# a small job pool: NPROC compilers at a time, a failure remembered in $out/.failed
max=$(nproc 2>/dev/null || echo 2)
njobs=0
rm -f "$out/.failed"
bg() { # bg OUTPUT CMD...: run CMD writing OUTPUT.tmp, then move it in place
	o=$1
	shift
	("$@" -o "$o.tmp" && mv "$o.tmp" "$o" || touch "$out/.failed") &
	njobs=$((njobs + 1))
	if [ "$njobs" -ge "$max" ]; then
		wait
		njobs=0
	fi
}
finish() {
	wait
	njobs=0
	if [ -f "$out/.failed" ]; then
		rm -f "$out/.failed"
		echo "fuzz/build.sh: build failed" >&2
		exit 1
	fi
}

objs=
for c in "$src"/lib/*/*.c; do
	o="$out/obj/$(basename "$c" .c).o"
	if stale "$o" "$c" "$newest_h"; then
		echo "  CC  ${c#"$src"/}"
		# shellcheck disable=SC2086
		bg "$o" $CC $cflags -c "$c"
	fi
	objs="$objs $o"
done
finish
# objects of library files that were removed
for o in "$out"/obj/*.o; do
	ls "$src"/lib/*/"$(basename "$o" .o).c" >/dev/null 2>&1 || rm -f "$o"
done

if [ $# -eq 0 ]; then
	set --
	for t in "$src"/fuzz/fuzz_*.c; do
		set -- "$@" "$(basename "$t" .c | sed 's/^fuzz_//')"
	done
fi

for t in "$@"; do
	tsrc="$src/fuzz/fuzz_$t.c"
	bin="$out/fuzz_$t"
	[ -f "$tsrc" ] || {
		echo "fuzz/build.sh: no target $tsrc" >&2
		exit 1
	}
	# shellcheck disable=SC2086
	if stale "$bin" "$tsrc" "$src/fuzz/fuzz.h" $objs; then
		echo "  LD  fuzz_$t"
		# shellcheck disable=SC2086
		bg "$bin" $CC $cflags $ldflags "$tsrc" $objs $pc_libs -lm
	fi
done

# the seed generator of fuzz/mkcorpus.sh (the library's writers, no libFuzzer main)
if [ -f "$src/fuzz/seedgen.c" ]; then
	# shellcheck disable=SC2086
	if stale "$out/seedgen" "$src/fuzz/seedgen.c" "$src/fuzz/fuzz.h" $objs; then
		echo "  LD  seedgen"
		# shellcheck disable=SC2086
		bg "$out/seedgen" $CC $cflags -fsanitize=address,undefined "$src/fuzz/seedgen.c" \
			$objs $pc_libs -lm
	fi
fi
finish
