#!/usr/bin/env bash
# Training steps per second of the Fashion-MNIST MLP and CNN in tensoract, PyTorch and
# TensorFlow, for batch 64 and 512 and 1 and 2 threads; prints each framework's median over
# `rounds` runs and our ratio against the faster peer's median (above 1.0x: we are faster).
# The frameworks take turns within each round (each round starting with the next one), so a
# slow spell of a shared machine hits all of them rather than one; a run during which the
# hypervisor stole over STEAL_LIMIT% (default 10) of the CPU time is repeated (bench_util.sh).
#   tests/bench/run_train_bench.sh [build_dir] [steps] [models] [batches] [threads] [rounds]
#   e.g. tests/bench/run_train_bench.sh build 200 "mlp cnn" "64 512" "1 2" 3
# DEVICE=gpu runs ours and the peers on the GPU (tensorflow-cpu then has none: n/a).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
steps=${2:-200}
models=${3:-mlp cnn}
batches=${4:-64 512}
threads_list=${5:-1 2}
rounds=${6:-3}
rate() { awk '{for (i=1;i<=NF;i++) if ($(i+1)=="steps/s") print $i}'; }
source "$here/bench_util.sh"
printf "| model | batch | threads | tensoract steps/s | PyTorch steps/s | TensorFlow steps/s | vs faster peer |\n"
printf "|---|---|---|---|---|---|---|\n"
for model in $models; do
  for batch in $batches; do
    for threads in $threads_list; do
      n=$steps
      # The CNN at batch 512 takes ~0.5 s a step: fewer steps keep the run short.
      [ "$model" = cnn ] && n=$(( steps / (batch >= 512 ? 10 : 4) ))
      [ "$n" -lt 5 ] && n=5
      w=$(( n / 10 + 2 ))
      args=(--model "$model" --batch "$batch" --threads "$threads" --steps "$n" --warmup "$w"
            --device "${DEVICE:-cpu}")
      ours=""; torch=""; tf=""
      for ((r = 0; r < rounds; ++r)); do
        # Round r starts with framework r mod 3, so none always runs first (or right after
        # another's warm-up) in a sitting.
        for ((f = 0; f < 3; ++f)); do
          case $(( (r + f) % 3 )) in
            0) line=$(quiet_run "$build/tests/bench/train_step" "${args[@]}")
               echo "$line" >&2; ours="$ours $(echo "$line" | rate)" ;;
            1) line=$(quiet_run python3 "$here/train_step_peers.py" torch "${args[@]}" 2>/dev/null || echo "torch unavailable")
               echo "$line" >&2; torch="$torch $(echo "$line" | rate)" ;;
            2) line=$(quiet_run python3 "$here/train_step_peers.py" tf "${args[@]}" 2>/dev/null || echo "tf unavailable")
               echo "$line" >&2; tf="$tf $(echo "$line" | rate)" ;;
          esac
        done
      done
      a=$(echo "$ours" | median); b=$(echo "$torch" | median); c=$(echo "$tf" | median)
      ratio=$(awk -v a="$a" -v b="${b:-0}" -v c="${c:-0}" 'BEGIN { m = (b > c ? b : c); if (m > 0) printf "%.2fx", a / m; else print "n/a" }')
      printf "| %s | %s | %s | %s | %s | %s | %s |\n" "$model" "$batch" "$threads" "$a" "${b:-n/a}" "${c:-n/a}" "$ratio"
    done
  done
done
