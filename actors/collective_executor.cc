#include "actors/collective_executor.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>

#include <caf/all.hpp>

#include "actors/data_plane/wire.h"
#include "actors/messages.h"
#include "actors/rendezvous.h"

namespace tensoract {
namespace {

using coll_run_atom = caf::atom_constant<caf::atom("collrun")>;
using coll_piece_atom = caf::atom_constant<caf::atom("collpiece")>;
using coll_joined_atom = caf::atom_constant<caf::atom("colljoined")>;
using coll_cancel_atom = caf::atom_constant<caf::atom("collcancel")>;
using coll_tick_atom = caf::atom_constant<caf::atom("colltick")>;
using coll_peer_down_atom = caf::atom_constant<caf::atom("collpeerdn")>;

// Fetches asked for at once by one op: the data plane answers at most 4096 per connection.
constexpr int kMaxTransfersPerOp = 1024;
// How often a group with ops in flight checks their deadlines.
constexpr std::chrono::milliseconds kTick{100};

}  // namespace

struct CollectiveRunRequest {
  CollectiveParams params;
  Tensor input;
  CollectiveExecutor::Done done;
};
struct CollectivePiece {
  uint64_t op = 0;
  int index = 0;
  Status status;
  Tensor value;
  std::string from;
};
struct CollectiveJoined {
  uint64_t generation = 0;
  std::string device;
  Status status;
  Tensor members;  // DT_UINT8: "<group incarnation>\n<device 0> <its worker's incarnation>\n..."
};
struct CollectiveCancel {
  std::string device;
  int instance_key = 0;
  Status why;
};

}  // namespace tensoract

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::CollectiveRunRequest)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::CollectivePiece)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::CollectiveJoined)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::CollectiveCancel)

namespace tensoract {
namespace {

int Mod(int a, int n) { return ((a % n) + n) % n; }

const char* KindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return "all-reduce";
    case CollectiveKind::kGather: return "gather";
    case CollectiveKind::kBroadcastSend: return "broadcast (sender)";
    case CollectiveKind::kBroadcastRecv: return "broadcast (receiver)";
  }
  return "collective";
}

// A piece of a flat buffer: `len` elements from `begin`, copied into a tensor of its own
// (for a member to merge into).
Tensor CopyOf(const Tensor& t, int64_t begin, int64_t len) {
  Tensor out(t.dtype(), TensorShape({len}));
  const size_t es = DataTypeSize(t.dtype());
  if (len > 0) std::memcpy(out.data(), static_cast<const char*>(t.data()) + begin * es, len * es);
  return out;
}

// The same piece, read only: the whole tensor itself, flattened, when it is all of it.
Tensor CopyRange(const Tensor& t, int64_t begin, int64_t len) {
  if (begin == 0 && len == t.NumElements() && t.dims() == 1) return t;
  return CopyOf(t, begin, len);
}

void Place(const Tensor& dst, int64_t begin, const Tensor& piece) {
  const size_t es = DataTypeSize(dst.dtype());
  if (piece.NumElements() > 0) {
    std::memcpy(static_cast<char*>(dst.data()) + begin * es, piece.data(), piece.NumElements() * es);
  }
}

// The step id a run's transfers use: the same on every member (the group's incarnation,
// the instance, the run), negative (a master's step ids are positive), so it never meets
// a step's entries in a rendezvous.
int64_t TransferStep(uint64_t incarnation, int instance_key, int64_t run) {
  uint64_t h = incarnation ^ (static_cast<uint64_t>(static_cast<uint32_t>(instance_key)) * 0x9E3779B97F4A7C15ull) ^
               (static_cast<uint64_t>(run) * 0xC2B2AE3D27D4EB4Full);
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return -static_cast<int64_t>((h >> 2) + 1);
}

// "<from>;0;<to>;collective/<group>/<group incarnation>/<instance>/<tag>;0:0": a rendezvous
// key (graph/rendezvous_key.h's form) whose tensor name says which formation it belongs to.
std::string TransferKey(const std::string& from, const std::string& to, int group_key, uint64_t incarnation,
                        int instance_key, const std::string& tag) {
  return StrCat(from, ";0;", to, ";", CollectiveFormationPrefix(group_key, incarnation), instance_key, "/", tag, ";0:0");
}

// ---------------------------------------------------------------------------------------
// A group's actor on one task.

enum class Algorithm { kRing, kDoubling, kGatherRing, kBroadcastRing };

struct Op {
  uint64_t id = 0;
  CollectiveParams params;
  Tensor input;
  CollectiveExecutor::Done done;
  int64_t deadline_ms = 0;
  bool started = false;
  int64_t run = 0;
  int64_t step = 0;  // TransferStep
  int rank = 0, n = 0;
  std::string left, right;
  Algorithm algorithm = Algorithm::kRing;
  int64_t elements = 0;  // the ring's whole buffer; the gather's and broadcast's block
  int pieces = 1;        // per chunk (ring) or block (gather, broadcast)
  Tensor output;
  int remaining = 0;     // fetches still to arrive (ring, gather, broadcast)
  // Recursive doubling: the value so far, the exchange it is at, exchanges arrived early.
  Tensor value;
  int stage = 0;
  int rounds = 0, core = 0;  // log2 of the power-of-two core, and its size
  std::map<int, Tensor> arrived;

  std::string Describe() const {
    return StrCat("collective ", KindName(params.kind), " of group ", params.group_key, ", instance ",
                  params.instance_key, " on ", params.device);
  }
};

struct GroupState {
  int group_key = 0;
  CollectiveOptions options;
  std::shared_ptr<ClusterRendezvous> rendezvous;
  caf::actor leader;
  // The formed group: its members in rank order and the leader's incarnation (0: none).
  int group_size = 0;
  uint64_t incarnation = 0;
  std::vector<std::string> members;
  std::vector<uint64_t> member_incarnations;  // each member's worker's, when it joined
  std::set<std::string> joining;  // this task's devices whose join is out
  uint64_t generation = 1;        // bumped at every reset: older joins and fetches are stale
  std::map<std::pair<std::string, int>, int64_t> runs;  // (device, instance) -> runs started
  std::map<uint64_t, Op> ops;                           // started or waiting for the group
  uint64_t next_op = 1;
  bool ticking = false;  // a deadline check is scheduled
  uint64_t completed = 0, failed = 0;
  Status last_error;
  static inline const char* name = "tensoract.collective_group";
};

using GroupSelf = caf::stateful_actor<GroupState>;

// `result` by value: it is often the op's own output, which erasing the op destroys.
void Finish(GroupSelf* self, uint64_t id, Tensor result) {
  auto& st = self->state;
  auto it = st.ops.find(id);
  if (it == st.ops.end()) return;
  CollectiveExecutor::Done done = std::move(it->second.done);
  st.ops.erase(it);
  ++st.completed;
  done(Status::OK(), result);
}

// Every op of the group here fails with `why` and this task's members leave the group's
// formation: their transfers are aborted, and every fetch of that formation from here,
// waiting now or asked later (by a member that finished its op and has not heard), fails
// with `why` too, so the other members leave it as well and the group forms again.
void FailGroup(GroupSelf* self, const Status& why) {
  auto& st = self->state;
  auto ops = std::move(st.ops);
  st.ops.clear();
  const uint64_t left = st.incarnation;
  st.incarnation = 0;
  st.members.clear();
  st.member_incarnations.clear();
  st.group_size = 0;
  st.joining.clear();
  st.runs.clear();
  ++st.generation;
  st.last_error = why;
  const caf::actor& rdv = st.rendezvous->local().actor();
  // First (one sender's messages arrive in order): a fetch reaching the rendezvous between
  // this and the steps' cleanup is told the formation was left, not only that a step ended.
  if (left != 0) {
    caf::anon_send(rdv, abort_matching_atom::value, CollectiveFormationPrefix(st.group_key, left),
                   LeftFormation(st.group_key, why));
  }
  for (auto& [id, op] : ops) {
    if (op.started) {
      // Aborted before cleaned up: a fetch that comes late is told why, not just "ended".
      caf::anon_send(rdv, abort_atom::value, op.step, why);
      caf::anon_send(rdv, cleanup_step_atom::value, op.step);
    }
    ++st.failed;
    op.done(why, Tensor());
  }
}

void Give(GroupSelf* self, const Op& op, const std::string& to, const std::string& tag, const Tensor& value) {
  auto& st = self->state;
  st.rendezvous->Send(op.step,
                      TransferKey(op.params.device, to, st.group_key, st.incarnation, op.params.instance_key, tag),
                      value, false);
}

void Expect(GroupSelf* self, const Op& op, const std::string& from, const std::string& tag, int index) {
  auto& st = self->state;
  caf::actor me = caf::actor_cast<caf::actor>(self);
  const uint64_t id = op.id;
  st.rendezvous->FetchFrom(TaskOfDevice(from), op.step,
                           TransferKey(from, op.params.device, st.group_key, st.incarnation, op.params.instance_key,
                                       tag),
                           op.deadline_ms, nullptr, [me, id, index, from](const Status& s, const Tensor& v, bool) {
                             caf::anon_send(me, coll_piece_atom::value, CollectivePiece{id, index, s, v, from});
                           });
}

// The ring's element range of piece `p` of chunk `c` (all-reduce), or of block `c`'s piece
// (gather, broadcast: one chunk per block).
std::pair<int64_t, int64_t> ChunkPiece(const Op& op, int c, int p, int chunks) {
  const int64_t begin = op.elements * c / chunks, end = op.elements * (c + 1) / chunks;
  const int64_t len = end - begin;
  const int64_t pb = begin + len * p / op.pieces, pe = begin + len * (p + 1) / op.pieces;
  return {pb, pe - pb};
}

// Pieces of at most piece_bytes, and at least kMinPieces of at least kMinPieceBytes each
// where the chunk allows: the ring's next stage starts on a chunk's first piece while the
// rest still arrive, so every link stays busy instead of idling between stages (where TCP
// also shrinks its window).
constexpr int kMinPieces = 4;
constexpr int64_t kMinPieceBytes = 64 << 10;

int PiecesFor(int64_t bytes, int64_t piece_bytes, int transfers_per_piece) {
  const int64_t wanted =
      std::max({int64_t{1}, (bytes + piece_bytes - 1) / piece_bytes, std::min<int64_t>(kMinPieces, bytes / kMinPieceBytes)});
  const int64_t cap = std::max(1, kMaxTransfersPerOp / std::max(1, transfers_per_piece));
  return static_cast<int>(std::min(wanted, cap));
}

std::string RingTag(char phase, int stage, int piece) { return StrCat(std::string(1, phase), stage, ".", piece); }

void StartRing(GroupSelf* self, Op& op) {
  const int n = op.n, r = op.rank;
  const size_t es = DataTypeSize(op.params.dtype);
  op.elements = op.input.NumElements();
  op.pieces = PiecesFor((op.elements + n - 1) / n * es, self->state.options.piece_bytes, 2 * (n - 1));
  op.output = Tensor(op.params.dtype, op.input.shape());
  op.remaining = 2 * (n - 1) * op.pieces;
  for (int p = 0; p < op.pieces; ++p) {
    auto [b, len] = ChunkPiece(op, r, p, n);
    Give(self, op, op.right, RingTag('r', 0, p), CopyOf(op.input, b, len));  // the next member merges into it
  }
  for (int s = 0; s + 1 < n; ++s) {
    for (int p = 0; p < op.pieces; ++p) {
      Expect(self, op, op.left, RingTag('r', s, p), s * op.pieces + p);
      Expect(self, op, op.left, RingTag('g', s, p), (n - 1 + s) * op.pieces + p);
    }
  }
}

Status OnRingPiece(GroupSelf* self, Op& op, int index, Tensor value) {
  const int n = op.n, r = op.rank;
  const bool gather_phase = index >= (n - 1) * op.pieces;
  const int s = (index % ((n - 1) * op.pieces)) / op.pieces, p = index % op.pieces;
  const int c = gather_phase ? Mod(r - s, n) : Mod(r - s - 1, n);
  auto [b, len] = ChunkPiece(op, c, p, n);
  if (value.NumElements() != len) {
    return errors::InvalidArgument("received ", value.NumElements(), " elements for a piece of ", len,
                                   " (do all members reduce tensors of one size?)");
  }
  if (!gather_phase) {
    // The piece is ours now (fetched, or left by the member before, who is done with it).
    MergeElements(op.params.dtype, op.params.merge_op, value.data(),
                  static_cast<const char*>(op.input.data()) + b * DataTypeSize(op.params.dtype), len);
    if (s + 2 < n) {
      Give(self, op, op.right, RingTag('r', s + 1, p), value);
    } else {  // chunk r+1 is complete here
      if (op.params.final_op == FinalOp::kDiv) DivideElements(op.params.dtype, value.data(), len, n);
      Place(op.output, b, value);
      Give(self, op, op.right, RingTag('g', 0, p), value);
    }
  } else {
    Place(op.output, b, value);
    if (s + 2 < n) Give(self, op, op.right, RingTag('g', s + 1, p), value);
  }
  return Status::OK();
}

void StartGather(GroupSelf* self, Op& op) {
  const int n = op.n;
  op.elements = op.input.NumElements();
  op.pieces = PiecesFor(op.elements * DataTypeSize(op.params.dtype), self->state.options.piece_bytes, n - 1);
  TensorShape shape = op.input.shape();
  std::vector<int64_t> dims = shape.dim_sizes();
  dims[0] *= n;
  op.output = Tensor(op.params.dtype, TensorShape(dims));
  Place(op.output, op.rank * op.elements, op.input);
  op.remaining = (n - 1) * op.pieces;
  for (int p = 0; p < op.pieces; ++p) {
    auto [b, len] = ChunkPiece(op, 0, p, 1);
    Give(self, op, op.right, RingTag('a', 0, p), CopyRange(op.input, b, len));
  }
  for (int s = 0; s + 1 < n; ++s) {
    for (int p = 0; p < op.pieces; ++p) Expect(self, op, op.left, RingTag('a', s, p), s * op.pieces + p);
  }
}

Status OnGatherPiece(GroupSelf* self, Op& op, int index, const Tensor& value) {
  const int n = op.n;
  const int s = index / op.pieces, p = index % op.pieces;
  const int block = Mod(op.rank - s - 1, n);
  auto [b, len] = ChunkPiece(op, 0, p, 1);
  if (value.NumElements() != len) {
    return errors::InvalidArgument("received ", value.NumElements(), " elements of member ", block, "'s block for ",
                                   len, ": every member must gather a tensor of the same shape");
  }
  Place(op.output, block * op.elements + b, value);
  if (s + 2 < n) Give(self, op, op.right, RingTag('a', s + 1, p), value);
  return Status::OK();
}

void StartBroadcast(GroupSelf* self, Op& op) {
  const bool sender = op.params.kind == CollectiveKind::kBroadcastSend;
  op.elements = sender ? op.input.NumElements() : op.params.shape.num_elements();
  op.pieces = PiecesFor(op.elements * DataTypeSize(op.params.dtype), self->state.options.piece_bytes, 1);
  op.output = sender ? op.input : Tensor(op.params.dtype, op.params.shape);
  op.remaining = op.pieces;
  for (int p = 0; p < op.pieces; ++p) {
    if (sender) {
      auto [b, len] = ChunkPiece(op, 0, p, 1);
      Give(self, op, op.right, RingTag('b', 0, p), CopyRange(op.input, b, len));
    }
    Expect(self, op, op.left, RingTag('b', 0, p), p);
  }
}

Status OnBroadcastPiece(GroupSelf* self, Op& op, int p, const Tensor& value) {
  auto [b, len] = ChunkPiece(op, 0, p, 1);
  if (value.NumElements() != len) {
    return errors::InvalidArgument("received ", value.NumElements(), " elements for a broadcast piece of ", len,
                                   " (does the receivers' shape match the sender's tensor?)");
  }
  if (op.params.kind == CollectiveKind::kBroadcastSend) return Status::OK();  // it came round
  Place(op.output, b, value);
  Give(self, op, op.right, RingTag('b', 0, p), value);
  return Status::OK();
}

Tensor MergedCopy(const Op& op, const Tensor& a, const Tensor& b) {
  Tensor out(op.params.dtype, op.input.shape());
  Place(out, 0, a);
  MergeElements(op.params.dtype, op.params.merge_op, out.data(), b.data(), out.NumElements());
  return out;
}

// Recursive doubling over the largest power-of-two core of the group; a member beyond it
// (rank >= core) folds its input into rank - core first and gets the result back from it.
// Stage 0: waiting for that fold; stage 1 + k: exchange k sent, waiting for the partner's.
constexpr int kUnfold = 1000;

void EnterStage(GroupSelf* self, Op& op, int stage) {
  op.stage = stage;
  const int k = stage - 1;
  if (k < op.rounds) Give(self, op, self->state.members[op.rank ^ (1 << k)], StrCat("d", k), op.value);
}

void AdvanceDoubling(GroupSelf* self, Op& op) {
  while (op.stage <= op.rounds) {
    auto it = op.arrived.find(op.stage);
    if (it == op.arrived.end()) return;
    op.value = MergedCopy(op, op.value, it->second);  // a fresh tensor: the one sent stays as sent
    op.arrived.erase(it);
    EnterStage(self, op, op.stage + 1);
  }
  // Every exchange done: op.value is ours alone (a fresh merge).
  if (op.params.final_op == FinalOp::kDiv) DivideElements(op.params.dtype, op.value.data(), op.value.NumElements(), op.n);
  if (op.rank + op.core < op.n) Give(self, op, self->state.members[op.rank + op.core], "u", op.value);
  Finish(self, op.id, op.value);
}

void StartDoubling(GroupSelf* self, Op& op) {
  const int n = op.n, r = op.rank;
  op.core = 1;
  op.rounds = 0;
  while (op.core * 2 <= n) {
    op.core *= 2;
    ++op.rounds;
  }
  auto& members = self->state.members;
  if (r >= op.core) {
    Give(self, op, members[r - op.core], "f", op.input);
    Expect(self, op, members[r - op.core], "u", kUnfold);
    return;
  }
  op.value = op.input;
  const bool has_extra = r + op.core < n;
  if (has_extra) Expect(self, op, members[r + op.core], "f", 0);
  for (int k = 0; k < op.rounds; ++k) Expect(self, op, members[r ^ (1 << k)], StrCat("d", k), 1 + k);
  if (has_extra) {
    op.stage = 0;
  } else {
    EnterStage(self, op, 1);
  }
  AdvanceDoubling(self, op);
}

Status OnDoublingPiece(GroupSelf* self, Op& op, int index, const Tensor& value) {
  if (value.NumElements() != op.input.NumElements()) {
    return errors::InvalidArgument("received ", value.NumElements(), " elements for a tensor of ",
                                   op.input.NumElements(), " (do all members reduce tensors of one size?)");
  }
  if (index == kUnfold) {
    Tensor out(op.params.dtype, op.input.shape());
    Place(out, 0, value);
    Finish(self, op.id, out);
    return Status::OK();
  }
  op.arrived[index] = value;
  AdvanceDoubling(self, op);
  return Status::OK();
}

void StartOp(GroupSelf* self, Op& op) {
  auto& st = self->state;
  auto at = std::find(st.members.begin(), st.members.end(), op.params.device);
  if (at == st.members.end()) {
    std::string list;
    for (const auto& m : st.members) list += (list.empty() ? "" : ", ") + m;
    return FailGroup(self, errors::InvalidArgument(op.Describe(), ": ", op.params.device,
                                                   " is not a member of the group formed with [", list, "]"));
  }
  op.rank = static_cast<int>(at - st.members.begin());
  op.n = static_cast<int>(st.members.size());
  op.run = st.runs[{op.params.device, op.params.instance_key}]++;
  op.step = TransferStep(st.incarnation, op.params.instance_key, op.run);
  op.left = st.members[Mod(op.rank - 1, op.n)];
  op.right = st.members[Mod(op.rank + 1, op.n)];
  op.started = true;
  const int64_t bytes = (op.params.kind == CollectiveKind::kBroadcastRecv ? op.params.shape.num_elements()
                                                                          : op.input.NumElements()) *
                        DataTypeSize(op.params.dtype);
  switch (op.params.kind) {
    case CollectiveKind::kAllReduce:
      if (!op.params.force_ring && bytes <= st.options.small_tensor_bytes) {
        op.algorithm = Algorithm::kDoubling;
        return StartDoubling(self, op);
      }
      op.algorithm = Algorithm::kRing;
      return StartRing(self, op);
    case CollectiveKind::kGather:
      op.algorithm = Algorithm::kGatherRing;
      return StartGather(self, op);
    case CollectiveKind::kBroadcastSend:
    case CollectiveKind::kBroadcastRecv:
      op.algorithm = Algorithm::kBroadcastRing;
      return StartBroadcast(self, op);
  }
}

void Join(GroupSelf* self, const Op& op) {
  auto& st = self->state;
  const std::string& device = op.params.device;
  if (!st.joining.insert(device).second) return;
  caf::actor me = caf::actor_cast<caf::actor>(self);
  const uint64_t generation = st.generation;
  auto reply = [me, generation, device](const Status& s, const Tensor& members, bool) {
    caf::anon_send(me, coll_joined_atom::value, CollectiveJoined{generation, device, s, members});
  };
  const std::string key = CollectiveJoinKey(st.group_key, op.params.group_size, st.options.incarnation, device);
  const std::string& leader_task = st.options.leader_task;
  if (leader_task.empty() || leader_task == st.options.task) {
    ServeCollectiveJoin(st.leader, key, std::move(reply));  // the leader is this task's
  } else {
    st.rendezvous->FetchFrom(leader_task, 0, key, op.deadline_ms, nullptr, std::move(reply));
  }
}

// The answer to a join this task gave up (its op failed or was cancelled while the group
// formed). If the leader formed the group with it, the other members may run that
// formation and fetch from here, where nobody will ever send: this task leaves it, so those
// fetches fail (and their members leave it too) instead of waiting out their steps.
void OnAbandonedJoin(GroupSelf* self, const CollectiveJoined& joined) {
  auto& st = self->state;
  if (!joined.status.ok()) return;
  auto formation = ParseCollectiveFormation(joined.members);
  if (!formation.ok() || formation->incarnation == st.incarnation) return;
  Status why = errors::Aborted("collective group ", st.group_key, ": ", joined.device,
                               " gave up its join before the group formed (",
                               st.last_error.ok() ? "reset" : st.last_error.message(), ")");
  caf::anon_send(st.rendezvous->local().actor(), abort_matching_atom::value,
                 CollectiveFormationPrefix(st.group_key, formation->incarnation), LeftFormation(st.group_key, why));
}

void OnJoined(GroupSelf* self, CollectiveJoined& joined) {
  auto& st = self->state;
  if (joined.generation != st.generation) return OnAbandonedJoin(self, joined);  // a join from before a reset
  st.joining.erase(joined.device);
  if (!joined.status.ok()) {
    return FailGroup(self, Status(joined.status.code(), StrCat("collective group ", st.group_key, ": joining at ",
                                                               st.options.leader_task.empty() ? st.options.task
                                                                                              : st.options.leader_task,
                                                               " failed: ", joined.status.message())));
  }
  auto formation = ParseCollectiveFormation(joined.members);
  if (!formation.ok()) {
    return FailGroup(self, Status(formation.status().code(),
                                  StrCat("collective group ", st.group_key, ": ", formation.status().message())));
  }
  st.incarnation = formation->incarnation;
  st.members = std::move(formation->members);
  st.member_incarnations = std::move(formation->member_incarnations);
  st.group_size = static_cast<int>(st.members.size());
  std::vector<uint64_t> ready;
  for (auto& [id, op] : st.ops) {
    if (!op.started && !st.joining.count(op.params.device)) ready.push_back(id);
  }
  for (uint64_t id : ready) {
    auto it = st.ops.find(id);
    if (it != st.ops.end() && !it->second.started) StartOp(self, it->second);
  }
}

void OnRun(GroupSelf* self, CollectiveRunRequest& request) {
  auto& st = self->state;
  Op op;
  op.id = st.next_op++;
  op.params = std::move(request.params);
  op.input = std::move(request.input);
  op.done = std::move(request.done);
  const int64_t timeout_ms = op.params.timeout_seconds > 0 ? static_cast<int64_t>(op.params.timeout_seconds * 1000)
                                                           : st.options.default_timeout_ms;
  op.deadline_ms = data_plane::SteadyNowMs() + timeout_ms;
  if (op.params.kind != CollectiveKind::kBroadcastRecv && op.input.dtype() != op.params.dtype) {
    return op.done(errors::InvalidArgument(op.Describe(), ": input is ", DataTypeString(op.input.dtype()), ", not ",
                                           DataTypeString(op.params.dtype)),
                   Tensor());
  }
  if (op.params.group_size == 1) {
    if (op.params.kind == CollectiveKind::kBroadcastRecv) {
      return op.done(errors::InvalidArgument(op.Describe(), ": a group of one has no sender to receive from"), Tensor());
    }
    return op.done(Status::OK(), op.input);  // a group of one: its own input (divided by 1)
  }
  if (st.group_size != 0 && st.group_size != op.params.group_size) {
    return op.done(errors::InvalidArgument(op.Describe(), ": the group was formed with group_size ", st.group_size,
                                           ", this op says ", op.params.group_size),
                   Tensor());
  }
  // Deadlines are checked by a tick while ops are in flight (one timer per group, not one
  // per op: a training step's ops finish in milliseconds, their deadlines are minutes).
  if (!st.ticking) {
    st.ticking = true;
    self->delayed_send(self, kTick, coll_tick_atom::value);
  }
  const uint64_t id = op.id;
  Op& placed = st.ops.emplace(id, std::move(op)).first->second;
  if (st.incarnation != 0 && !st.joining.count(placed.params.device)) return StartOp(self, placed);
  Join(self, placed);
}

void OnPiece(GroupSelf* self, CollectivePiece& piece) {
  auto& st = self->state;
  auto it = st.ops.find(piece.op);
  if (it == st.ops.end()) return;  // the op ended (failed) meanwhile
  Op& op = it->second;
  if (!piece.status.ok()) {
    return FailGroup(self, Status(piece.status.code(), StrCat(op.Describe(), ": fetching from member ", piece.from,
                                                              " failed: ", piece.status.message())));
  }
  if (piece.value.dtype() != op.params.dtype) {
    return FailGroup(self, errors::InvalidArgument(op.Describe(), ": member ", piece.from, " sent ",
                                                   DataTypeString(piece.value.dtype()), ", not ",
                                                   DataTypeString(op.params.dtype)));
  }
  Status s;
  const Algorithm algorithm = op.algorithm;  // `op` is gone once it finishes
  const CollectiveKind piece_kind = op.params.kind;
  switch (algorithm) {
    case Algorithm::kRing: s = OnRingPiece(self, op, piece.index, std::move(piece.value)); break;
    case Algorithm::kGatherRing: s = OnGatherPiece(self, op, piece.index, piece.value); break;
    case Algorithm::kBroadcastRing: s = OnBroadcastPiece(self, op, piece.index, piece.value); break;
    case Algorithm::kDoubling: s = OnDoublingPiece(self, op, piece.index, piece.value); break;
  }
  if (!s.ok()) {
    return FailGroup(self, Status(s.code(), StrCat(KindName(piece_kind), " of group ", self->state.group_key,
                                                   ": from ", piece.from, ": ", s.message())));
  }
  // Doubling finishes by its stages; the others when every piece is in.
  if (algorithm != Algorithm::kDoubling && --op.remaining == 0) Finish(self, op.id, op.output);
}

caf::behavior group_actor(GroupSelf* self, int group_key, CollectiveOptions options,
                          std::shared_ptr<ClusterRendezvous> rendezvous, caf::actor leader) {
  auto& st = self->state;
  st.group_key = group_key;
  st.options = std::move(options);
  st.rendezvous = std::move(rendezvous);
  st.leader = std::move(leader);
  return {
      [=](coll_run_atom, CollectiveRunRequest& request) { OnRun(self, request); },
      [=](coll_joined_atom, CollectiveJoined& joined) { OnJoined(self, joined); },
      [=](coll_piece_atom, CollectivePiece& piece) { OnPiece(self, piece); },
      [=](coll_tick_atom) {
        auto& st = self->state;
        st.ticking = false;
        const int64_t now = data_plane::SteadyNowMs();
        for (const auto& [id, op] : st.ops) {
          if (op.deadline_ms > now) continue;
          return FailGroup(self, errors::DeadlineExceeded(
                                     op.Describe(), " did not finish within ",
                                     op.params.timeout_seconds > 0 ? op.params.timeout_seconds
                                                                   : st.options.default_timeout_ms / 1000.0,
                                     " s (", op.started ? StrCat(op.remaining, " pieces still to arrive")
                                                        : std::string("waiting for the group's members to join"),
                                     ")"));
        }
        if (!st.ops.empty()) {
          st.ticking = true;
          self->delayed_send(self, kTick, coll_tick_atom::value);
        }
      },
      [=](coll_cancel_atom, CollectiveCancel& cancel) {
        for (const auto& [id, op] : self->state.ops) {
          if (op.params.device == cancel.device && op.params.instance_key == cancel.instance_key) {
            return FailGroup(self, cancel.why);
          }
        }
      },
      [=](coll_peer_down_atom, const std::string& task, uint64_t incarnation, const Status& why) {
        auto& st = self->state;
        // Only the member that went down: a restarted task's new worker may have joined a
        // new formation of the group already (the news of the old one's end can be late).
        bool involved = !st.joining.empty() && st.options.leader_task == task;
        for (size_t i = 0; i < st.members.size(); ++i) {
          involved |= TaskOfDevice(st.members[i]) == task &&
                      (incarnation == 0 || st.member_incarnations[i] == 0 || st.member_incarnations[i] == incarnation);
        }
        if (!involved) return;
        FailGroup(self, Status(why.code(), StrCat("collective group ", st.group_key, ": member task ", task, " ",
                                                  why.message())));
      },
      [=](inspect_atom) -> std::string {
        auto& st = self->state;
        std::string members;
        for (const auto& m : st.members) members += (members.empty() ? "" : ", ") + m;
        std::string out = StrCat("collective group ", st.group_key, " on ", st.options.task, ": ",
                                 st.incarnation ? StrCat(st.members.size(), " members [", members, "]")
                                                : std::string("not formed"),
                                 "; ", st.completed, " ops done, ", st.failed, " failed",
                                 st.last_error.ok() ? "" : StrCat(" (last: ", st.last_error.message(), ")"));
        for (const auto& [id, op] : st.ops) {
          out += StrCat("\n  ", op.Describe(), op.started ? StrCat(", run ", op.run, ": ", op.remaining,
                                                                   " pieces to arrive")
                                                          : std::string(": waiting for the group to form"));
        }
        return out;
      },
  };
}

}  // namespace

CollectiveService::CollectiveService(caf::actor_system& system, CollectiveOptions options,
                                     std::shared_ptr<ClusterRendezvous> rendezvous, caf::actor leader)
    : system_(system),
      options_(std::move(options)),
      rendezvous_(std::move(rendezvous)),
      leader_(std::move(leader)) {}

CollectiveService::~CollectiveService() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, actor] : groups_) caf::anon_send_exit(actor, caf::exit_reason::user_shutdown);
}

caf::actor CollectiveService::GroupActor(int group_key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = groups_.find(group_key);
  if (it != groups_.end()) return it->second;
  caf::actor actor = system_.spawn(group_actor, group_key, options_, rendezvous_, leader_);
  groups_.emplace(group_key, actor);
  return actor;
}

void CollectiveService::Run(const CollectiveParams& params, const Tensor& input, Done done) {
  caf::anon_send(GroupActor(params.group_key), coll_run_atom::value, CollectiveRunRequest{params, input, std::move(done)});
}

void CollectiveService::Cancel(const CollectiveParams& params, const Status& why) {
  caf::anon_send(GroupActor(params.group_key), coll_cancel_atom::value,
                 CollectiveCancel{params.device, params.instance_key, why});
}

void CollectiveService::PeerDown(const std::string& task, uint64_t incarnation, const Status& why) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, actor] : groups_) caf::anon_send(actor, coll_peer_down_atom::value, task, incarnation, why);
}

std::vector<caf::actor> CollectiveService::actors() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<caf::actor> out = {leader_};
  for (auto& [key, actor] : groups_) out.push_back(actor);
  return out;
}

}  // namespace tensoract
