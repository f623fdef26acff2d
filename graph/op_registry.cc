#include "graph/op_registry.h"

namespace tensoract {

OpRegistry* OpRegistry::Global() {
  static OpRegistry* const kRegistry = new OpRegistry;  // never destroyed: used by static init
  return kRegistry;
}

void OpRegistry::Register(const OpDefBuilder& builder) {
  auto entry = std::make_unique<Entry>();
  entry->status = builder.Finalize(&entry->data);
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = ops_[builder.op_name()];
  if (slot != nullptr) {
    slot->status = errors::AlreadyExists("op '", builder.op_name(), "' is registered twice");
    return;
  }
  slot = std::move(entry);
}

StatusOr<const tensorflow::OpDef*> OpRegistry::LookUp(const std::string& op_type) const {
  TA_ASSIGN_OR_RETURN(const OpRegistrationData* data, LookUpOpData(op_type));
  return &data->op_def;
}

StatusOr<const OpRegistrationData*> OpRegistry::LookUpOpData(const std::string& op_type) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(op_type);
  if (it == ops_.end()) {
    auto alias = aliases_.find(op_type);
    if (alias != aliases_.end()) it = ops_.find(alias->second);
  }
  if (it == ops_.end()) {
    return errors::NotFound("op type '", op_type, "' is not registered in tensoract (", ops_.size(),
                            " ops are; see OpRegistry::ListOpNames)");
  }
  if (!it->second->status.ok()) return it->second->status;
  return &it->second->data;
}

void OpRegistry::RegisterAlias(const std::string& alias, const std::string& op) {
  std::lock_guard<std::mutex> lock(mu_);
  aliases_[alias] = op;
}

std::vector<std::string> OpRegistry::ListOpNames() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, entry] : ops_) names.push_back(name);
  return names;
}

void OpRegistry::Export(tensorflow::OpList* ops) const {
  std::lock_guard<std::mutex> lock(mu_);
  ops->Clear();
  for (const auto& [name, entry] : ops_) {
    if (entry->status.ok()) *ops->add_op() = entry->data.op_def;
  }
}

}  // namespace tensoract
