#!/usr/bin/env bash
# The GPU checks on a lent GPU machine, which has CUDA and PyTorch but none of our Debian
# libraries. Here (on the development machine):
#
#   bash tests/gpu/run-on-device.sh pack [BUILD]   # BUILD: a -DTENSORACT_PORTABLE=ON -DTENSORACT_CUDA=ON build
#
# (configure BUILD with -DTENSORACT_WITH_ONEDNN=OFF too: oneDNN, which the GPU checks do
# not use, would add 7 MB of xz to a carry that is near its 64 MiB already)
#
# copies the GPU test and benchmark binaries and the .so files they need that the GPU
# machine lacks (xz-compressed), the whole of Fashion-MNIST (its training images in xz), and
# the differential harness's cases for the GPU, made first (TensorFlow computes their
# reference here) with
#
#   python3 tests/compat/tf_fidelity_compat.py BUILD/tests/fidelity_tool .devcarry/fidelity \
#       --gpu --modes fed
#
# into .devcarry/ (ignored by git; carry .devcarry/bin, .devcarry/lib.tar.xz,
# .devcarry/fidelity.tar.xz and .devcarry/fmnist: about 58 MB of the 64 MiB a call takes).
# There, from the repository root:
#
#   bash tests/gpu/run-on-device.sh run [OUT]
#
# runs the GPU tests; the harness's cases on the CPU and the GPU (OUT/fidelity/forward.jsonl.xz
# and gradients.jsonl.xz: back here, the harness's command above again with --gpu-results
# OUT/fidelity compares them); MatMul TFLOP/s against PyTorch on the same GPU; the main
# job's runs (the MLP 10 epochs, the CNN 5) on the GPU; training steps per second of the MLP
# and the CNN at batch 64 and 512 against PyTorch; and the CNN's GPU kernels timed by Nsight
# Compute (OUT/ncu-ours.csv, OUT/ncu-torch.csv). Everything is logged to OUT/gpu-run.log
# (default: $OUT, else /tmp). PARTS (default "tests fidelity matmul mnist train profile")
# picks what runs; ROUNDS (default "1 2") how many alternations of the training benchmark;
# PEER_PROFILE=0 skips PyTorch's kernel timings.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/device_libs.sh
mode=${1:-}
case "$mode" in
pack)
  build=${2:-build-gpu}
  rm -rf .devcarry/bin .devcarry/fidelity.tar.xz
  mkdir -p .devcarry/bin .devcarry/fmnist
  bins="tests/gpu_tests tests/fidelity_tool tests/bench/train_step tests/bench/gpu_matmul examples/fashion_mnist"
  for b in $bins; do cp "$build/$b" .devcarry/bin/; done
  pack_libs "$build" .devcarry $(for b in $bins; do echo "$build/$b"; done)
  if [ -f .devcarry/fidelity/manifest.txt ]; then
    tar cf - --exclude='*.jsonl' --exclude='*.json' .devcarry/fidelity | xz -6 -T2 > .devcarry/fidelity.tar.xz
  fi
  # The whole of Fashion-MNIST, its training images in xz (26 MB in gzip, 23 in xz).
  src=/usr/share/datasets/fashion-mnist
  cp $src/t10k-images-idx3-ubyte.gz $src/t10k-labels-idx1-ubyte.gz $src/train-labels-idx1-ubyte.gz .devcarry/fmnist/
  [ -f .devcarry/fmnist/train-images-idx3-ubyte.xz ] ||
    zcat $src/train-images-idx3-ubyte.gz | xz -9 -T2 > .devcarry/fmnist/train-images-idx3-ubyte.xz
  rm -f .devcarry/fmnist/train-images-idx3-ubyte.gz
  du -sh .devcarry
  ;;
run)
  out=${2:-${OUT:-/tmp}}
  log="$out/gpu-run.log"
  exec > >(tee "$log") 2>&1
  # Unpack what pack compressed (with Python: the machine may lack xz).
  unpack_libs .devcarry
  python3 - <<'PY'
import lzma, os, shutil, tarfile
if os.path.exists(".devcarry/fidelity.tar.xz"):
    with tarfile.open(".devcarry/fidelity.tar.xz") as t:
        t.extractall(".")
images = ".devcarry/fmnist/train-images-idx3-ubyte"
if os.path.exists(images + ".xz") and not os.path.exists(images + ".gz"):
    import gzip  # the PyTorch peer reads gzip only
    with lzma.open(images + ".xz") as f, gzip.open(images + ".gz", "wb", compresslevel=1) as g:
        shutil.copyfileobj(f, g)
PY
  cublas=$(find / -xdev -name 'libcublas.so.13' 2>/dev/null | head -1)
  cudart=$(find / -xdev -name 'libcudart.so.13' 2>/dev/null | head -1)
  cudnn=$(find / -xdev -name 'libcudnn.so.9' 2>/dev/null | head -1)
  export LD_LIBRARY_PATH="$PWD/.devcarry/lib:$(dirname "$cublas"):$(dirname "$cudart"):$(dirname "$cudnn"):${LD_LIBRARY_PATH:-}"
  export TENSORACT_FASHION_MNIST="$PWD/.devcarry/fmnist"
  nvidia-smi -L
  echo "cuBLAS: $cublas; cudart: $cudart; cuDNN: $cudnn"
  parts=${PARTS:-tests fidelity matmul mnist train profile}
  if [[ $parts == *tests* ]]; then
  echo "== gpu_tests"
  timeout 240 .devcarry/bin/gpu_tests --durations yes > "$out/gpu-tests.log" 2>&1
  echo "gpu_tests exit: $?"
  grep -v -E '^(0\.|[1-9][0-9]*\.)[0-9]+ s: ' "$out/gpu-tests.log" | tail -80
  grep -E ' s: ' "$out/gpu-tests.log"
  fi
  if [[ $parts == *fidelity* ]]; then
  # Each case on the CPU and on the GPU of this machine; what comes back is, per case, the
  # two outcomes where they differ in any bit (the rest, marked same, would be too large).
  echo "== the differential harness's cases on the CPU and the GPU"
  mkdir -p "$out/fidelity"
  for part in forward gradients; do
    dir=.devcarry/fidelity; [ $part = gradients ] && dir=$dir/gradients
    [ -f $dir/manifest.txt ] || continue
    for device in cpu gpu; do
      start=$(date +%s)
      timeout 300 .devcarry/bin/fidelity_tool run --device $device $dir/manifest.txt /tmp/$part-$device.jsonl
      echo "fidelity_tool $part --device $device: exit $?, $(wc -l < /tmp/$part-$device.jsonl) cases, $(( $(date +%s) - start )) s"
    done
    python3 - /tmp/$part-cpu.jsonl /tmp/$part-gpu.jsonl "$out/fidelity/$part.jsonl.xz" <<'PY'
import json, lzma, sys
same = 0
with open(sys.argv[1]) as c, open(sys.argv[2]) as g, lzma.open(sys.argv[3], "wt") as out:
    for cpu, gpu in zip(c, g):
        if cpu == gpu:
            out.write(json.dumps({"id": json.loads(cpu)["id"], "same": True}) + "\n")
            same += 1
        else:
            out.write(json.dumps({"cpu": json.loads(cpu), "gpu": json.loads(gpu)}) + "\n")
print(f"{same} cases bit for bit the same on the GPU and the CPU")
PY
  done
  fi
  if [[ $parts == *matmul* ]]; then
  echo "== MatMul"
  timeout 120 .devcarry/bin/gpu_matmul 1024 4096 8192
  timeout 120 python3 tests/bench/matmul_peers.py --device gpu 1024 4096 8192
  fi
  if [[ $parts == *mnist* ]]; then
  echo "== Fashion-MNIST, the main job's runs: the MLP (10 epochs) and the CNN (5) on the GPU"
  for run in "mlp gpu 10" "cnn gpu 5"; do
    set -- $run
    timeout 200 .devcarry/bin/fashion_mnist --model $1 --device $2 --epochs $3 --data .devcarry/fmnist \
      --checkpoint-dir "" --logdir "" --threads 4 2>&1 | tail -3
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
  if [[ $parts == *profile* ]]; then
  # Nsight Compute times each GPU kernel alone (one metric: one pass per kernel): 400
  # kernels after 1,000, ours and PyTorch's, CNN at batch 512, into OUT/ncu-*.csv.
  echo "== the CNN's GPU kernels, batch 512 (ncu)"
  ncu_args="--metrics gpu__time_duration.sum --csv --clock-control none --launch-skip 1000 --launch-count 400"
  timeout 100 ncu $ncu_args .devcarry/bin/train_step --model cnn --batch 512 --threads 4 --device gpu --steps 60 \
    --warmup 5 > "$out/ncu-ours.csv" 2> /tmp/ncu-ours.err
  echo "ncu (ours) exit: $?"; tail -3 /tmp/ncu-ours.err
  if [ "${PEER_PROFILE:-1}" = 1 ]; then
    timeout 100 ncu $ncu_args python3 tests/bench/train_step_peers.py torch --model cnn --batch 512 --threads 4 \
      --device gpu --steps 60 --warmup 5 > "$out/ncu-torch.csv" 2> /tmp/ncu-torch.err
    echo "ncu (PyTorch) exit: $?"; tail -3 /tmp/ncu-torch.err
  fi
  fi
  ;;
*)
  echo "usage: $0 pack [BUILD] | run [OUT]" >&2
  exit 2
  ;;
esac
