#include "graph/device_name.h"

#include <cctype>
#include <vector>

namespace tensoract {
namespace {

// "0", "17"; "*" is "not given". Refuses signs, spaces and numbers beyond int.
bool ParseIndex(const std::string& s, bool* has, int* value) {
  if (s == "*") {
    *has = false;
    *value = 0;
    return true;
  }
  if (s.empty() || s.size() > 9) return false;
  int v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  *has = true;
  *value = v;
  return true;
}

// A job name: a letter, then letters, digits, '_' or '-'. "*" is "not given".
bool ParseJob(const std::string& s, bool* has, std::string* job) {
  if (s == "*") {
    *has = false;
    job->clear();
    return true;
  }
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  *has = true;
  *job = s;
  return true;
}

// A device type: a letter or '_', then letters, digits or '_'. "cpu" and "gpu" in any case
// are the CPU and GPU devices, which call themselves "CPU" and "GPU".
bool ParseType(const std::string& s, bool* has, std::string* type) {
  if (s == "*") {
    *has = false;
    type->clear();
    return true;
  }
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  std::string upper;
  for (char c : s) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  *has = true;
  *type = (upper == "CPU" || upper == "GPU") ? upper : s;
  return true;
}

std::vector<std::string> SplitColon(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t colon = s.find(':', start);
    parts.push_back(s.substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return parts;
}

// One part between slashes: "job:x", "replica:0", "task:1", "device:GPU:0", "gpu:0".
bool ParsePart(const std::string& part, ParsedDeviceName* p) {
  std::vector<std::string> f = SplitColon(part);
  const std::string& key = f[0];
  if (key == "job" && f.size() == 2) return ParseJob(f[1], &p->has_job, &p->job);
  if (key == "replica" && f.size() == 2) return ParseIndex(f[1], &p->has_replica, &p->replica);
  if (key == "task" && f.size() == 2) return ParseIndex(f[1], &p->has_task, &p->task);
  if (key == "device") {
    // device:TYPE, device:TYPE:ID, with '*' for either.
    if (f.size() == 2) {
      p->has_id = false;
      p->id = 0;
      return ParseType(f[1], &p->has_type, &p->type);
    }
    if (f.size() == 3) return ParseType(f[1], &p->has_type, &p->type) && ParseIndex(f[2], &p->has_id, &p->id);
    return false;
  }
  // The legacy "/cpu:0", "/gpu:*" (any case), which always carries an id or '*'.
  if (f.size() == 2) {
    std::string upper;
    for (char c : key) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper == "CPU" || upper == "GPU") {
      p->has_type = true;
      p->type = upper;
      return ParseIndex(f[1], &p->has_id, &p->id);
    }
  }
  return false;
}

}  // namespace

bool ParsedDeviceName::operator==(const ParsedDeviceName& o) const {
  return has_job == o.has_job && (!has_job || job == o.job) && has_replica == o.has_replica &&
         (!has_replica || replica == o.replica) && has_task == o.has_task && (!has_task || task == o.task) &&
         has_type == o.has_type && (!has_type || type == o.type) && has_id == o.has_id && (!has_id || id == o.id);
}

bool ParseDeviceName(const std::string& name, ParsedDeviceName* out) {
  *out = ParsedDeviceName();
  if (name.empty() || name == "/") return true;
  if (name[0] != '/') return false;
  size_t pos = 1;
  while (pos <= name.size()) {
    size_t slash = name.find('/', pos);
    std::string part = name.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    if (part.empty() || !ParsePart(part, out)) return false;
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  return true;
}

Status ParseDeviceSpec(const std::string& name, ParsedDeviceName* out) {
  if (ParseDeviceName(name, out)) return Status::OK();
  return errors::InvalidArgument("malformed device specification '", name,
                                 "': expected parts such as /job:worker/replica:0/task:1/device:CPU:0, "
                                 "/device:GPU:*, or the legacy /cpu:0");
}

std::string DeviceNameString(const ParsedDeviceName& n) {
  std::string s;
  if (n.has_job) s += "/job:" + n.job;
  if (n.has_replica) s += "/replica:" + std::to_string(n.replica);
  if (n.has_task) s += "/task:" + std::to_string(n.task);
  if (n.has_type || n.has_id) {
    s += "/device:" + (n.has_type ? n.type : std::string("*")) + ":" +
         (n.has_id ? std::to_string(n.id) : std::string("*"));
  }
  return s;
}

bool IsSpecification(const ParsedDeviceName& pattern, const ParsedDeviceName& name) {
  if (pattern.has_job && (!name.has_job || name.job != pattern.job)) return false;
  if (pattern.has_replica && (!name.has_replica || name.replica != pattern.replica)) return false;
  if (pattern.has_task && (!name.has_task || name.task != pattern.task)) return false;
  if (pattern.has_type && (!name.has_type || name.type != pattern.type)) return false;
  if (pattern.has_id && (!name.has_id || name.id != pattern.id)) return false;
  return true;
}

bool IsCompleteName(const ParsedDeviceName& n) {
  return n.has_job && n.has_replica && n.has_task && n.has_type && n.has_id;
}

bool IsSameTask(const ParsedDeviceName& a, const ParsedDeviceName& b) {
  return a.has_job && b.has_job && a.job == b.job && a.has_replica && b.has_replica && a.replica == b.replica &&
         a.has_task && b.has_task && a.task == b.task;
}

Status MergeDeviceNames(ParsedDeviceName* target, const ParsedDeviceName& other, bool allow_soft_placement) {
  const ParsedDeviceName original = *target;
  auto conflict = [&](const char* what) {
    return errors::InvalidArgument("cannot merge device specifications '", DeviceNameString(original), "' and '",
                                   DeviceNameString(other), "': they ask for different ", what);
  };
  if (other.has_job) {
    if (target->has_job && target->job != other.job) return conflict("jobs");
    target->has_job = true;
    target->job = other.job;
  }
  if (other.has_replica) {
    if (target->has_replica && target->replica != other.replica) return conflict("replicas");
    target->has_replica = true;
    target->replica = other.replica;
  }
  if (other.has_task) {
    if (target->has_task && target->task != other.task) return conflict("tasks");
    target->has_task = true;
    target->task = other.task;
  }
  if (other.has_type) {
    if (target->has_type && target->type != other.type) {
      if (!allow_soft_placement) return conflict("device types");
      // Soft placement: neither type wins, so the merged constraint asks for none.
      target->has_type = false;
      target->type.clear();
      target->has_id = false;
      target->id = 0;
      return Status::OK();
    }
    target->has_type = true;
    target->type = other.type;
  }
  if (other.has_id) {
    if (target->has_id && target->id != other.id) {
      if (!allow_soft_placement) return conflict("device ids");
      target->has_id = false;
      target->id = 0;
      return Status::OK();
    }
    target->has_id = true;
    target->id = other.id;
  }
  return Status::OK();
}

}  // namespace tensoract
