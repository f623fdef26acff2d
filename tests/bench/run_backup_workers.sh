#!/usr/bin/env bash
# Backup workers against a straggler, on the cluster lab: a ps and N workers on links of
# RATE, training the MLP (784-HIDDEN-10) with SyncReplicasOptimizer, one client per worker
# (backup_workers). Four runs: every worker's link at RATE, then the last worker's at SLOW
# (a straggler: its gradients take longer to reach the ps), each aggregating all N
# gradients a step and only the first N-1 (one backup). Prints global steps/s. Needs root.
#   sudo tests/bench/run_backup_workers.sh [build_dir] [workers (4)] [rate (1gbit)]
#        [slow (20mbit)] [hidden (1024)] [steps (30)]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
n=${2:-4}
rate=${3:-1gbit}
slow=${4:-20mbit}
hidden=${5:-1024}
steps=${6:-30}
lab="bash $here/../../bootstrap/cluster-lab.sh"
name=bkw
trap '$lab down --name $name >/dev/null 2>&1 || true' EXIT
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%F)"
echo "# a ps and $n workers on $rate links; MLP 784-$hidden-10 ($(( (784 * hidden + hidden + hidden * 10 + 10) * 4 / 1000 )) kB of gradients a replica step), batch 64 a replica; $steps global steps"
printf '| straggler | gradients aggregated a step | global steps/s | ms a step | steps each replica ran (last: the straggler) |\n|---|---|---|---|---|\n'
$lab up --name $name --ps 1 --nodes $((n + 1)) --rate "$rate" --node "$build/bootstrap/tensoract-node" >/dev/null
# shellcheck disable=SC1091
. /tmp/tensoract-lab-$name/env
worker0=$(echo "$LAB_ADDRESSES" | awk '{print $2}')
for straggler in none "$slow"; do
  if [ "$straggler" != none ]; then $lab reshape --name $name --rate "$slow" "$n"; fi
  for k in "$n" $((n - 1)); do
    line=$("$build/tests/bench/backup_workers" --target "tensoract://$worker0" --token-file "$LAB_TOKEN_FILE" \
             --workers "$n" --aggregate "$k" --hidden "$hidden" --steps "$steps" \
             --label "${straggler}" 2>&1 | tail -1)
    sps=$(echo "$line" | sed -n 's/.*: \([0-9.]*\) global steps\/s.*/\1/p')
    ms=$(echo "$line" | sed -n 's/.*(\([0-9.]*\) ms a step.*/\1/p')
    ran=$(echo "$line" | sed -n 's/.*replica steps \(.*\)$/\1/p')
    what=$([ "$straggler" = none ] && echo "none" || echo "worker $((n - 1)) at $straggler")
    printf '| %s | %s of %s | %s | %s | %s |\n' "$what" "$k" "$n" "${sps:-FAILED: $line}" "${ms:--}" "${ran:--}"
  done
done
