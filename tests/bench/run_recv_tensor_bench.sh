#!/usr/bin/env bash
# RecvTensor: tensoract's data plane (token mode, and TLS mode) vs raw loopback TCP (same
# run, same process pair) vs TensorFlow's gRPC runtime (two tf.distribute.Server tasks on
# loopback). Prints a table.
#   tests/bench/run_recv_tensor_bench.sh [build_dir] [reps_1mb] [reps_64mb] [reps_4b]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
r1=${2:-200}; r64=${3:-15}; r4=${4:-3000}
# TLS mode too: certificates from a throwaway cluster CA.
certs=$(mktemp -d)
trap 'rm -rf "$certs"' EXIT
bash "$here/../../bootstrap/make-cluster-certs.sh" "$certs" server client >/dev/null
ours=$(TENSORACT_BENCH_TLS_DIR=$certs "$build/tests/bench/recv_tensor_bench" "$r1" "$r64" "$r4")
peer=$(python3 "$here/recv_tensor_peers.py" "$r1" "$r64" "$((r4 / 3))" 2>/dev/null | grep '^tensorflow' || true)
echo "$ours"
echo "$peer"
printf '%s\n%s\n' "$ours" "$peer" | awk '
  $1 ~ /^(raw_tcp|tensoract|tensorflow)$/ && $4 != "" { v[$1 " " $2] = $3; u[$2] = $4 }
  END {
    printf "\n| size | raw TCP | tensoract | TensorFlow gRPC | tensoract vs raw | tensoract vs TensorFlow |\n|---|---|---|---|---|---|\n"
    split("1MB 64MB 4B", sizes, " ")
    for (i = 1; i <= 3; i++) {
      s = sizes[i]; r = v["raw_tcp " s]; o = v["tensoract " s]; t = v["tensorflow " s]
      if (u[s] == "us") { vr = o / r; vt = (t ? t / o : 0); kind = "time" } else { vr = o / r; vt = (t ? o / t : 0); kind = "throughput" }
      printf "| %s | %s %s | %s %s | %s %s | %.2fx %s | %.2fx faster |\n", s, r, u[s], o, u[s], (t ? t : "n/a"), (t ? u[s] : ""), vr, kind, vt
    }
  }'
