#!/usr/bin/env bash
# Regenerates the figures of the README's "where it stands" table in one run: each topic's
# benchmark against its peers, at short settings, its whole output kept under OUT_DIR, then
# tests/bench/front_page.py prints the table's rows (ratios are speed against the peer
# measured in the same run; above 1.0x tensoract is faster). The peers must be installed
# (`bash bootstrap/install-deps.sh --peers`); a topic whose peer is missing says so.
# Takes ~40 minutes on 2 cores; run it alone on the machine.
#   tests/bench/run_front_page.sh [build_dir] [out_dir] [--only training,eager,serving,data_plane,models,grpc,gpu]
# --only reruns some topics, keeping the others' saved outputs in OUT_DIR.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$here/../../build
out=""
only=""
positional=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=",$2,"; shift 2 ;;
    *) positional+=("$1"); shift ;;
  esac
done
[ ${#positional[@]} -ge 1 ] && build=${positional[0]}
[ ${#positional[@]} -ge 2 ] && out=${positional[1]}
out=${out:-$build/front_page}
mkdir -p "$out"
run() {  # run NAME COMMAND...: one topic, its output to OUT/NAME.txt
  local name=$1; shift
  if [ -n "$only" ] && [ "${only/,$name,/}" = "$only" ]; then return; fi
  echo "front_page: $name: $*" >&2
  local start=$SECONDS
  "$@" > "$out/$name.txt" 2>&1 || echo "front_page: $name exited $?" | tee -a "$out/$name.txt" >&2
  echo "front_page: $name took $((SECONDS - start)) s" >&2
}
run training bash "$here/run_train_bench.sh" "$build" 150 "mlp cnn" "64 512" "2" 2
run eager bash "$here/run_eager_overhead.sh" "$build" 200000
run serving bash "$here/run_serving_bench.sh" "$build"
run data_plane bash "$here/run_recv_tensor_bench.sh" "$build" 100 8 1500
run models bash "$here/run_model_zoo_bench.sh" "$build" --batches 1,32 --runs 10
run grpc bash "$here/run_grpc_client_bench.sh" "$build"
if nvidia-smi -L 2>/dev/null | grep -q GPU; then
  run gpu env DEVICE=gpu bash "$here/run_train_bench.sh" "$build" 300 "mlp cnn" "64 512" "4" 2
elif [ -z "$only" ] || [ "${only/,gpu,/}" != "$only" ]; then
  echo "SKIPPED: no GPU on this machine (tests/gpu/run-on-device.sh runs it on one)" > "$out/gpu.txt"
fi
machine=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
python3 "$here/front_page.py" "$out" "${machine:-unknown CPU}, $(nproc) cores" "$(date +%F)"
