// _SequentialLoop on the CPU (graph/optimizer/sequential_loops.h): a whole loop's
// iterations, one after another, each node of an iteration run straight after the one
// before it by its own kernel, made once here from the body's NodeDefs.
//
// Values live in flat slots (one per node output) for the iteration; a slot's last reader
// in the iteration takes its value rather than a copy, so a kernel that reuses its input's
// buffer (a TensorList it appends to, an Add in place) still can.
//
// The kernel is asynchronous so that a long loop does not hold the executor's thread: it
// runs iterations for up to kSliceMs, then goes on from the device's threads, checking the
// step's cancellation between iterations (an abort or a deadline ends it with Cancelled, as
// it would end the executor's own loop). Where the executor has other expensive nodes
// ready or kernels running (whose completion may make the other direction of a
// bidirectional RNN ready), it starts on the device's threads.
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/optimizer/mixed_precision.h"
#include "kernels/cancellation.h"
#include "kernels/cpu/lstm_gates.h"
#include "kernels/cpu/lstm_loop.h"
#include "kernels/kernel_registry.h"
#include "kernels/kernel_status.h"
#include "messages/graph.pb.h"

namespace tensoract {
namespace {

constexpr auto kSliceMs = std::chrono::milliseconds(2);

class SequentialLoopOp : public AsyncOpKernel {
 public:
  explicit SequentialLoopOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    const auto& attr = ctx->def().attr();
    for (const char* name : {"T", "Tinvariants", "exit_vars", "body", "pred", "next", "gated"}) {
      OP_REQUIRES(ctx, attr.count(name) != 0,
                  errors::InvalidArgument("node '", name_of(ctx), "' (op '_SequentialLoop') has no attr '", name, "'"));
    }
    num_vars_ = attr.at("T").list().type_size();
    num_invariants_ = attr.at("Tinvariants").list().type_size();
    for (int64_t v : attr.at("exit_vars").list().i()) {
      OP_REQUIRES(ctx, v >= 0 && v < num_vars_,
                  errors::InvalidArgument("node '", name_of(ctx), "': exit variable ", v, " of ", num_vars_));
      exit_vars_.push_back(static_cast<int>(v));
    }
    tensorflow::GraphDef body;
    OP_REQUIRES(ctx, body.ParseFromString(attr.at("body").s()),
                errors::InvalidArgument("node '", name_of(ctx), "': its body is not a GraphDef"));
    std::set<std::string> gated(attr.at("gated").list().s().begin(), attr.at("gated").list().s().end());
    OP_REQUIRES_OK(ctx, Plan(ctx, body, gated));
    OP_REQUIRES_OK(ctx, Read(attr.at("pred").s(), &pred_));
    for (const std::string& next : attr.at("next").list().s()) {
      Ref r;
      OP_REQUIRES_OK(ctx, Read(next, &r));
      next_.push_back(r);
    }
    OP_REQUIRES(ctx, static_cast<int>(next_.size()) == num_vars_,
                errors::InvalidArgument("node '", name_of(ctx), "': ", next_.size(), " next values for ", num_vars_,
                                        " loop variables"));
    CountReaders();
    PlanLstmLoop(attr.at("T").list(), attr.at("Tinvariants").list());
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto run = std::make_shared<LoopRun>(this, ctx, std::move(done));
    for (int i = 0; i < num_vars_; ++i) run->vars[i] = ctx->input(i);
    for (int j = 0; j < num_invariants_; ++j) run->invariants[j] = ctx->input(num_vars_ + j);
    // Where the executor has other expensive work ready (the other direction of a
    // bidirectional RNN), the device's threads run the loop and the two go side by side;
    // else here, sparing a hand-off each way (an LSTM at batch 1: medians 0.85-1.0 against
    // 1.2 ms).
    if (ctx->work_waiting() && !ctx->on_caller_thread()) {
      ctx->device()->Schedule([run] { Continue(run); });
      return;
    }
    Continue(run);
  }

  bool IsExpensive() const override { return true; }

 private:
  static std::string name_of(OpKernelConstruction* ctx) { return ctx->def().name(); }

  // Where a value comes from: a loop variable, an invariant, or a node's output slot.
  struct Ref {
    enum Kind { kVar, kInvariant, kSlot } kind = kSlot;
    int index = 0;
  };
  // The loop's own bookkeeping on int32 scalars (ScalarOp, kernels/cpu/lstm_loop.h: its
  // counters and its condition, five of an LSTM's ten kernels an iteration) is computed here
  // without a kernel call where the values are such scalars.
  struct Step {
    std::unique_ptr<OpKernel> kernel;
    std::vector<Ref> inputs;
    int first_slot = 0;
    bool gated = false;
    bool skip = false;  // passes its inputs on (alias_), not run
    ScalarOp scalar = ScalarOp::kNone;
    uint64_t outputs_required = 0;
    // A Keras LSTM step run as one (FuseLstmSteps): this _FusedLstmGates step also computes
    // the TensorListGetItem and _FusedMatMul steps before it, which are skipped; their
    // operands and its own are `fused_inputs`, in LstmOperand order.
    bool lstm = false;
    int get_item = -1, product = -1;  // those two steps' indices
    std::vector<Ref> fused_inputs;
    bool sets_float_item = false;  // a TensorListSetItem of float elements, never resizing
  };
  enum LstmOperand { kList, kIndex, kElementShape, kH, kU, kC, kBias };

  // One run of the loop: its values, and where it is.
  struct LoopRun {
    LoopRun(const SequentialLoopOp* op, OpKernelContext* ctx, DoneCallback done)
        : op(op), ctx(ctx), done(std::move(done)), vars(op->num_vars_), next(op->num_vars_),
          invariants(op->num_invariants_), slots(op->num_slots_) {
      // What every step's context shares: the loop's own context's.
      params.device = ctx->device();
      params.step_id = ctx->step_id();
      params.rendezvous = ctx->rendezvous();
      params.output_storage = &outputs;
      params.frame_id = ctx->frame_id();
      params.iter_id = ctx->iter_id();
      params.cancellation = ctx->cancellation();
      params.collectives = ctx->collectives();
      params.on_caller_thread = ctx->on_caller_thread();
      params.inputs = &inputs;
    }
    const SequentialLoopOp* op;
    OpKernelContext* ctx;
    DoneCallback done;
    std::vector<Tensor> vars, next, invariants, slots;
    OpKernelContext::Params params;
    std::vector<int> readers_left;  // by slot, then by variable, for this iteration
    std::vector<Tensor> inputs, outputs;
    std::vector<float> gates;  // a fused LSTM step's product, reused from step to step
    int64_t iteration = 0;
  };

  Status Read(const std::string& name, Ref* ref) const {
    TensorId id;
    TA_RETURN_IF_ERROR(ParseTensorName(name, &id));
    if (id.IsControl()) return errors::InvalidArgument("'", name, "' is a control input where a value is read");
    if (id.node == "__var" || id.node == "__inv") {
      const bool var = id.node == "__var";
      if (id.index >= (var ? num_vars_ : num_invariants_)) {
        return errors::InvalidArgument("'", name, "' names no ", var ? "loop variable" : "invariant");
      }
      *ref = {var ? Ref::kVar : Ref::kInvariant, id.index};
      return Status::OK();
    }
    auto it = node_index_.find(id.node);
    if (it == node_index_.end()) return errors::InvalidArgument("'", name, "' names no node of the loop's body");
    const Step& step = steps_[it->second];
    if (id.index >= step.kernel->num_outputs()) {
      return errors::InvalidArgument("'", name, "': node '", id.node, "' has ", step.kernel->num_outputs(), " outputs");
    }
    *ref = {Ref::kSlot, step.first_slot + id.index};
    auto alias = alias_.find(ref->index);
    if (alias != alias_.end()) *ref = alias->second;
    return Status::OK();
  }

  // The body's kernels in an order each node's inputs come before it: first what runs in
  // every iteration, then the gated body (no node outside it reads one inside it).
  Status Plan(OpKernelConstruction* ctx, const tensorflow::GraphDef& body, const std::set<std::string>& gated) {
    std::map<std::string, int> index;
    for (int i = 0; i < body.node_size(); ++i) {
      if (!index.emplace(body.node(i).name(), i).second) {
        return errors::InvalidArgument("node '", name(), "': two body nodes are named '", body.node(i).name(), "'");
      }
    }
    std::vector<int> order, state(body.node_size(), 0);  // 0 unseen, 1 on the path, 2 placed
    for (bool gated_pass : {false, true}) {
      for (int root = 0; root < body.node_size(); ++root) {
        if ((gated.count(body.node(root).name()) != 0) != gated_pass || state[root] == 2) continue;
        std::vector<std::pair<int, int>> stack = {{root, 0}};  // node, next input to visit
        state[root] = 1;
        while (!stack.empty()) {
          auto& [n, next] = stack.back();
          const NodeDef& def = body.node(n);
          if (next < def.input_size()) {
            const std::string input = NodeNameOf(def.input(next++));
            auto it = index.find(input);
            if (it == index.end()) continue;  // __var, __inv
            if (state[it->second] == 1) {
              return errors::InvalidArgument("node '", name(), "': the loop's body has a cycle through '", input, "'");
            }
            if (state[it->second] == 0) {
              if ((gated.count(input) != 0) && !gated_pass) {
                return errors::InvalidArgument("node '", name(), "': '", def.name(), "' runs every iteration but reads '",
                                               input, "' of the gated body");
              }
              state[it->second] = 1;
              stack.push_back({it->second, 0});
            }
            continue;
          }
          state[n] = 2;
          order.push_back(n);
          stack.pop_back();
        }
      }
    }
    int slots = 0;
    for (int n : order) {
      const NodeDef& def = body.node(n);
      Step step;
      auto op_def = OpRegistry::Global()->LookUp(def.op());
      TA_RETURN_IF_ERROR(op_def.status());
      TA_RETURN_IF_ERROR(CreateOpKernel(ctx->device(), def, **op_def, &step.kernel));
      if (step.kernel->IsAsync()) {
        return errors::InvalidArgument("node '", name(), "': body node '", def.name(), "' (op '", def.op(),
                                       "') is asynchronous");
      }
      step.first_slot = slots;
      step.gated = gated.count(def.name()) != 0;
      step.scalar = ScalarOpOf(def);
      step.sets_float_item = IsFloatSetItem(def);
      slots += step.kernel->num_outputs();
      node_index_[def.name()] = static_cast<int>(steps_.size());
      steps_.push_back(std::move(step));
    }
    num_slots_ = slots;
    for (size_t s = 0; s < order.size(); ++s) {
      const NodeDef& def = body.node(order[s]);
      for (const std::string& input : def.input()) {
        if (!input.empty() && input[0] == '^') continue;  // the order keeps it
        Ref r;
        TA_RETURN_IF_ERROR(Read(input, &r));
        steps_[s].inputs.push_back(r);
      }
      if (steps_[s].inputs.size() != steps_[s].kernel->input_types().size()) {
        return errors::InvalidArgument("node '", name(), "': body node '", def.name(), "' has ",
                                       steps_[s].inputs.size(), " inputs, its kernel takes ",
                                       steps_[s].kernel->input_types().size());
      }
      // What only passes its inputs on (the inlined calls' Identity and IdentityN, their
      // NoOps) is not run: its readers read its inputs (a third of an LSTM's iteration).
      if (def.op() == "Identity" || def.op() == "IdentityN" || def.op() == "NoOp") {
        steps_[s].skip = true;
        for (size_t i = 0; i < steps_[s].inputs.size(); ++i) alias_[steps_[s].first_slot + i] = steps_[s].inputs[i];
      }
    }
    std::vector<const NodeDef*> defs;
    for (int n : order) defs.push_back(&body.node(n));
    FuseLstmSteps(defs);
    return Status::OK();
  }

  // Finds Keras' LSTM step in the planned body: TensorListGetItem (x, the step's row of the
  // input product) -> _FusedMatMul (h U + x, fused_ops ["Add"]) -> _FusedLstmGates, each
  // intermediate read by the next alone, and marks it to run as one
  // (kernels/cpu/lstm_gates.h's RunLstmStep): three kernel calls, their contexts and two
  // intermediate tensors fewer an iteration, a third of an LSTM's iteration at batch 1.
  // `defs` are the steps' NodeDefs.
  void FuseLstmSteps(const std::vector<const NodeDef*>& defs) {
    std::vector<int> step_of_slot(num_slots_, -1), reads(num_slots_, 0);
    for (size_t s = 0; s < steps_.size(); ++s) {
      for (int i = 0; i < steps_[s].kernel->num_outputs(); ++i) step_of_slot[steps_[s].first_slot + i] = static_cast<int>(s);
    }
    auto count = [&](const Ref& r) {
      if (r.kind == Ref::kSlot) ++reads[r.index];
    };
    for (const Step& step : steps_) {
      if (step.skip) continue;
      for (const Ref& r : step.inputs) count(r);
    }
    count(pred_);
    for (const Ref& r : next_) count(r);
    // The step whose output 0, read by one step alone, `r` is.
    auto producer = [&](const Ref& r) {
      return r.kind == Ref::kSlot && reads[r.index] == 1 && step_of_slot[r.index] >= 0 &&
                     steps_[step_of_slot[r.index]].first_slot == r.index && !steps_[step_of_slot[r.index]].skip
                 ? step_of_slot[r.index]
                 : -1;
    };
    auto attr = [](const NodeDef& def, const char* name) -> const tensorflow::AttrValue* {
      auto it = def.attr().find(name);
      return it == def.attr().end() ? nullptr : &it->second;
    };
    auto is_float = [&](const NodeDef& def, const char* name) {
      const tensorflow::AttrValue* a = attr(def, name);
      return a != nullptr && a->type() == tensorflow::DT_FLOAT;
    };
    for (size_t s = 0; s < steps_.size(); ++s) {
      Step& gates = steps_[s];
      if (defs[s]->op() != "_FusedLstmGates" || !is_float(*defs[s], "T") || gates.inputs.size() < 2 ||
          gates.inputs.size() > 3) {
        continue;
      }
      const int p = producer(gates.inputs[0]);
      if (p < 0 || defs[p]->op() != "_FusedMatMul" || !is_float(*defs[p], "T")) continue;
      const NodeDef& product = *defs[p];
      const tensorflow::AttrValue* fused = attr(product, "fused_ops");
      const tensorflow::AttrValue* ta = attr(product, "transpose_a");
      const tensorflow::AttrValue* tb = attr(product, "transpose_b");
      const tensorflow::AttrValue* bf16 = attr(product, kBfloat16ProductsAttr);
      if (fused == nullptr || fused->list().s_size() != 1 || fused->list().s(0) != "Add" || (ta && ta->b()) ||
          (tb && tb->b()) || (bf16 && bf16->b()) || steps_[p].inputs.size() != 3) {
        continue;
      }
      const int g = producer(steps_[p].inputs[2]);
      if (g < 0 || defs[g]->op() != "TensorListGetItem" || !is_float(*defs[g], "element_dtype") ||
          steps_[g].inputs.size() != 3) {
        continue;
      }
      if (steps_[g].gated != gates.gated || steps_[p].gated != gates.gated) continue;
      const std::vector<Ref>& get = steps_[g].inputs;
      const std::vector<Ref>& mm = steps_[p].inputs;
      gates.fused_inputs = {get[0], get[1], get[2], mm[0], mm[1], gates.inputs[1]};
      if (gates.inputs.size() == 3) gates.fused_inputs.push_back(gates.inputs[2]);
      gates.lstm = true;
      gates.get_item = g;
      gates.product = p;
      steps_[g].skip = steps_[p].skip = true;
    }
  }

  static bool IsFloatSetItem(const NodeDef& def) {
    if (def.op() != "TensorListSetItem") return false;
    auto dtype = def.attr().find("element_dtype");
    return dtype != def.attr().end() && dtype->second.type() == tensorflow::DT_FLOAT &&
           !AttrIsTrue(def, "resize_if_index_out_of_bounds");
  }

  // The number of the value `r` refers to, as kernels/cpu/lstm_loop.h numbers them.
  int ValueOf(const Ref& r) const {
    switch (r.kind) {
      case Ref::kVar: return r.index;
      case Ref::kInvariant: return num_vars_ + r.index;
      case Ref::kSlot:
      default: return num_vars_ + num_invariants_ + r.index;
    }
  }

  // The body as an LstmLoopPlan (kernels/cpu/lstm_loop.h) where it is Keras' LSTM layer's:
  // only scalar steps on int32 and bool values, one fused LSTM step (FuseLstmSteps) on a
  // list, a kernel and a bias that are invariants and an h and a c that are variables taking
  // its outputs, and SetItems of its h into list variables taking theirs. `types` and
  // `invariant_types`: the loop's T and Tinvariants.
  void PlanLstmLoop(const tensorflow::AttrValue::ListValue& types,
                    const tensorflow::AttrValue::ListValue& invariant_types) {
    LstmLoopPlan p;
    p.num_vars = num_vars_;
    p.num_invariants = num_invariants_;
    p.num_values = num_vars_ + num_invariants_ + num_slots_;
    p.value_dtypes.assign(p.num_values, tensorflow::DT_INVALID);
    auto is_register_type = [](DataType t) { return t == tensorflow::DT_INT32 || t == tensorflow::DT_BOOL; };
    for (int k = 0; k < num_vars_; ++k) {
      if (is_register_type(types.type(k))) p.value_dtypes[k] = types.type(k);
    }
    for (int j = 0; j < num_invariants_; ++j) {
      if (is_register_type(invariant_types.type(j))) p.value_dtypes[num_vars_ + j] = invariant_types.type(j);
    }
    auto has_type = [&](const Ref& r, DataType t) { return p.value_dtypes[ValueOf(r)] == t; };
    const Step* lstm = nullptr;
    std::vector<const Step*> set_steps;
    for (const Step& step : steps_) {
      if (step.skip) continue;
      if (step.lstm) {
        if (lstm != nullptr || !step.gated) return;
        lstm = &step;
      } else if (step.scalar != ScalarOp::kNone && step.inputs.size() == 2) {
        const DataType in = step.scalar == ScalarOp::kLogicalAnd ? tensorflow::DT_BOOL : tensorflow::DT_INT32;
        if (!has_type(step.inputs[0], in) || !has_type(step.inputs[1], in)) return;
        ScalarInstruction instruction{step.scalar, ValueOf(step.inputs[0]), ValueOf(step.inputs[1]),
                                      ValueOf({Ref::kSlot, step.first_slot})};
        p.value_dtypes[instruction.out] = step.scalar == ScalarOp::kAdd ? tensorflow::DT_INT32 : tensorflow::DT_BOOL;
        (step.gated ? p.body : p.condition).push_back(instruction);
      } else if (step.sets_float_item && step.gated && lstm != nullptr && step.inputs.size() == 3 &&
                 step.inputs[0].kind == Ref::kVar && types.type(step.inputs[0].index) == tensorflow::DT_VARIANT &&
                 has_type(step.inputs[1], tensorflow::DT_INT32) && step.inputs[2].kind == Ref::kSlot &&
                 step.inputs[2].index == lstm->first_slot + 1) {
        p.set_items.push_back({step.inputs[0].index, ValueOf(step.inputs[1])});
        set_steps.push_back(&step);
      } else {
        return;  // any other step: the general loop
      }
    }
    if (lstm == nullptr || !has_type(pred_, tensorflow::DT_BOOL)) return;
    const std::vector<Ref>& in = lstm->fused_inputs;
    auto is = [](const Ref& r, Ref::Kind kind) { return r.kind == kind; };
    if (!is(in[kList], Ref::kInvariant) || !has_type(in[kIndex], tensorflow::DT_INT32) || !is(in[kH], Ref::kVar) ||
        !is(in[kU], Ref::kInvariant) || !is(in[kC], Ref::kVar) || in[kH].index == in[kC].index ||
        (in.size() > kBias && !is(in[kBias], Ref::kInvariant))) {
      return;
    }
    p.list = ValueOf(in[kList]);
    p.index = ValueOf(in[kIndex]);
    p.h = in[kH].index;
    p.u = ValueOf(in[kU]);
    p.c = in[kC].index;
    p.bias = in.size() > kBias ? ValueOf(in[kBias]) : -1;
    p.pred = ValueOf(pred_);
    // What each variable takes: h and c the step's, a list its SetItem's, a scalar a scalar
    // of its type; any other stays as it is.
    p.next.resize(num_vars_);
    for (int k = 0; k < num_vars_; ++k) {
      const Ref& r = next_[k];
      p.next[k] = ValueOf(r);
      const bool is_slot = r.kind == Ref::kSlot;
      if (k == p.h) {
        if (!is_slot || r.index != lstm->first_slot + 1) return;
      } else if (k == p.c) {
        if (!is_slot || r.index != lstm->first_slot) return;
      } else if (p.value_dtypes[k] != tensorflow::DT_INVALID) {
        if (!has_type(r, p.value_dtypes[k])) return;
        p.register_vars.push_back(k);
      } else {
        bool set = false;
        for (size_t i = 0; i < set_steps.size(); ++i) {
          if (p.set_items[i].list_var == k) set = is_slot && r.index == set_steps[i]->first_slot;
        }
        if (!set && !(r.kind == Ref::kVar && r.index == k)) return;
      }
    }
    // A list set here and not taking its SetItem's value (read elsewhere): the general loop.
    for (const LstmLoopPlan::SetItem& set : p.set_items) {
      if (next_[set.list_var].kind != Ref::kSlot) return;
    }
    // The invariants read as scalars (others of those types, an element shape, are not).
    std::set<int> read = {p.pred, p.index};
    for (const std::vector<ScalarInstruction>* part : {&p.condition, &p.body}) {
      for (const ScalarInstruction& i : *part) read.insert({i.a, i.b});
    }
    for (const LstmLoopPlan::SetItem& set : p.set_items) read.insert(set.index);
    for (int k : p.register_vars) read.insert(p.next[k]);
    for (int value : read) {
      if (value >= num_vars_ && value < num_vars_ + num_invariants_) p.register_invariants.push_back(value);
    }
    lstm_loop_ = std::make_unique<LstmLoopPlan>(std::move(p));
  }

  // How many reads each slot and variable gets in an iteration that goes on: the last one
  // takes the value. The condition's reads of a variable are not counted (they copy): in
  // the last iteration the body does not run and the variable leaves through its Exit.
  void CountReaders() {
    readers_.assign(num_slots_ + num_vars_, 0);
    auto count = [this](const Ref& r, bool counted_var) {
      if (r.kind == Ref::kSlot) ++readers_[r.index];
      else if (r.kind == Ref::kVar && counted_var) ++readers_[num_slots_ + r.index];
    };
    for (const Step& step : steps_) {
      if (step.skip) continue;
      for (const Ref& r : step.lstm ? step.fused_inputs : step.inputs) count(r, step.gated);
    }
    count(pred_, false);
    for (const Ref& r : next_) count(r, true);
    unread_slots_.clear();
    for (int i = 0; i < num_slots_; ++i) {
      if (readers_[i] == 0) unread_slots_.push_back(i);
    }
    for (Step& step : steps_) {
      step.outputs_required = 0;
      for (int i = 0; i < step.kernel->num_outputs() && i < 64; ++i) {
        if (readers_[step.first_slot + i] > 0) step.outputs_required |= uint64_t{1} << i;
      }
      for (int i = 64; i < step.kernel->num_outputs(); ++i) step.outputs_required = ~uint64_t{0};
    }
  }

  // Where the value `r` refers to lives.
  static Tensor& Stored(LoopRun& run, const Ref& r) {
    switch (r.kind) {
      case Ref::kInvariant: return run.invariants[r.index];
      case Ref::kVar: return run.vars[r.index];
      case Ref::kSlot:
      default: return run.slots[r.index];
    }
  }

  // Counts a read of `r` (a variable's only where `counted`; never an invariant's): true for
  // its last reader in the iteration, which may take the value.
  static bool LastRead(LoopRun& run, const Ref& r, bool counted) {
    switch (r.kind) {
      case Ref::kInvariant: return false;
      case Ref::kVar: return counted && --run.readers_left[run.op->num_slots_ + r.index] == 0;
      case Ref::kSlot:
      default: return --run.readers_left[r.index] == 0;
    }
  }

  // The value `r` holds: taken by its last reader, copied before.
  static Tensor Take(LoopRun& run, const Ref& r, bool counted) {
    Tensor& value = Stored(run, r);
    return LastRead(run, r, counted) ? std::move(value) : value;
  }

  static ScalarOp ScalarOpOf(const NodeDef& def) {
    auto t = def.attr().find("T");
    const bool int32 = t != def.attr().end() && t->second.type() == tensorflow::DT_INT32;
    if ((def.op() == "Add" || def.op() == "AddV2") && int32) return ScalarOp::kAdd;
    if (def.op() == "Less" && int32) return ScalarOp::kLess;
    if (def.op() == "LogicalAnd") return ScalarOp::kLogicalAnd;
    return ScalarOp::kNone;
  }

  // The step's one output where its inputs (a, b) are scalars of its type, as its kernel
  // would compute it (int32 sums wrap, as TensorFlow's do), as an int32 or a bool in
  // *value, *dtype saying which; false to run the kernel.
  static bool ComputeScalar(const Step& step, const Tensor& a, const Tensor& b, int32_t* value, DataType* dtype) {
    if (a.dims() != 0 || b.dims() != 0 || a.dtype() != b.dtype()) return false;
    switch (step.scalar) {
      case ScalarOp::kAdd:
        if (a.dtype() != tensorflow::DT_INT32) return false;
        *value = static_cast<int32_t>(static_cast<uint32_t>(*a.base<int32_t>()) + static_cast<uint32_t>(*b.base<int32_t>()));
        *dtype = tensorflow::DT_INT32;
        return true;
      case ScalarOp::kLess:
        if (a.dtype() != tensorflow::DT_INT32) return false;
        *value = *a.base<int32_t>() < *b.base<int32_t>();
        *dtype = tensorflow::DT_BOOL;
        return true;
      case ScalarOp::kLogicalAnd:
        if (a.dtype() != tensorflow::DT_BOOL) return false;
        *value = *a.base<bool>() && *b.base<bool>();
        *dtype = tensorflow::DT_BOOL;
        return true;
      case ScalarOp::kNone:
      default:
        return false;
    }
  }

  // A scalar step (ComputeScalar): its inputs read in place, no copies to count up and down
  // (their reference counts' atomics were a fifth of the loop's own time), and its output
  // written over an input of its dtype read here for the last time that nothing else holds
  // (a counter's previous value, a condition's operand), else a new scalar: 76 ns saved a
  // step where the allocation goes (five steps of an LSTM's iteration). False: not scalars.
  static bool RunScalarStep(LoopRun& run, const Step& step) {
    int32_t value = 0;
    DataType dtype = tensorflow::DT_INVALID;
    if (!ComputeScalar(step, Stored(run, step.inputs[0]), Stored(run, step.inputs[1]), &value, &dtype)) return false;
    Tensor& out = run.slots[step.first_slot];
    bool reused = false;
    for (const Ref& r : step.inputs) {
      if (!LastRead(run, r, step.gated)) continue;
      Tensor& last = Stored(run, r);  // its last reader lets it go, as Take's would
      if (!reused && last.dtype() == dtype && last.RefCountIsOne()) {
        out = std::move(last);
        reused = true;
      }
      last = Tensor();
    }
    if (!reused) {
      out = dtype == tensorflow::DT_BOOL ? Tensor::Scalar<bool>(value != 0) : Tensor::Scalar<int32_t>(value);
    } else if (dtype == tensorflow::DT_BOOL) {
      *out.base<bool>() = value != 0;
    } else {
      *out.base<int32_t>() = value;
    }
    return true;
  }

  // Whether the next read of `r` (a variable's only where `counted`) is its last in the
  // iteration, as LastRead would say, without counting it.
  static bool IsLastRead(const LoopRun& run, const Ref& r, bool counted) {
    switch (r.kind) {
      case Ref::kInvariant: return false;
      case Ref::kVar: return counted && run.readers_left[run.op->num_slots_ + r.index] == 1;
      case Ref::kSlot:
      default: return run.readers_left[r.index] == 1;
    }
  }

  // A fused LSTM step (FuseLstmSteps): c and h computed at once from the operands where they
  // lie; where RunLstmStep does not take them, the three kernels run, one after another.
  Status RunLstm(LoopRun& run, const Step& step) const {
    const std::vector<Ref>& in = step.fused_inputs;
    LstmStepInputs values;
    values.list = &Stored(run, in[kList]);
    const Tensor& index = Stored(run, in[kIndex]);
    values.index = index.dtype() == tensorflow::DT_INT32 && index.dims() == 0 ? *index.base<int32_t>() : -1;
    values.h = &Stored(run, in[kH]);
    values.u = &Stored(run, in[kU]);
    values.c = &Stored(run, in[kC]);
    values.bias = in.size() > kBias ? &Stored(run, in[kBias]) : nullptr;
    Tensor c, h;
    if (!RunLstmStep(run.ctx, values, IsLastRead(run, in[kC], step.gated), &run.gates, &c, &h)) {
      TA_RETURN_IF_ERROR(RunStep(run, steps_[step.get_item]));
      TA_RETURN_IF_ERROR(RunStep(run, steps_[step.product]));
      return RunKernel(run, step);
    }
    for (const Ref& r : in) {
      if (LastRead(run, r, step.gated)) Stored(run, r) = Tensor();
    }
    run.slots[step.first_slot] = std::move(c);
    run.slots[step.first_slot + 1] = std::move(h);
    return Status::OK();
  }

  Status RunStep(LoopRun& run, const Step& step) const {
    if (step.lstm) return RunLstm(run, step);
    if (step.scalar != ScalarOp::kNone && step.inputs.size() == 2 && RunScalarStep(run, step)) return Status::OK();
    return RunKernel(run, step);
  }

  // The step's kernel on its inputs, its outputs into its slots.
  Status RunKernel(LoopRun& run, const Step& step) const {
    run.inputs.clear();
    for (const Ref& r : step.inputs) run.inputs.push_back(Take(run, r, step.gated));
    run.outputs.clear();  // the context sizes it afresh: nothing of the step before stays
    run.params.kernel = step.kernel.get();
    run.params.outputs_required = step.outputs_required;
    OpKernelContext ctx(run.params);
    try {
      step.kernel->Compute(&ctx);
    } catch (const std::exception& e) {
      ctx.SetStatus(errors::Internal("threw: ", e.what()));
    }
    const OpKernel& k = *step.kernel;
    if (!ctx.status().ok()) {
      return NamedKernelStatus(k, ctx.status()).WithContext(StrCat("iteration ", run.iteration, " of loop '", name(), "'"));
    }
    for (int i = 0; i < k.num_outputs(); ++i) {
      Tensor& out = run.outputs[i];
      if (out.IsInitialized() && out.dtype() == k.output_types()[i]) {
        run.slots[step.first_slot + i] = std::move(out);
      } else if (i >= 64 || ((step.outputs_required >> i) & 1)) {
        return errors::Internal("node '", k.name(), "' (op '", k.type_string(), "') produced output ", i, " as ",
                                out.IsInitialized() ? DataTypeString(out.dtype()) : "nothing", " but declares ",
                                DataTypeString(k.output_types()[i]), " (iteration ", run.iteration, " of loop '",
                                name(), "')");
      }
    }
    return Status::OK();
  }

  // One iteration: the condition, then the body if it holds. *more: it held.
  Status Iterate(LoopRun& run, bool* more) const {
    run.readers_left = readers_;
    size_t s = 0;
    for (; s < steps_.size() && !steps_[s].gated; ++s) {
      if (!steps_[s].skip) TA_RETURN_IF_ERROR(RunStep(run, steps_[s]));
    }
    const Tensor pred = Take(run, pred_, false);
    if (pred.dtype() != tensorflow::DT_BOOL || pred.NumElements() != 1) {
      return errors::InvalidArgument("loop '", name(), "': its condition is a ", DataTypeString(pred.dtype()),
                                     " tensor of shape ", pred.shape().DebugString(), ", not a bool scalar");
    }
    *more = pred.base<bool>()[0];
    if (*more) {
      for (; s < steps_.size(); ++s) {
        if (!steps_[s].skip) TA_RETURN_IF_ERROR(RunStep(run, steps_[s]));
      }
      // All read before any is replaced: a variable's next value may be another's.
      for (int k = 0; k < num_vars_; ++k) run.next[k] = Take(run, next_[k], true);
      run.vars.swap(run.next);
      for (Tensor& t : run.next) t = Tensor();  // the values before: nothing holds them now
      ++run.iteration;
      // Every slot read in the iteration was taken by its last reader: only the outputs
      // nothing reads still hold their values (resetting every slot cost an LSTM's
      // iteration a tenth of its machinery).
      for (int i : unread_slots_) run.slots[i] = Tensor();
    } else {
      for (Tensor& t : run.slots) t = Tensor();  // the body did not run: its readers neither
    }
    return Status::OK();
  }

  // Iterations until the loop ends, fails or is cancelled, or its slice is over (then on
  // from the device's threads).
  static void Continue(const std::shared_ptr<LoopRun>& run) {
    const SequentialLoopOp& op = *run->op;
    OpKernelContext* ctx = run->ctx;
    const auto start = std::chrono::steady_clock::now();
    for (int n = 1;; ++n) {
      CancellationManager* cancellation = ctx->cancellation();
      if (cancellation != nullptr && cancellation->cancelled()) {
        ctx->SetStatus(errors::Cancelled("loop '", op.name(), "' was cancelled in iteration ", run->iteration));
        break;
      }
      // An LSTM layer's loop runs on its own (kernels/cpu/lstm_loop.h); where it leaves
      // operands to the general loop, an iteration runs here and it tries again.
      if (op.lstm_loop_ != nullptr) {
        const LstmLoopEnd end = RunLstmLoop(ctx, *op.lstm_loop_, &run->vars, run->invariants, &run->iteration,
                                            &run->gates, start + kSliceMs);
        if (end == LstmLoopEnd::kEnded) {
          for (size_t i = 0; i < op.exit_vars_.size(); ++i) ctx->set_output(static_cast<int>(i), run->vars[op.exit_vars_[i]]);
          break;
        }
        if (end == LstmLoopEnd::kCancelled) {
          ctx->SetStatus(errors::Cancelled("loop '", op.name(), "' was cancelled in iteration ", run->iteration));
          break;
        }
        if (end == LstmLoopEnd::kSliceOver) {
          ctx->device()->Schedule([run] { Continue(run); });
          return;
        }
      }
      bool more = false;
      Status s = op.Iterate(*run, &more);
      if (!s.ok()) {
        ctx->SetStatus(s);
        break;
      }
      if (!more) {
        for (size_t i = 0; i < op.exit_vars_.size(); ++i) ctx->set_output(static_cast<int>(i), run->vars[op.exit_vars_[i]]);
        break;
      }
      // Even on the caller's thread (RunOptions::inter_op_thread_pool -1): a loop that never
      // ends must leave that thread for the step's deadline to reach it.
      if (n % 8 == 0 && std::chrono::steady_clock::now() - start > kSliceMs) {
        ctx->device()->Schedule([run] { Continue(run); });
        return;
      }
    }
    DoneCallback done = std::move(run->done);
    done();
  }

  int num_vars_ = 0, num_invariants_ = 0, num_slots_ = 0;
  std::vector<int> exit_vars_;
  std::vector<Step> steps_;
  std::map<std::string, int> node_index_;
  Ref pred_;
  std::vector<Ref> next_;
  std::vector<int> readers_;  // by slot, then by variable
  std::vector<int> unread_slots_;  // slots of outputs no step reads
  std::map<int, Ref> alias_;  // a skipped step's output slot -> what it passes on
  std::unique_ptr<LstmLoopPlan> lstm_loop_;  // where the body is an LSTM layer's (PlanLstmLoop)
};

REGISTER_KERNEL(Name("_SequentialLoop").Device(DEVICE_CPU), SequentialLoopOp);

}  // namespace
}  // namespace tensoract
