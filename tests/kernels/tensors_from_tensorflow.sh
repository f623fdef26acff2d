#!/usr/bin/env bash
# Has TensorFlow write tensors of every dtype, then reads them with tensoract's kernels
# tests. Exits 77 (skipped) when TensorFlow is not installed.
set -euo pipefail
python=$1 tests=$2 dir=$3
# Found, not imported: importing TensorFlow to ask would cost ~6 s of a core.
if ! "$python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("tensorflow") is None)'; then
  echo "SKIPPED: tensorflow is not installed (bootstrap/install-deps.sh installs tensorflow-cpu)"
  exit 77
fi
rm -rf "$dir" && mkdir -p "$dir"
"$python" "$(dirname "$0")/write_tf_tensors.py" "$dir" 2> >(grep -v -E '^(WARNING|I0000|E0000)|oneDNN|cuda|TF-TRT' >&2 || true)
TENSORACT_TF_TENSOR_DIR="$dir" "$tests" '[tensorflow]'
