// Runs one op's CPU kernel directly on given tensors, without a graph or session: the
// harness the kernel-family tests (array ops, reductions) share.
#ifndef TENSORACT_TESTS_KERNELS_KERNEL_TEST_UTIL_H_
#define TENSORACT_TESTS_KERNELS_KERNEL_TEST_UTIL_H_

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "kernels/kernel_registry.h"

namespace tensoract {
namespace testing {

inline Device* TestDevice() {
  static Device* device = new Device("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 4);
  return device;
}

inline tensorflow::AttrValue TypeA(DataType t) { tensorflow::AttrValue v; v.set_type(t); return v; }
inline tensorflow::AttrValue BoolA(bool b) { tensorflow::AttrValue v; v.set_b(b); return v; }
inline tensorflow::AttrValue FloatA(float f) { tensorflow::AttrValue v; v.set_f(f); return v; }

inline tensorflow::AttrValue Ints(const std::vector<int64_t>& v) {
  tensorflow::AttrValue a;
  for (int64_t i : v) a.mutable_list()->add_i(i);
  return a;
}
inline tensorflow::AttrValue Str(const std::string& s) {
  tensorflow::AttrValue a;
  a.set_s(s);
  return a;
}
inline tensorflow::AttrValue Strs(const std::vector<std::string>& v) {
  tensorflow::AttrValue a;
  for (const std::string& s : v) a.mutable_list()->add_s(s);
  return a;
}
inline tensorflow::AttrValue IntA(int64_t i) {
  tensorflow::AttrValue a;
  a.set_i(i);
  return a;
}
// The type attr of T ("T": TOf<float>()).
template <class T>
tensorflow::AttrValue TOf() {
  return TypeA(DataTypeToEnum<T>::value);
}
// A tensor of T of `shape` holding `values`.
template <class T>
Tensor Make(const std::vector<double>& values, const TensorShape& shape) {
  std::vector<T> v;
  for (double d : values) v.push_back(static_cast<T>(d));
  return Tensor::FromVector(v, shape);
}
// first, first + 1, ..., n values.
template <class T>
std::vector<T> Iota(int n, T first = T(0)) {
  std::vector<T> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<T>(first + i);
  return v;
}
// An int32 vector, as index, shape and size inputs are.
inline Tensor I32(std::vector<int32_t> v) { return Tensor::FromVector<int32_t>(v); }
// The 2 x 2 double matrix [[a, b], [c, d]].
inline Tensor M2(double a, double b, double c, double d) {
  return Tensor::FromVector<double>({a, b, c, d}, TensorShape({2, 2}));
}

// A float tensor of `dims` holding scale * sin(a * i + 0.3) at flat index i: values of both
// signs, no two neighbours alike, the same on every run.
inline Tensor SinePattern(const std::vector<int64_t>& dims, float a, float scale = 1.f) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = scale * std::sin(a * static_cast<float>(i) + 0.3f);
  return Tensor::FromVector<float>(v, TensorShape(dims));
}

using AttrMap = std::map<std::string, tensorflow::AttrValue>;

struct Run {
  Status status;
  std::vector<Tensor> outputs;  // empty when status is an error
};

// Node "n" of `op` with `attrs`, its defaults filled in.
inline NodeDef MakeDef(const std::string& op, const AttrMap& attrs) {
  NodeDef def;
  def.set_name("n");
  def.set_op(op);
  for (auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;
  auto op_def = OpRegistry::Global()->LookUp(op);
  REQUIRE(op_def.ok());
  AddDefaultsToNodeDef(**op_def, &def);
  return def;
}

// The kernel of node "n" of `op` with `attrs` on TestDevice().
inline Status MakeKernel(const std::string& op, const AttrMap& attrs, std::unique_ptr<OpKernel>* kernel) {
  return CreateOpKernel(TestDevice(), MakeDef(op, attrs), **OpRegistry::Global()->LookUp(op), kernel);
}

// Runs `kernel` once on `inputs`.
inline Run RunKernel(OpKernel* kernel, const std::vector<Tensor>& inputs) {
  OpKernelContext::Params params;
  params.device = TestDevice();
  params.kernel = kernel;
  params.inputs = &inputs;
  OpKernelContext ctx(params);
  kernel->Compute(&ctx);
  return {ctx.status(), ctx.status().ok() ? ctx.outputs() : std::vector<Tensor>{}};
}

// Makes node "n" of `op` with `attrs` (defaults filled in), its kernel on TestDevice(), and
// runs it once on `inputs`.
inline Run RunOp(const std::string& op, const std::vector<Tensor>& inputs, AttrMap attrs) {
  std::unique_ptr<OpKernel> kernel;
  Status s = MakeKernel(op, attrs, &kernel);
  INFO(s);
  REQUIRE(s.ok());
  return RunKernel(kernel.get(), inputs);
}

// One-input and two-input elementwise ops of attr T (the first input's type).
inline Run Unary(const char* op, const Tensor& x) { return RunOp(op, {x}, {{"T", TypeA(x.dtype())}}); }
inline Run Binary(const char* op, const Tensor& x, const Tensor& y) { return RunOp(op, {x, y}, {{"T", TypeA(x.dtype())}}); }

// As RunOp, but a kernel that refuses its attrs is a result too (its status, no outputs).
inline Run RunMaybe(const std::string& op, const std::vector<Tensor>& inputs, const AttrMap& attrs) {
  std::unique_ptr<OpKernel> kernel;
  Status s = MakeKernel(op, attrs, &kernel);
  if (!s.ok()) return {s, {}};
  return RunKernel(kernel.get(), inputs);
}

// `op`'s shape function (with `attrs`, defaults filled in) on inputs of `shapes`; the
// inferred output shapes go to `outputs`.
inline Status InferShapes(const std::string& op, const AttrMap& attrs, std::vector<PartialTensorShape> shapes,
                          std::vector<PartialTensorShape>* outputs = nullptr) {
  const NodeDef def = MakeDef(op, attrs);
  auto data = OpRegistry::Global()->LookUpOpData(op);
  REQUIRE(data.ok());
  DataTypeVector ins, outs;
  TA_RETURN_IF_ERROR(InOutTypesForNode(def, (*data)->op_def, &ins, &outs));
  shape_inference::InferenceContext c(&def, &(*data)->op_def, kGraphDefVersion, ins, outs, std::move(shapes));
  TA_RETURN_IF_ERROR((*data)->shape_inference_fn(&c));
  TA_RETURN_IF_ERROR(c.usage_status());
  if (outputs != nullptr) {
    outputs->clear();
    for (int i = 0; i < c.num_outputs(); ++i) outputs->push_back(c.output(i));
  }
  return Status::OK();
}

template <class T>
std::vector<T> Values(const Tensor& t) {
  REQUIRE(t.dtype() == DataTypeToEnum<T>::value);
  return std::vector<T>(t.base<T>(), t.base<T>() + t.NumElements());
}

// A fused kernel's float output against the unfused kernels': the same shape and the same
// values to the bit.
inline void CheckSameFloats(const Tensor& got, const Tensor& want) {
  REQUIRE(got.shape() == want.shape());
  const std::vector<float> a = Values<float>(got), b = Values<float>(want);
  int64_t differ = 0;
  for (size_t i = 0; i < a.size(); ++i) differ += a[i] != b[i];
  CHECK(differ == 0);
}

// t + shift, element by element (float): operands whose products do not cancel out, as a
// network's mostly do not (a sum of many products of both signs that cancels to almost
// nothing keeps a reduced precision's absolute error, which is then large against it).
inline Tensor Shifted(Tensor t, float shift) {
  for (int64_t i = 0; i < t.NumElements(); ++i) t.base<float>()[i] += shift;
  return t;
}

// A float tensor rounded to bfloat16 (to nearest even), and a bfloat16 one widened back.
inline Tensor ToBfloat16(const Tensor& f) {
  Tensor out(tensorflow::DT_BFLOAT16, f.shape());
  for (int64_t i = 0; i < f.NumElements(); ++i) out.base<Eigen::bfloat16>()[i] = Eigen::bfloat16(f.base<float>()[i]);
  return out;
}
inline Tensor WidenToFloat(const Tensor& b) {
  Tensor out(tensorflow::DT_FLOAT, b.shape());
  for (int64_t i = 0; i < b.NumElements(); ++i) out.base<float>()[i] = static_cast<float>(b.base<Eigen::bfloat16>()[i]);
  return out;
}

// The largest |got - want| over the largest |want|, float tensors of as many elements: how far
// a kernel of reduced precision (bfloat16 or int8 products) lies from float.
inline double LargestRelativeDifference(const Tensor& got, const Tensor& want) {
  REQUIRE(got.NumElements() == want.NumElements());
  double worst = 0, largest = 0;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    worst = std::max(worst, std::fabs(double{got.base<float>()[i]} - want.base<float>()[i]));
    largest = std::max(largest, std::fabs(double{want.base<float>()[i]}));
  }
  return largest > 0 ? worst / largest : worst;
}

// A 3x3 convolution of stride 1 and SAME padding of x [batch, rows, cols, in] (NHWC) by an
// HWIO filter f [3, 3, in, out], in double: the reference for operands a test has rounded.
inline std::vector<double> ReferenceConv3x3Same(const std::vector<double>& x, const std::vector<double>& f,
                                                int64_t batch, int64_t rows, int64_t cols, int64_t in, int64_t out) {
  std::vector<double> y(batch * rows * cols * out, 0.0);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c)
        for (int64_t o = 0; o < out; ++o) {
          double sum = 0;
          for (int64_t fr = 0; fr < 3; ++fr)
            for (int64_t fc = 0; fc < 3; ++fc) {
              const int64_t ir = r + fr - 1, ic = c + fc - 1;
              if (ir < 0 || ir >= rows || ic < 0 || ic >= cols) continue;
              for (int64_t i = 0; i < in; ++i) {
                sum += x[((b * rows + ir) * cols + ic) * in + i] * f[((fr * 3 + fc) * in + i) * out + o];
              }
            }
          y[((b * rows + r) * cols + c) * out + o] = sum;
        }
  return y;
}

}  // namespace testing
}  // namespace tensoract

#endif  // TENSORACT_TESTS_KERNELS_KERNEL_TEST_UTIL_H_
