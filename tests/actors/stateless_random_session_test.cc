// Stateless random ops in sessions: the numbers are a function of the seed alone, so every
// run, every session and every server gives the same ones (TensorFlow's), unlike the
// stateful ops, whose kernels carry a generator from run to run.
#include <catch2/catch.hpp>

#include <vector>

#include "client/local_server.h"
#include "client/session.h"
#include "graph/builder/ops.h"
#include "graph/builder/random_ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::Values;


TEST_CASE("a stateless random op gives TensorFlow's numbers in every run, session and server",
          "[session][random][stateless]") {
  // What tf.random.stateless_uniform([5], seed=[1, 2]) writes: a key and counter from the
  // seed, then StatelessRandomUniformV2 with the auto-select algorithm.
  Scope root = Scope::NewRootScope();
  Output seed = ops::Const(root, Input(std::initializer_list<int64_t>{1, 2}));
  ops::KeyCounterAlg kc = ops::StatelessRandomGetKeyCounter(root, seed);
  ops::StatelessRandomUniformV2(root.WithOpName("u"), ops::Const(root, Input({5})), kc.key, kc.counter,
                                ops::Const(root, Input(3)));
  ops::StatelessRandomUniform(root.WithOpName("v1"), ops::Const(root, Input({5})), seed);
  tensorflow::GraphDef graph;
  REQUIRE(root.ToGraphDef(&graph).ok());
  // Printed by TensorFlow 2.21.
  const std::vector<float> want = {0.8440604209899902f, 0.19204533100128174f, 0.9962232112884521f,
                                   0.16038739681243896f, 0.27199018001556396f};
  for (int server_index = 0; server_index < 2; ++server_index) {
    auto server = LocalServer::New().value();
    for (int session_index = 0; session_index < 2; ++session_index) {
      auto session = Session::New(*server).value();
      REQUIRE(session->Create(graph).ok());
      for (int run = 0; run < 2; ++run) {
        std::vector<Tensor> out;
        REQUIRE(session->Run({}, {"u", "v1"}, {}, &out).ok());
        CHECK(Values(out[0]) == want);
        CHECK(Values(out[1]) == want);
      }
    }
  }
}

}  // namespace
}  // namespace tensoract
