#!/usr/bin/env bash
# Synchronous training through a ps, with and without a straggler, on the cluster lab: a ps
# and N workers on links of RATE, the MLP 784-HIDDEN-10, 64 images a replica step. With
# every link at RATE, then with the last worker's at SLOW (a straggler: its gradients reach
# the ps late), it runs:
#   tensoract in-graph sync (sync_train_scale --mode sync: one client, N towers a step);
#   tensoract SyncReplicasOptimizer (backup_workers: one client per worker) aggregating
#   all N gradients a step, then the first N-1 (one backup worker);
#   TensorFlow's tf.compat.v1 SyncReplicasOptimizer on tf.distribute.Servers in the same
#   namespaces, the same two ways (sync_replicas_tf.py; TENSORFLOW=0 skips it).
# Prints global steps/s and the examples a second that reach the weights. Needs root.
#   sudo tests/bench/run_backup_workers.sh [build_dir] [workers (4)] [rate (100mbit)]
#        [slow (10mbit)] [hidden (1024)] [steps (10)]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
n=${2:-4}
rate=${3:-100mbit}
slow=${4:-10mbit}
hidden=${5:-1024}
steps=${6:-10}
lab="bash $here/../../bootstrap/cluster-lab.sh"
name=bkw
trap '$lab down --name $name >/dev/null 2>&1 || true' EXIT
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%F)"
echo "# a ps and $n workers on $rate links; MLP 784-$hidden-10 ($(( (784 * hidden + hidden + hidden * 10 + 10) * 4 / 1000 )) kB of gradients a replica step); 64 images a replica step; $steps timed global steps"
printf '| straggler | runtime | how | gradients a step | global steps/s | examples applied/s | tensoract vs TensorFlow |\n|---|---|---|---|---|---|---|\n'
$lab up --name $name --ps 1 --nodes $((n + 1)) --rate "$rate" --node "$build/bootstrap/tensoract-node" >/dev/null
# shellcheck disable=SC1091
. /tmp/tensoract-lab-$name/env
worker0=$(echo "$LAB_ADDRESSES" | awk '{print $2}')
tf_ps=$(echo "$LAB_ADDRESSES" | awk '{print $1}' | sed 's/:2222$/:2300/')
tf_workers=$(echo "$LAB_ADDRESSES" | tr ' ' '\n' | tail -n +2 | sed 's/:2222$/:2300/' | paste -sd,)

# TensorFlow's run aggregating $1 gradients a step: "global steps/s" or "-".
tensorflow_run() {
  local k=$1 out pids=() chief
  out=$(mktemp)
  $lab exec --name $name 0 timeout 600 python3 "$here/sync_replicas_tf.py" --job ps --task 0 --ps "$tf_ps" \
    --workers "$tf_workers" > /dev/null 2>&1 &
  pids+=($!)
  for i in $(seq 1 $((n - 1))); do
    $lab exec --name $name $((i + 1)) timeout 600 python3 "$here/sync_replicas_tf.py" --job worker --task "$i" \
      --ps "$tf_ps" --workers "$tf_workers" --aggregate "$k" --hidden "$hidden" --steps "$steps" > /dev/null 2>&1 &
    pids+=($!)
  done
  $lab exec --name $name 1 timeout 600 python3 "$here/sync_replicas_tf.py" --job worker --task 0 \
    --ps "$tf_ps" --workers "$tf_workers" --aggregate "$k" --hidden "$hidden" --steps "$steps" > "$out" 2>&1 &
  chief=$!
  wait $chief || true
  kill "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  awk '/^tensorflow/ {print $4; found=1} END {if (!found) print "-"}' "$out"
  rm -f "$out"
}

row() {  # straggler runtime how k steps/s tf_steps/s
  local eps vs="-"
  eps=$(awk -v s="$5" -v k="$4" 'BEGIN { if (s + 0 > 0) printf "%.0f", s * k * 64; else print "-" }')
  if [ -n "${6:-}" ] && [ "$6" != "-" ] && [ "$5" != "-" ]; then vs=$(awk -v o="$5" -v t="$6" 'BEGIN { printf "%.2fx", o / t }'); fi
  printf '| %s | %s | %s | %s of %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" "$n" "${5:--}" "$eps" "$vs"
}

for straggler in none "$slow"; do
  what=none
  if [ "$straggler" != none ]; then
    $lab reshape --name $name --rate "$slow" "$n"
    what="worker $((n - 1)) at $slow"
  fi
  line=$("$build/tests/bench/sync_train_scale" --target "tensoract://$worker0" --token-file "$LAB_TOKEN_FILE" \
           --workers "$n" --mode sync --hidden "$hidden" --steps "$steps" 2>/dev/null | tail -1 || true)
  ms=$(echo "$line" | sed -n 's/.*(\([0-9.]*\) ms a step.*/\1/p')
  sps=$(awk -v ms="${ms:-0}" 'BEGIN { if (ms > 0) printf "%.2f", 1000 / ms; else print "-" }')
  row "$what" tensoract "in-graph towers, one client" "$n" "$sps"
  for k in "$n" $((n - 1)); do
    line=$("$build/tests/bench/backup_workers" --target "tensoract://$worker0" --token-file "$LAB_TOKEN_FILE" \
             --workers "$n" --aggregate "$k" --hidden "$hidden" --steps "$steps" --label "$(echo "$straggler" | tr -cd 'a-z0-9')" \
             2>&1 | tail -1)
    sps=$(echo "$line" | sed -n 's/.*: \([0-9.]*\) global steps\/s.*/\1/p')
    tf="-"
    [ "${TENSORFLOW:-1}" != 0 ] && tf=$(tensorflow_run "$k")
    row "$what" tensoract "SyncReplicasOptimizer, a client per worker" "$k" "${sps:--}" "$tf"
    row "$what" TensorFlow "tf.compat.v1 SyncReplicasOptimizer" "$k" "$tf"
  done
done
