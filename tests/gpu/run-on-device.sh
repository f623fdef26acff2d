#!/usr/bin/env bash
# The GPU checks on a lent GPU machine, which has CUDA and PyTorch but none of our Debian
# libraries. Here (on the development machine):
#
#   bash tests/gpu/run-on-device.sh pack [BUILD]   # BUILD: a -DTENSORACT_PORTABLE=ON build
#
# copies the GPU test and benchmark binaries, the .so files they need that the GPU machine
# lacks, and a slice of Fashion-MNIST (8192 training images) into .devcarry/ (ignored by
# git; carry it). There, from the repository root:
#
#   bash tests/gpu/run-on-device.sh run [OUT]
#
# runs the GPU tests, then the benchmarks against PyTorch on the same GPU: MatMul TFLOP/s
# and training steps per second of the MLP and the CNN at batch 64 and 512. Everything is logged to
# OUT/gpu-run.log (default: $OUT, else /tmp). PARTS (default "tests matmul mnist train")
# picks what runs; ROUNDS (default "1 2") how many alternations of the training benchmark.
set -uo pipefail
cd "$(dirname "$0")/../.."
mode=${1:-}
case "$mode" in
pack)
  build=${2:-build-gpu}
  rm -rf .devcarry/bin .devcarry/lib
  mkdir -p .devcarry/bin .devcarry/lib .devcarry/fmnist
  bins="tests/gpu_tests tests/bench/train_step tests/bench/gpu_matmul examples/fashion_mnist"
  for b in $bins; do cp "$build/$b" .devcarry/bin/; done
  # Every library they load except the C runtime and CUDA's (the GPU machine has its own).
  for b in $bins; do ldd "$build/$b"; done | awk '/=> \// {print $3}' | sort -u |
    grep -v -E '/(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|ld-linux|libcuda|libcudart|libcublas|libcublasLt|libcudnn[a-z_]*)\.so' |
    xargs -I{} cp -L {} .devcarry/lib/
  python3 - <<'PY'
import gzip, struct
src, dst = "/usr/share/datasets/fashion-mnist/", ".devcarry/fmnist/"
for split, n in (("train", 8192), ("t10k", 2048)):
    with gzip.open(src + f"{split}-images-idx3-ubyte.gz") as f:
        d = f.read()
    magic, _, r, c = struct.unpack(">IIII", d[:16])
    with gzip.open(dst + f"{split}-images-idx3-ubyte.gz", "wb") as f:
        f.write(struct.pack(">IIII", magic, n, r, c) + d[16:16 + n * r * c])
    with gzip.open(src + f"{split}-labels-idx1-ubyte.gz") as f:
        d = f.read()
    with gzip.open(dst + f"{split}-labels-idx1-ubyte.gz", "wb") as f:
        f.write(struct.pack(">II", struct.unpack(">I", d[:4])[0], n) + d[8:8 + n])
PY
  du -sh .devcarry
  ;;
run)
  out=${2:-${OUT:-/tmp}}
  log="$out/gpu-run.log"
  exec > >(tee "$log") 2>&1
  cublas=$(find / -xdev -name 'libcublas.so.13' 2>/dev/null | head -1)
  cudart=$(find / -xdev -name 'libcudart.so.13' 2>/dev/null | head -1)
  cudnn=$(find / -xdev -name 'libcudnn.so.9' 2>/dev/null | head -1)
  export LD_LIBRARY_PATH="$PWD/.devcarry/lib:$(dirname "$cublas"):$(dirname "$cudart"):$(dirname "$cudnn"):${LD_LIBRARY_PATH:-}"
  export TENSORACT_FASHION_MNIST="$PWD/.devcarry/fmnist"
  nvidia-smi -L
  echo "cuBLAS: $cublas; cudart: $cudart; cuDNN: $cudnn"
  parts=${PARTS:-tests matmul mnist train}
  if [[ $parts == *tests* ]]; then
  echo "== gpu_tests"
  timeout 240 .devcarry/bin/gpu_tests --durations yes > "$out/gpu-tests.log" 2>&1
  echo "gpu_tests exit: $?"
  grep -v -E '^(0\.|[1-9][0-9]*\.)[0-9]+ s: ' "$out/gpu-tests.log" | tail -80
  grep -E ' s: ' "$out/gpu-tests.log"
  fi
  if [[ $parts == *matmul* ]]; then
  echo "== MatMul"
  timeout 120 .devcarry/bin/gpu_matmul 1024 4096 8192
  timeout 120 python3 tests/bench/matmul_peers.py --device gpu 1024 4096 8192
  fi
  if [[ $parts == *mnist* ]]; then
  echo "== Fashion-MNIST MLP on the 8192-image slice, 3 epochs: GPU, then CPU"
  for device in gpu cpu; do
    timeout 120 .devcarry/bin/fashion_mnist --model mlp --device $device --epochs 3 --data .devcarry/fmnist \
      --checkpoint-dir "" --threads 4 2>&1 | tail -4
  done
  fi
  if [[ $parts == *train* ]]; then
  echo "== training steps, alternating with PyTorch"
  for round in ${ROUNDS:-1 2}; do
    for model in mlp cnn; do
      steps=1000
      [ $model = cnn ] && steps=300
      for batch in 64 512; do
        timeout 120 .devcarry/bin/train_step --model $model --batch $batch --threads 4 --device gpu --steps $steps \
          --warmup 30
        timeout 120 python3 tests/bench/train_step_peers.py torch --model $model --batch $batch --threads 4 \
          --device gpu --steps $steps --warmup 30
      done
    done
  done
  fi
  ;;
*)
  echo "usage: $0 pack [BUILD] | run [OUT]" >&2
  exit 2
  ;;
esac
