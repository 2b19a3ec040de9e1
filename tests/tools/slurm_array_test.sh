#!/usr/bin/env bash
# End to end on a real single-node Slurm (tools/slurm/local_cluster.sh): a
# 4-task array job of tools/slurm/sweep.sbatch numbered 1-4 (so shard 0 must
# come from task 1), joined by `umsim sweep merge`, equals the unsharded
# sweep; `local_cluster.sh stop` ends slurmctld, slurmd and munged. Needs
# root and Debian's slurmctld, slurmd, slurm-client and munge (./bazelw
# installs them); without them it says why and skips.
set -uo pipefail
umsim=$(realpath "$1")
cluster=$(realpath "$2")
sbatch_script=$(realpath "$3")
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

if [[ $(id -u) -ne 0 ]]; then
  echo "SKIP: a local Slurm cluster needs root (slurmd starts jobs as their users)"; exit 0
fi
for cmd in slurmctld slurmd sbatch munged; do
  if ! command -v $cmd >/dev/null && [[ ! -x /usr/sbin/$cmd ]]; then
    echo "SKIP: $cmd is not installed (./bazelw installs slurmctld slurmd slurm-client munge)"; exit 0
  fi
done

# Under /tmp: the munge user must reach its directory (the test's own tmpdir may be private to root).
work=$(mktemp -d /tmp/umsim-slurm-test.XXXXXX)
chmod 0755 "$work"
export UMSIM_SLURM_DIR=$work/cluster
cleanup() { "$cluster" stop >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT

"$umsim" trace gen random -p footprint=8MiB,iterations=2 -o "$work/random.umtb" >/dev/null || fail "gen random"
axes=(--evict fifo --evict lru --gpu-mem 100% --gpu-mem 150% --gpu-mem 200% --prefetch none --prefetch tree)
"$umsim" sweep "$work/random.umtb" "${axes[@]}" -q -o "$work/whole.jsonl" || fail "unsharded sweep"

env_line=$("$cluster" start 2>"$work/start.err") || { cat "$work/start.err"; fail "cluster start"; exit 1; }
eval "$env_line"
munged_pid=$(cat "$UMSIM_SLURM_DIR/munge/munged.pid")
ctld_pid=$(cat "$UMSIM_SLURM_DIR/ctld.pid")
d_pid=$(cat "$UMSIM_SLURM_DIR/d.pid")

cd "$work" || exit 1
job=$(UMSIM="$umsim" sbatch --parsable --array=1-4 "$sbatch_script" "$work/random.umtb" -- "${axes[@]}") ||
  fail "sbatch"
# sbatch --wait polls slowly; squeue shows the array until every task ended.
for _ in $(seq 600); do
  [[ -z $(squeue -h -j "${job%%;*}" 2>/dev/null) ]] && break
  sleep 0.2
done
[[ -z $(squeue -h -j "${job%%;*}" 2>/dev/null) ]] || fail "the array job did not finish in 120 s"
ls "$work"/sweep-{0,1,2,3}.jsonl >/dev/null 2>&1 || fail "shard outputs: $(ls "$work"; cat "$work"/*.log)"
"$umsim" sweep merge "$work"/sweep-*.jsonl -q -o "$work/merged.jsonl" 2>"$work/err" ||
  fail "merge: $(cat "$work/err")"
cmp -s "$work/whole.jsonl" "$work/merged.jsonl" || fail "merged array output differs from the unsharded sweep"

"$cluster" stop || fail "cluster stop"
for pid in "$munged_pid" "$ctld_pid" "$d_pid"; do
  kill -0 "$pid" 2>/dev/null && fail "process $pid still runs after stop: $(ps -o comm= -p "$pid")"
done

[[ $failures -eq 0 ]] && echo "PASS" || { echo "$failures failure(s)"; exit 1; }
