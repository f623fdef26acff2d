#!/usr/bin/env bash
# The cluster lab: N tensoract-node processes on this machine, each in a network namespace
# of its own, joined by a bridge over links shaped like a real network's (bandwidth always;
# latency, jitter and loss where the kernel has netem). For tests, benchmarks and anyone
# who wants to see a cluster of many machines without having them. Needs root, `ip` and
# `tc` (iproute2); traffic stays in the namespaces it makes and the bridge it adds.
#
#   bash bootstrap/cluster-lab.sh up --nodes 8 --rate 1gbit [--name lab] [--ps 1]
#   bash bootstrap/cluster-lab.sh status --name lab
#   bash bootstrap/cluster-lab.sh exec --name lab 3 COMMAND...   # inside node 3's namespace
#   bash bootstrap/cluster-lab.sh kill|freeze|thaw|cut|heal|restart --name lab 3    # faults
#   bash bootstrap/cluster-lab.sh reshape --name lab --rate 20mbit 3   # a straggler's link
#   bash bootstrap/cluster-lab.sh down --name lab
#   bash bootstrap/cluster-lab.sh run --nodes 4 --rate 1gbit -- COMMAND...
#
# Faults, on node I: kill (SIGKILL), freeze (SIGSTOP) and thaw (SIGCONT) its process; cut its
# link (a black hole: packets vanish, nothing answers) and heal it; restart it (a new
# process, same address and flags, once the old one is gone; waits for its ready line).
# reshape gives node I's link, both ways, the shaping of its flags (--rate, and netem's
# where the kernel has it) in place of what it had: a slow machine among fast ones.
#
# `up` starts the nodes and returns once every one printed its ready line; `run` does the
# same, runs COMMAND with the lab's environment (below), and tears the lab down when
# COMMAND ends, fails, or the script is interrupted (Ctrl-C, SIGTERM). `down` tears down a
# lab by name whatever state it was left in (after `up`, or a `run` that was SIGKILLed):
# its nodes, namespaces, veth pairs and bridge; `up` of a name first does the same.
#
# Options:
#   --nodes N        tasks (worker 0 .. N-1, after --ps ps tasks), at most 250
#   --ps K           the first K tasks are job "ps" (default 0)
#   --name NAME      1-6 lowercase letters or digits (default "lab"): names everything
#   --subnet A.B.C   the lab's /24 (default 10.77.<a number from the name, or the next one
#                    no address here is in>); node i is
#                    A.B.C.(i+1), the bridge (this namespace's side) A.B.C.254
#   --rate RATE      each node's link, both ways, in tc's units (1gbit, 100mbit); default none
#   --host-queue Q   a node's own egress at --rate: sparse (default: packets under 256 bytes
#                    first, as a host's fq_codel) or fifo (one drop-tail FIFO, as the switch);
#                    $LAB_HOST_QUEUE sets the default (for the benchmark scripts)
#   --delay D --jitter J --loss P   netem's delay (10ms), jitter (1ms), loss (0.1%): refused
#                    on a kernel without sch_netem, which says so
#   --threads T      each node's --threads (default 1)
#   --node PATH      tensoract-node (default: $TENSORACT_BUILD_DIR or build, /bootstrap/...)
#   --dir DIR        where the token, logs and state go (default /tmp/tensoract-lab-NAME)
#   --tls            mutual TLS (certificates from make-cluster-certs.sh) instead of the token
#   -- FLAGS...      (up) more flags for every node, e.g. --heartbeat-timeout-ms 1000
#
# The lab's environment, in DIR/env (source it) and given to `run`'s COMMAND:
#   LAB_NAME, LAB_DIR, LAB_SPEC (the cluster spec), LAB_NODES, LAB_ADDRESSES (one
#   host:port per task, spec order), LAB_TARGET (tensoract://task 0), LAB_TOKEN_FILE (token
#   mode) or LAB_TLS_DIR (TLS: ca.pem and client.pem/.key for a client), LAB_NS_PREFIX (node
#   i's namespace is ${LAB_NS_PREFIX}i).
set -euo pipefail

die() { echo "cluster-lab: $*" >&2; exit 1; }
usage() { sed -n '2,43p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

cmd="${1:-}"
[ -n "$cmd" ] || usage
shift
name=lab nodes=0 ps=0 subnet="" rate="" host_queue=${LAB_HOST_QUEUE:-sparse} delay="" jitter="" loss="" threads=1 node="" dir="" tls=0
extra=()
exec_index=""
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) nodes="$2"; shift 2 ;;
    --ps) ps="$2"; shift 2 ;;
    --name) name="$2"; shift 2 ;;
    --subnet) subnet="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --host-queue) host_queue="$2"; shift 2 ;;
    --delay) delay="$2"; shift 2 ;;
    --jitter) jitter="$2"; shift 2 ;;
    --loss) loss="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --node) node="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    --tls) tls=1; shift ;;
    --help|-h) usage ;;
    --) shift; extra=("$@"); break ;;
    *)
      if [ "$cmd" = exec ] && [ -z "$exec_index" ]; then exec_index="$1"; shift; extra=("$@"); break; fi
      case "$cmd" in kill|freeze|thaw|cut|heal|restart|reshape) [ -z "$exec_index" ] && { exec_index="$1"; shift; continue; } ;; esac
      die "unknown option '$1' (--help lists them)" ;;
  esac
done

[[ "$host_queue" =~ ^(sparse|fifo)$ ]] || die "--host-queue '$host_queue': sparse or fifo"
[[ "$name" =~ ^[a-z0-9]{1,6}$ ]] || die "--name '$name': 1-6 lowercase letters or digits"
subnet_given=1
if [ -z "$subnet" ]; then subnet_given=0; subnet="10.77.$(( $(printf '%s' "$name" | cksum | cut -d' ' -f1) % 250 ))"; fi
[[ "$subnet" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "--subnet '$subnet': three numbers, as 10.77.3"
[ -n "$dir" ] || dir="/tmp/tensoract-lab-$name"
ns_prefix="talab-$name-"
bridge="tlb$name"
veth() { echo "tl$name$1"; }          # the host side of node $1's link (<= 15 characters)
address() { echo "$subnet.$(( $1 + 1 ))"; }
port=2222

need_root() {
  [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, veth pairs, tc)"
  command -v ip >/dev/null && command -v tc >/dev/null || die "needs ip and tc (apt-get install iproute2)"
}

# Tears down lab $name: whatever of it exists. Quiet, idempotent.
down() {
  local pids=() ns p
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$ns_prefix" || true); do
    for p in $(ip netns pids "$ns" 2>/dev/null || true); do pids+=("$p"); done
  done
  if [ ${#pids[@]} -gt 0 ]; then
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for _ in $(seq 1 30); do
      local alive=0
      for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
      [ $alive -eq 0 ] && break
      sleep 0.1
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
  fi
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$ns_prefix" || true); do
    ip netns del "$ns" 2>/dev/null || true   # its end of the veth pair goes with it, and so the pair
  done
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep -E "^tl$name[0-9]+$" || true); do
    ip link del "$link" 2>/dev/null || true
  done
  ip link del "$bridge" 2>/dev/null || true
  rm -f "$dir/state"
}

has_netem() {
  # A veth pair, which the lab needs anyway (some kernels have netem but no dummy devices).
  ip link add "tlprobe$$" type veth peer name "tlpeer$$" 2>/dev/null || return 1
  local ok=1
  tc qdisc add dev "tlprobe$$" root netem delay 1ms 2>/dev/null && ok=0
  ip link del "tlprobe$$" 2>/dev/null || true
  return $ok
}

# The qdisc of one direction of a link: netem (delay, jitter, loss and rate) where asked
# for, else the rate alone. `shape DEV [switch|host] [COMMAND...]`: the switch's port into a
# node is a drop-tail FIFO (a token bucket holding 100 ms at the rate); a node's own NIC
# (`host`, its namespace's eth0) sends small packets first (below).
shape() {
  local dev="$1" side="$2" netns_exec=("${@:3}")
  if [ -n "$delay$jitter$loss" ]; then
    local args=(netem)
    [ -n "$delay" ] && args+=(delay "$delay" ${jitter:+"$jitter"})
    [ -n "$loss" ] && args+=(loss "$loss")
    [ -n "$rate" ] && args+=(rate "$rate")
    "${netns_exec[@]}" tc qdisc replace dev "$dev" root "${args[@]}"
  elif [ -n "$rate" ]; then
    # burst: a 250th of a second at the rate, and at least 64 KiB (one TSO segment).
    local bits
    bits=$(tc_rate_bits "$rate")
    local burst=$(( bits / 8 / 250 ))
    [ $burst -lt 65536 ] && burst=65536
    if [ "$side" = host ] && [ "$host_queue" = sparse ] && host_qdisc "$dev" "$bits" "$burst" "${netns_exec[@]}"; then
      return
    fi
    "${netns_exec[@]}" tc qdisc replace dev "$dev" root tbf rate "$rate" burst "$burst" latency 100ms
  fi
}

# A node's NIC at the link's rate: packets under 256 bytes (TCP's acknowledgements,
# heartbeats, requests) before bulk data, which waits in the same 100 ms drop-tail FIFO as
# the switch's. A host's queue is not one FIFO: Debian's default qdisc (fq_codel, set by
# systemd) serves sparse flows first. With one FIFO, a 10 Mbit/s node's acknowledgements of
# the data it receives queued (and were dropped) behind the 190 KB it was sending, stalling
# its neighbour's flow: a 4-node ring of 16 MB ran at 79-89% of the links' bound, 93% with
# this queue. This kernel may lack fq_codel (and netem), so an htb of two classes and a u32
# filter on the IP length stand for it. Fails (and the caller replaces whatever it left
# with the FIFO) where htb or u32 are missing.
host_qdisc() {
  local dev="$1" bits="$2" burst="$3" x=("${@:4}")
  local small=$(( bits / 10 )) limit=$(( bits / 80 + burst ))
  "${x[@]}" tc qdisc del dev $dev root 2>/dev/null || true
  "${x[@]}" tc qdisc add dev $dev root handle 1: htb default 20 2>/dev/null &&
    "${x[@]}" tc class add dev $dev parent 1: classid 1:1 htb rate "${bits}bit" burst "$burst" cburst "$burst" quantum 60000 &&
    "${x[@]}" tc class add dev $dev parent 1:1 classid 1:10 htb rate "${small}bit" ceil "${bits}bit" prio 0 \
      burst "$burst" cburst "$burst" quantum 60000 &&
    "${x[@]}" tc class add dev $dev parent 1:1 classid 1:20 htb rate "$(( bits - small ))bit" ceil "${bits}bit" prio 1 \
      burst "$burst" cburst "$burst" quantum 60000 &&
    "${x[@]}" tc qdisc add dev $dev parent 1:10 handle 10: pfifo limit 1000 &&
    "${x[@]}" tc qdisc add dev $dev parent 1:20 handle 20: bfifo limit "$limit" &&
    "${x[@]}" tc filter add dev $dev parent 1: protocol ip prio 1 u32 match u16 0x0000 0xff00 at 2 flowid 1:10 \
      2>/dev/null
}

tc_rate_bits() {
  local r="${1,,}" n unit
  n="${r%%[a-z]*}"; unit="${r#"$n"}"
  case "$unit" in
    gbit) echo $(( n * 1000000000 )) ;; mbit) echo $(( n * 1000000 )) ;; kbit) echo $(( n * 1000 )) ;;
    bit|"") echo "$n" ;;
    *) die "--rate '$1': use bit, kbit, mbit or gbit" ;;
  esac
}

# Every node's and the bridge's neighbours, written once as permanent entries: the kernel's
# ARP table is one for all namespaces, and learned entries count against its gc_thresh3
# (1,024 by default). A lab of 32 nodes learns 32 x 32: past the limit, a node resolves no
# new neighbour and its connections wait in SYN-SENT ("neighbor table overflow" in dmesg).
# Permanent entries are exempt from that limit and leave with the namespaces and the bridge.
permanent_neighbours() {
  local macs=() i j
  for i in $(seq 0 $(( nodes - 1 ))); do
    macs+=("$(ip netns exec "$ns_prefix$i" cat /sys/class/net/eth0/address)")
  done
  local bridge_mac
  bridge_mac=$(cat "/sys/class/net/$bridge/address")
  for i in $(seq 0 $(( nodes - 1 ))); do
    {
      echo "neigh replace $subnet.254 lladdr $bridge_mac dev eth0 nud permanent"
      for j in $(seq 0 $(( nodes - 1 ))); do
        [ "$i" = "$j" ] || echo "neigh replace $(address "$j") lladdr ${macs[$j]} dev eth0 nud permanent"
      done
    } | ip -n "$ns_prefix$i" -batch -
  done
  for j in $(seq 0 $(( nodes - 1 ))); do
    echo "neigh replace $(address "$j") lladdr ${macs[$j]} dev $bridge nud permanent"
  done | ip -batch -
}

# Starts node $1; its pid (ip netns exec, then setsid and bash, exec the node in place) in
# node-$1.pid.
start_node() {
  # Emptied here, not by the background job's redirection: that may run after wait_ready's
  # first look, which would take a restarted node's old ready line for the new one's.
  : > "$dir/node-$1.log"
  ip netns exec "$ns_prefix$1" setsid bash "$dir/node-$1.sh" > "$dir/node-$1.log" 2>&1 < /dev/null &
  echo $! > "$dir/node-$1.pid"
}

# Waits (30 s at most) for node $1's ready line.
wait_ready() {
  local deadline=$(( SECONDS + 30 ))
  until grep -q "tensoract-node ready" "$dir/node-$1.log" 2>/dev/null; do
    # The process itself, not the namespace's list: right after start_node it may not be
    # in the namespace yet.
    if [ $SECONDS -ge $deadline ] || ! kill -0 "$(cat "$dir/node-$1.pid")" 2>/dev/null; then
      echo "cluster-lab: node $1 did not start; its log:" >&2
      tail -5 "$dir/node-$1.log" >&2 || true
      return 1
    fi
    sleep 0.1
  done
}

# Signals every process of node $1's namespace.
signal_node() {
  local p
  for p in $(ip netns pids "$ns_prefix$1" 2>/dev/null); do kill "-$2" "$p" 2>/dev/null || true; done
}

up() {
  need_root
  [[ "$nodes" =~ ^[0-9]+$ ]] && [ "$nodes" -ge 1 ] && [ "$nodes" -le 250 ] || die "--nodes: 1 to 250"
  [[ "$ps" =~ ^[0-9]+$ ]] && [ "$ps" -lt "$nodes" ] || die "--ps: fewer than --nodes"
  if [ -n "$delay$jitter$loss" ] && ! has_netem; then
    die "this kernel has no sch_netem: --delay, --jitter and --loss cannot be shaped here (--rate can)"
  fi
  [ -n "$rate" ] && tc_rate_bits "$rate" >/dev/null
  [ -n "$node" ] || node="${TENSORACT_BUILD_DIR:-build}/bootstrap/tensoract-node"
  [ -x "$node" ] || die "no tensoract-node at '$node' (build it, or pass --node)"
  node="$(cd "$(dirname "$node")" && pwd)/$(basename "$node")"
  down
  # Another lab (or anything else here) may have the name's /24: take the next free one.
  if [ $subnet_given -eq 0 ]; then
    local third=${subnet##*.} tries=0
    while ip -o -4 addr show 2>/dev/null | grep -q " 10\.77\.$third\."; do
      third=$(( (third + 1) % 250 )); tries=$(( tries + 1 ))
      [ $tries -lt 250 ] || die "no free 10.77.x.0/24 for the lab"
    done
    subnet="10.77.$third"
  fi
  mkdir -p "$dir"
  rm -f "$dir"/node-*.log
  echo "$name" > "$dir/state"

  # The cluster spec: ps tasks, then workers; task i at address(i).
  local spec="" addresses="" i job task
  local ps_list="" worker_list=""
  for i in $(seq 0 $(( nodes - 1 ))); do
    if [ "$i" -lt "$ps" ]; then ps_list+="${ps_list:+,}$(address "$i"):$port"; else worker_list+="${worker_list:+,}$(address "$i"):$port"; fi
    addresses+="${addresses:+ }$(address "$i"):$port"
  done
  [ -n "$ps_list" ] && spec="ps=$ps_list;"
  spec+="worker=$worker_list"

  local auth=()
  if [ $tls -eq 1 ]; then
    local names=(client)
    for i in $(seq 0 $(( nodes - 1 ))); do names+=("node$i"); done
    bash "$(dirname "$0")/make-cluster-certs.sh" "$dir/tls" "${names[@]}" >/dev/null
  else
    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$dir/cluster.token"
    chmod 600 "$dir/cluster.token"
  fi

  ip link add "$bridge" type bridge
  ip addr add "$subnet.254/24" dev "$bridge"
  ip link set "$bridge" up
  for i in $(seq 0 $(( nodes - 1 ))); do
    local ns="$ns_prefix$i" v
    v="$(veth "$i")"
    ip netns add "$ns"
    ip netns exec "$ns" ip link set lo up
    ip link add "$v" type veth peer name eth0 netns "$ns"
    ip link set "$v" master "$bridge"
    ip link set "$v" up
    ip netns exec "$ns" ip addr add "$(address "$i")/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    shape "$v" switch                        # into the node
    shape eth0 host ip netns exec "$ns"      # out of the node
  done
  permanent_neighbours

  for i in $(seq 0 $(( nodes - 1 ))); do
    if [ "$i" -lt "$ps" ]; then job=ps task=$i; else job=worker task=$(( i - ps )); fi
    if [ $tls -eq 1 ]; then
      auth=(--tls-cert "$dir/tls/node$i.pem" --tls-key "$dir/tls/node$i.key" --tls-ca "$dir/tls/ca.pem")
    else
      auth=(--token-file "$dir/cluster.token")
    fi
    # The node's command line, kept for `restart`.
    printf '%q ' exec "$node" --cluster "$spec" --job "$job" --task "$task" --listen "$(address "$i")" \
      --threads "$threads" "${auth[@]}" "${extra[@]}" > "$dir/node-$i.sh"
    start_node "$i"
  done

  for i in $(seq 0 $(( nodes - 1 ))); do
    wait_ready "$i" || { down; exit 1; }
  done

  {
    echo "LAB_NAME=$name"
    echo "LAB_DIR=$dir"
    echo "LAB_SPEC='$spec'"
    echo "LAB_NODES=$nodes"
    echo "LAB_ADDRESSES='$addresses'"
    echo "LAB_TARGET=tensoract://$(address 0):$port"
    echo "LAB_NS_PREFIX=$ns_prefix"
    if [ $tls -eq 1 ]; then echo "LAB_TLS_DIR=$dir/tls"; else echo "LAB_TOKEN_FILE=$dir/cluster.token"; fi
  } > "$dir/env"
  echo "cluster-lab: $nodes nodes up ($spec)${rate:+, links $rate}${delay:+ delay $delay}; env in $dir/env"
}

case "$cmd" in
  up) up ;;
  down) need_root; down; echo "cluster-lab: $name is down" ;;
  run)
    [ ${#extra[@]} -gt 0 ] || die "run needs -- COMMAND"
    command_to_run=("${extra[@]}")
    extra=()
    child=""
    trap 'down' EXIT
    # The command runs in the background so that a signal reaches this script at once
    # (bash runs traps only between commands; `wait` is one it interrupts).
    trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; exit 130' INT
    trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; exit 143' TERM
    up
    set -a
    # shellcheck disable=SC1091
    . "$dir/env"
    set +a
    set +e
    "${command_to_run[@]}" &
    child=$!
    wait "$child"
    status=$?
    set -e
    exit $status
    ;;
  exec)
    [[ "$exec_index" =~ ^[0-9]+$ ]] || die "exec needs a node index, then the command"
    ip netns list | awk '{print $1}' | grep -qx "$ns_prefix$exec_index" || die "lab $name has no node $exec_index"
    exec ip netns exec "$ns_prefix$exec_index" "${extra[@]}"
    ;;
  kill|freeze|thaw|cut|heal|restart|reshape)
    need_root
    [[ "$exec_index" =~ ^[0-9]+$ ]] || die "$cmd needs a node index"
    ip netns list | awk '{print $1}' | grep -qx "$ns_prefix$exec_index" || die "lab $name has no node $exec_index"
    case "$cmd" in
      kill) signal_node "$exec_index" KILL ;;
      freeze) signal_node "$exec_index" STOP ;;
      thaw) signal_node "$exec_index" CONT ;;
      cut) ip link set "$(veth "$exec_index")" down ;;
      heal) ip link set "$(veth "$exec_index")" up ;;
      reshape)
        [ -n "$rate$delay$jitter$loss" ] || die "reshape needs --rate (or --delay/--jitter/--loss)"
        [ -z "$delay$jitter$loss" ] || has_netem ||
          die "--delay/--jitter/--loss need the kernel's netem (sch_netem), which this kernel lacks"
        shape "$(veth "$exec_index")" switch
        shape eth0 host ip netns exec "$ns_prefix$exec_index"
        ;;
      restart)
        signal_node "$exec_index" KILL
        for _ in $(seq 1 50); do [ -z "$(ip netns pids "$ns_prefix$exec_index")" ] && break; sleep 0.1; done
        start_node "$exec_index"
        wait_ready "$exec_index" || exit 1
        ;;
    esac
    ;;
  status)
    [ -f "$dir/env" ] && [ -f "$dir/state" ] || { echo "cluster-lab: $name is not up"; exit 1; }
    cat "$dir/env"
    for ns in $(ip netns list | awk '{print $1}' | grep "^$ns_prefix" | sort -t- -k3 -n); do
      echo "$ns: pids $(ip netns pids "$ns" | tr '\n' ' ')"
    done
    ;;
  *) usage ;;
esac
