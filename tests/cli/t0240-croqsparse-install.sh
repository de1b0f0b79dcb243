#!/usr/bin/env bash
# libcroqsparse installs and is found: `cmake --install` into a temporary prefix puts the
# header, the static and shared library, the pkg-config file and the CMake package config
# in place, and examples/croqsparse_example.c builds against them through find_package
# and through pkg-config (build only: running it needs a GPU, tests/gpu/library.sh).
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
build=$(cd "$CROQ_BIN/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; fail "cmake --install"; }
for f in include/croqsparse.h lib/libcroqsparse.a lib/libcroqsparse.so lib/pkgconfig/croqsparse.pc \
         lib/cmake/croqsparse/croqsparseConfig.cmake lib/cmake/croqsparse/croqsparseTargets.cmake; do
    [ -e "$prefix/$f" ] || fail "not installed: $f ($(cd "$prefix" && find . -type f | tr '\n' ' '))"
done
# The shared library exports the API and nothing else.
exported=$(nm -D --defined-only "$prefix/lib/libcroqsparse.so" | awk '{print $3}' | grep -v '^croqsparse_' | grep -v '^_' || true)
[ -z "$exported" ] || fail "the shared library exports non-API symbols: $exported"
nm -D --defined-only "$prefix/lib/libcroqsparse.so" | grep -q ' T croqsparse_matmul$' || fail "croqsparse_matmul not exported"

cmake -S "$CROQ_SOURCE_DIR/examples" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/ex.log" 2>&1 &&
    cmake --build "$tmp/ex" >> "$tmp/ex.log" 2>&1 || { cat "$tmp/ex.log" >&2; fail "find_package build"; }
[ -x "$tmp/ex/croqsparse_example" ] || fail "find_package: no binary"
readelf -d "$tmp/ex/croqsparse_example" | grep -q 'libcroqsparse.so.1' || fail "find_package binary does not link libcroqsparse"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs croqsparse) || fail "pkg-config does not know croqsparse"
# one version for the tool and the library it ships
[ "$(pkg-config --modversion croqsparse)" = "$("$CROQ_BIN/croqtuner" --version | awk 'NR == 1 { print $2 }')" ] ||
    fail "pkg-config version $(pkg-config --modversion croqsparse) is not croqtuner's"
cc -std=c11 -Wall -Werror "$CROQ_SOURCE_DIR/examples/croqsparse_example.c" $flags -o "$tmp/ex-pc" 2> "$tmp/pc.log" ||
    { cat "$tmp/pc.log" >&2; fail "pkg-config build ($flags)"; }
readelf -d "$tmp/ex-pc" | grep -q 'libcroqsparse.so.1' || fail "pkg-config binary does not link libcroqsparse"
# The static library links too (with its private dependencies).
cc -std=c11 "$CROQ_SOURCE_DIR/examples/croqsparse_example.c" $(pkg-config --cflags croqsparse) \
    "$prefix/lib/libcroqsparse.a" $(pkg-config --libs-only-L croqsparse | sed 's/-L[^ ]*prefix[^ ]*lib //') -lcuda -lpthread -lm \
    -o "$tmp/ex-static" 2> "$tmp/static.log" || { cat "$tmp/static.log" >&2; fail "static link"; }
readelf -d "$tmp/ex-static" | grep -q 'libcroqsparse' && fail "static binary still needs the shared library"
echo "ok: installed to a prefix; the example builds through find_package, pkg-config and the static library"
