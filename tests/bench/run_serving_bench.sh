#!/usr/bin/env bash
# Serving the Fashion-MNIST CNN: requests/s and p50/p99 latency at 1 and 8 concurrent
# clients, one image per request, in one run:
#   - tensoract-serve over HTTP (TensorFlow Serving's REST API and JSON),
#   - tensoract-serve over gRPC (TensorFlow Serving's PredictionService, --port),
#   - the same model through SavedModelBundle::Run in-process (no HTTP, no JSON),
#   - TensorFlow's own SavedModel called from Python threads (the peer; no HTTP either).
#   tests/bench/run_serving_bench.sh [build_dir] [requests per client]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
per_client=${2:-500}
source "$here/bench_util.sh"
work=$(mktemp -d)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

python3 "$here/serving_models.py" "$work/cnn" "$work/body.json" 2> /dev/null
"$build/bootstrap/tensoract-serve" --model_name cnn --model_base_path "$work/cnn" --rest_api_port 0 --port 0 \
  > "$work/serve.out" 2> "$work/serve.err" &
server=$!
port=""
for _ in $(seq 1 600); do  # the model loads within seconds; give up after 60
  port=$(sed -n 's/^Exporting HTTP\/REST API at:[^:]*:\([0-9]*\).*/\1/p' "$work/serve.out")
  [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/v1/models/cnn" | grep -q AVAILABLE && break
  sleep 0.1
done
[ -n "$port" ] || { echo "tensoract-serve did not start:"; cat "$work/serve.err"; exit 1; }
grpc_port=$(sed -n 's/^Running gRPC ModelServer at [^:]*:\([0-9]*\).*/\1/p' "$work/serve.out")
rps() { sed -n 's/.* \([0-9.]*\) requests\/s.*/\1/p'; }
for clients in 1 8; do
  n=$((per_client / clients > 50 ? per_client / clients : 50))
  [ "$clients" = 1 ] && n=$per_client
  http=$(quiet_run "$build/tests/bench/serving_bench" http 127.0.0.1 "$port" cnn "$work/body.json" "$clients" "$n")
  grpc=$(quiet_run "$build/tests/bench/serving_bench" grpc 127.0.0.1 "$grpc_port" cnn "$work/cnn/1" "$work/body.json" \
         "$clients" "$n")
  direct=$(quiet_run "$build/tests/bench/serving_bench" direct "$work/cnn/1" "$work/body.json" "$clients" "$n")
  peer=$(quiet_run python3 "$here/serving_tf.py" "$work/cnn/1" "$work/body.json" "$clients" "$n" 2> /dev/null)
  echo "$http"
  echo "$grpc"
  echo "$direct"
  echo "$peer"
  awk -v h="$(echo "$http" | rps)" -v g="$(echo "$grpc" | rps)" -v d="$(echo "$direct" | rps)" \
      -v p="$(echo "$peer" | rps)" -v c="$clients" \
    'BEGIN { printf "ratio (%d clients): over HTTP %.2fx, over gRPC %.2fx, in-process %.2fx the requests/s of TensorFlow from Python\n", c, h / p, g / p, d / p }'
done
