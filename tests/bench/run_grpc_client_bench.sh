#!/usr/bin/env bash
# TensorFlow's Python client through grpc://: tensoract-node's MasterService against
# TensorFlow's own server (tf.distribute.Server), in one run: Session.run latency of a small
# graph, and the Fashion-MNIST MLP trained as a tf.compat.v1 graph (ex/s). Prints each
# engine's figures and the ratios (tests/bench/grpc_client_bench.py says how).
#   tests/bench/run_grpc_client_bench.sh [build_dir] [--runs 2000] [--steps 300] [--batch 64]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build=$1; shift; fi
python3 "$here/grpc_client_bench.py" "$build/bootstrap/tensoract-node" "$@" 2>&1 | grep '^grpc_client'
