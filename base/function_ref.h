// FunctionRef<R(Args...)>: a callable passed down a call without being copied or owned (a
// kernel's loop body handed to CwiseParallelFor). A std::function parameter allocates for
// a lambda that captures more than two pointers, at every call: a loop of small kernels
// paid a malloc and a free per kernel for it. A FunctionRef is two pointers; the callable
// must outlive it, as a lambda passed straight to the call does.
#ifndef TENSORACT_BASE_FUNCTION_REF_H_
#define TENSORACT_BASE_FUNCTION_REF_H_

#include <memory>
#include <type_traits>
#include <utility>

namespace tensoract {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef> &&
                                              std::is_invocable_r_v<R, F&, Args...>>>
  FunctionRef(F&& f)  // NOLINT: implicit, as std::function's
      : callable_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* callable, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(callable))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(callable_, std::forward<Args>(args)...); }

 private:
  void* callable_;
  R (*call_)(void*, Args...);
};

}  // namespace tensoract

#endif  // TENSORACT_BASE_FUNCTION_REF_H_
