// Collective ops between the CPU devices of one worker: all-reduce (recursive doubling for
// small tensors, the ring for large ones, groups of 2, 3 and 4 members), gather and
// broadcast, step after step, with every member getting the same bits; and the errors a
// group gives when its members disagree or one never comes.
#include <cmath>
#include <numeric>

#include <catch2/catch.hpp>

#include "graph/builder/array_ops.h"
#include "graph/builder/collective_ops.h"
#include "graph/builder/ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using testing::Cpu;

using testing::Values;


// A tensor as a builder input (a Const's value).
tensorflow::TensorProto P(const Tensor& t) {
  tensorflow::TensorProto proto;
  t.AsProtoTensorContent(&proto);
  return proto;
}

// Member i's input: n values, i + 1 + j / 8 at j (exact in float, distinct per member).
std::vector<float> MemberInput(int i, int64_t n) {
  std::vector<float> v(n);
  for (int64_t j = 0; j < n; ++j) v[j] = static_cast<float>(i + 1) + static_cast<float>(j % 64) / 8.f;
  return v;
}

std::unique_ptr<Session> NewSession(const tensorflow::GraphDef& graph, int devices) {
  SessionOptions options;
  options.num_threads = 2;
  options.num_cpu_devices = devices;
  return testing::NewSessionWith(graph, options);
}

// `members` CollectiveReduceV2 nodes "r<i>", one per CPU device, over MemberInput(i, n).
tensorflow::GraphDef AllReduceGraph(int members, int64_t n, const std::string& merge, const std::string& final_op,
                                    ops::CollectiveAttrs attrs = {}, int group_size = -1) {
  return testing::BuildGraph([&](const Scope& s) {
    for (int i = 0; i < members; ++i) {
      Scope on = s.WithDevice(Cpu(i));
      auto x = ops::Const(on.WithOpName(StrCat("x", i)), P(Tensor::FromVector<float>(MemberInput(i, n))));
      ops::CollectiveReduceV2(on.WithOpName(StrCat("r", i)), x, group_size < 0 ? members : group_size, 1, 7, merge,
                              final_op, attrs);
    }
  });
}

std::vector<float> ExpectedReduction(int members, int64_t n, const std::string& merge, bool divide) {
  std::vector<float> out = MemberInput(0, n);
  for (int i = 1; i < members; ++i) {
    std::vector<float> v = MemberInput(i, n);
    for (int64_t j = 0; j < n; ++j) {
      if (merge == "Add") out[j] += v[j];
      if (merge == "Mul") out[j] *= v[j];
      if (merge == "Max") out[j] = std::max(out[j], v[j]);
      if (merge == "Min") out[j] = std::min(out[j], v[j]);
    }
  }
  if (divide) {
    for (float& x : out) x /= members;
  }
  return out;
}

void CheckAllReduce(int members, int64_t n, const std::string& merge, const std::string& final_op,
                    ops::CollectiveAttrs attrs = {}) {
  auto session = NewSession(AllReduceGraph(members, n, merge, final_op, attrs), members);
  std::vector<std::string> fetches;
  for (int i = 0; i < members; ++i) fetches.push_back(StrCat("r", i));
  const std::vector<float> expected = ExpectedReduction(members, n, merge, final_op == "Div");
  for (int step = 0; step < 3; ++step) {  // the same instance, step after step
    std::vector<Tensor> out;
    Status s = session->Run({}, fetches, {}, &out);
    INFO(members << " members, " << n << " elements, " << merge << "/" << final_op << ", step " << step);
    REQUIRE(s.ok());
    for (int i = 0; i < members; ++i) {
      std::vector<float> got = Values(out[i]);
      REQUIRE(got.size() == expected.size());
      for (int64_t j = 0; j < n; ++j) REQUIRE(got[j] == Approx(expected[j]).epsilon(1e-6));
      // Every member has the same bits.
      CHECK(std::memcmp(out[i].data(), out[0].data(), out[0].TotalBytes()) == 0);
    }
  }
}

TEST_CASE("all-reduce between devices of one worker: every merge and final op, small and large", "[collective]") {
  for (int members : {2, 3, 4}) {
    // Small: recursive doubling (with a member folded in when there are 3).
    CheckAllReduce(members, 10, "Add", "Id");
    CheckAllReduce(members, 10, "Add", "Div");
    CheckAllReduce(members, 10, "Max", "Id");
    CheckAllReduce(members, 10, "Min", "Id");
    CheckAllReduce(members, 10, "Mul", "Id");
    // Large (1 MB): the ring, chunks and pieces.
    CheckAllReduce(members, 1 << 18, "Add", "Div");
    // The ring on a tensor that does not divide by the group, and on one smaller than it.
    ops::CollectiveAttrs ring;
    ring.communication_hint = "ring";
    CheckAllReduce(members, 1001, "Add", "Id", ring);
    CheckAllReduce(members, 2, "Max", "Id", ring);
  }
}

TEST_CASE("gather concatenates every member's tensor in rank order; broadcast reaches every member",
          "[collective]") {
  auto session = NewSession(testing::BuildGraph([](const Scope& s) {
                              for (int i = 0; i < 3; ++i) {
                                Scope on = s.WithDevice(Cpu(i));
                                auto x = ops::Const(on.WithOpName(StrCat("x", i)),
                                                    P(Tensor::FromVector<float>({i * 10.f, i * 10.f + 1}, {1, 2})));
                                ops::CollectiveGatherV2(on.WithOpName(StrCat("g", i)), x, 3, 2, 1);
                              }
                              auto v = ops::Const(s.WithOpName("v").WithDevice(Cpu(1)),
                                                  P(Tensor::FromVector<int32_t>({4, 5, 6, 7}, {2, 2})));
                              ops::CollectiveBcastSendV2(s.WithOpName("b1").WithDevice(Cpu(1)), v, 3, 3, 1);
                              for (int i : {0, 2}) {
                                ops::CollectiveBcastRecvV2(s.WithOpName(StrCat("b", i)).WithDevice(Cpu(i)),
                                                           tensorflow::DT_INT32, 3, 3, 1,
                                                           P(Tensor::FromVector<int32_t>({2, 2})));
                              }
                            }),
                            3);
  for (int step = 0; step < 2; ++step) {
    std::vector<Tensor> out;
    Status s = session->Run({}, {"g0", "g1", "g2", "b0", "b1", "b2"}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    for (int i = 0; i < 3; ++i) {
      CHECK(out[i].shape() == TensorShape({3, 2}));
      CHECK(Values(out[i]) == std::vector<float>{0, 1, 10, 11, 20, 21});
      CHECK(out[3 + i].shape() == TensorShape({2, 2}));
      CHECK(std::vector<int32_t>(out[3 + i].base<int32_t>(), out[3 + i].base<int32_t>() + 4) ==
            std::vector<int32_t>{4, 5, 6, 7});
    }
  }
}

TEST_CASE("a group of one is its own result; a broadcast receiver alone has no sender", "[collective]") {
  auto session = NewSession(testing::BuildGraph([](const Scope& s) {
                              auto x = ops::Const(s.WithOpName("x"), P(Tensor::FromVector<float>({3, 4})));
                              ops::CollectiveReduceV2(s.WithOpName("r"), x, 1, 5, 1, "Add", "Div");
                              ops::CollectiveBcastRecvV2(s.WithOpName("b"), tensorflow::DT_FLOAT, 1, 6, 1,
                                                         P(Tensor::FromVector<int32_t>({2})));
                            }),
                            1);
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {"r"}, {}, &out).ok());
  CHECK(Values(out[0]) == std::vector<float>{3, 4});
  Status s = session->Run({}, {"b"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("a group of one has no sender"));
}

TEST_CASE("a member that never comes ends the group's ops at their deadline, naming the group", "[collective]") {
  // group_size 3, but only 2 members run: the leader never forms the group.
  ops::CollectiveAttrs soon;
  soon.timeout_seconds = 0.5;
  auto session = NewSession(AllReduceGraph(2, 4, "Add", "Id", soon, /*group_size=*/3), 2);
  std::vector<Tensor> out;
  Status s = session->Run({}, {"r0", "r1"}, {}, &out);
  CHECK(s.code() == error::DEADLINE_EXCEEDED);
  CHECK_THAT(s.message(), Catch::Contains("group 1") && Catch::Contains("did not finish within 0.5 s") &&
                              Catch::Contains("waiting for the group's members to join"));
}

TEST_CASE("members that disagree on the group's size are told", "[collective]") {
  auto session = NewSession(testing::BuildGraph([](const Scope& s) {
                              for (int i = 0; i < 2; ++i) {
                                Scope on = s.WithDevice(Cpu(i));
                                auto x = ops::Const(on.WithOpName(StrCat("x", i)), P(Tensor::FromVector<float>({1})));
                                ops::CollectiveReduceV2(on.WithOpName(StrCat("r", i)), x, 2 + i, 9, 1, "Add", "Id",
                                                        {"auto", 2});
                              }
                            }),
                            2);
  std::vector<Tensor> out;
  Status s = session->Run({}, {"r0", "r1"}, {}, &out);
  CHECK(s.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(s.message(), Catch::Contains("collective group 9 has group_size"));
}

}  // namespace
}  // namespace tensoract
