#!/usr/bin/env bash
# Training steps per second of the Fashion-MNIST MLP and CNN in tensoract, PyTorch and
# TensorFlow, one after the other in this run, for batch 64 and 512 and 1 and 2 threads;
# prints each figure and our ratio against the faster peer (above 1.0x: we are faster).
#   tests/bench/run_train_bench.sh [build_dir] [steps] [models] [batches] [threads]
#   e.g. tests/bench/run_train_bench.sh build 200 "mlp cnn" "64 512" "1 2"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
steps=${2:-200}
models=${3:-mlp cnn}
batches=${4:-64 512}
threads_list=${5:-1 2}
rate() { awk '{for (i=1;i<=NF;i++) if ($(i+1)=="steps/s") print $i}'; }
printf "| model | batch | threads | tensoract steps/s | PyTorch steps/s | TensorFlow steps/s | vs faster peer |\n"
printf "|---|---|---|---|---|---|---|\n"
for model in $models; do
  for batch in $batches; do
    for threads in $threads_list; do
      n=$steps
      # The CNN at batch 512 takes ~1 s a step: fewer steps keep the run short.
      [ "$model" = cnn ] && n=$(( steps / (batch >= 512 ? 10 : 4) ))
      [ "$n" -lt 5 ] && n=5
      w=$(( n / 10 + 2 ))
      ours=$("$build/tests/bench/train_step" --model "$model" --batch "$batch" --threads "$threads" --steps "$n" --warmup "$w")
      torch=$(python3 "$here/train_step_peers.py" torch --model "$model" --batch "$batch" --threads "$threads" --steps "$n" --warmup "$w" 2>/dev/null || echo "torch unavailable")
      tf=$(python3 "$here/train_step_peers.py" tf --model "$model" --batch "$batch" --threads "$threads" --steps "$n" --warmup "$w" 2>/dev/null || echo "tf unavailable")
      echo "$ours" >&2; echo "$torch" >&2; echo "$tf" >&2
      a=$(echo "$ours" | rate); b=$(echo "$torch" | rate); c=$(echo "$tf" | rate)
      ratio=$(awk -v a="$a" -v b="${b:-0}" -v c="${c:-0}" 'BEGIN { m = (b > c ? b : c); if (m > 0) printf "%.2fx", a / m; else print "n/a" }')
      printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$model" "$batch" "$threads" "$a" "${b:-n/a}" "${c:-n/a}" "$ratio"
    done
  done
done
