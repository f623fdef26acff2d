#!/usr/bin/env bash
# Our MatMul kernel (through the runtime) against the best BLAS here, same run.
#   tests/bench/run_matmul_bench.sh [build_dir] [threads...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../../build}
shift || true
threads_list=${*:-1 2}
gf() { awk '{for (i=1;i<=NF;i++) if ($(i+1)=="GFLOP/s") print $i}'; }
printf "| n | threads | tensoract GFLOP/s | NumPy GFLOP/s | PyTorch GFLOP/s | vs best |\n|---|---|---|---|---|---|\n"
for t in $threads_list; do
  ours=$("$build/tests/bench/matmul_gflops" --threads "$t")
  peers=$(python3 "$here/matmul_peers.py" --threads "$t")
  echo "$ours" >&2; echo "$peers" >&2
  for n in 256 512 1024 2048; do
    a=$(echo "$ours" | grep "n=$n " | gf)
    b=$(echo "$peers" | grep "^numpy.* n=$n " | gf)
    c=$(echo "$peers" | grep "^pytorch.* n=$n " | gf || true)
    r=$(awk -v a="$a" -v b="${b:-0}" -v c="${c:-0}" 'BEGIN { m = (b > c ? b : c); printf "%.0f%%", 100 * a / m }')
    printf "| %s | %s | %s | %s | %s | %s |\n" "$n" "$t" "$a" "${b:-n/a}" "${c:-n/a}" "$r"
  done
done
