#!/usr/bin/env bash
# The Keras model zoo (issue 54): inference latency of each model's serving signature at
# batch 1 and 32, tensoract (SavedModelBundle::Run in process: saved_model_latency) against
# TensorFlow 2.21 (oneDNN on, its default), ONNX Runtime (tf2onnx) and OpenVINO (float32 by
# its precision hint, and its default precision), in one run, with each peer's time over
# ours (above 1: tensoract is faster), every engine fed the same batch (the export's .npy;
# saved_model_latency --input). The peers are PyPI packages
# (`bootstrap/install-deps.sh --peers`); a missing one is reported as skipped. Where the CPU
# has bfloat16 units (AVX512-BF16, AMX), tensoract runs each model a second time with its
# products and the activations between its convolutions in bfloat16 (saved_model_latency
# --bf16-activations: GraphOptimizerOptions::bfloat16_products and bfloat16_activations, as
# OpenVINO's bfloat16 keeps them), printing its time, its outputs' distance from float's,
# and OpenVINO's default precision (bfloat16 there) over it. With --int8, tensoract also runs
# each model with its convolutions in 8-bit integers (saved_model_latency --int8:
# GraphOptimizerOptions::int8_products, dynamic quantization), printing its time, its
# distance from float and the peers' float times over it. With --policy mixed_bfloat16 the
# models are exported under Keras' mixed_bfloat16 policy (their graphs compute in bfloat16
# themselves), and every engine runs those graphs.
#
#   tests/bench/run_model_zoo_bench.sh [build_dir] [--size full|small] [--names A,B] [--batches 1,32]
#                                      [--seconds S] [--runs N] [--engines E,...] [--int8]
#                                      [--policy mixed_bfloat16] [--rounds R]
#
# Defaults: the representative set of tests/compat/keras_zoo.py at the sizes models are
# served at (224x224 images), batches 1 and 32; every engine, ours and the peers, timed over
# the same --seconds (3 s) per model and batch, and at least --runs (20) calls; the median.
# --rounds R measures each model R times over (the peers, then tensoract, each round) and
# ends with each ratio's median over the rounds: on a VM whose speed swings by 25% between
# minutes, one round's ratio at batch 1 moved from 0.83x to 1.25x between two runs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ]; then build=$1; shift; fi
size=full names="" batches=1,32 seconds=3 engines="" runs=20 int8=0 policy=float32 rounds=1
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size=$2; shift 2 ;;
    --names) names=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --engines) engines=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --int8) int8=1; shift ;;
    --policy) policy=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "run_model_zoo_bench.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
source "$here/bench_util.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

export_args=(--size "$size" --batches "$batches" --policy "$policy")
[ -n "$names" ] && export_args+=(--names "$names")
python3 "$here/model_zoo_export.py" "$work" "${export_args[@]}" 2> /dev/null | grep '^model_zoo_export' || true

peer_args=(--batches "$batches" --runs "$runs" --seconds "$seconds")
[ -n "$engines" ] && peer_args+=(--engines "$engines")

bf16=0
grep -qw avx512_bf16 /proc/cpuinfo && bf16=1
grep -qw amx_bf16 /proc/cpuinfo && bf16=1
echo "tensoract ($(grep -q avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2) CPU, $(nproc) threads):"
# " engine R" for each peer's time of MODEL at BATCH over MS, " no peer" where none ran.
peer_ratios() {
  local ratios="" engine peer_ms unit
  while read -r _ _ _ _ engine peer_ms unit; do
    [ "$unit" = ms ] || continue
    ratios+=$(awk -v p="$peer_ms" -v o="$3" -v e="$engine" 'BEGIN { printf " %s %.2fx", e, p / o }')
  done < <(grep "^model_zoo: $1 batch $2 " "$work/peers.txt")
  echo "${ratios:- no peer}"
}
# Model by model, the peers and then tensoract, so that both run in the same minute: on a
# shared VM the machine's speed drifts by 20-40% over minutes (RESULTS.md).
for dir in "$work"/*/; do
  model=$(basename "$dir")
  [ -d "$dir/saved_model" ] || continue
  for round in $(seq "$rounds"); do
    [ "$rounds" = 1 ] || echo "# $model: round $round of $rounds"
    : > "$work/peers.txt"
    python3 "$here/model_zoo_peers.py" "$work" "${peer_args[@]}" --models "$model" 2> /dev/null | tee -a "$work/peers.txt" |
      grep -v '^model_zoo_check' || true
    for b in ${batches//,/ }; do
      # The batch every peer is fed (model_zoo_export.py), so that the distances from float
      # below are on the inputs the model was made for.
      input=()
      [ -f "$dir/input_b$b.npy" ] && input=(--input "$dir/input_b$b.npy")
      line=$(quiet_run "$build/tests/bench/saved_model_latency" "$dir/saved_model" "$b" "$seconds" "${input[@]}" 2>&1 | tail -1)
      ms=$(echo "$line" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
      if [ -z "$ms" ]; then
        echo "model_zoo: $model batch $b tensoract failed: $line"
        continue
      fi
      echo "model_zoo: $model batch $b tensoract $ms ms"
      echo "ratio $model batch $b (peer ms / tensoract ms):$(peer_ratios "$model" "$b" "$ms")"
      if [ "$int8" = 1 ]; then
        out=$(quiet_run "$build/tests/bench/saved_model_latency" "$dir/saved_model" "$b" "$seconds" "${input[@]}" --int8 2>&1 | tail -2)
        int8_ms=$(echo "$out" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
        if [ -n "$int8_ms" ]; then
          echo "model_zoo: $model batch $b tensoract-int8 $int8_ms ms ($(echo "$out" | sed -n 's/.*int8 products: //p'))"
          echo "ratio $model batch $b int8 (peer ms / tensoract-int8 ms):$(peer_ratios "$model" "$b" "$int8_ms")"
        else
          echo "model_zoo: $model batch $b tensoract-int8 failed: $(echo "$out" | tail -1)"
        fi
      fi
      [ "$bf16" = 1 ] || continue
      out=$(quiet_run "$build/tests/bench/saved_model_latency" "$dir/saved_model" "$b" "$seconds" "${input[@]}" --bf16-activations 2>&1 | tail -2)
      bf16_ms=$(echo "$out" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
      error=$(echo "$out" | sed -n 's/.*largest |f32| = \(.*\)/\1/p')
      if [ -z "$bf16_ms" ]; then
        echo "model_zoo: $model batch $b tensoract-bf16 failed: $(echo "$out" | tail -1)"
        continue
      fi
      echo "model_zoo: $model batch $b tensoract-bf16 $bf16_ms ms (largest |bf16 - f32| / largest |f32| = $error)"
      # OpenVINO's default precision, "openvino-default(bf16)" where it chose bfloat16.
      ov=$(grep "^model_zoo: $model batch $b openvino-default" "$work/peers.txt" | awk '$7 == "ms" { print $6 }' || true)
      if [ -n "$ov" ]; then
        awk -v p="$ov" -v o="$bf16_ms" -v m="$model" -v b="$b" \
          'BEGIN { printf "ratio %s batch %s bf16 (openvino-default ms / tensoract-bf16 ms): %.2fx\n", m, b, p / o }'
      fi
    done
  done
done | tee "$work/lines.txt"
# Each ratio's median over the rounds, from the "ratio" lines above.
[ "$rounds" = 1 ] || python3 - "$work/lines.txt" <<'PY'
import re, statistics, sys
seen = {}
for ln in open(sys.argv[1]):
    m = re.match(r"ratio (\S+) batch (\d+)( bf16| int8)? \((.*?)\):(.*)", ln)
    if not m:
        continue
    words = m.group(5).split()
    # "engine R" pairs, or one ratio over the engine the parenthesis names (bf16's line).
    pairs = zip(words[0::2], words[1::2]) if len(words) > 1 else [(m.group(4).split(" ms")[0], words[0])]
    for engine, r in pairs:
        if r.endswith("x"):
            seen.setdefault((m.group(1), m.group(2), (m.group(3) or "").strip(), engine), []).append(float(r[:-1]))
for (model, b, kind, engine), rs in seen.items():
    what = f"{kind} " if kind else ""
    rounds = " ".join(f"{r:.2f}" for r in rs)
    print(f"median ratio {model} batch {b} {what}{engine}: {statistics.median(rs):.2f}x (rounds: {rounds})")
PY
