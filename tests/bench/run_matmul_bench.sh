#!/usr/bin/env bash
# Our MatMul kernel (through the runtime) against the best BLAS here: each side's median
# GFLOP/s over `rounds` runs that take turns (the side going first alternates), so a slow
# spell of a shared machine hits both; a run during which the hypervisor stole over
# STEAL_LIMIT% (default 10) of the CPU time is repeated (bench_util.sh).
#   tests/bench/run_matmul_bench.sh [build_dir] [rounds] [threads...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
rounds=${2:-3}
shift 2 || shift $# || true
threads_list=${*:-1 2}
gf() { awk '{for (i=1;i<=NF;i++) if ($(i+1)=="GFLOP/s") print $i}'; }
source "$here/bench_util.sh"
printf "| n | threads | tensoract GFLOP/s | NumPy GFLOP/s | PyTorch GFLOP/s | vs best |\n|---|---|---|---|---|---|\n"
for t in $threads_list; do
  ours=""; peers=""
  for ((r = 0; r < rounds; ++r)); do
    for side in $( ((r % 2)) && echo "peers ours" || echo "ours peers"); do  # who goes first alternates
      if [ "$side" = ours ]; then
        out=$(quiet_run "$build/tests/bench/matmul_gflops" --threads "$t"); echo "$out" >&2; ours="$ours"$'\n'"$out"
      else
        out=$(quiet_run python3 "$here/matmul_peers.py" --threads "$t"); echo "$out" >&2; peers="$peers"$'\n'"$out"
      fi
    done
  done
  for n in 256 512 1024 2048; do
    a=$(echo "$ours" | grep "n=$n " | gf | tr '\n' ' ' | median)
    b=$(echo "$peers" | grep "^numpy.* n=$n " | gf | tr '\n' ' ' | median)
    c=$(echo "$peers" | grep "^pytorch.* n=$n " | gf | tr '\n' ' ' | median || true)
    r=$(awk -v a="$a" -v b="${b:-0}" -v c="${c:-0}" 'BEGIN { m = (b > c ? b : c); printf "%.0f%%", 100 * a / m }')
    printf "| %s | %s | %s | %s | %s | %s |\n" "$n" "$t" "$a" "${b:-n/a}" "${c:-n/a}" "$r"
  done
done
