#!/usr/bin/env bash
# tests/sass_identity.sh — does a change to kernels/ or src/codegen leave the machine code
# of every known configuration as it was?
#
#   tests/sass_identity.sh [--old BIN | --base REF | --against FILE | --record FILE]
#                          [--new BIN] [--only REGEX] [--first N] [--pick I,J,...]
#                          [--work DIR] [--list]
#
# For each configuration of the list below it generates the source with two croqtuners
# (`build`: the old one and the new one), compiles each with nvcc for sm_90a exactly as
# the tuner does (the same flags, src/build/nvcc.c), dumps the cubin's SASS with
# cuobjdump -sass and compares the two dumps. Sources, source hashes and build cache keys
# legitimately differ; the SASS must not. The dumps are compared with the module id
# (kernels/module_id.h, "croq-module-id:<key>") blanked, though cuobjdump -sass prints
# only code, which never reads it.
#
# The list (one configuration a line, deduplicated by the full signature the new
# generator writes): every line of kernels/variants.txt and tests/gpu/ceiling-variants.txt
# in both dtypes, the config line of every committed best (git ls-files
# 'results/**/*_best.cu'), every shape's registered best in the committed state.json
# files (docs/artifacts.md), and the fallback configuration export puts in every pack.
# A configuration both generators refuse (a best recorded under an older knob rule) is
# counted as refused, not as a difference; one only one of them refuses is a difference.
#
#   --old BIN    the croqtuner before the change (e.g. /work/main/build/bin/croqtuner)
#   --base REF   instead of --old: build REF's croqtuner (git archive of REF, cmake) in
#                WORK/base and use it (default REF: the merge-base of HEAD and main)
#   --new BIN    the croqtuner after it (default: build/bin/croqtuner of this tree)
#   --record FILE  instead of comparing: write the SHA-256 of each configuration's
#                normalized SASS with the new croqtuner to FILE (dtype, assignments,
#                digest a line, under a header naming nvcc's version)
#   --against FILE instead of an old croqtuner: compare the new one's SASS with the
#                digests FILE records, for the configurations FILE lists (what the ctest
#                cli.t0010-sass-identity runs against tests/fixtures/sass-digests.tsv);
#                exit 77 when this nvcc is not the one FILE was recorded with
#   --only RE    only configurations whose signature matches the extended regex RE
#   --first N    only the first N configurations (a quick check while iterating)
#   --pick LIST  only these configurations, by their 1-based number in --list's order
#   --work DIR   where sources, cubins and the build cache go (default build/sass-identity;
#                the cache keeps unchanged sides from being compiled again)
#   --list       print the configurations (dtype, then knob assignments) and exit
#
# Prints one line per configuration (same / DIFF / refused) and a summary; the first
# difference's diff is kept in WORK/<n>.diff. Exit 0 when no configuration differs, 1
# when one does (or a build failed), 2 on bad usage, 77 when nvcc or cuobjdump is missing.
# Environment: CROQ_NVCC, CROQ_CUOBJDUMP as for croqtuner build.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
old= base= new="$src/build/bin/croqtuner" only= first=0 pick= work="$src/build/sass-identity" list_only=0
usage() { sed -n '4,7p' "$0" >&2; exit 2; }
record= against=
while [ $# -gt 0 ]; do
    case $1 in
        --old) old=${2:?}; shift 2 ;;
        --base) base=${2:?}; shift 2 ;;
        --new) new=${2:?}; shift 2 ;;
        --only) only=${2:?}; shift 2 ;;
        --first) first=${2:?}; shift 2 ;;
        --pick) pick=",${2:?},"; shift 2 ;;
        --work) work=${2:?}; shift 2 ;;
        --list) list_only=1; shift ;;
        --record) record=${2:?}; shift 2 ;;
        --against) against=${2:?}; shift 2 ;;
        *) usage ;;
    esac
done
[ -x "$new" ] || { echo "sass_identity: no croqtuner at '$new' (build the tree first)" >&2; exit 2; }
[ -z "$against" ] || [ -f "$against" ] || { echo "sass_identity: no digest file '$against'" >&2; exit 2; }
[ -z "$against" ] || [ -z "$record$old$base" ] || usage
[ -z "$record" ] || [ -z "$old$base" ] || usage

# ---- the configurations -------------------------------------------------------------
# One line each: "<dtype> <knob=value ...>".
configs() {
    local f line dtype
    for f in "$src/kernels/variants.txt" "$src/tests/gpu/ceiling-variants.txt"; do
        [ -f "$f" ] || continue
        while IFS= read -r line; do
            line=${line%%#*}
            [ -n "${line//[[:space:]]/}" ] || continue
            for dtype in f16 e4m3; do echo "$dtype $line"; done
        done <"$f"
    done
    # A full signature "dtype=f16,kernel=1,..." -> "f16 kernel=1 ...".
    {
        git -C "$src" ls-files -z 'results/**/*_best.cu' | while IFS= read -r -d '' f; do
            sed -n 's/^ \* config: //p' "$src/$f" | head -1
        done
        git -C "$src" ls-files -z 'results/**/state.json' | while IFS= read -r -d '' f; do
            jq -r '.shapes[]? | .best?.config? // empty' "$src/$f"
        done
    } | sort -u | sed -E 's/^dtype=([a-z0-9]+),?/\1 /; s/,/ /g'
    # The fallback configuration `croqtuner export` adds to every pack (the string
    # literal fallback_sets of src/cli/cmd_export.c), in both dtypes.
    local fb
    fb=$(sed -n '/fallback_sets\[\] =/,/;/p' "$src/src/cli/cmd_export.c" | sed -n 's/^ *"\(.*\)"[ ;]*$/\1/p' | tr -d '\n')
    if [ -n "$fb" ]; then
        for dtype in f16 e4m3; do echo "$dtype $fb"; done
    else
        echo "sass_identity: no fallback_sets in src/cli/cmd_export.c: the export fallback is not checked" >&2
    fi
}

mkdir -p "$work" || exit 1
# Deduplicate by the signature the new generator writes for each line.
all="$work/configs.txt"
: >"$all.tmp"
declare -A seen=()
while read -r dtype sets; do
    d="$work/sig"; rm -rf "$d"
    # shellcheck disable=SC2086 # one assignment a word
    if "$new" build --no-compile --dtype "$dtype" --set "$sets" --out "$d" >/dev/null 2>&1; then
        sig=$(sed -n 's/^ \* config: //p' "$d/kernel.cu" | head -1)
    else
        sig="refused-by-new: $dtype $sets"
    fi
    [ -z "${seen[$sig]:-}" ] || continue
    seen[$sig]=1
    [ -z "$only" ] || [[ $sig =~ $only ]] || continue
    printf '%s\t%s\t%s\n' "$dtype" "$sets" "$sig" >>"$all.tmp"
done < <(if [ -n "$against" ]; then grep -v '^#' "$against" | cut -f1,2 | tr '\t' ' '; else configs; fi)
mv "$all.tmp" "$all"
if [ "$list_only" = 1 ]; then cut -f1,2 "$all"; exit 0; fi

# ---- the tools ----------------------------------------------------------------------
nvcc=${CROQ_NVCC:-$(command -v nvcc || true)}
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
cuobjdump=${CROQ_CUOBJDUMP:-$(command -v cuobjdump || true)}
[ -n "$cuobjdump" ] || [ ! -x "$src/.deps/pip/nvidia/cu13/bin/cuobjdump" ] || cuobjdump="$src/.deps/pip/nvidia/cu13/bin/cuobjdump"
if [ -z "$nvcc" ] || [ -z "$cuobjdump" ]; then
    echo "skip: nvcc (${nvcc:-missing}) and cuobjdump (${cuobjdump:-missing}) are both needed"
    exit 77
fi
export CROQ_NVCC="$nvcc" CROQ_CUOBJDUMP="$cuobjdump"
nvcc_version=$("$nvcc" --version | tail -1)

if [ -n "$against" ]; then
    recorded=$(sed -n 's/^# nvcc: //p' "$against" | head -1)
    if [ "$recorded" != "$nvcc_version" ]; then
        echo "skip: $against was recorded with nvcc '$recorded', this is '$nvcc_version' (other SASS is expected)"
        exit 77
    fi
    old="(digests of $against)"
elif [ -n "$record" ]; then
    old="(none: recording)"
    {
        echo "# SHA-256 of the normalized SASS (tests/sass_identity.sh) of each configuration:"
        echo "# dtype, knob assignments, digest. Rewrite with tests/sass_identity.sh --record FILE"
        echo "# when a change is meant to change machine code; the diff names what it changed."
        echo "# generated by: $("$new" --version | head -2 | tr '\n' ' ' | sed 's/ $//')"
        echo "# nvcc: $nvcc_version"
    } >"$record.tmp" || exit 1
elif [ -z "$old" ]; then
    [ -n "$base" ] || base=$(git -C "$src" merge-base HEAD main) || { echo "sass_identity: no --old, and no merge-base with main" >&2; exit 2; }
    rev=$(git -C "$src" rev-parse --verify "$base^{commit}") || { echo "sass_identity: '$base' is not a commit" >&2; exit 2; }
    b="$work/base-$rev"
    if [ ! -x "$b/build/bin/croqtuner" ]; then
        echo "building croqtuner of $base ($rev) in $b"
        rm -rf "$b" && mkdir -p "$b/src" || exit 1
        git -C "$src" archive "$rev" | tar -x -C "$b/src" || exit 1
        deps=$(readlink -f "$src/.deps" 2>/dev/null || echo "$src/.deps")
        { cmake -S "$b/src" -B "$b/build" -DCROQ_DEPS_DIR="$deps" >/dev/null &&
              cmake --build "$b/build" -j2 --target croqtuner >/dev/null; } ||
            { echo "sass_identity: cannot build $base's croqtuner" >&2; exit 1; }
    fi
    old="$b/build/bin/croqtuner"
fi
[ -n "$against$record" ] || [ -x "$old" ] || { echo "sass_identity: no croqtuner at '$old'" >&2; exit 2; }

# ---- compare --------------------------------------------------------------------------
# sass BIN DIR DTYPE SETS: generate + compile into DIR, SASS in DIR/kernel.sass.
# Exit 1 when the generator refuses the configuration, 2 when the build fails.
sass() {
    local bin=$1 dir=$2 dtype=$3 sets=$4 out
    rm -rf "$dir"
    if ! "$bin" build --no-compile --dtype "$dtype" --set "$sets" --out "$dir" >/dev/null 2>&1; then
        return 1
    fi
    out=$("$bin" build --dtype "$dtype" --set "$sets" --out "$dir" --cache-dir "$work/cache" 2>&1) ||
        { echo "$out" >"$dir/build.log"; return 2; }
    "$cuobjdump" -sass "$dir/kernel.cubin" | sed -E 's/croq-module-id:[0-9a-f]+/croq-module-id:X/g' >"$dir/kernel.sass" ||
        return 2
    [ -s "$dir/kernel.sass" ] || return 2
}
digest() { sha256sum <"$1" | cut -d' ' -f1; }
instructions() { grep -c '^ */\*[0-9a-f]*\*/' "$1"; }

n=0 same=0 differ=0 refused=0 failed=0 checked=0
while IFS=$'\t' read -r dtype sets sig; do
    n=$((n + 1))
    [ "$first" -eq 0 ] || [ "$n" -le "$first" ] || break
    [ -z "$pick" ] || [[ $pick == *",$n,"* ]] || continue
    checked=$((checked + 1))
    # Comparing: the old side compiles beside the new one (two nvcc at a time at most).
    [ -n "$against$record" ] || { sass "$old" "$work/$n/old" "$dtype" "$sets" & }
    sass "$new" "$work/$n/new" "$dtype" "$sets"; rn=$?
    if [ -n "$record" ]; then
        case $rn in
            0) printf '%s\t%s\t%s\n' "$dtype" "$sets" "$(digest "$work/$n/new/kernel.sass")" >>"$record.tmp"
               same=$((same + 1)); echo "recorded $n $dtype $sets" ;;
            1) refused=$((refused + 1)); echo "refused  $n $dtype $sets (not recorded)" ;;
            *) failed=$((failed + 1)); echo "FAILED   $n $dtype $sets (build; $work/$n/new/build.log)" ;;
        esac
        continue
    fi
    if [ -n "$against" ]; then
        want=$(awk -F'\t' -v d="$dtype" -v s="$sets" '$1 == d && $2 == s { print $3; exit }' "$against")
        if [ $rn = 0 ] && [ "$(digest "$work/$n/new/kernel.sass")" = "$want" ]; then
            same=$((same + 1)); echo "same     $n $dtype $sets ($(instructions "$work/$n/new/kernel.sass") instructions)"
        elif [ $rn = 2 ]; then
            failed=$((failed + 1)); echo "FAILED   $n $dtype $sets (build; $work/$n/new/build.log)"
        else
            differ=$((differ + 1)); echo "DIFF     $n $dtype $sets ($([ $rn = 1 ] && echo "refused now" || echo "other SASS than recorded"))"
        fi
        continue
    fi
    wait $!; ro=$?
    if [ $ro = 1 ] && [ $rn = 1 ]; then
        refused=$((refused + 1)); echo "refused  $n $dtype $sets (both generators)"
    elif [ $ro = 2 ] || [ $rn = 2 ]; then
        failed=$((failed + 1)); echo "FAILED   $n $dtype $sets (build: old $ro, new $rn; $work/$n/*/build.log)"
    elif [ $ro != $rn ]; then
        differ=$((differ + 1)); echo "DIFF     $n $dtype $sets (only one generator refuses it: old $ro, new $rn)"
    elif cmp -s "$work/$n/old/kernel.sass" "$work/$n/new/kernel.sass"; then
        same=$((same + 1)); echo "same     $n $dtype $sets ($(instructions "$work/$n/new/kernel.sass") instructions)"
    else
        differ=$((differ + 1)); echo "DIFF     $n $dtype $sets"
        diff "$work/$n/old/kernel.sass" "$work/$n/new/kernel.sass" >"$work/$n.diff"
        echo "         $(grep -c '^[<>]' "$work/$n.diff") lines differ: $work/$n.diff"
    fi
done <"$all"
if [ -n "$record" ]; then
    [ "$failed" -eq 0 ] || { rm -f "$record.tmp"; echo "sass identity: $failed builds failed, nothing recorded" >&2; exit 1; }
    mv "$record.tmp" "$record" || exit 1
    echo "sass identity: $same digests recorded in $record ($refused refused by the generator), nvcc '$nvcc_version'"
    exit 0
fi
echo "sass identity: $checked configurations: $same same, $differ differ, $refused refused by both, $failed failed builds"
echo "  old: $old$([ -x "$old" ] && echo " ($("$old" --version 2>/dev/null | head -1))")"
echo "  new: $new ($("$new" --version 2>/dev/null | head -1)), nvcc '$nvcc_version'"
[ "$differ" -eq 0 ] && [ "$failed" -eq 0 ]
