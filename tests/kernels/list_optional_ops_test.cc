// Kernels of the variant ops: TensorLists (TensorFlow 2's TensorArray and a While
// gradient's accumulators) and Optionals (an If gradient's intermediates). Messages as
// TensorFlow 2.21's kernels word them (tf.raw_ops, eagerly, on the CPU).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "kernels/tensor_list.h"
#include "messages/tensor.pb.h"
#include "tests/kernels/kernel_test_util.h"

namespace tensoract {
namespace {

using testing::IntA;
using testing::I32;

namespace tf = ::tensorflow;

using Catch::Contains;
using testing::Run;
using testing::RunOp;
using testing::TypeA;

Tensor I64(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>(v); }
Tensor Shape(std::vector<int32_t> dims) { return Tensor::FromVector<int32_t>(dims); }
Tensor UnknownRank() { return Tensor::Scalar<int32_t>(-1); }
Tensor F32(std::vector<float> v, TensorShape shape) { return Tensor::FromVector<float>(v, shape); }

testing::AttrMap ListAttrs(DataType element = tf::DT_FLOAT) {
  return {{"element_dtype", TypeA(element)}, {"shape_type", TypeA(tf::DT_INT32)}};
}
testing::AttrMap ElementAttr(DataType element = tf::DT_FLOAT) { return {{"element_dtype", TypeA(element)}}; }

Tensor Ok(const Run& r, int output = 0) {
  INFO(r.status);
  REQUIRE(r.status.ok());
  return r.outputs[output];
}

const TensorList& ListOf(const Tensor& t) {
  auto list = TensorListFrom(t, "output");
  INFO(list.status());
  REQUIRE(list.ok());
  return *list.value();
}

std::vector<float> ListFloats(const Tensor& t) { return std::vector<float>(t.base<float>(), t.base<float>() + t.NumElements()); }

Tensor Push(const Tensor& list, const Tensor& item) {
  return Ok(RunOp("TensorListPushBack", {list, item}, ElementAttr(item.dtype())));
}

TEST_CASE("a list pushed to pops its elements last first, and an empty list refuses a pop", "[list]") {
  Tensor list = Ok(RunOp("EmptyTensorList", {Shape({2}), Tensor::Scalar<int32_t>(-1)}, ListAttrs()));
  CHECK(list.dtype() == tf::DT_VARIANT);
  CHECK(list.dims() == 0);
  Tensor one = Push(list, F32({1, 2}, {2}));
  Tensor two = Push(one, F32({3, 4}, {2}));
  CHECK(ListOf(list).tensors.empty());  // lists are values: the pushes made new ones
  CHECK(ListOf(two).tensors.size() == 2);
  CHECK(Ok(RunOp("TensorListLength", {two}, {})).base<int32_t>()[0] == 2);

  Run popped = RunOp("TensorListPopBack", {two, Shape({2})}, ElementAttr());
  CHECK(ListFloats(Ok(popped, 1)) == std::vector<float>{3, 4});
  Run again = RunOp("TensorListPopBack", {Ok(popped, 0), Shape({2})}, ElementAttr());
  CHECK(ListFloats(Ok(again, 1)) == std::vector<float>{1, 2});
  Run empty = RunOp("TensorListPopBack", {Ok(again, 0), Shape({2})}, ElementAttr());
  CHECK(empty.status.code() == tf::error::INVALID_ARGUMENT);
  CHECK_THAT(empty.status.message(), Contains("Trying to pop from an empty list."));
}

TEST_CASE("a list nothing else holds is updated in place; a list held elsewhere is copied", "[list]") {
  auto reserved = [] {
    return Ok(RunOp("TensorListReserve", {Shape({2}), Tensor::Scalar<int32_t>(3)}, ListAttrs()));
  };
  // The kernel's input is the only holder (as a loop's list is for the op that reads it
  // last): its output is the same list, changed.
  std::vector<Tensor> inputs;
  inputs.push_back(reserved());
  inputs.push_back(Tensor::Scalar<int32_t>(1));
  inputs.push_back(F32({5, 6}, {2}));
  Run set = RunOp("TensorListSetItem", inputs, ElementAttr());
  CHECK(Ok(set).SharesBufferWith(inputs[0]));
  REQUIRE(ListOf(inputs[0]).tensors[1].has_value());
  CHECK(ListFloats(*ListOf(inputs[0]).tensors[1]) == std::vector<float>{5, 6});

  std::vector<Tensor> push_inputs;
  push_inputs.push_back(Ok(set));
  set = Run();
  inputs.clear();
  push_inputs.push_back(F32({7, 8}, {2}));
  Run pushed = RunOp("TensorListPushBack", push_inputs, ElementAttr());
  CHECK(Ok(pushed).SharesBufferWith(push_inputs[0]));
  CHECK(ListOf(Ok(pushed)).tensors.size() == 4);

  // Held here as well: the kernel makes a new list and this one stays as it was.
  Tensor held = reserved();
  Tensor changed = Ok(RunOp("TensorListSetItem", {held, Tensor::Scalar<int32_t>(0), F32({1, 2}, {2})}, ElementAttr()));
  CHECK_FALSE(changed.SharesBufferWith(held));
  CHECK_FALSE(ListOf(held).tensors[0].has_value());
  CHECK(ListFloats(*ListOf(changed).tensors[0]) == std::vector<float>{1, 2});
  // A tensor held once whose list another tensor's buffer shares (a deep copy copies the
  // variant, not the list): copied too.
  std::vector<Tensor> pop_inputs;
  pop_inputs.push_back(changed.DeepCopy());
  pop_inputs.push_back(Shape({2}));
  Run popped = RunOp("TensorListPopBack", pop_inputs, ElementAttr());
  CHECK(ListOf(Ok(popped)).tensors.size() == 2);
  CHECK(ListOf(changed).tensors.size() == 3);
  CHECK(ListOf(pop_inputs[0]).tensors.size() == 3);
}

TEST_CASE("a push checks the element's dtype, its shape and the list's maximum", "[list]") {
  Tensor list = Ok(RunOp("EmptyTensorList", {Shape({2}), Tensor::Scalar<int32_t>(1)}, ListAttrs()));
  Run wrong_type = RunOp("TensorListPushBack", {list, I32({1, 2})}, ElementAttr(tf::DT_INT32));
  CHECK_THAT(wrong_type.status.message(), Contains("Invalid data types; list elements float but tried to append int32"));
  Run wrong_shape = RunOp("TensorListPushBack", {list, F32({1, 2, 3}, {3})}, ElementAttr());
  CHECK(wrong_shape.status.code() == tf::error::INVALID_ARGUMENT);
  CHECK_THAT(wrong_shape.status.message(), Contains("incompatible shape"));
  Tensor full = Push(list, F32({1, 2}, {2}));
  Run over = RunOp("TensorListPushBack", {full, F32({1, 2}, {2})}, ElementAttr());
  CHECK_THAT(over.status.message(), Contains("Tried to push item into a full list"));
  Run bad_max = RunOp("EmptyTensorList", {Shape({2}), Tensor::Scalar<int32_t>(-2)}, ListAttrs());
  CHECK_THAT(bad_max.status.message(), Contains("max_num_elements expected to be -1 or >= 0"));
}

TEST_CASE("a reserved list reads unset elements as zeros of the element shape, and stacks them", "[list]") {
  Tensor list = Ok(RunOp("TensorListReserve", {Shape({-1, 2}), Tensor::Scalar<int32_t>(3)}, ListAttrs()));
  // Nothing set and the shape partly unknown: nothing tells the zeros' shape.
  Run unknown = RunOp("TensorListGetItem", {list, Tensor::Scalar<int32_t>(0), UnknownRank()}, ElementAttr());
  CHECK_THAT(unknown.status.message(), Contains("element_shape is not fully defined"));
  // The op's element shape completes the list's ...
  Tensor zeros = Ok(RunOp("TensorListGetItem", {list, Tensor::Scalar<int32_t>(0), Shape({1, 2})}, ElementAttr()));
  CHECK(zeros.shape() == TensorShape({1, 2}));
  CHECK(ListFloats(zeros) == std::vector<float>{0, 0});
  // ... and so does a set element.
  Tensor set = Ok(RunOp("TensorListSetItem", {list, Tensor::Scalar<int32_t>(1), F32({5, 6}, {1, 2})}, ElementAttr()));
  Tensor stacked = Ok(RunOp("TensorListStack", {set, UnknownRank()}, ElementAttr()));
  CHECK(stacked.shape() == TensorShape({3, 1, 2}));
  CHECK(ListFloats(stacked) == std::vector<float>{0, 0, 5, 6, 0, 0});
  Tensor item = Ok(RunOp("TensorListGetItem", {set, Tensor::Scalar<int32_t>(1), UnknownRank()}, ElementAttr()));
  CHECK(ListFloats(item) == std::vector<float>{5, 6});

  Run outside = RunOp("TensorListGetItem", {set, Tensor::Scalar<int32_t>(3), UnknownRank()}, ElementAttr());
  CHECK_THAT(outside.status.message(), Contains("Trying to access element 3 in a list with 3 elements."));
  Run modify = RunOp("TensorListSetItem", {set, Tensor::Scalar<int32_t>(-1), F32({5, 6}, {1, 2})}, ElementAttr());
  CHECK_THAT(modify.status.message(), Contains("Trying to modify element -1 in a list with 3 elements."));
  Run negative = RunOp("TensorListReserve", {Shape({2}), Tensor::Scalar<int32_t>(-1)}, ListAttrs());
  CHECK_THAT(negative.status.message(), Contains("The num_elements to reserve must be a non negative number"));
  testing::AttrMap counted = ElementAttr();
  counted["num_elements"] = IntA(4);
  Run wrong_count = RunOp("TensorListStack", {set, UnknownRank()}, counted);
  CHECK_THAT(wrong_count.status.message(), Contains("Operation expected a list with 4 elements but got a list with 3"));
}

TEST_CASE("a list from a tensor holds its rows, and knows its element shape", "[list]") {
  Tensor list = Ok(RunOp("TensorListFromTensor", {F32({1, 2, 3, 4, 5, 6}, {3, 2}), Shape({-1})}, ListAttrs()));
  CHECK(ListOf(list).tensors.size() == 3);
  Tensor row = Ok(RunOp("TensorListGetItem", {list, Tensor::Scalar<int32_t>(2), UnknownRank()}, ElementAttr()));
  CHECK(ListFloats(row) == std::vector<float>{5, 6});
  Tensor shape = Ok(RunOp("TensorListElementShape", {list}, {{"shape_type", TypeA(tf::DT_INT32)}}));
  CHECK(shape.shape() == TensorShape({1}));
  CHECK(shape.base<int32_t>()[0] == -1);
  Run scalar = RunOp("TensorListFromTensor", {Tensor::Scalar<float>(1), Shape({})}, ListAttrs());
  CHECK_THAT(scalar.status.message(), Contains("Tensor must be at least a vector, but saw shape: []"));
  Run mismatch = RunOp("TensorListFromTensor", {F32({1, 2, 3, 4, 5, 6}, {3, 2}), Shape({3})}, ListAttrs());
  CHECK_THAT(mismatch.status.message(), Contains("Specified a list with shape [3] from a tensor with shape [3,2]"));
  Run not_a_list = RunOp("TensorListLength", {F32({1}, {1})}, {});
  CHECK(not_a_list.status.code() == tf::error::INVALID_ARGUMENT);
  CHECK_THAT(not_a_list.status.message(), Contains("must be a scalar variant holding a TensorList"));
}

TEST_CASE("a list gathers elements by index, scatters rows into place and resizes", "[list]") {
  Tensor rows = Ok(RunOp("TensorListFromTensor", {F32({1, 2, 3, 4, 5, 6}, {3, 2}), Shape({2})}, ListAttrs()));
  Tensor grown = Ok(RunOp("TensorListResize", {rows, Tensor::Scalar<int32_t>(4)}, {}));
  Tensor gathered = Ok(RunOp("TensorListGather", {grown, I32({2, 3, 0, 2}), Shape({2})}, ElementAttr()));
  CHECK(gathered.shape() == TensorShape({4, 2}));
  CHECK(ListFloats(gathered) == std::vector<float>{5, 6, 0, 0, 1, 2, 5, 6});  // element 3 unset: zeros
  Run negative = RunOp("TensorListGather", {grown, I32({-1}), Shape({2})}, ElementAttr());
  CHECK_THAT(negative.status.message(), Contains("Trying to gather element -1 in a list with 4 elements."));
  Run cut = RunOp("TensorListResize", {grown, Tensor::Scalar<int32_t>(-1)}, {});
  CHECK_THAT(cut.status.message(), Contains("expects size to be non-negative"));

  Tensor reserved = Ok(RunOp("TensorListReserve", {Shape({2}), Tensor::Scalar<int32_t>(2)}, ListAttrs()));
  Tensor scattered = Ok(RunOp("TensorListScatterIntoExistingList", {reserved, F32({7, 8, 9, 10}, {2, 2}), I32({3, 0})},
                              ElementAttr()));
  CHECK(ListOf(scattered).tensors.size() == 4);  // index 3 grew the list
  Tensor stacked = Ok(RunOp("TensorListStack", {scattered, Shape({2})}, ElementAttr()));
  CHECK(ListFloats(stacked) == std::vector<float>{9, 10, 0, 0, 0, 0, 7, 8});
  Run below = RunOp("TensorListScatterIntoExistingList", {reserved, F32({7, 8}, {1, 2}), I32({-2})}, ElementAttr());
  CHECK_THAT(below.status.message(), Contains("must all be non-negative"));
  Run rows_mismatch = RunOp("TensorListScatterIntoExistingList", {reserved, F32({7, 8}, {1, 2}), I32({0, 1})},
                            ElementAttr());
  CHECK_THAT(rows_mismatch.status.message(), Contains("Invalid number of rows in input tensor. Expected: 2 Actual: 1"));
}

TEST_CASE("a tensor split into slices concatenates back, each slice's length beside it", "[list]") {
  Tensor xs = F32({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {5, 2});
  Tensor split = Ok(RunOp("TensorListSplit", {xs, Shape({-1, 2}), I64({2, 3})}, ListAttrs()));
  REQUIRE(ListOf(split).tensors.size() == 2);
  CHECK(ListOf(split).tensors[1]->shape() == TensorShape({3, 2}));
  Run joined = RunOp("TensorListConcatV2", {split, Shape({-1, 2}), I64({})}, ListAttrs());
  CHECK(Ok(joined).shape() == TensorShape({5, 2}));
  CHECK(ListFloats(Ok(joined)) == ListFloats(xs));
  Tensor lengths = Ok(joined, 1);
  CHECK(std::vector<int64_t>(lengths.base<int64_t>(), lengths.base<int64_t>() + 2) == std::vector<int64_t>{2, 3});

  Run unused = RunOp("TensorListSplit", {xs, Shape({-1, 2}), I64({2, 2})}, ListAttrs());
  CHECK_THAT(unused.status.message(), Contains("Unused values in tensor. Length of tensor: 5 Values used: 4"));
  Run past = RunOp("TensorListSplit", {xs, Shape({-1, 2}), I64({2, 4})}, ListAttrs());
  CHECK_THAT(past.status.message(), Contains("Attempting to slice [2, 6] from tensor with length 5"));
  Run negative = RunOp("TensorListSplit", {xs, Shape({-1, 2}), I64({-1, 6})}, ListAttrs());
  CHECK_THAT(negative.status.message(), Contains("Invalid value in lengths: -1"));
  Run rank0 = RunOp("TensorListSplit", {xs, Shape({}), I64({5})}, ListAttrs());
  CHECK_THAT(rank0.status.message(), Contains("requires element_shape to be at least of rank 1"));
}

TEST_CASE("a concat reads an unset element as zeros of its leading_dims entry, and refuses what it cannot size",
          "[list]") {
  Tensor list = Ok(RunOp("TensorListReserve", {Shape({-1, 2}), Tensor::Scalar<int32_t>(3)}, ListAttrs()));
  list = Ok(RunOp("TensorListSetItem", {list, Tensor::Scalar<int32_t>(1), F32({1, 2, 3, 4}, {2, 2})}, ElementAttr()));
  Run joined = RunOp("TensorListConcatV2", {list, Shape({-1, 2}), I64({1, 9, 2})}, ListAttrs());
  CHECK(Ok(joined).shape() == TensorShape({5, 2}));  // a set element's own length wins over leading_dims
  CHECK(ListFloats(Ok(joined)) == std::vector<float>{0, 0, 1, 2, 3, 4, 0, 0, 0, 0});
  // Past leading_dims, the first dimension the set elements share (here 2) ...
  Run shared = RunOp("TensorListConcatV2", {list, Shape({-1, 2}), I64({1})}, ListAttrs());
  CHECK(Ok(shared).shape() == TensorShape({5, 2}));
  // ... and when they share none, nothing.
  Tensor uneven = Ok(RunOp("TensorListSetItem", {list, Tensor::Scalar<int32_t>(0), F32({7, 8}, {1, 2})}, ElementAttr()));
  Run short_dims = RunOp("TensorListConcatV2", {uneven, Shape({-1, 2}), I64({})}, ListAttrs());
  CHECK_THAT(short_dims.status.message(),
             Contains("List contains uninitialized tensor at index 2 but leading_dims has only 0 elements."));
  // The element shape's first dimension sizes the unset ones.
  Run first_dim = RunOp("TensorListConcatV2", {list, Shape({2, 2}), I64({})}, ListAttrs());
  CHECK(Ok(first_dim).shape() == TensorShape({6, 2}));
  Run scalars = RunOp("TensorListConcatV2", {list, Shape({}), I64({})}, ListAttrs());
  CHECK(scalars.status.code() == tf::error::INVALID_ARGUMENT);
  Tensor empty = Ok(RunOp("EmptyTensorList", {Shape({-1, -1}), Tensor::Scalar<int32_t>(-1)}, ListAttrs()));
  Run unsized = RunOp("TensorListConcatV2", {empty, Shape({-1, -1}), I64({})}, ListAttrs());
  CHECK_THAT(unsized.status.message(), Contains("All except the first dimension must be fully defined"));
  Run bad_dims = RunOp("TensorListConcatV2", {list, Shape({-1, 2}), I64({1, 1, -3})}, ListAttrs());
  CHECK_THAT(bad_dims.status.message(), Contains("leading_dims[2] is negative: -3"));
  // Lengths from outside whose sum, or whose product with the rows' size, overflows.
  Tensor unset = Ok(RunOp("TensorListReserve", {Shape({-1, 2}), Tensor::Scalar<int32_t>(2)}, ListAttrs()));
  const int64_t half = (int64_t{1} << 62) + 1;
  Run sum = RunOp("TensorListConcatV2", {unset, Shape({-1, 2}), I64({half, half})}, ListAttrs());
  CHECK_THAT(sum.status.message(), Contains("lengths overflow int64"));
  Run product = RunOp("TensorListConcatV2", {unset, Shape({-1, 2}), I64({half, 0})}, ListAttrs());
  CHECK(product.status.code() == tf::error::INVALID_ARGUMENT);

  // TensorFlow's v1 op with an element_shape attr the elements do not have returns
  // uninitialised memory; here it is refused.
  Tensor vectors = Ok(RunOp("TensorListFromTensor", {F32({1, 2, 3, 4, 5, 6}, {3, 2}), Shape({2})}, ListAttrs()));
  tf::AttrValue attr_shape;
  attr_shape.mutable_shape()->add_dim()->set_size(-1);
  attr_shape.mutable_shape()->add_dim()->set_size(2);
  testing::AttrMap v1 = ElementAttr();
  v1["element_shape"] = attr_shape;
  Run mismatch = RunOp("TensorListConcat", {vectors}, v1);
  CHECK(mismatch.status.code() == tf::error::INVALID_ARGUMENT);
  CHECK_THAT(mismatch.status.message(), Contains("does not fit the element shape's [2]"));
}

TEST_CASE("a new list scattered from rows is as long as its largest index or num_elements", "[list]") {
  Tensor rows = F32({1, 2, 3, 4}, {2, 2});
  Tensor list = Ok(RunOp("TensorListScatterV2", {rows, I32({3, 0}), Shape({2}), Tensor::Scalar<int32_t>(-1)},
                         ListAttrs()));
  REQUIRE(ListOf(list).tensors.size() == 4);
  CHECK(!ListOf(list).tensors[1]);
  CHECK(ListFloats(*ListOf(list).tensors[3]) == std::vector<float>{1, 2});
  Tensor longer = Ok(RunOp("TensorListScatterV2", {rows, I32({3, 0}), Shape({2}), Tensor::Scalar<int32_t>(6)},
                           ListAttrs()));
  CHECK(ListOf(longer).tensors.size() == 6);
  Run over = RunOp("TensorListScatterV2", {rows, I32({3, 0}), Shape({2}), Tensor::Scalar<int32_t>(2)}, ListAttrs());
  CHECK_THAT(over.status.message(), Contains("TensorListScatter: Trying to scatter at index 3 in list with size 2"));
  Run v1 = RunOp("TensorListScatter", {rows, I32({1, -1}), Shape({2})}, ListAttrs());
  CHECK_THAT(v1.status.message(), Contains("Indices in TensorListScatter must all be non-negative."));
}

// A vector of variants holding `lists`.
Tensor ListVector(const std::vector<Tensor>& lists) {
  Tensor v(tf::DT_VARIANT, TensorShape({static_cast<int64_t>(lists.size())}));
  for (size_t i = 0; i < lists.size(); ++i) v.base<Variant>()[i] = lists[i].base<Variant>()[0];
  return v;
}
const TensorList& ListAt(const Tensor& vector, int64_t i) {
  const TensorList* list = vector.base<Variant>()[i].get<TensorList>();
  REQUIRE(list != nullptr);
  return *list;
}

TEST_CASE("vectors of lists: a push of each row onto its own list, and lists joined pairwise", "[list]") {
  Tensor empty = Ok(RunOp("EmptyTensorList", {Shape({2}), Tensor::Scalar<int32_t>(-1)}, ListAttrs()));
  Tensor one = Push(empty, F32({1, 2}, {2}));
  Tensor pushed = Ok(RunOp("TensorListPushBackBatch", {ListVector({one, empty}), F32({3, 4, 5, 6}, {2, 2})},
                           ElementAttr()));
  REQUIRE(pushed.shape() == TensorShape({2}));
  CHECK(ListAt(pushed, 0).tensors.size() == 2);
  CHECK(ListFloats(*ListAt(pushed, 0).tensors[1]) == std::vector<float>{3, 4});
  CHECK(ListFloats(*ListAt(pushed, 1).tensors[0]) == std::vector<float>{5, 6});
  Run rows = RunOp("TensorListPushBackBatch", {ListVector({one, empty}), F32({3, 4}, {1, 2})}, ElementAttr());
  CHECK_THAT(rows.status.message(), Contains("Expected tensor.shape[0] == input_handles.size, but saw 1 vs. 2"));

  Tensor joined = Ok(RunOp("TensorListConcatLists", {ListVector({one, empty}), ListVector({one, one})},
                           ElementAttr()));
  CHECK(ListAt(joined, 0).tensors.size() == 2);
  CHECK(ListAt(joined, 1).tensors.size() == 1);
  Tensor other = Ok(RunOp("EmptyTensorList", {Shape({-1}), Tensor::Scalar<int32_t>(-1)}, ListAttrs()));
  Run shapes = RunOp("TensorListConcatLists", {one, other}, ElementAttr());
  CHECK_THAT(shapes.status.message(),
             Contains("input_a and input_b TensorList element shapes are not identical at index 0.  Saw [2] vs. [?]"));
}

TEST_CASE("variant tensors pack, unpack and gather by value", "[list][variant]") {
  Tensor empty = Ok(RunOp("EmptyTensorList", {Shape({2}), Tensor::Scalar<int32_t>(-1)}, ListAttrs()));
  Tensor one = Push(empty, F32({1, 2}, {2}));
  testing::AttrMap pack = {{"N", IntA(2)}, {"T", TypeA(tf::DT_VARIANT)}, {"axis", IntA(0)}};
  Tensor packed = Ok(RunOp("Pack", {one, empty}, pack));
  REQUIRE(packed.shape() == TensorShape({2}));
  CHECK(ListAt(packed, 0).tensors.size() == 1);  // (the lists themselves, not empty variants)
  CHECK(ListAt(packed, 1).tensors.empty());
  Run unpacked = RunOp("Unpack", {packed}, {{"num", IntA(2)}, {"T", TypeA(tf::DT_VARIANT)}, {"axis", IntA(0)}});
  CHECK(ListOf(Ok(unpacked, 0)).tensors.size() == 1);
  Tensor gathered = Ok(RunOp("GatherV2", {packed, I32({1, 0, 0}), Tensor::Scalar<int32_t>(0)},
                             {{"Tparams", TypeA(tf::DT_VARIANT)}, {"Tindices", TypeA(tf::DT_INT32)},
                              {"Taxis", TypeA(tf::DT_INT32)}}));
  CHECK(ListAt(gathered, 2).tensors.size() == 1);
}

TEST_CASE("gradients add lists element by element, an unset element as zeros, and zero them", "[list]") {
  Tensor reserved = Ok(RunOp("TensorListReserve", {Shape({2}), Tensor::Scalar<int32_t>(2)}, ListAttrs()));
  Tensor a = Ok(RunOp("TensorListSetItem", {reserved, Tensor::Scalar<int32_t>(0), F32({1, 2}, {2})}, ElementAttr()));
  Tensor b = Ok(RunOp("TensorListFromTensor", {F32({10, 20, 30, 40}, {2, 2}), Shape({2})}, ListAttrs()));
  Tensor sum = Ok(RunOp("AddN", {a, b, a}, {{"T", TypeA(tf::DT_VARIANT)}, {"N", IntA(3)}}));
  Tensor stacked = Ok(RunOp("TensorListStack", {sum, Shape({2})}, ElementAttr()));
  CHECK(ListFloats(stacked) == std::vector<float>{12, 24, 30, 40});
  Tensor zeros = Ok(RunOp("ZerosLike", {a}, {{"T", TypeA(tf::DT_VARIANT)}}));
  CHECK(ListOf(zeros).tensors[0].has_value());
  CHECK_FALSE(ListOf(zeros).tensors[1].has_value());
  CHECK(ListFloats(*ListOf(zeros).tensors[0]) == std::vector<float>{0, 0});
  Tensor short_list = Ok(RunOp("TensorListReserve", {Shape({2}), Tensor::Scalar<int32_t>(1)}, ListAttrs()));
  Run lengths = RunOp("AddN", {a, short_list}, {{"T", TypeA(tf::DT_VARIANT)}, {"N", IntA(2)}});
  CHECK_THAT(lengths.status.message(), Contains("Trying to add two lists of tensors with different lengths"));
}

TEST_CASE("an optional gives back its components, and one without a value refuses", "[optional]") {
  tf::AttrValue types;
  types.mutable_list()->add_type(tf::DT_FLOAT);
  types.mutable_list()->add_type(tf::DT_INT32);
  Tensor some = Ok(RunOp("OptionalFromValue", {F32({1.5f}, {1}), I32({7})}, {{"Toutput_types", types}}));
  Tensor none = Ok(RunOp("OptionalNone", {}, {}));
  CHECK(Ok(RunOp("OptionalHasValue", {some}, {})).base<bool>()[0]);
  CHECK_FALSE(Ok(RunOp("OptionalHasValue", {none}, {})).base<bool>()[0]);
  tf::AttrValue shapes;
  shapes.mutable_list()->add_shape()->set_unknown_rank(true);
  shapes.mutable_list()->add_shape()->set_unknown_rank(true);
  Run got = RunOp("OptionalGetValue", {some}, {{"output_types", types}, {"output_shapes", shapes}});
  CHECK(ListFloats(Ok(got, 0)) == std::vector<float>{1.5f});
  CHECK(Ok(got, 1).base<int32_t>()[0] == 7);
  Run empty = RunOp("OptionalGetValue", {none}, {{"output_types", types}, {"output_shapes", shapes}});
  CHECK(empty.status.code() == tf::error::INVALID_ARGUMENT);
  CHECK_THAT(empty.status.message(), Contains("does not have a value"));
  Run list = RunOp("OptionalHasValue", {Ok(RunOp("OptionalNone", {}, {}))}, {});
  CHECK(list.status.ok());
  Tensor a_list = Ok(RunOp("EmptyTensorList", {Shape({2}), Tensor::Scalar<int32_t>(-1)}, ListAttrs()));
  Run wrong = RunOp("OptionalHasValue", {a_list}, {});
  CHECK_THAT(wrong.status.message(), Contains("holding tensorflow::TensorList"));
}

// TensorFlow 2.21's tf.io.serialize_tensor of a list of [[1, 2], [3, 4]]'s rows resized to 3
// (element 2 unset), and of an optional holding 1.5 and [1, 2].
const char kTensorFlowList[] =
    "\x08\x15\x12\x00\x22\x5d\x5c\x0a\x16\x74\x65\x6e\x73\x6f\x72\x66\x6c\x6f\x77\x3a\x3a\x54\x65\x6e\x73\x6f\x72\x4c"
    "\x69\x73\x74\x12\x1a\x01\x02\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x12\x0b\x08\xff\xff\xff\xff\xff\xff\xff"
    "\xff\xff\x01\x1a\x12\x08\x01\x12\x04\x12\x02\x08\x02\x2a\x08\x00\x00\x80\x3f\x00\x00\x00\x40\x1a\x12\x08\x01\x12"
    "\x04\x12\x02\x08\x02\x2a\x08\x00\x00\x40\x40\x00\x00\x80\x40";
const char kTensorFlowOptional[] =
    "\x08\x15\x12\x00\x22\x3a\x39\x0a\x1a\x74\x65\x6e\x73\x6f\x72\x66\x6c\x6f\x77\x3a\x3a\x64\x61\x74\x61\x3a\x3a\x4f"
    "\x70\x74\x69\x6f\x6e\x61\x6c\x12\x01\x01\x1a\x0a\x08\x01\x12\x00\x2a\x04\x00\x00\xc0\x3f\x1a\x0c\x08\x03\x12\x04"
    "\x12\x02\x08\x02\x3a\x02\x01\x02";

tf::TensorProto ParsedProto(const char* bytes, size_t size) {
  tf::TensorProto proto;
  REQUIRE(proto.ParseFromArray(bytes, static_cast<int>(size)));
  return proto;
}

TEST_CASE("variant values read TensorFlow's encoding and write it back byte for byte", "[variant]") {
  tf::TensorProto from_tf = ParsedProto(kTensorFlowList, sizeof(kTensorFlowList) - 1);
  auto list = Tensor::FromProto(from_tf);
  INFO(list.status());
  REQUIRE(list.ok());
  const TensorList& l = ListOf(list.value());
  CHECK(l.element_dtype == tf::DT_FLOAT);
  CHECK(l.element_shape.DebugString() == "[?]");
  CHECK(l.max_num_elements == -1);
  REQUIRE(l.tensors.size() == 3);
  CHECK(ListFloats(*l.tensors[1]) == std::vector<float>{3, 4});
  CHECK(!l.tensors[2]);
  // Our encoding of the value is TensorFlow's: the same bytes as the element of its
  // tensor_content (one length byte, then the VariantTensorDataProto).
  tf::TensorProto ours;
  list.value().AsProtoField(&ours);
  REQUIRE(ours.variant_val_size() == 1);
  CHECK(ours.variant_val(0).SerializeAsString() == from_tf.tensor_content().substr(1));

  tf::TensorProto optional_tf = ParsedProto(kTensorFlowOptional, sizeof(kTensorFlowOptional) - 1);
  auto optional = Tensor::FromProto(optional_tf);
  INFO(optional.status());
  REQUIRE(optional.ok());
  tf::AttrValue types, shapes;
  types.mutable_list()->add_type(tf::DT_FLOAT);
  types.mutable_list()->add_type(tf::DT_INT32);
  shapes.mutable_list()->add_shape()->set_unknown_rank(true);
  shapes.mutable_list()->add_shape()->set_unknown_rank(true);
  Run value = RunOp("OptionalGetValue", {optional.value()}, {{"output_types", types}, {"output_shapes", shapes}});
  CHECK(Ok(value, 0).base<float>()[0] == 1.5f);
  CHECK(Ok(value, 1).base<int32_t>()[1] == 2);
  optional.value().AsProtoField(&ours);
  CHECK(ours.variant_val(0).SerializeAsString() == optional_tf.tensor_content().substr(1));

  // SerializeTensor writes them as tf.io.serialize_tensor does, into tensor_content.
  Run serialized = RunOp("SerializeTensor", {list.value()}, {{"T", testing::TypeA(tf::DT_VARIANT)}});
  CHECK(*Ok(serialized).base<std::string>() == std::string(kTensorFlowList, sizeof(kTensorFlowList) - 1));
  serialized = RunOp("SerializeTensor", {optional.value()}, {{"T", testing::TypeA(tf::DT_VARIANT)}});
  CHECK(*Ok(serialized).base<std::string>() == std::string(kTensorFlowOptional, sizeof(kTensorFlowOptional) - 1));
}

TEST_CASE("a variant tensor round-trips through a TensorProto: lists of lists, unset elements, limits",
          "[variant]") {
  Tensor inner = Ok(RunOp("TensorListFromTensor", {F32({1, 2, 3, 4, 5, 6}, {3, 2}), Shape({2})}, ListAttrs()));
  Tensor outer = Ok(RunOp("EmptyTensorList", {UnknownRank(), Tensor::Scalar<int32_t>(4)}, ListAttrs(tf::DT_VARIANT)));
  outer = Push(outer, inner);
  outer = Ok(RunOp("TensorListResize", {outer, Tensor::Scalar<int32_t>(3)}, {}));
  tf::TensorProto proto;
  outer.AsProtoTensorContent(&proto);
  auto back = Tensor::FromProto(proto);
  INFO(back.status());
  REQUIRE(back.ok());
  const TensorList& l = ListOf(back.value());
  CHECK(l.max_num_elements == 4);
  REQUIRE(l.tensors.size() == 3);
  CHECK(!l.tensors[1]);
  CHECK(ListOf(*l.tensors[0]).tensors.size() == 3);
  CHECK(ListFloats(*ListOf(*l.tensors[0]).tensors[2]) == std::vector<float>{5, 6});
  CHECK(back.value().DebugString() == outer.DebugString());
}

TEST_CASE("a corrupt or unknown encoded variant is refused, never trusted", "[variant]") {
  tf::TensorProto proto = ParsedProto(kTensorFlowList, sizeof(kTensorFlowList) - 1);
  tf::TensorProto list_proto;
  Tensor::FromProto(proto).value().AsProtoField(&list_proto);
  auto refused = [&](const tf::TensorProto& p, const std::string& what) {
    auto t = Tensor::FromProto(p);
    CHECK(t.status().code() == tf::error::INVALID_ARGUMENT);
    CHECK_THAT(t.status().message(), Contains(what));
  };
  tf::TensorProto unknown = list_proto;
  unknown.mutable_variant_val(0)->set_type_name("tensorflow::SomethingElse");
  refused(unknown, "which this process cannot decode");
  tf::TensorProto many = list_proto;
  many.mutable_variant_val(0)->set_metadata(std::string("\xff\xff\xff\xff\x0f", 5));  // 2^32 - 1 unset
  refused(many, "unset elements announced");
  tf::TensorProto out_of_order = list_proto;
  out_of_order.mutable_variant_val(0)->set_metadata(std::string("\x02\x01\x01\x01", 4));
  refused(out_of_order, "unset element index 1");
  tf::TensorProto wrong_type = list_proto;
  wrong_type.mutable_variant_val(0)->mutable_tensors(0)->set_dtype(tf::DT_INT32);
  refused(wrong_type, "is a int32 tensor");
  tf::TensorProto count = list_proto;
  count.mutable_tensor_shape()->add_dim()->set_size(2);
  refused(count, "has 1 values in variant_val, not 2");
  // A list nested 40 deep (each level a list holding the one below).
  tf::TensorProto deep = list_proto;
  for (int i = 0; i < 40; ++i) {
    tf::TensorProto level;
    level.set_dtype(tf::DT_VARIANT);
    level.mutable_tensor_shape();
    auto* v = level.add_variant_val();
    *v = list_proto.variant_val(0);
    v->clear_tensors();
    std::string metadata;
    metadata += '\x00';                                  // no unset elements
    metadata += static_cast<char>(tf::DT_VARIANT);       // element dtype
    metadata += std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);  // max -1
    v->set_metadata(metadata);
    *v->add_tensors() = deep;
    deep = level;
  }
  refused(deep, "nested more than 32 deep");
}

}  // namespace
}  // namespace tensoract
