#include "client/gradient_checker.h"

#include <algorithm>
#include <cmath>

#include "client/session.h"
#include "graph/builder/ops.h"
#include "graph/gradients/gradients.h"

namespace tensoract {
namespace {

double Get(const Tensor& t, int64_t i) {
  return t.dtype() == tensorflow::DT_DOUBLE ? t.base<double>()[i] : static_cast<double>(t.base<float>()[i]);
}
void Set(Tensor* t, int64_t i, double v) {
  if (t->dtype() == tensorflow::DT_DOUBLE) {
    t->base<double>()[i] = v;
  } else {
    t->base<float>()[i] = static_cast<float>(v);
  }
}

}  // namespace

StatusOr<double> MaxGradientError(const Scope& scope, const std::vector<Output>& xs,
                                  const std::vector<Tensor>& x_values, const Output& y, double delta) {
  if (xs.size() != x_values.size()) return errors::InvalidArgument(xs.size(), " xs but ", x_values.size(), " values");
  const DataType type = y.type();
  if (type != tensorflow::DT_FLOAT && type != tensorflow::DT_DOUBLE) {
    return errors::InvalidArgument("the gradient checker needs a float or double y, not ", DataTypeString(type));
  }
  auto dy = ops::Placeholder(scope.WithOpName("gradient_checker/dy"), type);
  std::vector<Output> grads;
  TA_RETURN_IF_ERROR(AddSymbolicGradients(scope, {y}, xs, {dy}, &grads));
  tensorflow::GraphDef graph;
  TA_RETURN_IF_ERROR(scope.ToGraphDef(&graph));
  SessionOptions options;
  options.num_threads = 1;
  TA_ASSIGN_OR_RETURN(auto session, Session::New(options));
  TA_RETURN_IF_ERROR(session->Create(graph));

  std::vector<std::pair<std::string, Tensor>> feeds;
  for (size_t i = 0; i < xs.size(); ++i) feeds.push_back({xs[i].name(), x_values[i].DeepCopy()});
  std::vector<Tensor> out;
  TA_RETURN_IF_ERROR(session->Run(feeds, {y.name()}, {}, &out));
  const Tensor y0 = out[0];
  const int64_t ny = y0.NumElements();

  // analytic[i][j * nx + k]: d y_j / d x_i[k], one row j per one-hot dy.
  std::vector<std::vector<double>> analytic(xs.size());
  std::vector<std::string> grad_names;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (grads[i].node == nullptr) return errors::InvalidArgument("no gradient reaches x ", xs[i].name());
    grad_names.push_back(grads[i].name());
    analytic[i].assign(ny * x_values[i].NumElements(), 0.0);
  }
  for (int64_t j = 0; j < ny; ++j) {
    Tensor onehot(type, y0.shape());
    for (int64_t k = 0; k < ny; ++k) Set(&onehot, k, k == j ? 1.0 : 0.0);
    auto step = feeds;
    step.push_back({dy.name(), onehot});
    TA_RETURN_IF_ERROR(session->Run(step, grad_names, {}, &out));
    for (size_t i = 0; i < xs.size(); ++i) {
      const int64_t nx = x_values[i].NumElements();
      if (out[i].NumElements() != nx) {
        return errors::Internal("the gradient for ", xs[i].name(), " has ", out[i].NumElements(),
                                " elements, the input ", nx);
      }
      for (int64_t k = 0; k < nx; ++k) analytic[i][j * nx + k] = Get(out[i], k);
    }
  }
  double max_error = 0;
  for (size_t i = 0; i < xs.size(); ++i) {
    const int64_t nx = x_values[i].NumElements();
    for (int64_t k = 0; k < nx; ++k) {
      auto moved = feeds;
      std::vector<Tensor> plus, minus;
      moved[i].second = x_values[i].DeepCopy();
      Set(&moved[i].second, k, Get(x_values[i], k) + delta);
      TA_RETURN_IF_ERROR(session->Run(moved, {y.name()}, {}, &plus));
      moved[i].second = x_values[i].DeepCopy();
      Set(&moved[i].second, k, Get(x_values[i], k) - delta);
      TA_RETURN_IF_ERROR(session->Run(moved, {y.name()}, {}, &minus));
      for (int64_t j = 0; j < ny; ++j) {
        const double numeric = (Get(plus[0], j) - Get(minus[0], j)) / (2 * delta);
        max_error = std::max(max_error, std::fabs(numeric - analytic[i][j * nx + k]));
      }
    }
  }
  return max_error;
}

}  // namespace tensoract
