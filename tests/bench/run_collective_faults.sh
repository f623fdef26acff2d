#!/usr/bin/env bash
# Faults in a collective at scale on the cluster lab: N nodes (default 16) on 1 Gbit/s
# links, heartbeats every 300 ms with a 1 s timeout; collective_faults kills one member,
# freezes another and black-holes a third while the others wait in an all-reduce, checks
# that every other member fails naming it within the heartbeat timeout and a second, that
# the group recovers, that training under a TrainingLoop resumes from its checkpoint after
# a random worker is killed and replaced (every replica's weights then equal, bit for bit,
# those of the run without the fault), and that the survivors hold no more descriptors,
# threads, rendezvous entries or collective ops than before. Needs root; exit 77 (skipped)
# without it.
#   sudo tests/bench/run_collective_faults.sh [build_dir] [nodes]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
nodes=${2:-16}
if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! ip netns add "tafaultprobe$$" 2>/dev/null; then
  echo "SKIPPED: needs root and network namespaces (ip netns)"
  exit 77
fi
ip netns del "tafaultprobe$$"
lab="bash $here/../../bootstrap/cluster-lab.sh"
name="f$(( $$ % 10000 ))"
dir="/tmp/tensoract-lab-$name"
# The nodes' logs stay in $dir when the run fails, for reading; a passing run leaves nothing.
trap 'rc=$?; $lab down --name $name --dir $dir >/dev/null 2>&1 || true
      if [ $rc -eq 0 ]; then rm -rf "$dir"; else echo "the nodes'"'"' logs: $dir" >&2; fi' EXIT
$lab up --name "$name" --dir "$dir" --nodes "$nodes" --rate 1gbit --node "$build/bootstrap/tensoract-node" \
  -- --heartbeat-interval-ms 300 --heartbeat-timeout-ms 1000 >/dev/null
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; $(date -u +%F)"
"$build/tests/bench/collective_faults" --env "$dir/env" --lab "$here/../../bootstrap/cluster-lab.sh" \
  --inspect "$build/bootstrap/tensoract-inspect" --heartbeat-timeout-ms 1000
