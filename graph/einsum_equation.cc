#include "graph/einsum_equation.h"

#include <algorithm>

namespace tensoract {

Status SplitEinsumEquation(const std::string& equation, std::vector<std::string>* inputs, std::string* output) {
  const size_t arrow = equation.find("->");
  if (arrow == std::string::npos || equation.find("->", arrow + 2) != std::string::npos) {
    return errors::InvalidArgument("Expecting exactly one '->' in einsum equation: ", equation);
  }
  *output = equation.substr(arrow + 2);
  inputs->clear();
  const std::string lhs = equation.substr(0, arrow);
  for (size_t begin = 0;;) {
    const size_t comma = lhs.find(',', begin);
    inputs->push_back(lhs.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (inputs->size() != 1 && inputs->size() != 2) {
    return errors::InvalidArgument("Expecting 1 or 2 input subscripts in equation '", equation,
                                   "' but got: ", inputs->size());
  }
  return Status::OK();
}

Status ValidateEinsumEllipsis(const std::string& subscript, bool* has_ellipsis) {
  const auto periods = std::count(subscript.begin(), subscript.end(), '.');
  if (periods != 0 && periods != 3) {
    return errors::InvalidArgument("Expected at most one ellipsis (...), but found ", periods,
                                   " periods (.) in the input subscript: ", subscript);
  }
  if (periods == 3 && subscript.find("...") == std::string::npos) {
    return errors::InvalidArgument("Periods found outside of ellipsis in subscript: ", subscript);
  }
  *has_ellipsis = periods > 0;
  return Status::OK();
}

}  // namespace tensoract
