#!/usr/bin/env bash
# 'croqtuner slurm --submit' on a real one-node Slurm cluster started here: munged,
# slurmctld and slurmd (Debian's slurm-wlm and munge, installed by
# scripts/setup-deps.sh) with a minimal slurm.conf for localhost (2 CPUs, no cgroups,
# state under a temp dir). The generated job array (2 tasks, sim backend, no GPU) tunes
# a small sweep in a shared tuning directory and the dependent merge job closes it:
# every shape done once, with its iterations, state.json without claims and equal to a
# local one-worker sweep's (timestamps aside). The daemons are stopped on exit.
# Skipped (77) with the reason when the packages are missing, we are not root, or the
# daemons do not come up.
set -u
bin="$CROQ_BIN/croqtuner"
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "needs root to run munged, slurmctld and slurmd"
for p in munged slurmctld slurmd sbatch scontrol sinfo; do
    command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] ||
        skip "'$p' not installed (scripts/setup-deps.sh installs slurm-wlm and munge)"
done
PATH=$PATH:/usr/sbin
command -v python3 >/dev/null || skip "python3 is needed to check state.json"

# slurmd runs the job scripts from its spool directory: it must allow exec (/tmp may not)
base=${TMPDIR:-/tmp}
probe=$(mktemp "$base/croq-t0404-exec.XXXXXX") && printf '#!/bin/sh\nexit 0\n' >"$probe" && chmod +x "$probe"
"$probe" 2>/dev/null || base=$(cd "$CROQ_BIN/.." && pwd)
rm -f "$probe"
tmp=$(mktemp -d "$base/croq-t0404.XXXXXX") || exit 1
chmod 755 "$tmp" # munged wants the path to its socket searchable
daemons=()
stop() {
    local p
    for p in "${daemons[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${daemons[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap stop EXIT
log_tail() { tail -n 5 "$tmp"/log/*.log "$tmp"/log/*.out 2>/dev/null; }

# ---- a one-node cluster ------------------------------------------------------------
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$tmp/munge/munge.key"
munged -F --force --socket="$tmp/munge/socket" --key-file="$tmp/munge/munge.key" \
    --log-file="$tmp/log/munged.log" --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/seed" \
    >"$tmp/log/munged.out" 2>&1 &
daemons+=($!)
for _ in $(seq 1 50); do [ -S "$tmp/munge/socket" ] && break; sleep 0.1; done
chmod 755 "$tmp/munge"
[ -S "$tmp/munge/socket" ] || skip "munged did not start: $(log_tail)"

port=$((20000 + RANDOM % 20000))
cat >"$tmp/slurm.conf" <<EOF
ClusterName=croqtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=croq Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >"$tmp/log/slurmd.out" 2>&1 &
daemons+=($!)
up=
for _ in $(seq 1 150); do
    [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = "idle" ] && { up=1; break; }
    sleep 0.2
done
[ -n "$up" ] || skip "slurmctld/slurmd did not bring the node up in 30 s: $(log_tail)"

# ---- the sweep as a job array -------------------------------------------------------
cat >"$tmp/shapes.json" <<'JSON'
{"scenarios": {"sq": {"type": "single", "M": "S", "N": "S", "K": "S", "sizes": [256, 512, 1024, 2048]}},
 "size_constraints": {"min_M": 128, "min_N": 256, "min_K": 128},
 "regions": {"near": {"M": [2048, 8192], "N": [4096, 16384], "K": [4096, 16384]}},
 "typical_shapes_for_scratch": {"f16": [[512, 512, 512], [1024, 1024, 1024]], "e4m3": [[512, 512, 512]]},
 "iteration_budgets": {"from_scratch": 150, "from_current_best": 30}}
JSON
sweep=(--dtype all --mode scratch --backend sim --iters 3 --shapes "$tmp/shapes.json")
t=$tmp/tuning
out=$("$bin" slurm "${sweep[@]}" --partition croq --gpus-per-task 0 --tasks 2 --time 00:10:00 \
      --sim-delay-ms 20 --tuning "$t" --submit 2>&1) || fail "slurm --submit exited $?: $out"
read -r jid mid < <(sed -nE 's/^submitted array job ([0-9]+) and merge job ([0-9]+).*/\1 \2/p' <<<"$out")
[ -n "${mid:-}" ] || fail "no job ids in: $out"
grep -q "(array of 2 task(s), 0 GPU(s) each, for 8 pending shape(s))" <<<"$out" || fail "summary: $out"

state() { scontrol show job "$1" 2>/dev/null | sed -nE 's/.*JobState=([A-Z_]+).*/\1/p' | head -n 1; }
for _ in $(seq 1 600); do # 120 s
    case $(state "$mid") in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;; esac
    sleep 0.2
done
ms=$(state "$mid")
[ "$ms" = COMPLETED ] || fail "merge job $mid ended '$ms': $(cat "$t"/slurm/*.out 2>/dev/null | tail -n 20)"
for i in 0 1; do
    [ "$(state "${jid}_$i")" = COMPLETED ] || fail "array task $i: $(state "${jid}_$i"): $(tail -n 5 "$t/slurm/${jid}_$i.out")"
done
grep -q "merge: sweep done, state.json consistent" "$t/slurm/$mid-merge.out" || fail "merge output: $(cat "$t/slurm/$mid-merge.out")"

# ---- what it left ------------------------------------------------------------------
"$bin" sweep "${sweep[@]}" --tuning "$tmp/ref" --workers 1 --quiet || fail "local reference sweep exited $?"
python3 - "$t/state.json" "$tmp/ref/state.json" <<'PY' || fail "state.json after the cluster sweep"
import json, sys
s, ref = (json.load(open(p)) for p in sys.argv[1:])
assert len(s["shapes"]) == 8, sorted(s["shapes"])
bad = [k for k, e in s["shapes"].items() if e["status"] != "done" or e["iteration"] != 3]
assert not bad, bad
assert s["scale"] == {"claims": {}, "failed": {}}, s["scale"]
assert s["sweep"]["status"] == "done" and s["sweep"]["waves"] is True, s["sweep"]
for st in (s, ref):
    for e in st["shapes"].values():
        e.pop("updated_at")
assert s["shapes"] == ref["shapes"], [k for k in s["shapes"] if s["shapes"][k] != ref["shapes"].get(k)]
PY
norm() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/T/g' "$1"; }
log=$t/scale/claims.log
for f in "$t"/logs/*/results.tsv; do
    k=$(basename "$(dirname "$f")")
    [ "$(tail -n +3 "$f" | cut -f1 | tr '\n' ' ')" = "0 1 2 3 " ] || fail "$k: results.tsv rows"
    diff <(norm "$f") <(norm "$tmp/ref/logs/$k/results.tsv") >/dev/null || fail "$k: results differ from local"
    [ "$(awk -F'\t' -v k="$k" '$2=="claim" && $3==k && $4=="tune"' "$log" | wc -l)" -eq 1 ] ||
        fail "$k was claimed for tuning more than once"
done
grep -q "	takeover	" "$log" && fail "a takeover without a dead task"
jobs=$(awk -F'\t' '$2=="claim" {print $8}' "$log" | sort -u | tr '\n' ' ')
[[ "$jobs" =~ ^(${jid}_0 )?(${jid}_1 )?$ ]] && [ -n "$jobs" ] || fail "claims name jobs '$jobs', not ${jid}_0/1"
echo ok
