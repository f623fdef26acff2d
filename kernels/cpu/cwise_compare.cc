// Comparisons and logic with broadcasting, on the CPU: Greater, GreaterEqual, Less,
// LessEqual, Equal, NotEqual (bool outputs) of float, double, int32 and int64 (and Equal and
// NotEqual of bool; the other types in cwise_compare_more.cc), LogicalAnd, LogicalOr,
// LogicalNot.
#include "kernels/cpu/cwise_compare_ops.h"

namespace tensoract {
namespace {

using namespace cwise;  // NOLINT: the functors this file registers

struct LogicalAnd : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a && b; }
};
struct LogicalOr : CwiseFunctor {
  template <class A, class B>
  auto operator()(const A& a, const B& b) const { return a || b; }
};
struct LogicalNot : CwiseFunctor {
  template <class A>
  auto operator()(const A& a) const { return !a; }
};

#define TA_REGISTER_COMPARE(OP, F, T) \
  REGISTER_KERNEL(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T"), BinaryOp<T, F, bool>)
#define TA_REGISTER_EQUALITY(T)                                                                      \
  REGISTER_KERNEL(Name("Equal").Device(DEVICE_CPU).TypeConstraint<T>("T"), EqualityOp<T, Equal>);    \
  REGISTER_KERNEL(Name("NotEqual").Device(DEVICE_CPU).TypeConstraint<T>("T"), EqualityOp<T, NotEqual>);
#define TA_REGISTER_ALL(T)                                 \
  TA_REGISTER_COMPARE("Greater", Greater, T);              \
  TA_REGISTER_COMPARE("GreaterEqual", GreaterEqual, T);    \
  TA_REGISTER_COMPARE("Less", Less, T);                    \
  TA_REGISTER_COMPARE("LessEqual", LessEqual, T);          \
  TA_REGISTER_EQUALITY(T)
TA_REGISTER_ALL(float)
TA_REGISTER_ALL(double)
TA_REGISTER_ALL(int32_t)
TA_REGISTER_ALL(int64_t)
TA_REGISTER_EQUALITY(bool)
#undef TA_REGISTER_ALL
#undef TA_REGISTER_EQUALITY
#undef TA_REGISTER_COMPARE

REGISTER_KERNEL(Name("LogicalAnd").Device(DEVICE_CPU), BinaryOp<bool, LogicalAnd>);
REGISTER_KERNEL(Name("LogicalOr").Device(DEVICE_CPU), BinaryOp<bool, LogicalOr>);
REGISTER_KERNEL(Name("LogicalNot").Device(DEVICE_CPU), UnaryOp<bool, LogicalNot>);

}  // namespace
}  // namespace tensoract
