// Queue elements (kernels/queue.h): how a batch splits into elements that share it, and how
// a shuffling queue's leftover rows are packed so a batch does not stay held for a few rows.
#include <catch2/catch.hpp>

#include <deque>
#include <string>
#include <vector>

#include "kernels/queue.h"

namespace tensoract {
namespace {

QueueTuple Batch(int64_t rows, float base) {
  std::vector<float> values;
  std::vector<std::string> names;
  for (int64_t r = 0; r < rows; ++r) {
    values.insert(values.end(), {base + r, -(base + r)});
    names.push_back("row" + std::to_string(static_cast<int>(base) + r));
  }
  return {Tensor::FromVector<float>(values, TensorShape({rows, 2})), Tensor::FromVector<std::string>(names)};
}

std::vector<float> QueueFloats(const Tensor& t) { return {t.base<float>(), t.base<float>() + t.NumElements()}; }

TEST_CASE("CompactElements packs the rows of a batch less than half present, and only those", "[queue]") {
  std::vector<QueueElement> big = SplitBatch(Batch(10, 0));
  std::vector<QueueElement> small = SplitBatch(Batch(4, 100));
  // 3 of 10 rows of the first batch are left (it is packed), 3 of 4 of the second (it is not).
  std::deque<QueueElement> queue = {big[7], small[0], big[1], small[3], big[4], small[2]};
  big.clear();
  const QueueTuple* small_batch = small[0].tensors.get();
  small.clear();
  std::vector<QueueTuple> before;
  for (const QueueElement& e : queue) before.push_back(ElementTensors(e));

  CompactElements(&queue);

  REQUIRE(queue.size() == 6);
  for (size_t i = 0; i < queue.size(); ++i) {
    const QueueTuple after = ElementTensors(queue[i]);
    CHECK(QueueFloats(after[0]) == QueueFloats(before[i][0]));
    CHECK(after[1].base<std::string>()[0] == before[i][1].base<std::string>()[0]);
  }
  // The first batch's three rows now share a batch of three rows.
  CHECK(queue[0].tensors == queue[2].tensors);
  CHECK(queue[0].tensors == queue[4].tensors);
  CHECK((*queue[0].tensors)[0].shape() == TensorShape({3, 2}));
  CHECK(queue[0].tensors.use_count() == 3);  // the old batch is gone
  // The second batch is left as it was.
  CHECK(queue[1].tensors.get() == small_batch);
  CHECK(queue[3].tensors.get() == small_batch);

  // Whole elements are never touched; an empty queue is fine.
  std::deque<QueueElement> whole = {WholeElement(Batch(2, 5))};
  const QueueTuple* w = whole[0].tensors.get();
  CompactElements(&whole);
  CHECK(whole[0].tensors.get() == w);
  std::deque<QueueElement> none;
  CompactElements(&none);
  CHECK(none.empty());
}

}  // namespace
}  // namespace tensoract
