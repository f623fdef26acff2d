#!/usr/bin/env bash
# The cluster lab's benchmarks (run_allreduce_bench.sh, run_sync_train_scale.sh) on the lent
# GPU machine, for its 16 cores: on 2 cores, 16 or 32 nodes and their clients bind the CPUs
# before the links do. That machine has none of our Debian libraries and no iproute2, and
# TensorFlow's wheel is larger than a call carries: only tensoract's side runs there. Here:
#
#   bash tests/bench/run_lab_on_device.sh pack [BUILD]
#
# (BUILD: cmake -DTENSORACT_PORTABLE=ON -DTENSORACT_CUDA=OFF -DTENSORACT_WITH_ONEDNN=OFF,
# targets tensoract-node allreduce_bench sync_train_scale master_scale) copies into .devlab/
# (ignored by git; carry .devlab, 25 MB) the binaries in BUILD's layout, the libraries they
# and iproute2's ip and tc need, and Fashion-MNIST's test set, also as the training split
# (the benchmarks time steps, not accuracy). There, from the repository root:
#
#   bash tests/bench/run_lab_on_device.sh run [OUT]
#
# runs PARTS (default "allreduce train"): ALLREDUCE (run_allreduce_bench.sh's arguments after
# the build folder; default "16,32 1gbit,10gbit 4096,65536,1048576,16777216,67108864,268435456
# 3") and TRAIN (run_sync_train_scale.sh's, allreduce-pw mode; default "8,16,32 100mbit 4096
# 3"), each under a timeout (ALLREDUCE_S, TRAIN_S: 240 and 200 s), logging to OUT/lab-run.log.
# TENSORFLOW=1 runs TensorFlow's side too, in the same run, where it is installed (not on the
# lent machine).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/device_libs.sh
case "${1:-}" in
pack)
  build=${2:-build-portable}
  bins="bootstrap/tensoract-node tests/bench/allreduce_bench tests/bench/sync_train_scale tests/bench/master_scale"
  rm -rf .devlab
  mkdir -p .devlab/sbin .devlab/fmnist
  for b in $bins; do mkdir -p ".devlab/build/$(dirname "$b")" && cp "$build/$b" ".devlab/build/$b"; done
  cp "$(command -v ip)" "$(command -v tc)" .devlab/sbin/
  pack_libs "$build" .devlab $(for b in $bins; do echo "$build/$b"; done) .devlab/sbin/ip .devlab/sbin/tc
  src=/usr/share/datasets/fashion-mnist
  for part in images-idx3 labels-idx1; do
    cp "$src/t10k-$part-ubyte.gz" .devlab/fmnist/
    cp "$src/t10k-$part-ubyte.gz" ".devlab/fmnist/train-$part-ubyte.gz"
  done
  du -sh .devlab
  ;;
run)
  out=${2:-${OUT:-/tmp}}
  exec > >(tee "$out/lab-run.log") 2>&1
  # The libraries unpack outside the checkout: 60 MB in .devlab would stop the next call
  # from carrying it (64 MiB a call).
  unpack_libs .devlab /tmp/tensoract-devlab
  export LD_LIBRARY_PATH=/tmp/tensoract-devlab/lib PATH="$PWD/.devlab/sbin:$PATH"
  build=$PWD/.devlab/build
  echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2), $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB"
  parts=${PARTS:-allreduce train}
  if [[ $parts == *allreduce* ]]; then
    echo "== all-reduce: ${ALLREDUCE:=16,32 1gbit,10gbit 4096,65536,1048576,16777216,67108864,268435456 3}"
    # shellcheck disable=SC2086
    TENSORFLOW=${TENSORFLOW:-0} timeout "${ALLREDUCE_S:-240}" bash tests/bench/run_allreduce_bench.sh "$build" $ALLREDUCE
    echo "exit $?"
    pkill -f tests/bench/allreduce_bench   # left running when the timeout ended its script
    bash bootstrap/cluster-lab.sh down --name arb > /dev/null 2>&1
  fi
  if [[ $parts == *train* ]]; then
    echo "== synchronous training: ${TRAIN:=8,16,32 100mbit 4096 3}"
    # shellcheck disable=SC2086
    MODES=allreduce-pw TENSORFLOW=${TENSORFLOW:-0} CLIENT_FLAGS="--data-dir $PWD/.devlab/fmnist" timeout "${TRAIN_S:-200}" \
      bash tests/bench/run_sync_train_scale.sh "$build" $TRAIN
    echo "exit $?"
    pkill -f tests/bench/sync_train_scale
    bash bootstrap/cluster-lab.sh down --name sts > /dev/null 2>&1
  fi
  ;;
*)
  sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
