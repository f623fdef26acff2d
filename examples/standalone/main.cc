// Builds and runs z = (a + b) * a with an installed tensoract and checks the answer.
#include <cstdio>

#include "client/session.h"
#include "graph/builder/ops.h"

using namespace tensoract;

int main() {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), tensorflow::DT_FLOAT);
  auto b = ops::Const(root.WithOpName("b"), {1.f, 2.f, 3.f});
  auto z = ops::Mul(root.WithOpName("z"), ops::Add(root, a, b), a);
  tensorflow::GraphDef graph;
  Status s = root.ToGraphDef(&graph);
  auto session = Session::New();
  if (s.ok()) s = session.status();
  if (s.ok()) s = (*session)->Create(graph);
  std::vector<Tensor> out;
  if (s.ok()) s = (*session)->Run({{"a", Tensor::FromVector<float>({2.f, 2.f, 2.f})}}, {"z"}, {}, &out);
  if (!s.ok()) {
    std::fprintf(stderr, "standalone: %s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("z = %s\n", out[0].SummarizeValue(10).c_str());
  const float* v = out[0].base<float>();
  return (v[0] == 6.f && v[1] == 8.f && v[2] == 10.f) ? 0 : 1;
}
