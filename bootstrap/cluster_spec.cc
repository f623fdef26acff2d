#include "bootstrap/cluster_spec.h"

#include <cctype>
#include <set>

namespace tensoract {
namespace {

std::string_view Strip(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

// Device names carry the job, so it must be a name TensorFlow accepts there.
bool IsJobName(std::string_view name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

StatusOr<TaskAddress> ParseAddress(std::string_view text, const std::string& where) {
  // The port follows the last ':' (an IPv6 host has colons of its own, inside brackets).
  size_t colon = text.rfind(':');
  if (text.empty()) return errors::InvalidArgument(where, ": empty address (expected host:port)");
  if (colon == std::string_view::npos || (text[0] == '[' && colon < text.find(']'))) {
    return errors::InvalidArgument(where, ": '", text, "' has no port (expected host:port)");
  }
  std::string_view host = Strip(text.substr(0, colon));
  std::string_view port = Strip(text.substr(colon + 1));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) return errors::InvalidArgument(where, ": '", text, "' has no host (expected host:port)");
  if (host.find_first_of(" \t[]") != std::string_view::npos) {
    return errors::InvalidArgument(where, ": bad host '", host, "' in '", text, "'");
  }
  bool digits = !port.empty() && port.size() <= 5;
  for (char c : port) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (!digits || std::stoul(std::string(port)) > 65535) {
    return errors::InvalidArgument(where, ": bad port '", port, "' in '", text,
                                   "' (expected a number from 0 to 65535)");
  }
  return TaskAddress{std::string(host), static_cast<uint16_t>(std::stoul(std::string(port)))};
}

}  // namespace

std::string TaskAddress::ToString() const {
  bool v6 = host.find(':') != std::string::npos;
  return StrCat(v6 ? "[" : "", host, v6 ? "]" : "", ":", port);
}

StatusOr<ClusterSpec> ClusterSpec::Parse(std::string_view text) {
  ClusterSpec spec;
  std::set<std::string> addresses;  // host:port of every task with a fixed port
  for (std::string_view job_text : Split(text, ';')) {
    job_text = Strip(job_text);
    if (job_text.empty()) continue;  // tolerates "a=...;" and blank lines
    size_t eq = job_text.find('=');
    if (eq == std::string_view::npos) {
      return errors::InvalidArgument("cluster spec: '", job_text, "' is not job=host:port[,host:port...]");
    }
    std::string job(Strip(job_text.substr(0, eq)));
    if (!IsJobName(job)) {
      return errors::InvalidArgument("cluster spec: bad job name '", job,
                                     "' (a letter, then letters, digits or '_')");
    }
    if (spec.jobs_.count(job)) return errors::InvalidArgument("cluster spec: job '", job, "' appears twice");
    std::vector<TaskAddress> tasks;
    std::vector<std::string_view> task_texts = Split(job_text.substr(eq + 1), ',');
    for (size_t i = 0; i < task_texts.size(); ++i) {
      std::string where = StrCat("cluster spec: job '", job, "', task ", i);
      TA_ASSIGN_OR_RETURN(TaskAddress address, ParseAddress(Strip(task_texts[i]), where));
      if (address.port != 0 && !addresses.insert(address.ToString()).second) {
        return errors::InvalidArgument(where, ": address ", address.ToString(), " is already another task's");
      }
      tasks.push_back(std::move(address));
    }
    spec.jobs_.emplace(job, std::move(tasks));
  }
  if (spec.jobs_.empty()) {
    return errors::InvalidArgument("cluster spec is empty (expected job=host:port[,...][;job=...])");
  }
  return spec;
}

std::vector<std::string> ClusterSpec::jobs() const {
  std::vector<std::string> names;
  for (const auto& [name, tasks] : jobs_) names.push_back(name);
  return names;
}

int ClusterSpec::num_tasks(const std::string& job) const {
  auto it = jobs_.find(job);
  return it == jobs_.end() ? 0 : static_cast<int>(it->second.size());
}

StatusOr<TaskAddress> ClusterSpec::Task(const std::string& job, int task) const {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) {
    std::string known;
    for (const auto& [name, tasks] : jobs_) known += StrCat(known.empty() ? "" : ", ", name);
    return errors::InvalidArgument("job '", job, "' is not in the cluster spec (its jobs: ", known, ")");
  }
  int n = static_cast<int>(it->second.size());
  if (task < 0 || task >= n) {
    return errors::InvalidArgument("task ", task, " of job '", job, "' is out of range: the job has ", n,
                                   n == 1 ? " task (index 0)" : StrCat(" tasks (indices 0 to ", n - 1, ")"));
  }
  return it->second[task];
}

std::string ClusterSpec::ToString() const {
  std::string out;
  for (const auto& [name, tasks] : jobs_) {
    out += StrCat(out.empty() ? "" : ";", name, "=");
    for (size_t i = 0; i < tasks.size(); ++i) out += StrCat(i ? "," : "", tasks[i].ToString());
  }
  return out;
}

StatusOr<TaskAddress> ParseTaskAddress(std::string_view text) {
  return ParseAddress(Strip(text), "address");
}

std::string TaskName(const std::string& job, int task) { return StrCat("/job:", job, "/replica:0/task:", task); }

std::string CollectiveLeaderTask(const ClusterSpec& spec) {
  for (const char* job : {"chief", "worker"}) {
    if (spec.num_tasks(job) > 0) return TaskName(job, 0);
  }
  const std::vector<std::string> jobs = spec.jobs();
  return jobs.empty() ? "" : TaskName(jobs.front(), 0);
}

}  // namespace tensoract
