// ParallelTeam (kernels/parallel_team.h): the device's helpers for a kernel's parallel loop,
// one loop at a time, and CwiseParallelFor's way around a team that is busy.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "kernels/device.h"
#include "kernels/parallel_team.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

// Polls `done` for up to 10 s (the helpers run on their own threads).
bool Eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

TEST_CASE("a team's helpers each run a posted loop's share once, one loop at a time") {
  ParallelTeam team(3);
  REQUIRE(team.helpers() == 3);
  std::atomic<int> ran{0};
  std::atomic<bool> release{false};
  REQUIRE(team.TryPost([&] {
    ran.fetch_add(1);
    while (!release.load()) std::this_thread::yield();
  }));
  CHECK(Eventually([&] { return ran.load() == 3; }));
  // Another caller's loop while this one holds the team: refused, nothing of it runs.
  std::atomic<int> refused_ran{0};
  CHECK_FALSE(team.TryPost([&] { refused_ran.fetch_add(1); }));
  release = true;
  team.Done();
  // Free again: the next loop runs on every helper, the ones that went to sleep too.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::atomic<int> next{0};
  REQUIRE(team.TryPost([&] { next.fetch_add(1); }));
  CHECK(Eventually([&] { return next.load() == 3; }));
  team.Done();
  CHECK(refused_ran.load() == 0);
  CHECK(ran.load() == 3);
}

TEST_CASE("a team of no helpers takes no loop, and a device of one thread has no team") {
  ParallelTeam none(0);
  CHECK_FALSE(none.TryPost([] {}));
  Device one("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 1);
  CHECK(one.parallel_team() == nullptr);
  Device two("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 2);
  REQUIRE(two.parallel_team() != nullptr);
  CHECK(two.parallel_team()->helpers() == 1);
}

TEST_CASE("kernels splitting large tensors from two threads at once give every element once") {
  // One kernel holds the device's team; the other's loop goes to the pool's threads.
  const int64_t n = 1 << 20;
  std::vector<float> xs(n), ys(n);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = static_cast<float>(i % 1000);
    ys[i] = static_cast<float>(i % 7);
  }
  const std::vector<Tensor> inputs = {Tensor::FromVector<float>(xs), Tensor::FromVector<float>(ys)};
  std::unique_ptr<OpKernel> kernels[2];
  for (auto& k : kernels) REQUIRE(testing::MakeKernel("Sub", {{"T", testing::TypeA(tensorflow::DT_FLOAT)}}, &k).ok());
  std::vector<int> wrong(2, 0);
  std::vector<std::thread> callers;
  for (int c = 0; c < 2; ++c) {
    callers.emplace_back([&, c] {
      // A second holder of the operands, so that no kernel writes its output over them.
      const std::vector<Tensor> mine = inputs;
      for (int round = 0; round < 30; ++round) {
        testing::Run r = testing::RunKernel(kernels[c].get(), mine);
        if (!r.status.ok()) {
          ++wrong[c];
          continue;
        }
        const float* d = r.outputs[0].base<float>();
        for (int64_t i = 0; i < n; ++i) wrong[c] += d[i] != xs[i] - ys[i];
      }
    });
  }
  for (std::thread& t : callers) t.join();
  CHECK(wrong[0] == 0);
  CHECK(wrong[1] == 0);
}

}  // namespace
}  // namespace tensoract
