// CheckNumerics and CheckNumericsV2 on the CPU: the input passed through unchanged (the same
// buffer), or an InvalidArgument "<message> : Tensor had <what> values" when it holds an
// infinity or a NaN, <what> as TensorFlow words it ("Inf", "NaN", "Inf and NaN"; V2 tells
// "-Inf" from "+Inf": "-Inf, +Inf, and NaN"). float, double, half and bfloat16 (read as the
// floats they widen to), as TensorFlow's CPU registers them.
#include <cmath>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "kernels/cpu/strided_copy.h"

namespace tensoract {
namespace {

template <class T, bool kV2>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const T* p = in.base<T>();
    bool negative_inf = false, positive_inf = false, nan = false;
    for (int64_t i = 0, n = in.NumElements(); i < n; ++i) {
      const double d = static_cast<double>(p[i]);  // exact for every T
      if (std::isnan(d)) nan = true;
      else if (std::isinf(d)) (d < 0 ? negative_inf : positive_inf) = true;
    }
    std::vector<std::string> found;
    if (kV2) {
      if (negative_inf) found.push_back("-Inf");
      if (positive_inf) found.push_back("+Inf");
    } else if (negative_inf || positive_inf) {
      found.push_back("Inf");
    }
    if (nan) found.push_back("NaN");
    if (!found.empty()) {
      std::string what = found[0];
      if (found.size() == 2) what += " and " + found[1];
      if (found.size() == 3) what += ", " + found[1] + ", and " + found[2];
      ctx->SetStatus(errors::InvalidArgument(NodePrefix(*this), message_, " : Tensor had ", what, " values"));
      return;
    }
    ctx->set_output(0, in);
  }

 private:
  std::string message_;
};

#define TA_REGISTER_CHECK(T)                                                                               \
  REGISTER_KERNEL(Name("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<T>("T"), CheckNumericsOp<T, false>); \
  REGISTER_KERNEL(Name("CheckNumericsV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), CheckNumericsOp<T, true>);
TA_REGISTER_CHECK(float)
TA_REGISTER_CHECK(double)
TA_REGISTER_CHECK(Eigen::half)
TA_REGISTER_CHECK(Eigen::bfloat16)
#undef TA_REGISTER_CHECK

}  // namespace
}  // namespace tensoract
