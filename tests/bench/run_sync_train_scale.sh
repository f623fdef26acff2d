#!/usr/bin/env bash
# Synchronous training against the number of workers on the cluster lab: for each N, a lab
# of one ps and N workers on links of RATE, and sync_train_scale in ps mode and all-reduce
# mode, the latter twice: one client through worker 0, then a client per worker in that
# worker's namespace feeding it there (allreduce-pw, as MultiWorkerMirroredStrategy's
# workers each run) (a wide MLP, so that its gradients cross the links: hidden 4096, 3.3M parameters,
# 13 MB of gradients a step). Prints examples/s, the time a step, the time the links
# bound a step to (sync: the ps's link carries N copies of the weights out, then N of the
# gradients in, one phase after the other; allreduce: each worker's link 2(N-1)/N of the
# gradients each way at once), and the bound over the measured time; then TensorFlow's
# MultiWorkerMirroredStrategy training the same MLP on the same workers' namespaces
# (sync_train_tf.py; TENSORFLOW=0 skips it). MODES="allreduce-pw" (say) runs only those of
# sync, allreduce and allreduce-pw (the ps mode's steps grow with N: 16 workers at 10 Mbit/s
# take minutes each). NODE_FLAGS: more flags for every node (on slow links, say
# "--heartbeat-timeout-ms 30000": heartbeats share the links with the tensors);
# CLIENT_FLAGS: more flags for sync_train_scale (say "--master-heartbeat-timeout-ms 30000";
# 32 nodes and 32 clients on 2 cores hold the default 3 s). Needs root.
#   sudo tests/bench/run_sync_train_scale.sh [build_dir] [workers (1,2,4,8)] [rate (100mbit)]
#        [hidden (4096)] [steps (10)]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
counts=${2:-1,2,4,8}
rate=${3:-100mbit}
hidden=${4:-4096}
steps=${5:-10}
lab="bash $here/../../bootstrap/cluster-lab.sh"
name=sts
trap '$lab down --name $name >/dev/null 2>&1 || true' EXIT
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%F); links $rate"
printf '| workers | mode | examples/s | ms a step | links bound, ms | of the bound | TensorFlow MWMS examples/s | ms a step | tensoract vs TF |\n|---|---|---|---|---|---|---|---|---|\n'
bytes_per_s=$(echo "$rate" | awk '/gbit/{print ($0+0) * 1e9 / 8} /mbit/{print ($0+0) * 1e6 / 8}')
grad_bytes=$(( (784 * hidden + hidden + hidden * 10 + 10) * 4 ))
for n in ${counts//,/ }; do
  # shellcheck disable=SC2086
  $lab up --name $name --ps 1 --nodes $((n + 1)) --rate "$rate" --node "$build/bootstrap/tensoract-node" \
    ${NODE_FLAGS:+-- $NODE_FLAGS} >/dev/null
  # shellcheck disable=SC1091
  . /tmp/tensoract-lab-$name/env
  worker0=$(echo "$LAB_ADDRESSES" | awk '{print $2}')
  targets=$(echo "$LAB_ADDRESSES" | tr ' ' '\n' | tail -n +2 | sed 's|^|tensoract://|' | paste -sd,)
  for mode in ${MODES:-sync allreduce allreduce-pw}; do
    # shellcheck disable=SC2206
    common=(--token-file "$LAB_TOKEN_FILE" --workers "$n" --mode "${mode%-pw}" --hidden "$hidden" --steps "$steps"
      ${CLIENT_FLAGS:-})
    if [ "$mode" = allreduce-pw ]; then
      # Replica i's client in worker i's namespace (lab node i + 1), as TensorFlow's workers
      # run below: its feeds stay off the links. Examples/s: the replicas' sum; a step: the
      # slowest replica's.
      out=$(mktemp)
      for i in $(seq 0 $((n - 1))); do
        $lab exec --name $name $((i + 1)) "$build/tests/bench/sync_train_scale" "${common[@]}" \
          --target "$(echo "$targets" | cut -d, -f$((i + 1)))" --targets "$targets" --replica "$i" 2>/dev/null |
          tail -1 >> "$out" &
      done
      wait
      rate_eps=$(sed -n 's/.*: \([0-9.]*\) examples\/s.*/\1/p' "$out" | awk -v n="$n" '{s += $1; k++} END {
        if (k == n) printf "%.1f", s }')
      ms=$(sed -n 's/.*(\([0-9.]*\) ms a step.*/\1/p' "$out" | sort -g | tail -1)
      rm -f "$out"
    else
      line=$("$build/tests/bench/sync_train_scale" "${common[@]}" --target "tensoract://$worker0" 2>/dev/null | tail -1)
      rate_eps=$(echo "$line" | sed -n 's/.*: \([0-9.]*\) examples\/s.*/\1/p')
      ms=$(echo "$line" | sed -n 's/.*(\([0-9.]*\) ms a step.*/\1/p')
    fi
    bound=$(awk -v m="$mode" -v n="$n" -v g="$grad_bytes" -v b="$bytes_per_s" 'BEGIN {
      t = (m == "sync") ? 2 * n * g / b : 2 * (n - 1) / n * g / b; printf "%.0f", 1e3 * t }')
    of=$(awk -v t="$bound" -v ms="${ms:-0}" 'BEGIN { if (t > 0 && ms > 0) printf "%.0f%%", 100 * t / ms; else print "-" }')
    tf_eps="-" tf_ms="-" vs="-"
    if [ "$mode" = allreduce-pw ] && [ "$n" -gt 1 ] && [ "${TENSORFLOW:-1}" != 0 ]; then
      # Workers are nodes 1..n (node 0 is the ps); TensorFlow listens on port 2300 there.
      tf_addresses=$(echo "$LAB_ADDRESSES" | tr ' ' '\n' | tail -n +2 | sed 's/:2222$/:2300/' | paste -sd,)
      out=$(mktemp)
      for i in $(seq 0 $((n - 1))); do
        $lab exec --name $name $((i + 1)) timeout 600 python3 "$here/sync_train_tf.py" --task "$i" \
          --addresses "$tf_addresses" --hidden "$hidden" --steps "$steps" >> "$out" 2>/dev/null &
      done
      wait
      tf_line=$(grep '^tensorflow' "$out" || true)
      rm -f "$out"
      if [ -n "$tf_line" ]; then
        tf_eps=$(echo "$tf_line" | awk '{print $3}')
        tf_ms=$(echo "$tf_line" | awk '{print $4}')
        vs=$(awk -v o="$rate_eps" -v t="$tf_eps" 'BEGIN { printf "%.2fx", o / t }')
      fi
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$mode" "${rate_eps:--}" "${ms:--}" "$bound" "$of" \
      "$tf_eps" "$tf_ms" "$vs"
  done
  $lab down --name $name >/dev/null
done
