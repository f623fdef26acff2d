#!/usr/bin/env bash
# Starts one tensoract-node on a free port and runs examples/run_step_request against its
# master: TensorFlow's CreateSession/RunStep/CloseSession messages built by hand.
set -euo pipefail
build="$1"
export TENSORACT_CLUSTER_TOKEN="run-step-request-test-token"
out="$(mktemp)"
"$build/bootstrap/tensoract-node" --cluster 'worker=127.0.0.1:0' --job worker --task 0 --threads 2 >"$out" &
node=$!
trap 'kill -9 $node 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 200); do
  grep -q "ready" "$out" && break
  sleep 0.1
done
port="$(sed -n 's/.* on 127.0.0.1:\([0-9]*\);.*/\1/p' "$out")"
[ -n "$port" ] || { echo "the node did not get ready"; exit 1; }
timeout 60 "$build/examples/run_step_request" "127.0.0.1:$port"
