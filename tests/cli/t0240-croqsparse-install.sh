#!/usr/bin/env bash
# libcroqsparse installs and is found: `cmake --install` into a temporary prefix puts the
# header, the static and shared library, the pkg-config file and the CMake package config
# in place, and examples/croqsparse_example.c builds against them through find_package
# (shared and croqsparse_static), pkg-config and the static archive. None of these programs needs libcuda to start (the
# library loads the driver in croqsparse_create; issue 24 item 10): each runs and exits 2
# with NO_DEVICE and the reason, with the toolkit's stub as libcuda.so.1 (any machine)
# and, on a machine without a driver, with no libcuda.so.1 at all (before the fix: rc 127,
# "error while loading shared libraries: libcuda.so.1"). The host functions work without
# a driver (tests/fixtures/croqsparse_host.c). Running the example on the GPU is
# tests/gpu/library.sh's part.
set -u
fail() { echo "FAIL: $*" >&2; exit 1; }
build=$(cd "$CROQ_BIN/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; fail "cmake --install"; }
for f in include/croqsparse.h lib/libcroqsparse.a lib/libcroqsparse.so lib/pkgconfig/croqsparse.pc \
         lib/cmake/croqsparse/croqsparseConfig.cmake lib/cmake/croqsparse/croqsparseConfigVersion.cmake \
         lib/cmake/croqsparse/croqsparseTargets.cmake; do
    [ -e "$prefix/$f" ] || fail "not installed: $f ($(cd "$prefix" && find . -type f | tr '\n' ' '))"
done
# The shared library exports the API and nothing else.
exported=$(nm -D --defined-only "$prefix/lib/libcroqsparse.so" | awk '{print $3}' | grep -v '^croqsparse_' | grep -v '^_' || true)
[ -z "$exported" ] || fail "the shared library exports non-API symbols: $exported"
nm -D --defined-only "$prefix/lib/libcroqsparse.so" | grep -q ' T croqsparse_matmul$' || fail "croqsparse_matmul not exported"
# It needs no driver to load: it dlopens libcuda.so.1 in croqsparse_create.
! readelf -d "$prefix/lib/libcroqsparse.so" | grep -q 'NEEDED.*libcuda' ||
    fail "libcroqsparse.so needs libcuda: $(readelf -d "$prefix/lib/libcroqsparse.so" | grep NEEDED | tr -s ' ')"

cmake -S "$CROQ_SOURCE_DIR/examples" -B "$tmp/ex" -DCMAKE_PREFIX_PATH="$prefix" > "$tmp/ex.log" 2>&1 &&
    cmake --build "$tmp/ex" >> "$tmp/ex.log" 2>&1 || { cat "$tmp/ex.log" >&2; fail "find_package build"; }
[ -x "$tmp/ex/croqsparse_example" ] || fail "find_package: no binary"
readelf -d "$tmp/ex/croqsparse_example" | grep -q 'libcroqsparse.so.1' || fail "find_package binary does not link libcroqsparse"
cmake -S "$CROQ_SOURCE_DIR/examples" -B "$tmp/ex-cs" -DCMAKE_PREFIX_PATH="$prefix" -DCROQSPARSE_EXAMPLE_STATIC=ON \
    > "$tmp/ex-cs.log" 2>&1 && cmake --build "$tmp/ex-cs" >> "$tmp/ex-cs.log" 2>&1 ||
    { cat "$tmp/ex-cs.log" >&2; fail "find_package build with croqsparse::croqsparse_static"; }
readelf -d "$tmp/ex-cs/croqsparse_example" | grep -q 'libcroqsparse' && fail "croqsparse_static binary needs the shared library"

# find_package with a version: the package's is the library's, its header's MAJOR.MINOR
# (as pkg-config's and the .so's, below; not croqtuner's own); a newer major is refused
hdr=$CROQ_SOURCE_DIR/include/croqsparse.h
version=$(awk '$1 == "#define" && $2 == "CROQSPARSE_VERSION_MAJOR" { ma = $3 }
               $1 == "#define" && $2 == "CROQSPARSE_VERSION_MINOR" { mi = $3 } END { print ma "." mi }' "$hdr")
case $version in [0-9]*.[0-9]*) ;; *) fail "no CROQSPARSE_VERSION_MAJOR/MINOR in $hdr: '$version'" ;; esac
[ -e "$prefix/lib/libcroqsparse.so.$version" ] || fail "no libcroqsparse.so.$version installed: $(ls "$prefix/lib")"
mkdir -p "$tmp/ver"
for want in "$version" 99; do
    printf 'cmake_minimum_required(VERSION 3.25)\nproject(v LANGUAGES C)\nfind_package(croqsparse %s REQUIRED)\n' "$want" \
        >"$tmp/ver/CMakeLists.txt"
    rm -rf "$tmp/ver/b"
    cmake -S "$tmp/ver" -B "$tmp/ver/b" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/ver.log" 2>&1; rc=$?
    if [ "$want" = 99 ]; then
        [ $rc -ne 0 ] && grep -q "version: $version" "$tmp/ver.log" || fail "find_package(croqsparse 99) was not refused: $(cat "$tmp/ver.log")"
    else
        [ $rc -eq 0 ] || fail "find_package(croqsparse $want): $(cat "$tmp/ver.log")"
    fi
done

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
flags=$(pkg-config --cflags --libs croqsparse) || fail "pkg-config does not know croqsparse"
# one version for the library, whoever asks
[ "$(pkg-config --modversion croqsparse)" = "$version" ] ||
    fail "pkg-config version $(pkg-config --modversion croqsparse) is not the header's $version"
pkg-config --atleast-version="$version" croqsparse || fail "pkg-config --atleast-version=$version croqsparse refused"
# The example's own buffers come from the static CUDA runtime (its first lines say how).
cudart="-L$(pkg-config --variable=cudalibdir croqsparse) -lcudart_static -ldl -lrt -lpthread"
libdir=$(pkg-config --variable=libdir croqsparse)
cc -std=c11 -Wall -Werror "$CROQ_SOURCE_DIR/examples/croqsparse_example.c" $flags -Wl,-rpath,"$libdir" $cudart \
    -o "$tmp/ex-pc" 2> "$tmp/pc.log" || { cat "$tmp/pc.log" >&2; fail "pkg-config build ($flags $cudart)"; }
readelf -d "$tmp/ex-pc" | grep -q 'libcroqsparse.so.1' || fail "pkg-config binary does not link libcroqsparse"
# The static library links too (with its private dependencies: docs/library.md's line).
cc -std=c11 "$CROQ_SOURCE_DIR/examples/croqsparse_example.c" $(pkg-config --cflags croqsparse) \
    $(pkg-config --libs-only-L croqsparse) -Wl,-Bstatic -lcroqsparse -Wl,-Bdynamic -lm -lpthread -ldl $cudart \
    -o "$tmp/ex-static" 2> "$tmp/static.log" || { cat "$tmp/static.log" >&2; fail "static link"; }
readelf -d "$tmp/ex-static" | grep -q 'libcroqsparse' && fail "static binary still needs the shared library"
# An application of the host functions alone (no CUDA runtime either).
cc -std=c11 -Wall -Werror "$CROQ_SOURCE_DIR/tests/fixtures/croqsparse_host.c" $flags -Wl,-rpath,"$libdir" \
    -o "$tmp/host" 2> "$tmp/host.log" || { cat "$tmp/host.log" >&2; fail "host program build"; }

programs=("$tmp/ex/croqsparse_example" "$tmp/ex-cs/croqsparse_example" "$tmp/ex-pc" "$tmp/ex-static" "$tmp/host")
# Nor does any program of it, through any of the link lines.
for b in "${programs[@]}"; do
    ! readelf -d "$b" | grep -q 'NEEDED.*libcuda' || fail "$b needs libcuda: $(readelf -d "$b" | grep NEEDED | tr -s ' ')"
done
# expect_no_device WHY ENV_ARGS...: each program, run under `env ENV_ARGS`, starts, exits
# 2 and prints NO_DEVICE's text with WHY (the host program after checking its values).
expect_no_device() {
    local why=$1 b out rc; shift
    for b in "${programs[@]}"; do
        out=$(env "$@" "$b" 2>&1); rc=$?
        [ "$rc" -eq 2 ] || fail "$(basename "$b") (env $*): exit $rc, want 2 (NO_DEVICE): $out"
        grep -qF "no usable device: croqsparse_create: $why" <<<"$out" ||
            fail "$(basename "$b") (env $*): no 'no usable device: croqsparse_create: $why' in: $out"
    done
}
# The toolkit's stub as libcuda.so.1 (the build's cuda-stub/): found first on any machine.
expect_no_device "cuInit(0): CUresult 34 (CUDA_ERROR_STUB_LIBRARY" LD_LIBRARY_PATH="$build/cuda-stub"
# No libcuda.so.1 at all, where the loader finds none: asked with the dlopen the library makes.
printf '#include <dlfcn.h>\nint main(void) { return !dlopen("libcuda.so.1", RTLD_NOW); }\n' > "$tmp/probe.c"
cc "$tmp/probe.c" -o "$tmp/probe" -ldl || fail "probe build"
if env -u LD_LIBRARY_PATH "$tmp/probe"; then
    echo "note: this machine has a libcuda.so.1, so the programs were not run without one"
else
    expect_no_device "cannot load the CUDA driver: libcuda.so.1: cannot open shared object file" -u LD_LIBRARY_PATH
    echo "without a driver: $(env -u LD_LIBRARY_PATH "$tmp/ex-pc" 2>&1)"
fi
echo "ok: installed to a prefix; the example builds through find_package, pkg-config and the static library, and starts without a driver (NO_DEVICE)"
