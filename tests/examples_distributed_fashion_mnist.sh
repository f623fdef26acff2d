#!/usr/bin/env bash
# examples/distributed_fashion_mnist, shortened: a ps and two workers (tensoract-node
# processes on loopback) train the MLP for 400 steps in each mode (sync, allreduce, async,
# backup, model), and each mode must end within 0.02 of the local run's accuracy (async and
# backup: 0.08, what they learn depends on how the replicas interleave); bad input is a clear
# error (exit status 2) and starts no node; no node outlives the program.
#   tests/examples_distributed_fashion_mnist.sh <distributed_fashion_mnist binary> <scratch dir>
# Exit status 77 (skipped) where Debian's Fashion-MNIST is not installed.
set -euo pipefail
bin=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
data=${TENSORACT_FASHION_MNIST:-/usr/share/datasets/fashion-mnist}
if ! ls "$data"/train-images-idx3-ubyte* > /dev/null 2>&1; then
  echo "no Fashion-MNIST in $data: skipped"
  exit 77
fi

# expect_error <what the message must say> <flags...>: exit status 2, the message on stderr.
expect_error() {
  local want=$1
  shift
  local rc=0
  timeout 30 "$bin" "$@" > "$dir/bad.out" 2> "$dir/bad.err" || rc=$?
  if [ "$rc" -ne 2 ] || ! grep -qF -- "$want" "$dir/bad.err"; then
    echo "'$*': exit status $rc (want 2), stderr:"
    cat "$dir/bad.err"
    exit 1
  fi
}
expect_error "unknown mode 'ring': choose sync, allreduce, async, backup, model or all" --mode ring
expect_error "cannot read Fashion-MNIST from $dir/nowhere" --data-dir "$dir/nowhere"
expect_error "--batch must be even" --batch 7
expect_error "--steps wants a whole number" --steps many
expect_error "cannot run tensoract-node at '$dir/no-node'" --node-binary "$dir/no-node"

rc=0
timeout 120 "$bin" --steps 400 > "$dir/run.out" 2> "$dir/run.err" || rc=$?
cat "$dir/run.out"
if [ "$rc" -ne 0 ]; then
  echo "exit status $rc; stderr:"
  cat "$dir/run.err"
  exit 1
fi
for mode in sync allreduce async backup model; do
  grep -Eq "^mode $mode: accuracy 0\.[0-9]+ \(local 0\.[0-9]+\); [0-9]+ examples/s \(local [0-9]+\) ok: within 0\.[0-9]+$" "$dir/run.out" ||
    { echo "no passing line for mode $mode"; exit 1; }
done
# The nodes were stopped before the program ended.
pids=$(sed -n 's/^cluster: .*(ps pid \([0-9]*\), worker 0 pid \([0-9]*\), worker 1 pid \([0-9]*\)).*/\1 \2 \3/p' "$dir/run.out")
[ -n "$pids" ] || { echo "no cluster line with the nodes' pids"; exit 1; }
for pid in $pids; do
  if kill -0 "$pid" 2> /dev/null; then
    echo "node $pid is still running"
    exit 1
  fi
done
echo "distributed_fashion_mnist: sync, allreduce and model within 0.02 of local, async and backup within 0.08"
