// hello: the smallest tensoract program. Builds y = W·x + b with the C++ builder API,
// runs it through the actor runtime (master -> worker -> executor -> device), feeds x and
// prints y.
#include <cstdio>

#include "client/session.h"
#include "graph/builder/ops.h"

using namespace tensoract;

int main() {
  Scope root = Scope::NewRootScope();
  auto W = ops::Const(root.WithOpName("W"), {{1.f, 2.f}, {3.f, 4.f}});
  auto b = ops::Const(root.WithOpName("b"), {{0.5f}, {-0.5f}});
  auto x = ops::Placeholder(root.WithOpName("x"), tensorflow::DT_FLOAT, PartialTensorShape({2, 1}));
  auto y = ops::Add(root.WithOpName("y"), ops::MatMul(root, W, x), b);

  tensorflow::GraphDef graph;
  Status s = root.ToGraphDef(&graph);
  auto session = Session::New();
  if (s.ok()) s = session.status();
  if (s.ok()) s = (*session)->Create(graph);
  std::vector<Tensor> outputs;
  Tensor x_value = Tensor::FromVector<float>({1.f, 1.f}, TensorShape({2, 1}));
  if (s.ok()) s = (*session)->Run({{"x", x_value}}, {y.name()}, {}, &outputs);
  if (!s.ok()) {
    std::fprintf(stderr, "hello: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("W = [[1 2][3 4]], b = [[0.5][-0.5]], x = %s\n", x_value.SummarizeValue(10).c_str());
  std::printf("y = W·x + b = %s\n", outputs[0].SummarizeValue(10).c_str());
  return 0;
}
