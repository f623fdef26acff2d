// Every op this repository registers is defined exactly as TensorFlow defines it, so a
// GraphDef TensorFlow writes validates here, gets the same attr defaults, and what we write
// loads there.
//
// The expected OpDefs are tests/data/tf_op_defs.pbtxt, printed by TensorFlow 2.21 itself
// (docs stripped) by tests/graph/write_tf_op_defs.py for every op the issues list, so an
// op registered later is checked without editing this file. An op missing from that file
// fails the second test, whose message says how to add it. An op tensoract extends
// (Supersets) is compared without its additions.
#include <google/protobuf/util/message_differencer.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "base/proto_io.h"
#include "graph/op_registry.h"
#include "tests/graph/test_util.h"

namespace tensoract {
namespace {

namespace tf = ::tensorflow;
using google::protobuf::util::MessageDifferencer;

// TensorFlow's OpDefs by name, read once.
const std::map<std::string, tf::OpDef>& TensorFlowOpDefs() {
  static const std::map<std::string, tf::OpDef> defs = [] {
    const char* dir = std::getenv("TENSORACT_TEST_DATA");
    tf::OpList list;
    Status s = ReadTextProto(std::string(dir ? dir : "tests/data") + "/tf_op_defs.pbtxt", &list);
    if (!s.ok()) FAIL(s.ToString());
    std::map<std::string, tf::OpDef> out;
    for (const auto& op : list.op()) out[op.name()] = op;
    return out;
  }();
  return defs;
}

// Our OpDef without its documentation, which TensorFlow's python registry leaves out.
tf::OpDef WithoutDocs(tf::OpDef def) {
  def.clear_summary();
  def.clear_description();
  for (auto& a : *def.mutable_input_arg()) a.clear_description();
  for (auto& a : *def.mutable_output_arg()) a.clear_description();
  for (auto& a : *def.mutable_attr()) a.clear_description();
  return def;
}

// An op of TensorFlow's that tensoract defines as a superset: `attr` added (with a default,
// so TensorFlow's NodeDefs validate), and `value` added to the allowed values of `extended`.
struct Superset {
  std::string attr, extended, value;
};
const std::map<std::string, Superset>& Supersets() {
  // _FusedDepthwiseConv2dNative with explicit padding: nn_depthwise_ops.cc says why.
  static const std::map<std::string, Superset> supersets = {
      {"_FusedDepthwiseConv2dNative", {"explicit_paddings", "padding", "EXPLICIT"}}};
  return supersets;
}

// `ours` without what Supersets() says tensoract adds to TensorFlow's op.
tf::OpDef AsTensorFlowDefinesIt(tf::OpDef ours) {
  auto found = Supersets().find(ours.name());
  if (found == Supersets().end()) return ours;
  const Superset& extra = found->second;
  auto* attrs = ours.mutable_attr();
  for (int i = attrs->size() - 1; i >= 0; --i) {
    if (attrs->Get(i).name() == extra.attr) attrs->DeleteSubrange(i, 1);
  }
  for (auto& a : *attrs) {
    if (a.name() != extra.extended) continue;
    auto* values = a.mutable_allowed_values()->mutable_list()->mutable_s();
    for (int i = values->size() - 1; i >= 0; --i) {
      if (values->Get(i) == extra.value) values->DeleteSubrange(i, 1);
    }
  }
  return ours;
}

TEST_CASE("every op is registered with TensorFlow 2.21's OpDef: args, types, attrs, defaults and flags") {
  REQUIRE(TensorFlowOpDefs().size() > 100);
  int compared = 0;
  for (const auto& [name, want] : TensorFlowOpDefs()) {
    INFO("op " << name);
    auto ours = OpRegistry::Global()->LookUp(name);
    if (!ours.ok()) continue;  // an op of a later issue, not registered yet
    ++compared;
    const tf::OpDef got = AsTensorFlowDefinesIt(WithoutDocs(**ours));
    std::string diff;
    MessageDifferencer differ;
    differ.ReportDifferencesToString(&diff);
    INFO("ours: " << got.ShortDebugString());
    INFO("differences: " << diff);
    CHECK(differ.Compare(want, got));
  }
  CHECK(compared >= 23);  // at least the ops of the graph and session issue
}

TEST_CASE("every op of the registry has its TensorFlow OpDef checked above and a shape function") {
  for (const std::string& name : OpRegistry::Global()->ListOpNames()) {
    // Ops that tests register for themselves carry "Test" in their names.
    if (name.find("Test") != std::string::npos) continue;
    INFO("op " << name << ": add its name to tests/graph/write_tf_op_defs.py, rerun it as its top says, "
                        "and give the op a shape function");
    auto data = OpRegistry::Global()->LookUpOpData(name);
    REQUIRE(data.ok());
    CHECK(static_cast<bool>((*data)->shape_inference_fn));
    // tensoract's own fused ops, which only its remapper and loop passes put in a graph (after placement,
    // so no GraphDef a user or TensorFlow writes holds them), have no TensorFlow OpDef.
    static const std::set<std::string> kOwn = {"_MaxPoolGradWithReluGrad", "_Conv2DBackpropFilterWithBias",
                                               "_FusedAttention",          "_FusedChannelSteps",
                                               "_FusedConv2DWithDepthwise", "_FusedChannelStepsConv2D",
                                               "_FusedElementwise",        "_FusedLstmGates",
                                               "_FusedGruGates",           "_FusedGatherMean",
                                               "_SequentialLoop"};
    if (kOwn.count(name) == 0) CHECK(TensorFlowOpDefs().count(name) == 1);
  }
}

}  // namespace
}  // namespace tensoract
