#!/usr/bin/env bash
# docs/layout.md matches the code (scripts/check-layout.py): every include between the
# modules' folders, and every symbol one module's object takes from another's (the
# build tree's object files), is an arrow layout.md declares, and each declared arrow
# is used. Then that the check fails where it should, on a copy of the tree: an
# undeclared include (named by file and line), a private header from another folder, a
# declared arrow nothing uses, a paragraph below a module it calls (and the one
# arrow against the order without its "below it"), and, on two object
# files compiled here, an undeclared call.
. "$(dirname "$0")/lib.sh"
set -u
src=$CROQ_SOURCE_DIR
check="$src/scripts/check-layout.py"
build=$(cd "$CROQ_BIN/.." && pwd)

out=$(python3 "$check" --root "$src" --build "$build" 2>&1) || fail "the tree does not match docs/layout.md:
$out"
# the listing names includes and calls both, with where they are
list=$(python3 "$check" --root "$src" --build "$build" --list) || fail "--list exited $?"
grep -q '^include lib -> pack  lib/internal.h:[0-9]*  "pack/pack.h"$' <<<"$list" || fail "--list lacks lib/internal.h's include of pack: $(head -3 <<<"$list")"
grep -q '^call runner -> launch  runner/[a-z_]*\.c  kl_' <<<"$list" || fail "--list lacks the runner's calls into launch"

# A copy to break: the sources the check reads and layout.md.
mkdir -p "$tmp/t/docs"
cp -r "$src/src" "$src/runner" "$src/lib" "$src/include" "$src/kernels" "$tmp/t/"
cp "$src/docs/layout.md" "$tmp/t/docs/"
build_arg="--build $build"
python3 "$check" --root "$tmp/t" $build_arg >/dev/null 2>&1 || fail "the unchanged copy does not pass"
expect_fail() { # WHAT, then the line the check must print
    local got rc
    got=$(python3 "$check" --root "$tmp/t" $build_arg 2>&1); rc=$?
    [ "$rc" = 1 ] || fail "$1: exit $rc, want 1: $got"
    grep -qF -- "$2" <<<"$got" || fail "$1: the check does not say '$2': $got"
}

# 1. format (which calls only kernels) including the engine, on its fourth line
f="$tmp/t/src/format/numeric.c"
cp "$f" "$tmp/numeric.c"
sed -i '4i #include "engine/engine.h"' "$f"
expect_fail "an undeclared include" \
    'check-layout: src/format/numeric.c:4: includes "engine/engine.h" (engine), but docs/layout.md declares no arrow format -> engine'
cp "$tmp/numeric.c" "$f"

# 2. scale including the engine's private run.h (scale -> engine is declared)
printf '#include "engine/run.h"\n' >"$tmp/t/src/scale/zz_private.c"
expect_fail "a private header" 'check-layout: src/scale/zz_private.c:1: includes src/engine/run.h, private to module engine'
rm "$tmp/t/src/scale/zz_private.c"

# 3. a declared arrow no include uses: target (header only, it includes only kernels)
# declared to call util
lay="$tmp/t/docs/layout.md"
cp "$lay" "$tmp/layout.md"
sed -i "s/May call kernels (the ABI's dtype ids)\./May call kernels (the ABI's dtype ids), util./" "$lay"
grep -q "dtype ids), util\." "$lay" || fail "the sed of case 3 no longer matches layout.md's target paragraph"
expect_fail "an unused arrow" 'declares target -> util, which no include or call uses'
cp "$tmp/layout.md" "$lay"

# 4. a module listed below one it calls: util's paragraph moved to the end
python3 - "$lay" <<'EOF'
import sys
p = sys.argv[1]
paras = open(p).read().split('\n\n')
i = next(i for i, t in enumerate(paras) if t.startswith('**`src/util/`**'))
paras.append(paras.pop(i))
open(p, 'w').write('\n\n'.join(paras) + '\n')
EOF
expect_fail "the order" 'which is listed below it'
cp "$tmp/layout.md" "$lay"

# 4b. the one arrow against the order (kernels read knobs.def) without its "below it"
sed -i 's/May call knobs below it\./May call knobs./' "$lay"
expect_fail "an unmarked back-arrow" 'kernels may call knobs, which is listed below it'
cp "$tmp/layout.md" "$lay"

# 5. calls between objects, with no include: shapes' object calls a function the
# engine's defines, declared by hand (a build tree of those two objects)
mkdir -p "$tmp/b/CMakeFiles/croq.dir/src/shapes" "$tmp/b/CMakeFiles/croq.dir/src/engine"
printf 'int engine_thing(void) { return 1; }\n' >"$tmp/t/src/engine/thing.c"
printf 'int engine_thing(void);\nint shapes_thing(void) { return engine_thing(); }\n' >"$tmp/t/src/shapes/thing.c"
for m in engine shapes; do
    cc -c -o "$tmp/b/CMakeFiles/croq.dir/src/$m/thing.c.o" "$tmp/t/src/$m/thing.c" || fail "cc $m/thing.c"
done
build_arg="--build $tmp/b"
expect_fail "an undeclared call" \
    'check-layout: src/shapes/thing.c: calls engine_thing (engine), but docs/layout.md declares no arrow shapes -> engine'
echo ok
