// SavedModels and MetaGraphDefs written and read here (client/saved_model.h,
// client/meta_graph.h, client/function_export.h). TensorFlow's side of both formats is
// tests/compat/tf_saved_model_compat.py.
#include <catch2/catch.hpp>

#include <filesystem>
#include <atomic>
#include <fstream>
#include <thread>

#include "base/proto_io.h"
#include "client/eager_variable.h"
#include "client/function.h"
#include "client/function_export.h"
#include "client/meta_graph.h"
#include "client/saved_model.h"
#include "client/saver.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/ops.h"
#include "graph/training/variables.h"
#include "tests/client/eager_test_util.h"
#include "tests/temp_dir.h"

namespace tensoract {
namespace {

namespace fs = std::filesystem;
using testing::Floats;
using testing::NewContext;
using testing::TempDir;

void Ok(const Status& s) {
  INFO(s.ToString());
  REQUIRE(s.ok());
}

std::vector<float> Values(const Tensor& t) { return {t.base<float>(), t.base<float>() + t.NumElements()}; }

// y = x * w + b with w a resource variable (3.0 after init) and b a reference one (0.5),
// a Saver, and a signature "scale": x -> y.
struct LinearModel {
  tensorflow::MetaGraphDef meta;
  std::unique_ptr<Session> session;
};

LinearModel MakeLinear() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1}));
  auto w = ops::VarHandleOp(root.WithOpName("w"), tensorflow::DT_FLOAT, PartialTensorShape(std::vector<int64_t>{}));
  auto b = ops::Variable(root.WithOpName("b"), PartialTensorShape(std::vector<int64_t>{}), tensorflow::DT_FLOAT);
  ops::AssignVariableOp(root.WithOpName("init_w"), w, Input(3.f));
  ops::Assign(root.WithOpName("init_b"), b, Input(0.5f));
  ops::Add(root.WithOpName("y"), ops::Mul(root, x, ops::ReadVariableOp(root, w, tensorflow::DT_FLOAT)), b);
  auto saver = Saver::New(root, {w, b});
  Ok(saver.status());
  tensorflow::GraphDef graph;
  Ok(root.ToGraphDef(&graph));
  LinearModel m;
  m.session = Session::New().value();
  Ok(m.session->Create(graph));
  Ok(m.session->Run({}, {}, {"init_w", "init_b"}, nullptr));
  const tensorflow::SaverDef def = saver->saver_def();
  m.meta = MakeMetaGraph(graph, &def);
  tensorflow::SignatureDef& sig = (*m.meta.mutable_signature_def())["scale"];
  sig.set_method_name(kPredictMethodName);
  (*sig.mutable_inputs())["x"] = MakeTensorInfo("x:0", tensorflow::DT_FLOAT, {-1});
  (*sig.mutable_outputs())["y"] = MakeTensorInfo("y:0", tensorflow::DT_FLOAT, {-1});
  return m;
}

TEST_CASE("a SavedModel written here loads here with its variables and signatures", "[saved_model]") {
  TempDir dir;
  const std::string export_dir = dir / "model";
  {
    LinearModel m = MakeLinear();
    SavedModelWriter writer(export_dir);
    Ok(writer.AddMetaGraphAndVariables(*m.session, m.meta, {kSavedModelTagServe}));
    CHECK(!MaybeSavedModelDirectory(export_dir));  // saved_model.pb comes last
    Ok(writer.AddMetaGraph(m.meta, {kSavedModelTagServe, "gpu"}));
    Ok(writer.Save());
  }
  CHECK(MaybeSavedModelDirectory(export_dir));
  CHECK(fs::exists(dir / "model/variables/variables.index"));

  auto bundle = LoadSavedModel(export_dir, {kSavedModelTagServe});
  Ok(bundle.status());
  CHECK((*bundle)->SignatureKeys() == std::vector<std::string>{"scale"});
  std::vector<std::pair<std::string, Tensor>> out;
  Ok((*bundle)->Run("scale", {{"x", Tensor::FromVector<float>({1, 2})}}, &out));
  REQUIRE(out.size() == 1);
  CHECK(out[0].first == "y");
  CHECK(Values(out[0].second) == std::vector<float>{3.5f, 6.5f});
  Ok(LoadSavedModel(export_dir, {kSavedModelTagServe, "gpu"}).status());

  SECTION("runs from many threads at once") {
    std::vector<std::thread> threads;
    std::atomic<int> good{0};
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 20; ++i) {
          std::vector<std::pair<std::string, Tensor>> o;
          const float v = static_cast<float>(t * 100 + i);
          if ((*bundle)->Run("scale", {{"x", Tensor::FromVector<float>({v})}}, &o).ok() &&
              o[0].second.base<float>()[0] == v * 3 + 0.5f) {
            ++good;
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    CHECK(good == 80);
  }
}

TEST_CASE("bad SavedModels and bad calls are errors that name the problem", "[saved_model]") {
  TempDir dir;
  const std::string export_dir = dir / "model";
  {
    LinearModel m = MakeLinear();
    SavedModelWriter writer(export_dir);
    Ok(writer.AddMetaGraphAndVariables(*m.session, m.meta, {kSavedModelTagServe}));
    Ok(writer.Save());
    SavedModelWriter again(export_dir);
    Status st = again.AddMetaGraphAndVariables(*m.session, m.meta, {kSavedModelTagServe});
    CHECK(st.code() == error::ALREADY_EXISTS);
    CHECK(st.message().find("isn't empty") != std::string::npos);
  }
  auto bundle = LoadSavedModel(export_dir).value();
  std::vector<std::pair<std::string, Tensor>> out;
  Status st = bundle->Run("nope", {}, &out);
  CHECK(st.code() == error::NOT_FOUND);
  CHECK(st.message().find("(it has: scale)") != std::string::npos);
  st = bundle->Run("scale", {{"z", Tensor::FromVector<float>({1})}}, &out);
  CHECK(st.code() == error::INVALID_ARGUMENT);
  CHECK(st.message().find("no input 'z'") != std::string::npos);
  st = bundle->Run("scale", {}, &out);
  CHECK(st.message().find("needs input 'x'") != std::string::npos);
  st = bundle->Run("scale", {{"x", Tensor::FromVector<int32_t>({1})}}, &out);
  CHECK(st.message().find("must be float, not int32") != std::string::npos);
  st = bundle->Run("scale", {{"x", Tensor::Scalar<float>(1)}}, &out);
  CHECK(st.message().find("does not fit [?]") != std::string::npos);
  st = bundle->Run("scale", {{"x", Tensor::FromVector<float>({1})}}, &out, {"q"});
  CHECK(st.message().find("no output 'q'") != std::string::npos);

  st = LoadSavedModel(export_dir, {"train"}).status();
  CHECK(st.code() == error::NOT_FOUND);
  CHECK(st.message().find("{ train }") != std::string::npos);
  CHECK(st.message().find("{ serve }") != std::string::npos);
  CHECK(LoadSavedModel(dir / "nothing_here").status().code() == error::NOT_FOUND);

  std::string bytes;
  Ok(ReadFileToString(dir / "model/saved_model.pb", &bytes));
  Ok(WriteStringToFile(dir / "model/saved_model.pb", bytes.substr(0, bytes.size() / 3)));
  st = LoadSavedModel(export_dir).status();
  CHECK(st.code() == error::DATA_LOSS);
  CHECK(st.message().find("saved_model.pb") != std::string::npos);
  Ok(WriteStringToFile(dir / "model/saved_model.pb", bytes));

  fs::remove(dir / "model/variables/variables.index");
  st = LoadSavedModel(export_dir).status();
  CHECK(st.code() == error::NOT_FOUND);
  CHECK(st.message().find("variables.index") != std::string::npos);
}

TEST_CASE("a Saver writes a MetaGraphDef that ImportMetaGraph reads back into a new session", "[saved_model]") {
  TempDir dir;
  LinearModel m = MakeLinear();
  SaverOptions options;
  options.collections.nodes = {{"outputs", {"y"}}};
  auto saver = Saver::FromSaverDef(m.meta.saver_def(), options);
  Ok(saver.status());
  Ok(m.session->Run({}, {}, {"init_w"}, nullptr));
  auto path = saver->Save(*m.session, dir / "model.ckpt", 7);
  Ok(path.status());
  CHECK(fs::exists(*path + ".meta"));

  auto meta = ReadMetaGraph(*path + ".meta");
  Ok(meta.status());
  CHECK(CollectionNodes(*meta, "outputs") == std::vector<std::string>{"y"});
  CHECK(meta->meta_info_def().tensorflow_version() == kMetaGraphTensorFlowVersion);
  auto session = Session::New().value();
  auto restored = ImportMetaGraph(*session, *meta);
  Ok(restored.status());
  Ok(restored->Restore(*session, *path));
  std::vector<Tensor> y;
  Ok(session->Run({{"x", Tensor::FromVector<float>({2})}}, {"y"}, {}, &y));
  CHECK(Values(y[0]) == std::vector<float>{6.5f});

  tensorflow::MetaGraphDef no_saver = *meta;
  no_saver.clear_saver_def();
  CHECK(ImportMetaGraph(*Session::New().value(), no_saver).status().code() == error::FAILED_PRECONDITION);
  CHECK(ReadMetaGraph(dir / "missing.meta").status().code() == error::NOT_FOUND);

  // A short .txt name is text both ways (the writer once needed 6 characters to look).
  const std::string text_path = dir / "m.txt";
  Ok(WriteMetaGraph(text_path, *meta));
  std::ifstream text_file(text_path);
  std::string first_line;
  std::getline(text_file, first_line);
  CHECK_THAT(first_line, Catch::StartsWith("meta_info_def"));
  auto reread = ReadMetaGraph(text_path);
  Ok(reread.status());
  CHECK(CollectionNodes(*reread, "outputs") == std::vector<std::string>{"y"});
}

TEST_CASE("a .meta describes the Saver's variables as TensorFlow's VariableDefs", "[saved_model]") {
  TempDir dir;
  Scope root = Scope::NewRootScope();
  Variable w = NewVariable(root, "w", ops::Const(root, Input({1.f, 2.f})));
  Variable step = NewVariable(root, "global_step", ops::Const(root, Input(int64_t{0})));
  GroupInitializers(root.WithOpName("init"), {w, step});
  SaverOptions options;
  options.collections.trainable_variables = {w};
  options.collections.variables = {step};
  auto saver = Saver::New(root, {w.handle, step.handle}, options);
  Ok(saver.status());
  tensorflow::GraphDef graph;
  Ok(root.ToGraphDef(&graph));
  auto session = Session::New().value();
  Ok(session->Create(graph));
  Ok(session->Run({}, {}, {"init"}, nullptr));
  auto path = saver->Save(*session, dir / "model.ckpt");
  Ok(path.status());
  auto meta = ReadMetaGraph(*path + ".meta").value();
  auto all = CollectionVariables(meta, "variables");
  auto trainable = CollectionVariables(meta, "trainable_variables");
  Ok(all.status());
  Ok(trainable.status());
  REQUIRE(all->size() == 2);
  REQUIRE(trainable->size() == 1);
  const tensorflow::VariableDef& def = (*trainable)[0];
  CHECK(def.variable_name() == "w:0");
  CHECK(def.initializer_name() == "w/Assign");
  CHECK(def.snapshot_name() == "w/Read/ReadVariableOp:0");
  CHECK(def.is_resource());
  CHECK(def.trainable());
  CHECK((*all)[1].variable_name() == "global_step:0");
  CHECK(!(*all)[1].trainable());
}

TEST_CASE("a traced Function saved as a SavedModel gives the function's results when loaded", "[saved_model]") {
  TempDir dir;
  auto ctx = NewContext();
  Scope s = ctx->scope();
  Variable w = MakeVariable(s, "w", Input({1.f, 2.f})).value();
  FunctionOptions options;
  options.input_signature = {{tensorflow::DT_FLOAT, PartialTensorShape({-1, 2})}};
  Function fn(
      *ctx, "scale",
      [&](const Scope& g, const std::vector<FunctionArg>& args) {
        return std::vector<Output>{ops::Mul(g, std::get<Output>(args[0]), w.Read(g))};
      },
      options);
  ops::AssignAddVariableOp(s, w.handle, Input({10.f, 10.f}));  // saved: 11, 12
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Ok(SaveFunction(*ctx, fn, {FromTensor(s, x)}, dir / "fn"));

  auto bundle = LoadSavedModel(dir / "fn");
  Ok(bundle.status());
  const tensorflow::SignatureDef* sig = (*bundle)->Signature(kDefaultServingSignatureDefKey).value();
  CHECK(sig->inputs().at("args_0").tensor_shape().dim(0).size() == -1);  // the input signature's
  std::vector<std::pair<std::string, Tensor>> out;
  const Tensor three_rows = Tensor::FromVector<float>({1, 1, 2, 2, 3, 3}, TensorShape({3, 2}));
  Ok((*bundle)->Run(kDefaultServingSignatureDefKey, {{"args_0", three_rows}}, &out));
  REQUIRE(out.size() == 1);
  CHECK(out[0].first == "output_0");
  CHECK(Values(out[0].second) == std::vector<float>{11, 12, 22, 24, 33, 36});
}

}  // namespace
}  // namespace tensoract
