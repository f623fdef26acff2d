// String kernels (kernels/cpu/string_ops.cc): StringJoin, StaticRegexFullMatch,
// RegexFullMatch, ShardedFilename, ShardedFilespec; Select and SelectV2 on strings; the
// generic kernels (Const, Identity, Pack, Placeholder, PlaceholderWithDefault) on strings;
// DisableCopyOnRead. These are what TF 1.x sharded Savers and TF 2 SavedModel save
// functions put around SaveV2. Expected values and messages were printed by TensorFlow
// 2.21 (python3, the tf.raw_ops call in each comment) and pasted here.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph/shape_inference.h"
#include "kernels/resource_handle.h"
#include "kernels/variable.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::IntA;
using testing::Str;

namespace tf = ::tensorflow;

using shape_inference::InferenceContext;
using testing::Run;
using testing::RunOp;
using testing::TestDevice;
using testing::TypeA;
using testing::Values;

using Strings = std::vector<std::string>;

const tf::AttrValue kString = TypeA(tf::DT_STRING);

Tensor StrT(const std::string& s) { return Tensor::Scalar<std::string>(s); }
Tensor StrsT(const Strings& v) { return Tensor::FromVector<std::string>(v); }
Tensor StrsT(const Strings& v, const TensorShape& shape) { return Tensor::FromVector<std::string>(v, shape); }

Run Join(const std::vector<Tensor>& inputs, const std::string& separator = "") {
  return RunOp("StringJoin", inputs,
               {{"N", IntA(static_cast<int64_t>(inputs.size()))}, {"separator", Str(separator)}});
}

TEST_CASE("StringJoin joins element by element, scalars standing for every element", "[string]") {
  // StringJoin(inputs=["a", ["x","y"], "b"], separator="-") -> [b'a-x-b', b'a-y-b']
  Run r = Join({StrT("a"), StrsT({"x", "y"}), StrT("b")}, "-");
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2}));
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"a-x-b", "a-y-b"});
  // StringJoin(inputs=[[["a","b"],["c","d"]], [["1","2"],["3","4"]]]) -> [[b'a1', b'b2'], [b'c3', b'd4']]
  r = Join({StrsT({"a", "b", "c", "d"}, TensorShape({2, 2})), StrsT({"1", "2", "3", "4"}, TensorShape({2, 2}))});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"a1", "b2", "c3", "d4"});
}

TEST_CASE("StringJoin of scalars is a scalar, of no inputs the empty string, with an empty input empty", "[string]") {
  // The TF 1.x Saver's StringJoin([prefix, "_temp/part"]).
  Run r = Join({StrT("/tmp/ckpt/model"), StrT("_temp/part")});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape());
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"/tmp/ckpt/model_temp/part"});
  // StringJoin(inputs=[]) -> b''
  r = Join({}, ",");
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape());
  CHECK(Values<std::string>(r.outputs[0]) == Strings{""});
  // StringJoin(inputs=["a", tf.zeros([0], tf.string)], separator=",") -> []
  r = Join({StrT("a"), StrsT({})}, ",");
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({0}));
}

TEST_CASE("StringJoin refuses non-scalar inputs of different shapes, [1] against [3] included", "[string]") {
  // StringJoin(inputs=[["a"], ["x","y","z"]]) -> InvalidArgumentError: Input shapes do not match: [1] vs. [3]
  Run r = Join({StrsT({"a"}), StrsT({"x", "y", "z"})});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("node 'n'") && Catch::Contains("Input shapes do not match: [1] vs. [3]"));
  // StringJoin(inputs=[[["a"],["b"]], ["x","y"]]) -> Input shapes do not match: [2,1] vs. [2]
  r = Join({StrsT({"a", "b"}, TensorShape({2, 1})), StrsT({"x", "y"}), StrT("s")});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("Input shapes do not match: [2,1] vs. [2]"));
}

// The output shape the op's shape function infers from `shapes`, or "error: ...".
std::string Inferred(const std::string& op, std::vector<PartialTensorShape> shapes,
                     const testing::AttrMap& attrs = {}) {
  std::vector<PartialTensorShape> out;
  Status s = testing::InferShapes(op, attrs, std::move(shapes), &out);
  return s.ok() ? out[0].DebugString() : "error: " + s.message();
}

PartialTensorShape P(std::vector<int64_t> dims) { return PartialTensorShape(std::move(dims)); }
const PartialTensorShape kUnknownRank;

TEST_CASE("the string ops' shape functions infer as TensorFlow's", "[string]") {
  auto join = [](std::vector<PartialTensorShape> shapes) {
    const int64_t n = static_cast<int64_t>(shapes.size());
    return Inferred("StringJoin", std::move(shapes), {{"N", IntA(n)}});
  };
  // In a tf.Graph: StringJoin(["a", placeholder([None,2]), placeholder([3,None])]).shape -> (3, 2)
  CHECK(join({P({}), P({-1, 2}), P({3, -1})}) == "[3,2]");
  CHECK(join({P({}), P({})}) == "[]");
  // Unknown rank might be a scalar: with a scalar -> <unknown>, with [2] -> (2,)
  CHECK(join({kUnknownRank, P({})}) == "<unknown>");
  CHECK(join({kUnknownRank, P({2})}) == "[2]");
  CHECK_THAT(join({P({2}), P({3})}), Catch::StartsWith("error:"));
  CHECK(Inferred("StaticRegexFullMatch", {P({-1, 3})}, {{"pattern", Str("a")}}) == "[?,3]");
  CHECK(Inferred("RegexFullMatch", {P({-1, 3}), P({})}) == "[?,3]");
  // RegexFullMatch(input=["a"], pattern=["a"]) in a graph -> Shape must be rank 0 but is rank 1
  CHECK_THAT(Inferred("RegexFullMatch", {P({1}), P({1})}), Catch::StartsWith("error:"));
  CHECK(Inferred("ShardedFilename", {P({}), P({}), P({})}) == "[]");
  CHECK_THAT(Inferred("ShardedFilename", {P({}), P({1}), P({})}), Catch::StartsWith("error:"));
  CHECK(Inferred("ShardedFilespec", {P({}), kUnknownRank}) == "[]");
  CHECK_THAT(Inferred("ShardedFilespec", {P({1}), P({})}), Catch::StartsWith("error:"));
}

TEST_CASE("ShardedFilename and ShardedFilespec format as printf's %05d does", "[string]") {
  // ShardedFilename(basename="a/b", shard=1, num_shards=4) -> b'a/b-00001-of-00004'
  Run r = RunOp("ShardedFilename", {StrT("a/b"), Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(4)}, {});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape());
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"a/b-00001-of-00004"});
  // ShardedFilename(basename="x", shard=123456, num_shards=-3) -> b'x-123456-of--0003'
  r = RunOp("ShardedFilename", {StrT("x"), Tensor::Scalar<int32_t>(123456), Tensor::Scalar<int32_t>(-3)}, {});
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"x-123456-of--0003"});
  // ShardedFilename(basename="x\0y", shard=1, num_shards=3) -> b'x-00001-of-00003' (cut at the NUL)
  r = RunOp("ShardedFilename", {StrT(std::string("x\0y", 3)), Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(3)},
            {});
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"x-00001-of-00003"});
  // ShardedFilespec(basename="a/b", num_shards=4) -> b'a/b-?????-of-00004'
  r = RunOp("ShardedFilespec", {StrT("a/b"), Tensor::Scalar<int32_t>(4)}, {});
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"a/b-?????" "-of-00004"});  // split: "??-" would be a trigraph
}

TEST_CASE("ShardedFilename and ShardedFilespec take scalars only, naming the input that is not", "[string]") {
  // ShardedFilename(basename=["x"], shard=1, num_shards=3) -> basename must be a scalar, got shape [1]
  Run r = RunOp("ShardedFilename", {StrsT({"x"}), Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(3)}, {});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("basename must be a scalar, got shape [1]"));
  r = RunOp("ShardedFilename", {StrT("x"), Tensor::FromVector<int32_t>({1}), Tensor::Scalar<int32_t>(3)}, {});
  CHECK_THAT(r.status.message(), Catch::Contains("shard must be a scalar, got shape [1]"));
  // ShardedFilespec(basename="a/b", num_shards=[4]) -> num_shards must be a scalar, got shape [1]
  r = RunOp("ShardedFilespec", {StrT("a/b"), Tensor::FromVector<int32_t>({4})}, {});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("num_shards must be a scalar, got shape [1]"));
}

TEST_CASE("StaticRegexFullMatch matches whole strings, in RE2's UTF-8 syntax", "[string]") {
  // StaticRegexFullMatch(input=[["abc","ab"],["x",""]], pattern="a.*c|") -> [[True, False], [False, True]]
  Run r = RunOp("StaticRegexFullMatch", {StrsT({"abc", "ab", "x", ""}, TensorShape({2, 2}))},
                {{"pattern", Str("a.*c|")}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].dtype() == tf::DT_BOOL);
  CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, false, false, true});
  // pattern="abc" on ["xabcx", "abc"] -> [False, True]: a match inside the string is not enough
  r = RunOp("StaticRegexFullMatch", {StrsT({"xabcx", "abc"})}, {{"pattern", Str("abc")}});
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{false, true});
  // pattern="." on ["é" (UTF-8, two bytes), b"\xe9" (Latin-1)] -> [True, False]
  r = RunOp("StaticRegexFullMatch", {StrsT({"\xc3\xa9", "\xe9"})}, {{"pattern", Str(".")}});
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, false});
  // The TF 1.x Saver's test: StaticRegexFullMatch(prefix, "^s3://.*")
  r = RunOp("StaticRegexFullMatch", {StrT("s3://bucket/x")}, {{"pattern", Str("^s3://.*")}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true});
}

TEST_CASE("StaticRegexFullMatch refuses a pattern that does not compile when its kernel is made", "[string]") {
  NodeDef def;
  def.set_name("n");
  def.set_op("StaticRegexFullMatch");
  (*def.mutable_attr())["pattern"] = Str("a(b");
  auto op_def = OpRegistry::Global()->LookUp("StaticRegexFullMatch");
  REQUIRE(op_def.ok());
  std::unique_ptr<OpKernel> kernel;
  Status s = CreateOpKernel(TestDevice(), def, **op_def, &kernel);
  // StaticRegexFullMatch(input=["abc"], pattern="a(b") -> Invalid pattern: a(b, error: missing ): a(b
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("node 'n'") && Catch::Contains("Invalid pattern: a(b, error: missing ): a(b"));
}

TEST_CASE("RegexFullMatch takes its pattern as a scalar input, compiled when it changes", "[string]") {
  NodeDef def;
  def.set_name("n");
  def.set_op("RegexFullMatch");
  auto op_def = OpRegistry::Global()->LookUp("RegexFullMatch");
  REQUIRE(op_def.ok());
  std::unique_ptr<OpKernel> kernel;
  REQUIRE(CreateOpKernel(TestDevice(), def, **op_def, &kernel).ok());
  auto run = [&](const Tensor& pattern) -> Run {
    std::vector<Tensor> inputs = {StrsT({"abc", "abd"}), pattern};
    OpKernelContext::Params params;
    params.device = TestDevice();
    params.kernel = kernel.get();
    params.inputs = &inputs;
    OpKernelContext ctx(params);
    kernel->Compute(&ctx);
    return {ctx.status(), ctx.status().ok() ? ctx.outputs() : std::vector<Tensor>{}};
  };
  // RegexFullMatch(input=["abc","abd"], pattern="ab[c]") -> [True, False]
  Run r = run(StrT("ab[c]"));
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, false});
  r = run(StrT("ab[c]"));
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, false});
  r = run(StrT("ab."));
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{true, true});
  // RegexFullMatch(input=["abc"], pattern="[") -> Invalid pattern: [, error: missing ]: [
  r = run(StrT("["));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("Invalid pattern: [, error: missing ]: ["));
  // RegexFullMatch(input=["abc"], pattern=["a"]) -> Pattern must be scalar, but received [1]
  r = run(StrsT({"a"}));
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("Pattern must be scalar, but received [1]"));
  // A good pattern after a bad one still matches.
  r = run(StrT("abd"));
  REQUIRE(r.status.ok());
  CHECK(Values<bool>(r.outputs[0]) == std::vector<bool>{false, true});
}

TEST_CASE("Select and SelectV2 choose between strings", "[string]") {
  // Select(condition=[True,False], x=["a","b"], y=["c","d"]) -> [b'a', b'd']
  Run r = RunOp("Select", {Tensor::FromVector<bool>({true, false}), StrsT({"a", "b"}), StrsT({"c", "d"})},
                {{"T", kString}});
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"a", "d"});
  // Select(condition=[True,False], x=[["a","b"],["c","d"]], y=[["e","f"],["g","h"]]) -> [[a, b], [g, h]]
  r = RunOp("Select",
            {Tensor::FromVector<bool>({true, false}), StrsT({"a", "b", "c", "d"}, TensorShape({2, 2})),
             StrsT({"e", "f", "g", "h"}, TensorShape({2, 2}))},
            {{"T", kString}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"a", "b", "g", "h"});
  // The TF 1.x Saver's Select(is_s3, ".part", "_temp/part"), not on S3 -> b'_temp/part'
  r = RunOp("Select", {Tensor::Scalar<bool>(false), StrT(".part"), StrT("_temp/part")}, {{"T", kString}});
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"_temp/part"});
  // SelectV2(condition=[[True],[False]], t=["a","b"], e="z") -> [[b'a', b'b'], [b'z', b'z']]
  r = RunOp("SelectV2", {Tensor::FromVector<bool>({true, false}, TensorShape({2, 1})), StrsT({"a", "b"}), StrT("z")},
            {{"T", kString}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"a", "b", "z", "z"});
}

TEST_CASE("Const, Identity, Pack, PlaceholderWithDefault and Placeholder work on strings", "[string]") {
  tf::AttrValue value;
  StrsT({"save/v", "save/w"}).AsProtoField(value.mutable_tensor());
  Run r = RunOp("Const", {}, {{"dtype", kString}, {"value", value}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].dtype() == tf::DT_STRING);
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"save/v", "save/w"});

  r = RunOp("Identity", {StrsT({"a", "b"})}, {{"T", kString}});
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"a", "b"});

  // Pack(values=[["a","b"],["c","d"]], axis=1) -> [[b'a', b'c'], [b'b', b'd']]
  r = RunOp("Pack", {StrsT({"a", "b"}), StrsT({"c", "d"})}, {{"T", kString}, {"N", IntA(2)}, {"axis", IntA(1)}});
  REQUIRE(r.status.ok());
  CHECK(r.outputs[0].shape() == TensorShape({2, 2}));
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"a", "c", "b", "d"});

  tf::AttrValue scalar;
  scalar.mutable_shape();
  r = RunOp("PlaceholderWithDefault", {StrT("model")}, {{"dtype", kString}, {"shape", scalar}});
  REQUIRE(r.status.ok());
  CHECK(Values<std::string>(r.outputs[0]) == Strings{"model"});

  // An unfed Placeholder fails naming its dtype (a fed one never runs: the feed replaces it).
  r = RunOp("Placeholder", {}, {{"dtype", kString}, {"shape", scalar}});
  CHECK(r.status.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(r.status.message(), Catch::Contains("you must feed a value for placeholder tensor 'n' with dtype string"));
}

// A resource that is not a variable, for a handle of the wrong kind.
struct NotAVariable : ResourceBase {
  std::string DebugString() const override { return "not a variable"; }
};

Tensor Handle(const ResourceHandle& h) {
  Tensor t(tf::DT_RESOURCE, TensorShape());
  *t.base<ResourceHandle>() = h;
  return t;
}

TEST_CASE("DisableCopyOnRead is stateful and checks that its handle names a variable, changing nothing", "[string]") {
  auto op_def = OpRegistry::Global()->LookUp("DisableCopyOnRead");
  REQUIRE(op_def.ok());
  CHECK((*op_def)->is_stateful());
  ResourceMgr* rm = TestDevice()->resource_manager();
  auto var = std::make_shared<Var>(tf::DT_FLOAT, "disable_copy_on_read/v");
  *var->tensor() = Tensor::FromVector<float>({1, 2});
  var->is_initialized = true;
  REQUIRE(rm->Create<Var>("", "disable_copy_on_read/v", var).ok());

  Run r = RunOp("DisableCopyOnRead", {Handle(rm->MakeHandle<Var>("", "disable_copy_on_read/v"))}, {});
  REQUIRE(r.status.ok());
  CHECK(r.outputs.empty());
  CHECK(Values<float>(var->Read().value()) == std::vector<float>{1, 2});

  // On VarHandleOp(shared_name="nowhere") never assigned: FailedPreconditionError
  // "Could not find variable nowhere. This could mean that the variable has been deleted. ..."
  r = RunOp("DisableCopyOnRead", {Handle(rm->MakeHandle<Var>("", "disable_copy_on_read/nowhere"))}, {});
  CHECK(r.status.code() == error::FAILED_PRECONDITION);
  CHECK_THAT(r.status.message(), Catch::Contains("Could not find variable disable_copy_on_read/nowhere"));
  // On a FIFOQueueV2's handle TensorFlow says the same, with "the wrong type" in the debug info.
  REQUIRE(rm->Create<NotAVariable>("", "disable_copy_on_read/q", std::make_shared<NotAVariable>()).ok());
  r = RunOp("DisableCopyOnRead", {Handle(rm->MakeHandle<NotAVariable>("", "disable_copy_on_read/q"))}, {});
  CHECK(r.status.code() == error::FAILED_PRECONDITION);
  CHECK_THAT(r.status.message(), Catch::Contains("Could not find variable disable_copy_on_read/q"));
}

}  // namespace
}  // namespace tensoract

namespace tensoract {
namespace {

TEST_CASE("WriteFile writes a whole file (making its directory) and ReadFile reads it back", "[string][file]") {
  const std::string dir = "/tmp/tensoract_file_ops_" + std::to_string(::getpid());
  const std::string path = dir + "/sub/vocab.txt";
  testing::Run w = testing::RunOp("WriteFile", {Tensor::Scalar<std::string>(path),
                                                Tensor::Scalar<std::string>(std::string("cat\n\0dog", 8))}, {});
  REQUIRE(w.status.ok());
  testing::Run r = testing::RunOp("ReadFile", {Tensor::Scalar<std::string>(path)}, {});
  REQUIRE(r.status.ok());
  CHECK(testing::Values<std::string>(r.outputs[0]) == std::vector<std::string>{std::string("cat\n\0dog", 8)});
  testing::Run missing = testing::RunOp("ReadFile", {Tensor::Scalar<std::string>(dir + "/nothing")}, {});
  CHECK(missing.status.code() == error::NOT_FOUND);
  CHECK(missing.status.message().find("nothing") != std::string::npos);
  testing::Run vector = testing::RunOp("ReadFile", {Tensor::FromVector<std::string>({path})}, {});
  CHECK(vector.status.code() == error::INVALID_ARGUMENT);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tensoract
