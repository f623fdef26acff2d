// Queues as actors (kernels/queue.h, actors/queue_actor.h), through sessions as a user
// drives them: order, capacity and blocking, close, dequeue-many across a close,
// cancellation by deadline and by Session::Close, shuffling with a seed, padding,
// priorities, and bad input.
#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <map>
#include <thread>

#include "graph/builder/data_flow_ops.h"
#include "graph/builder/io_ops.h"
#include "tests/actors/test_util.h"

namespace tensoract {
namespace {

using std::chrono::milliseconds;
using tensorflow::DT_FLOAT;
using tensorflow::DT_INT32;
using tensorflow::DT_INT64;
using tensorflow::DT_STRING;

// A session over one queue of `kind` with the usual ops around it:
//   "x" (fed, float [?]) -> "enqueue_many"; "v" (fed, float scalar) -> "enqueue";
//   "dequeue", "dequeue_many" / "dequeue_up_to" (n fed as "n"), "close", "close_cancel",
//   "size", "is_closed".
struct QueueSession {
  std::unique_ptr<Session> session;

  // Without assertions: for other threads (Catch2's are the test thread's only).
  std::pair<Status, std::vector<float>> TryDequeue(int n = -1, bool up_to = false) {
    std::vector<Tensor> out;
    Status s = n < 0 ? session->Run({}, {"dequeue:0"}, {}, &out)
                     : session->Run({{"n", Tensor::Scalar<int32_t>(n)}}, {up_to ? "dequeue_up_to:0" : "dequeue_many:0"},
                                    {}, &out);
    return {s, s.ok() ? testing::Values(out[0]) : std::vector<float>()};
  }
  std::vector<float> Dequeue(int n = -1, bool up_to = false) {
    auto [s, values] = TryDequeue(n, up_to);
    INFO(s.ToString());
    REQUIRE(s.ok());
    return values;
  }
  Status EnqueueMany(const std::vector<float>& values) {
    std::vector<Tensor> out;
    return session->Run({{"x", Tensor::FromVector<float>(values)}}, {}, {"enqueue_many"}, &out);
  }
  Status Enqueue(float v, const RunOptions& options = {}) {
    std::vector<Tensor> out;
    return session->Run(options, {{"v", Tensor::Scalar<float>(v)}}, {}, {"enqueue"}, &out);
  }
  int Size() {
    std::vector<Tensor> out;
    REQUIRE(session->Run({}, {"size"}, {}, &out).ok());
    return out[0].base<int32_t>()[0];
  }
  Status Run(const std::string& target) {
    std::vector<Tensor> out;
    return session->Run({}, {}, {target}, &out);
  }
};

QueueSession MakeQueueSession(const std::string& kind, ops::QueueAttrs attrs) {
  Scope root = Scope::NewRootScope();
  if (attrs.shapes.empty() && kind != "padding") attrs.shapes = {PartialTensorShape(std::vector<int64_t>{})};
  Output q = kind == "shuffle" ? ops::RandomShuffleQueue(root.WithOpName("q"), {DT_FLOAT}, attrs)
             : kind == "padding" ? ops::PaddingFIFOQueue(root.WithOpName("q"), {DT_FLOAT}, attrs)
                                 : ops::FIFOQueue(root.WithOpName("q"), {DT_FLOAT}, attrs);
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto v = ops::Placeholder(root.WithOpName("v"), DT_FLOAT);
  auto n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
  ops::QueueEnqueueMany(root.WithOpName("enqueue_many"), q, {x});
  ops::QueueEnqueue(root.WithOpName("enqueue"), q, {v});
  ops::QueueDequeue(root.WithOpName("dequeue"), q, {DT_FLOAT});
  ops::QueueDequeueMany(root.WithOpName("dequeue_many"), q, n, {DT_FLOAT});
  ops::QueueDequeueUpTo(root.WithOpName("dequeue_up_to"), q, n, {DT_FLOAT});
  ops::QueueClose(root.WithOpName("close"), q);
  ops::QueueClose(root.WithOpName("close_cancel"), q, /*cancel_pending_enqueues=*/true);
  ops::QueueSize(root.WithOpName("size"), q);
  ops::QueueIsClosed(root.WithOpName("is_closed"), q);
  tensorflow::GraphDef def;
  Status s = root.ToGraphDef(&def);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return QueueSession{testing::NewSessionWith(def)};
}

// True when `f` is still running after `wait`.
template <class T>
bool StillWaiting(std::future<T>& f, milliseconds wait = milliseconds(300)) {
  return f.wait_for(wait) == std::future_status::timeout;
}

TEST_CASE("a FIFO queue gives elements back in order, one by one or batched", "[queue]") {
  QueueSession q = MakeQueueSession("fifo", {});
  REQUIRE(q.EnqueueMany({1, 2, 3, 4, 5}).ok());
  REQUIRE(q.Enqueue(6).ok());
  CHECK(q.Size() == 6);
  CHECK(q.Dequeue() == std::vector<float>{1});
  CHECK(q.Dequeue(3) == std::vector<float>{2, 3, 4});
  CHECK(q.Dequeue(0).empty());
  CHECK(q.Dequeue(2) == std::vector<float>{5, 6});
  CHECK(q.Size() == 0);
}

TEST_CASE("an enqueue into a full queue waits for a dequeue; a dequeue from an empty one for an enqueue", "[queue]") {
  ops::QueueAttrs attrs;
  attrs.capacity = 2;
  QueueSession q = MakeQueueSession("fifo", attrs);
  REQUIRE(q.EnqueueMany({1, 2}).ok());
  auto third = std::async(std::launch::async, [&] { return q.Enqueue(3); });
  CHECK(StillWaiting(third));
  CHECK(q.Size() == 2);
  CHECK(q.Dequeue() == std::vector<float>{1});
  REQUIRE(third.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(third.get().ok());
  CHECK(q.Dequeue(2) == std::vector<float>{2, 3});
  // Empty: a dequeue-many of 3 waits for three elements, taking them as they come.
  auto batch = std::async(std::launch::async, [&] { return q.TryDequeue(3); });
  CHECK(StillWaiting(batch));
  REQUIRE(q.EnqueueMany({7, 8}).ok());
  CHECK(StillWaiting(batch));
  REQUIRE(q.Enqueue(9).ok());
  REQUIRE(batch.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(batch.get().second == std::vector<float>{7, 8, 9});
}

TEST_CASE("an enqueue-many larger than the capacity goes in as room is made", "[queue]") {
  ops::QueueAttrs attrs;
  attrs.capacity = 2;
  QueueSession q = MakeQueueSession("fifo", attrs);
  auto big = std::async(std::launch::async, [&] { return q.EnqueueMany({1, 2, 3, 4, 5}); });
  CHECK(StillWaiting(big));
  CHECK(q.Dequeue(5) == std::vector<float>{1, 2, 3, 4, 5});
  REQUIRE(big.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(big.get().ok());
}

TEST_CASE("after close, enqueues fail, dequeues drain what is left, then fail with OutOfRange", "[queue]") {
  QueueSession q = MakeQueueSession("fifo", {});
  REQUIRE(q.EnqueueMany({1, 2, 3}).ok());
  REQUIRE(q.Run("close").ok());
  std::vector<Tensor> out;
  REQUIRE(q.session->Run({}, {"is_closed"}, {}, &out).ok());
  CHECK(out[0].base<bool>()[0]);
  Status late = q.Enqueue(4);
  CHECK(late.code() == error::CANCELLED);
  // TensorFlow's name for a queue private to its kernel: "_<id>_<node>".
  CHECK_THAT(late.message(), Catch::Matches("(.*)FIFOQueue '_[0-9]+_q' is closed(.*)"));
  // A dequeue-many that cannot be served in full fails and gives its elements back.
  Status many = q.session->Run({{"n", Tensor::Scalar<int32_t>(5)}}, {"dequeue_many:0"}, {}, &out);
  CHECK(many.code() == error::OUT_OF_RANGE);
  CHECK_THAT(many.message(), Catch::Contains("is closed and has insufficient elements (requested 5, current size 3)"));
  CHECK(q.Size() == 3);
  CHECK(q.Dequeue() == std::vector<float>{1});
  // DequeueUpTo gives the last, smaller batch.
  CHECK(q.Dequeue(5, /*up_to=*/true) == std::vector<float>{2, 3});
  Status empty = q.session->Run({}, {"dequeue:0"}, {}, &out);
  CHECK(empty.code() == error::OUT_OF_RANGE);
  Status empty_up_to = q.session->Run({{"n", Tensor::Scalar<int32_t>(5)}}, {"dequeue_up_to:0"}, {}, &out);
  CHECK(empty_up_to.code() == error::OUT_OF_RANGE);
}

TEST_CASE("a dequeue-many waiting across a close fails and leaves the queue its elements", "[queue]") {
  QueueSession q = MakeQueueSession("fifo", {});
  REQUIRE(q.EnqueueMany({1, 2}).ok());
  auto waiting = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return q.session->Run({{"n", Tensor::Scalar<int32_t>(4)}}, {"dequeue_many:0"}, {}, &out);
  });
  CHECK(StillWaiting(waiting));
  REQUIRE(q.Run("close").ok());
  REQUIRE(waiting.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(waiting.get().code() == error::OUT_OF_RANGE);
  CHECK(q.Size() == 2);
  CHECK(q.Dequeue(2) == std::vector<float>{1, 2});
}

TEST_CASE("closing with cancel_pending_enqueues fails the enqueues waiting for room; without, they go on", "[queue]") {
  ops::QueueAttrs attrs;
  attrs.capacity = 1;
  {
    QueueSession q = MakeQueueSession("fifo", attrs);
    REQUIRE(q.Enqueue(1).ok());
    auto blocked = std::async(std::launch::async, [&] { return q.Enqueue(2); });
    CHECK(StillWaiting(blocked));
    REQUIRE(q.Run("close_cancel").ok());
    REQUIRE(blocked.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    Status s = blocked.get();
    CHECK(s.code() == error::CANCELLED);
    CHECK_THAT(s.message(), Catch::Contains("Enqueue operation was cancelled"));
    CHECK(q.Dequeue() == std::vector<float>{1});
  }
  {
    QueueSession q = MakeQueueSession("fifo", attrs);
    REQUIRE(q.Enqueue(1).ok());
    auto blocked = std::async(std::launch::async, [&] { return q.Enqueue(2); });
    CHECK(StillWaiting(blocked));
    REQUIRE(q.Run("close").ok());
    CHECK(StillWaiting(blocked, milliseconds(100)));
    CHECK(q.Dequeue() == std::vector<float>{1});
    REQUIRE(blocked.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    CHECK(blocked.get().ok());
    CHECK(q.Dequeue() == std::vector<float>{2});
  }
}

TEST_CASE("a step's deadline releases a blocked dequeue, which then takes nothing", "[queue]") {
  QueueSession q = MakeQueueSession("fifo", {});
  RunOptions options;
  options.timeout_ms = 300;
  std::vector<Tensor> out;
  Status s = q.session->Run(options, {}, {"dequeue:0"}, {}, &out);
  CHECK(s.code() == error::DEADLINE_EXCEEDED);
  // The cancelled dequeue is gone from the queue: the next element goes to the next one.
  REQUIRE(q.Enqueue(42).ok());
  CHECK(q.Dequeue() == std::vector<float>{42});
  // A blocked enqueue too.
  ops::QueueAttrs attrs;
  attrs.capacity = 1;
  QueueSession full = MakeQueueSession("fifo", attrs);
  REQUIRE(full.Enqueue(1).ok());
  CHECK(full.Enqueue(2, options).code() == error::DEADLINE_EXCEEDED);
  CHECK(full.Size() == 1);
  CHECK(full.Dequeue() == std::vector<float>{1});
  CHECK(full.Size() == 0);
}

TEST_CASE("Session::Close and a StepCanceller release blocked queue ops", "[queue]") {
  QueueSession q = MakeQueueSession("fifo", {});
  auto canceller = std::make_shared<StepCanceller>();
  RunOptions options;
  options.canceller = canceller;
  auto cancelled = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return q.session->Run(options, {}, {"dequeue:0"}, {}, &out);
  });
  CHECK(StillWaiting(cancelled));
  canceller->Cancel();
  REQUIRE(cancelled.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(cancelled.get().code() == error::CANCELLED);
  auto blocked = std::async(std::launch::async, [&] {
    std::vector<Tensor> out;
    return q.session->Run({}, {"dequeue:0"}, {}, &out);
  });
  CHECK(StillWaiting(blocked));
  REQUIRE(q.session->Close().ok());
  REQUIRE(blocked.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(blocked.get().code() == error::CANCELLED);
}

std::vector<float> ShuffledOrder(int64_t seed, int n) {
  ops::QueueAttrs attrs;
  attrs.seed = seed;
  QueueSession q = MakeQueueSession("shuffle", attrs);
  std::vector<float> values;
  for (int i = 0; i < n; ++i) values.push_back(static_cast<float>(i));
  REQUIRE(q.EnqueueMany(values).ok());
  return q.Dequeue(n);
}

TEST_CASE("a RandomShuffleQueue gives a seeded permutation, every order about equally likely", "[queue]") {
  std::vector<float> a = ShuffledOrder(7, 50), b = ShuffledOrder(7, 50), c = ShuffledOrder(8, 50);
  CHECK(a == b);  // the same seed, the same order
  CHECK(a != c);
  std::vector<float> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 50; ++i) REQUIRE(sorted[i] == i);
  // The first element over 400 seeds: each of 8 values about 50 times.
  std::map<float, int> first;
  for (int seed = 1; seed <= 400; ++seed) ++first[ShuffledOrder(seed, 8)[0]];
  for (int v = 0; v < 8; ++v) {
    INFO("value " << v << " came first " << first[v] << " times");
    CHECK(first[v] > 25);
    CHECK(first[v] < 80);
  }
}

TEST_CASE("a RandomShuffleQueue keeps each element's components together, with and without declared shapes",
          "[queue]") {
  // Declared shapes keep the elements as rows of one block per component, grown as it
  // fills (600 rows: past its first 256); without them, as the batches they came in (and
  // only single dequeues, as in TensorFlow: batching needs the shapes).
  for (bool declared : {true, false}) {
    INFO("declared shapes: " << declared);
    Scope root = Scope::NewRootScope();
    ops::QueueAttrs attrs;
    attrs.seed = 3;
    if (declared) attrs.shapes = {PartialTensorShape(std::vector<int64_t>{2}), PartialTensorShape(std::vector<int64_t>{})};
    Output q = ops::RandomShuffleQueue(root.WithOpName("q"), {DT_INT32, DT_STRING}, attrs);
    auto ints = ops::Placeholder(root.WithOpName("ints"), DT_INT32);
    auto names = ops::Placeholder(root.WithOpName("names"), DT_STRING);
    ops::QueueEnqueueMany(root.WithOpName("enqueue_many"), q, {ints, names});
    ops::QueueDequeueMany(root.WithOpName("dequeue_many"), q, ops::Const(root, 100), {DT_INT32, DT_STRING});
    ops::QueueDequeue(root.WithOpName("dequeue"), q, {DT_INT32, DT_STRING});
    tensorflow::GraphDef def;
    REQUIRE(root.ToGraphDef(&def).ok());
    auto session = testing::NewSessionWith(def);
    std::vector<Tensor> out;
    for (int batch = 0; batch < 3; ++batch) {  // 3 x 200 rows
      Tensor i(DT_INT32, TensorShape({200, 2}));
      Tensor n(DT_STRING, TensorShape({200}));
      for (int r = 0; r < 200; ++r) {
        const int v = batch * 200 + r;
        i.base<int32_t>()[2 * r] = v;
        i.base<int32_t>()[2 * r + 1] = -v;
        n.base<std::string>()[r] = "element " + std::to_string(v);
      }
      REQUIRE(session->Run({{"ints", i}, {"names", n}}, {}, {"enqueue_many"}, &out).ok());
    }
    std::vector<int> seen;
    auto check_row = [&](const int32_t* row, const std::string& name) {
      CHECK(row[1] == -row[0]);
      CHECK(name == "element " + std::to_string(row[0]));
      seen.push_back(row[0]);
    };
    for (int d = 0; declared && d < 5; ++d) {
      REQUIRE(session->Run({}, {"dequeue_many:0", "dequeue_many:1"}, {}, &out).ok());
      REQUIRE(out[0].shape() == TensorShape({100, 2}));
      for (int r = 0; r < 100; ++r) check_row(out[0].base<int32_t>() + 2 * r, out[1].base<std::string>()[r]);
    }
    while (seen.size() < 600) {
      REQUIRE(session->Run({}, {"dequeue:0", "dequeue:1"}, {}, &out).ok());
      REQUIRE(out[0].shape() == TensorShape({2}));
      check_row(out[0].base<int32_t>(), out[1].base<std::string>()[0]);
    }
    std::vector<int> sorted = seen;
    std::sort(sorted.begin(), sorted.end());
    for (int v = 0; v < 600; ++v) REQUIRE(sorted[v] == v);
    CHECK(seen != sorted);  // shuffled
  }
}

TEST_CASE("a RandomShuffleQueue keeps min_after_dequeue elements until it is closed", "[queue]") {
  ops::QueueAttrs attrs;
  attrs.min_after_dequeue = 3;
  attrs.seed = 1;
  QueueSession q = MakeQueueSession("shuffle", attrs);
  REQUIRE(q.EnqueueMany({1, 2, 3, 4, 5}).ok());
  CHECK(q.Dequeue(2).size() == 2);
  auto third = std::async(std::launch::async, [&] { return q.TryDequeue(); });
  CHECK(StillWaiting(third));
  REQUIRE(q.Run("close").ok());
  REQUIRE(third.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(third.get().second.size() == 1);
  CHECK(q.Dequeue(2).size() == 2);
  CHECK(q.Size() == 0);
}

TEST_CASE("a PaddingFIFOQueue pads each batch to its longest element", "[queue]") {
  Scope root = Scope::NewRootScope();
  ops::QueueAttrs attrs;
  attrs.shapes = {PartialTensorShape(std::vector<int64_t>{-1}), PartialTensorShape(std::vector<int64_t>{})};
  Output q = ops::PaddingFIFOQueue(root.WithOpName("q"), {DT_INT32, DT_STRING}, attrs);
  auto tokens = ops::Placeholder(root.WithOpName("tokens"), DT_INT32);
  auto label = ops::Placeholder(root.WithOpName("label"), DT_STRING);
  ops::QueueEnqueue(root.WithOpName("enqueue"), q, {tokens, label});
  ops::QueueDequeueMany(root.WithOpName("batch"), q, ops::Const(root, 3), {DT_INT32, DT_STRING});
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);
  std::vector<Tensor> out;
  std::vector<std::pair<std::vector<int32_t>, std::string>> inputs = {{{1, 2}, "a"}, {{3}, "b"}, {{4, 5, 6}, "c"}};
  for (const auto& [t, l] : inputs) {
    REQUIRE(session->Run({{"tokens", Tensor::FromVector<int32_t>(t)}, {"label", Tensor::Scalar<std::string>(l)}}, {},
                         {"enqueue"}, &out)
                .ok());
  }
  Status s = session->Run({}, {"batch:0", "batch:1"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(out[0].shape() == TensorShape({3, 3}));
  std::vector<int32_t> padded(out[0].base<int32_t>(), out[0].base<int32_t>() + 9);
  CHECK(padded == std::vector<int32_t>{1, 2, 0, 3, 0, 0, 4, 5, 6});
  CHECK(out[1].base<std::string>()[2] == "c");
}

TEST_CASE("a PriorityQueue gives the smallest priority first", "[queue]") {
  Scope root = Scope::NewRootScope();
  ops::QueueAttrs attrs;
  attrs.shapes = {PartialTensorShape(std::vector<int64_t>{})};
  Output q = ops::PriorityQueue(root.WithOpName("q"), {DT_STRING}, attrs);
  ops::QueueEnqueueMany(root.WithOpName("enqueue"), q,
                        {ops::Const(root, {int64_t{5}, int64_t{1}, int64_t{3}}),
                         ops::Const(root, ops::StringVector({"five", "one", "three"}))});
  ops::QueueDequeueMany(root.WithOpName("dequeue"), q, ops::Const(root, 3), {DT_INT64, DT_STRING});
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);
  std::vector<Tensor> out;
  REQUIRE(session->Run({}, {}, {"enqueue"}, &out).ok());
  Status s = session->Run({}, {"dequeue:0", "dequeue:1"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  CHECK(std::vector<int64_t>(out[0].base<int64_t>(), out[0].base<int64_t>() + 3) == std::vector<int64_t>{1, 3, 5});
  CHECK(out[1].base<std::string>()[0] == "one");
  CHECK(out[1].base<std::string>()[2] == "five");
}

TEST_CASE("elements of the wrong dtype or shape are refused, naming the queue and component", "[queue]") {
  ops::QueueAttrs attrs;
  attrs.shapes = {PartialTensorShape(std::vector<int64_t>{2})};
  QueueSession q = MakeQueueSession("fifo", attrs);
  Status shape = q.Enqueue(1);  // a scalar where [2] is declared
  CHECK(shape.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(shape.message(), Catch::Contains("Shape mismatch in tuple component 0. Expected [2], got []"));
  std::vector<Tensor> out;
  Status scalar_batch = q.session->Run({{"x", Tensor::Scalar<float>(1)}}, {}, {"enqueue_many"}, &out);
  CHECK(scalar_batch.code() == error::INVALID_ARGUMENT);
  CHECK(q.Size() == 0);
  // FIFOQueue without shapes cannot dequeue many (TensorFlow's rule).
  Scope root = Scope::NewRootScope();
  Output unshaped = ops::FIFOQueue(root.WithOpName("u"), {DT_FLOAT});
  ops::QueueDequeueMany(root.WithOpName("many"), unshaped, ops::Const(root, 2), {DT_FLOAT});
  tensorflow::GraphDef def;
  REQUIRE(root.ToGraphDef(&def).ok());
  auto session = testing::NewSessionWith(def);
  Status many = session->Run({}, {"many:0"}, {}, &out);
  CHECK(many.code() == error::INVALID_ARGUMENT);
  CHECK_THAT(many.message(), Catch::Contains("require the components to have specified shapes"));
}

}  // namespace
}  // namespace tensoract
