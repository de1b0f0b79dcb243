#!/usr/bin/env bash
# scripts/setup-deps.sh — install what croqtuner needs to build and test on a machine
# without a GPU. Idempotent and quick when everything is there already:
#   - Debian packages (apt-get update only when one is missing): jansson, zlib (the gzip
#     datasets) and cmocka (C libraries), gnuplot and dygraphs (reports), cmake, make, gcc; slurm-wlm and
#     munge for the test that runs a sweep as a job array on a one-node Slurm cluster
#     (tests/cli/t0404 writes its own slurm.conf and starts its own daemons).
#   - PyPI packages into .deps/pip (pip --target, no virtualenv): NVML headers
#     (nvml.h), cuSPARSELt (the vendor baseline croq-runner compares against; ~240 MB),
#     cuobjdump + nvdisasm (the SASS check of `croqtuner build`). Pinned versions; a
#     stamp file records what was installed, so a second run does nothing.
# The CUDA toolkit (nvcc) comes with the machine and is only checked for here.
# Environment: CROQ_DEPS_DIR overrides .deps (then pass -DCROQ_DEPS_DIR to cmake).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=${CROQ_DEPS_DIR:-$root/.deps}
apt_pkgs=(libjansson-dev zlib1g-dev libcmocka-dev gnuplot-nox libjs-dygraphs cmake make gcc pkgconf slurm-wlm munge)
pip_pkgs=(nvidia-nvml-dev==13.5.37 nvidia-cusparselt-cu13==0.10.0
          nvidia-cuda-cuobjdump==13.5.37 nvidia-cuda-nvdisasm==13.5.37)

say() { echo "setup-deps: $*"; }

install_apt() {
    local missing=() p
    for p in "${apt_pkgs[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    ((${#missing[@]})) || return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { say "need root to install: ${missing[*]}" >&2; exit 1; }
        sudo=(sudo)
    fi
    say "installing Debian packages: ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# All packages in one pip call into a fresh directory, then renamed into place: pip
# --target will not merge a second package into an existing nvidia/ namespace, and an
# interrupted download must not leave a half-filled .deps/pip behind.
install_pip() {
    local stamp=$deps/pip/.croq-stamp want=${pip_pkgs[*]}
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        return 0
    fi
    local py
    py=$(command -v python3 || true)
    [ -n "$py" ] || { say "python3 is needed to install ${pip_pkgs[*]}" >&2; exit 1; }
    say "installing PyPI packages into $deps/pip: $want"
    mkdir -p "$deps"
    rm -rf "$deps/pip.tmp"
    "$py" -m pip install --quiet --disable-pip-version-check --no-deps --no-cache-dir --root-user-action=ignore \
        --target "$deps/pip.tmp" "${pip_pkgs[@]}"
    rm -rf "$deps/pip"
    mv "$deps/pip.tmp" "$deps/pip"
    echo "$want" > "$stamp"
}

check_tools() {
    local nvcc=${CROQ_NVCC:-}
    [ -n "$nvcc" ] || nvcc=$(command -v nvcc || true)
    [ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
    [ -n "$nvcc" ] || say "warning: nvcc not found (CUDA toolkit): kernels cannot be compiled" >&2
    [ -x "$deps/pip/nvidia/cu13/bin/cuobjdump" ] && [ -x "$deps/pip/nvidia/cu13/bin/nvdisasm" ] ||
        { say "cuobjdump/nvdisasm missing from $deps/pip" >&2; exit 1; }
}

install_apt
install_pip
check_tools
say "ok ($deps)"
