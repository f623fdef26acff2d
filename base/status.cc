#include "base/status.h"

namespace tensoract {

Status::Status(error::Code code, std::string message) {
  if (code != error::OK) state_ = std::make_shared<const State>(State{code, std::move(message)});
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return ok() ? kEmpty : state_->message;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return ErrorCodeName(code()) + ": " + message();
}

Status Status::WithContext(const std::string& prefix) const {
  if (ok()) return *this;
  return Status(code(), prefix + ": " + message());
}

std::ostream& operator<<(std::ostream& os, const Status& s) { return os << s.ToString(); }

std::string ErrorCodeName(error::Code code) {
  const std::string& name = error::Code_Name(code);
  return name.empty() ? StrCat("CODE_", static_cast<int>(code)) : name;
}

}  // namespace tensoract
