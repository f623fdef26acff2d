// saved_model_tool: the tensoract side of tests/compat/tf_saved_model_compat.py.
//
//   saved_model_tool export DIR
//   saved_model_tool train-meta DIR         trains a model 3 steps, saves DIR/model.ckpt-3 and
//                                           its .meta (collection "train_op"); prints "w"
//   saved_model_tool resume-meta META CKPT FETCH
//                                           a new session from META (ImportMetaGraph),
//                                           restored from CKPT; prints FETCH, runs the
//                                           "train_op" collection once, prints FETCH again
//
// Writes two SavedModels under DIR, each with variables whose values differ from their
// initial ones (so a loader must restore them):
//   DIR/graph      a graph session's model (SavedModelWriter): a resource and a reference
//                  variable, MatMul, BiasAdd, Softmax; signature "serving_default"
//   DIR/function   a traced Function (SaveFunction) with an input signature [?, 3]
// and prints one JSON line per model: {"what", "dir", "signature", "inputs": {key: tensor},
// "outputs": {key: tensor}}, tensors as {"dtype", "shape", "values"} (numpy's dtype names),
// the outputs computed here. Errors go to stderr with exit status 1.
#include <iostream>
#include <sstream>
#include <string>

#include "base/json_string.h"
#include "client/eager_context.h"
#include "client/eager_variable.h"
#include "client/function.h"
#include "client/function_export.h"
#include "client/meta_graph.h"
#include "client/saved_model.h"
#include "client/saver.h"
#include "graph/builder/array_ops.h"
#include "graph/builder/math_ops.h"
#include "graph/builder/nn_ops.h"
#include "graph/builder/ops.h"
#include "graph/training/optimizers.h"
#include "graph/training/variables.h"

namespace tensoract {
namespace {

std::string Json(const Tensor& t) {
  std::ostringstream os;
  os << "{\"dtype\": \"float32\", \"shape\": [";
  for (int d = 0; d < t.dims(); ++d) os << (d ? "," : "") << t.dim_size(d);
  os << "], \"values\": [";
  os.precision(9);
  for (int64_t i = 0; i < t.NumElements(); ++i) os << (i ? "," : "") << t.base<float>()[i];
  os << "]}";
  return os.str();
}

void PrintCase(const std::string& what, const std::string& dir, const std::string& signature,
               const std::vector<std::pair<std::string, Tensor>>& inputs,
               const std::vector<std::pair<std::string, Tensor>>& outputs) {
  std::cout << "{\"what\": " << JsonString(what) << ", \"dir\": " << JsonString(dir)
            << ", \"signature\": " << JsonString(signature) << ", \"inputs\": {";
  for (size_t i = 0; i < inputs.size(); ++i) std::cout << (i ? ", " : "") << JsonString(inputs[i].first) << ": " << Json(inputs[i].second);
  std::cout << "}, \"outputs\": {";
  for (size_t i = 0; i < outputs.size(); ++i) std::cout << (i ? ", " : "") << JsonString(outputs[i].first) << ": " << Json(outputs[i].second);
  std::cout << "}}\n";
}

Status ExportGraph(const std::string& dir) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({-1, 4}));
  auto w = ops::VarHandleOp(root.WithOpName("dense/kernel"), tensorflow::DT_FLOAT, PartialTensorShape({4, 3}));
  auto b = ops::Variable(root.WithOpName("dense/bias"), PartialTensorShape({3}), tensorflow::DT_FLOAT);
  ops::AssignVariableOp(root.WithOpName("init_w"), w,
                        Input({{0.5f, -1.f, 2.f}, {1.5f, 0.25f, -0.5f}, {-2.f, 1.f, 0.f}, {0.75f, 0.5f, -1.25f}}));
  ops::Assign(root.WithOpName("init_b"), b, Input({0.1f, -0.2f, 0.3f}));
  auto logits = ops::BiasAdd(root.WithOpName("logits"),
                             ops::MatMul(root, x, ops::ReadVariableOp(root, w, tensorflow::DT_FLOAT)), b);
  ops::Softmax(root.WithOpName("probs"), logits);
  TA_ASSIGN_OR_RETURN(Saver saver, Saver::New(root, {w, b}));
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(root.ToGraphDef(&graph));
  TA_ASSIGN_OR_RETURN(auto session, Session::New());
  TA_RETURN_IF_ERROR(session->Create(graph));
  TA_RETURN_IF_ERROR(session->Run({}, {}, {"init_w", "init_b"}, nullptr));

  const tensorflow::SaverDef saver_def = saver.saver_def();
  tensorflow::MetaGraphDef meta = MakeMetaGraph(session->graph_def(), &saver_def);
  tensorflow::SignatureDef& sig = (*meta.mutable_signature_def())[kDefaultServingSignatureDefKey];
  sig.set_method_name(kPredictMethodName);
  (*sig.mutable_inputs())["x"] = MakeTensorInfo("x:0", tensorflow::DT_FLOAT, {-1, 4});
  (*sig.mutable_outputs())["logits"] = MakeTensorInfo("logits:0", tensorflow::DT_FLOAT, {-1, 3});
  (*sig.mutable_outputs())["probs"] = MakeTensorInfo("probs:0", tensorflow::DT_FLOAT, {-1, 3});
  SavedModelWriter writer(dir);
  TA_RETURN_IF_ERROR(writer.AddMetaGraphAndVariables(*session, meta, {kSavedModelTagServe}));
  TA_RETURN_IF_ERROR(writer.Save());

  // The outputs of the model as loaded back here.
  TA_ASSIGN_OR_RETURN(auto bundle, LoadSavedModel(dir));
  const Tensor input = Tensor::FromVector<float>({1, 2, 3, 4, -1, 0.5f, 0, 2}, TensorShape({2, 4}));
  std::vector<std::pair<std::string, Tensor>> out;
  TA_RETURN_IF_ERROR(bundle->Run(kDefaultServingSignatureDefKey, {{"x", input}}, &out));
  PrintCase("graph session", dir, kDefaultServingSignatureDefKey, {{"x", input}}, out);
  return Status::OK();
}

Status ExportFunction(const std::string& dir) {
  TA_ASSIGN_OR_RETURN(auto ctx, EagerContext::New());
  Scope s = ctx->scope();
  TA_ASSIGN_OR_RETURN(Variable scale, MakeVariable(s, "scale", Input({2.f, -1.f, 0.5f})));
  TA_ASSIGN_OR_RETURN(Variable shift, MakeVariable(s, "shift", Input(0.25f)));
  FunctionOptions options;
  options.input_signature = {{tensorflow::DT_FLOAT, PartialTensorShape({-1, 3})}};
  Function fn(
      *ctx, "scale_and_sum",
      [&](const Scope& g, const std::vector<FunctionArg>& args) {
        Output x = std::get<Output>(args[0]);
        Output y = ops::Add(g, ops::Mul(g, x, scale.Read(g)), shift.Read(g));
        return std::vector<Output>{y, ops::Sum(g, ops::Tanh(g, y), Input(1))};
      },
      options);
  // Trained a little: values the initial ones do not have.
  ops::AssignAddVariableOp(s, shift.handle, Input(1.f));
  const Tensor input = Tensor::FromVector<float>({1, 2, 3, -4, 0.5f, 0}, TensorShape({2, 3}));
  TA_ASSIGN_OR_RETURN(std::vector<Output> y, fn(s, {FromTensor(s, input)}));
  TA_RETURN_IF_ERROR(SaveFunction(*ctx, fn, {FromTensor(s, input)}, dir));
  std::vector<std::pair<std::string, Tensor>> out;
  for (size_t i = 0; i < y.size(); ++i) {
    TA_ASSIGN_OR_RETURN(Tensor v, ValueOf(y[i]));
    out.emplace_back(StrCat("output_", i), v);
  }
  PrintCase("traced Function", dir, kDefaultServingSignatureDefKey, {{"args_0", input}}, out);
  return Status::OK();
}

Status PrintValue(Session& session, const std::string& fetch, const std::string& label) {
  std::vector<Tensor> out;
  TA_RETURN_IF_ERROR(session.Run({}, {fetch}, {}, &out));
  std::cout << "{\"" << label << "\": " << Json(out[0]) << "}\n";
  return Status::OK();
}

Status TrainMeta(const std::string& dir) {
  Scope root = Scope::NewRootScope();
  Variable w = NewVariable(root, "w", ops::Const(root, Input({1.f, -2.f, 3.f})));
  auto target = ops::Const(root, Input({0.5f, 0.5f, 0.5f}));
  auto diff = ops::Sub(root, w.value, target);
  auto loss = ops::Sum(root.WithOpName("loss"), ops::Mul(root, diff, diff), Input(0));
  GradientDescentOptimizer sgd(0.1);
  Node* train = sgd.Minimize(root.WithOpName("train"), loss, {w});
  GroupInitializers(root.WithOpName("init"), {w});
  SaverOptions options;
  options.collections.nodes = {{"train_op", {train->name()}}};
  options.collections.trainable_variables = {w};
  TA_ASSIGN_OR_RETURN(Saver saver, Saver::New(root, {w.handle}, options));
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(root.ToGraphDef(&graph));
  TA_ASSIGN_OR_RETURN(auto session, Session::New());
  TA_RETURN_IF_ERROR(session->Create(graph));
  TA_RETURN_IF_ERROR(session->Run({}, {}, {"init"}, nullptr));
  for (int i = 0; i < 3; ++i) TA_RETURN_IF_ERROR(session->Run({}, {}, {train->name()}, nullptr));
  TA_RETURN_IF_ERROR(saver.Save(*session, dir + "/model.ckpt", 3).status());
  return PrintValue(*session, w.value.node->name() + ":0", "w");
}

Status ResumeMeta(const std::string& meta_path, const std::string& checkpoint, const std::string& fetch) {
  TA_ASSIGN_OR_RETURN(tensorflow::MetaGraphDef meta, ReadMetaGraph(meta_path));
  TA_ASSIGN_OR_RETURN(auto session, Session::New());
  TA_ASSIGN_OR_RETURN(Saver saver, ImportMetaGraph(*session, meta));
  TA_RETURN_IF_ERROR(saver.Restore(*session, checkpoint));
  TA_RETURN_IF_ERROR(PrintValue(*session, fetch, "restored"));
  const std::vector<std::string> train = CollectionNodes(meta, "train_op");
  if (train.empty()) return errors::NotFound(meta_path, " has no train_op collection");
  TA_RETURN_IF_ERROR(session->Run({}, {}, {train[0]}, nullptr));
  return PrintValue(*session, fetch, "trained");
}

}  // namespace
}  // namespace tensoract

int main(int argc, char** argv) {
  using namespace tensoract;
  const std::vector<std::string> args(argv + 1, argv + argc);
  Status st;
  if (args.size() == 2 && args[0] == "export") {
    st = ExportGraph(args[1] + "/graph");
    if (st.ok()) st = ExportFunction(args[1] + "/function");
  } else if (args.size() == 2 && args[0] == "train-meta") {
    st = TrainMeta(args[1]);
  } else if (args.size() == 4 && args[0] == "resume-meta") {
    st = ResumeMeta(args[1], args[2], args[3]);
  } else {
    std::cerr << "usage: saved_model_tool export DIR | train-meta DIR | resume-meta META CKPT FETCH\n";
    return 2;
  }
  if (!st.ok()) {
    std::cerr << "saved_model_tool: " << st << "\n";
    return 1;
  }
  return 0;
}
