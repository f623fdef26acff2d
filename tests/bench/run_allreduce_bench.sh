#!/usr/bin/env bash
# All-reduce bus bandwidth on the cluster lab (bootstrap/cluster-lab.sh): for each node
# count and link rate, tensoract's collective (allreduce_bench: one client per task, ring
# for large tensors, recursive doubling for small) and TensorFlow 2.21's
# MultiWorkerMirroredStrategy (RING over gRPC, allreduce_tf.py, one process per task in the
# same namespaces), in the same lab, one after the other. Needs root; prints one table.
#   sudo tests/bench/run_allreduce_bench.sh [build_dir] [nodes (2,4,8)] [rates (1gbit,10gbit)]
#        [sizes] [rounds]
# TENSORFLOW=0 skips TensorFlow (its 2-core start-up alone takes ~5 s per task).
# NODE_FLAGS: more flags for every node; CLIENT_FLAGS: for allreduce_bench (32 nodes on 2
# cores and 10 Mbit/s links: NODE_FLAGS="--heartbeat-timeout-ms 30000"
# CLIENT_FLAGS="--master-heartbeat-timeout-ms 30000").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
node_counts=${2:-2,4,8}
rates=${3:-1gbit,10gbit}
sizes=${4:-4096,65536,1048576,16777216,67108864,268435456}
rounds=${5:-5}
lab="bash $here/../../bootstrap/cluster-lab.sh"
name=arb
trap '$lab down --name $name >/dev/null 2>&1 || true' EXIT
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%F)"
printf '| nodes | link | bytes | tensoract ms | tensoract busbw GB/s | of link | TensorFlow ms | TensorFlow busbw GB/s | tensoract vs TF |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for n in ${node_counts//,/ }; do
  for rate in ${rates//,/ }; do
    gbit=$(echo "$rate" | awk '/gbit/{print $0+0} /mbit/{print ($0+0)/1000}')
    # shellcheck disable=SC2086
    $lab up --name $name --nodes "$n" --rate "$rate" --node "$build/bootstrap/tensoract-node" \
      ${NODE_FLAGS:+-- $NODE_FLAGS} >/dev/null
    # shellcheck disable=SC1091
    . /tmp/tensoract-lab-$name/env
    ours=$("$build/tests/bench/allreduce_bench" --targets "$(echo "$LAB_ADDRESSES" | tr ' ' ,)" \
             --token-file "$LAB_TOKEN_FILE" --sizes "$sizes" --rounds "$rounds" --link-gbit "$gbit" ${CLIENT_FLAGS:-} |
             grep -v '^#\|bytes')
    tf=""
    if [ "${TENSORFLOW:-1}" != 0 ]; then
      tf_addresses=$(echo "$LAB_ADDRESSES" | tr ' ' '\n' | sed 's/:2222$/:2300/' | paste -sd,)
      outs=()
      for i in $(seq 0 $((n - 1))); do
        out=$(mktemp)
        outs+=("$out")
        $lab exec --name $name "$i" python3 "$here/allreduce_tf.py" --task "$i" --addresses "$tf_addresses" \
          --sizes "$sizes" --rounds "$rounds" > "$out" 2>/dev/null &
      done
      wait
      # A round takes as long as its slowest member.
      tf=$(cat "${outs[@]}" | awk '$1 == "tensorflow" { if ($3 > m[$2]) m[$2] = $3 } END { for (s in m) print s, m[s] }')
      rm -f "${outs[@]}"
    fi
    $lab down --name $name >/dev/null
    echo "$ours" | while read -r bytes ms busbw oflink; do
      t=$(echo "$tf" | awk -v b="$bytes" '$1 == b { print $2 }')
      if [ -n "$t" ]; then
        tbw=$(awk -v n="$n" -v b="$bytes" -v t="$t" 'BEGIN { printf "%.4f", 2 * (n - 1) / n * b / (t / 1e3) / 1e9 }')
        ratio=$(awk -v o="$ms" -v t="$t" 'BEGIN { printf "%.2fx", t / o }')
      else
        t="-"; tbw="-"; ratio="-"
      fi
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$rate" "$bytes" "$ms" "$busbw" "$oflink" "$t" "$tbw" "$ratio"
    done
  done
done
