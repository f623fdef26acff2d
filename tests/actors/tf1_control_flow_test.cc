// TensorFlow 1.x's own control-flow GraphDefs, written by hand in its exact text format
// (tests/data/tf1_cond.pbtxt, tests/data/tf1_while_loop.pbtxt), run through the Session
// with the values TensorFlow 2.21's tf.compat.v1 Session gives for the same steps
// (tests/compat/tf_graph_compat.py checks them against TensorFlow itself).
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::Load;
using testing::MustRun;

using testing::Int;

using testing::DataPath;
using testing::NewSessionWith;
using testing::Values;




TEST_CASE("TF 1.x tf.cond GraphDef: each predicate takes its branch, Merge says which") {
  auto session = NewSessionWith(Load("tf1_cond.pbtxt"));
  Tensor x = Tensor::FromVector<float>({1.5f, -2.f});
  auto out = MustRun(session.get(), {{"x", x}, {"p", Tensor::Scalar<bool>(true)}},
                     {"y", "cond/Merge:1", "two/Merge", "two/Merge:1"});
  CHECK(Values(out[0]) == std::vector<float>{4.f, -3.f});  // x * 2 + 1
  CHECK(Int(out[1]) == 1);
  CHECK(Values(out[2]) == std::vector<float>{1.f});
  CHECK(Int(out[3]) == 1);
  out = MustRun(session.get(), {{"x", x}, {"p", Tensor::Scalar<bool>(false)}},
                {"y", "cond/Merge:1", "two/Merge", "two/Merge:1"});
  CHECK(Values(out[0]) == std::vector<float>{1.25f, 3.f});  // x^2 - 1
  CHECK(Int(out[1]) == 0);
  CHECK(Values(out[2]) == std::vector<float>{2.f});
  CHECK(Int(out[3]) == 0);
  // A tensor of the untaken branch is dead: TensorFlow's "Retval[0] does not have value".
  std::vector<Tensor> dead;
  Status s = session->Run({{"x", x}, {"p", Tensor::Scalar<bool>(false)}}, {"cond/add"}, {}, &dead);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("does not have value"));
}

TEST_CASE("TF 1.x tf.while_loop GraphDef: 0, 1, 3, 10 and 1000 iterations with loop invariants") {
  auto session = NewSessionWith(Load("tf1_while_loop.pbtxt"));
  Tensor x = Tensor::FromVector<float>({0.5f, -2.f});
  struct Case {
    int n;
    std::vector<float> result;
  };
  // a = a * x + 1 from [1, 1], n times (TensorFlow's float32 values).
  for (const Case& c : {Case{0, {1.f, 1.f}}, Case{1, {1.5f, -1.f}}, Case{3, {1.875f, -5.f}},
                        Case{10, {1.9990234f, 683.f}}}) {
    INFO("n = " << c.n);
    auto out = MustRun(session.get(), {{"x", x}, {"n", Tensor::Scalar<int32_t>(c.n)}}, {"count", "result"});
    CHECK(Int(out[0]) == c.n);
    CHECK(Values(out[1]) == c.result);
  }
  auto out = MustRun(session.get(), {{"x", x}, {"n", Tensor::Scalar<int32_t>(1000)}}, {"count", "result:0"});
  CHECK(Int(out[0]) == 1000);
  CHECK(Values(out[1])[0] == 2.f);  // converged to 1 / (1 - 0.5)
  // Feeding the start value, or an Exit, as TensorFlow allows.
  CHECK(Int(MustRun(session.get(), {{"i", Tensor::Scalar<int32_t>(5)}, {"n", Tensor::Scalar<int32_t>(8)}},
                    {"count"})[0]) == 8);
  out = MustRun(session.get(), {{"x", x}, {"n", Tensor::Scalar<int32_t>(3)}, {"while/Exit", Tensor::Scalar<int32_t>(7)}},
                {"result"});
  CHECK(Values(out[0]) == std::vector<float>{1.875f, -5.f});
}

}  // namespace
}  // namespace tensoract
