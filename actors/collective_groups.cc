#include "actors/collective_groups.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <map>
#include <random>
#include <tuple>

#include <caf/all.hpp>

#include "actors/messages.h"
#include "graph/device_name.h"

namespace tensoract {
namespace {

using coll_join_atom = caf::atom_constant<caf::atom("colljoin")>;

constexpr char kJoinPrefix[] = "collective-join;";
constexpr int kMaxGroupSize = 4096;
constexpr size_t kMaxFormingGroups = 1024;

}  // namespace

struct CollectiveJoinRequest {
  int group_key = 0;
  int group_size = 0;
  uint64_t incarnation = 0;  // the joining member's worker's
  std::string device;
  std::function<void(const Status&, const Tensor&, bool)> reply;
};

}  // namespace tensoract

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(tensoract::CollectiveJoinRequest)

namespace tensoract {
namespace {


struct LeaderState {
  std::string task;
  struct Forming {
    int size = 0;
    std::map<std::string, std::function<void(const Status&, const Tensor&, bool)>> replies;  // by device
    std::map<std::string, uint64_t> incarnations;  // by device: its worker's
  };
  std::map<int, Forming> forming;  // by group key
  std::map<int, std::vector<std::string>> formed;  // the last formation of each group, for inspection
  std::mt19937_64 rng{std::random_device{}()};
  static inline const char* name = "tensoract.collective_leader";
};

caf::behavior leader_actor(caf::stateful_actor<LeaderState>* self, std::string task) {
  self->state.task = std::move(task);
  return {
      [=](coll_join_atom, CollectiveJoinRequest& join) {
        auto& st = self->state;
        auto refuse = [&](const Status& s) { join.reply(s, Tensor(), false); };
        if (join.group_size < 1 || join.group_size > kMaxGroupSize) {
          return refuse(errors::InvalidArgument("collective group ", join.group_key, ": group_size ", join.group_size,
                                                " is not between 1 and ", kMaxGroupSize));
        }
        ParsedDeviceName parsed;
        if (join.device.empty() || join.device.size() > 256 || join.device.find_first_of(";\n") != std::string::npos ||
            !ParseDeviceName(join.device, &parsed) || !parsed.has_job || !parsed.has_task || !parsed.has_type) {
          return refuse(errors::InvalidArgument("collective group ", join.group_key, ": '", join.device,
                                                "' is not a full device name"));
        }
        auto it = st.forming.find(join.group_key);
        if (it == st.forming.end()) {
          if (st.forming.size() >= kMaxFormingGroups) {
            return refuse(errors::ResourceExhausted("the collective leader ", st.task, " is forming ",
                                                    kMaxFormingGroups, " groups already"));
          }
          it = st.forming.emplace(join.group_key, LeaderState::Forming{join.group_size, {}, {}}).first;
        }
        LeaderState::Forming& forming = it->second;
        if (forming.size != join.group_size) {
          return refuse(errors::InvalidArgument("collective group ", join.group_key, " has group_size ", forming.size,
                                                " but ", join.device, " joins it with group_size ", join.group_size));
        }
        auto older = forming.replies.find(join.device);
        if (older != forming.replies.end()) {
          older->second(errors::Aborted(join.device, " joined collective group ", join.group_key, " again"), Tensor(),
                        false);
        }
        forming.replies[join.device] = std::move(join.reply);
        forming.incarnations[join.device] = join.incarnation;
        if (static_cast<int>(forming.replies.size()) < forming.size) return;
        std::vector<std::string> members;
        for (const auto& [device, reply] : forming.replies) members.push_back(device);
        std::sort(members.begin(), members.end(), DeviceRankLess);
        uint64_t incarnation = 0;
        while (incarnation == 0) incarnation = st.rng();
        std::string text = std::to_string(incarnation);
        for (const std::string& m : members) text += StrCat("\n", m, " ", forming.incarnations[m]);
        Tensor answer(tensorflow::DT_UINT8, TensorShape({static_cast<int64_t>(text.size())}));
        std::memcpy(answer.data(), text.data(), text.size());
        auto replies = std::move(forming.replies);
        st.forming.erase(it);
        st.formed[join.group_key] = members;
        for (auto& [device, reply] : replies) reply(Status::OK(), answer, false);
      },
      [=](inspect_atom) -> std::string {
        auto& st = self->state;
        std::string out = StrCat("collective leader of ", st.task, ": ", st.formed.size(), " groups formed, ",
                                 st.forming.size(), " forming");
        for (const auto& [key, forming] : st.forming) {
          out += StrCat("\n  group ", key, ": ", forming.replies.size(), " of ", forming.size, " members joined");
        }
        return out;
      },
  };
}

}  // namespace

std::string CollectiveFormationPrefix(int group_key, uint64_t incarnation) {
  return StrCat("collective/", group_key, "/", incarnation, "/");
}

Status LeftFormation(int group_key, const Status& why) {
  return errors::Aborted("the member here left that formation of collective group ", group_key, ": ", why.message());
}

std::string CollectiveJoinKey(int group_key, int group_size, uint64_t incarnation, const std::string& device) {
  return StrCat(kJoinPrefix, group_key, ";", group_size, ";", incarnation, ";", device);
}

StatusOr<CollectiveFormation> ParseCollectiveFormation(const Tensor& answer) {
  const std::string text(static_cast<const char*>(answer.data()), answer.NumElements());
  std::vector<std::string> lines;
  for (size_t at = 0; at <= text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  CollectiveFormation formation;
  if (lines.size() >= 2) formation.incarnation = std::strtoull(lines[0].c_str(), nullptr, 10);
  if (formation.incarnation == 0) return errors::DataLoss("the leader's answer is malformed");
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t space = lines[i].find(' ');
    formation.members.push_back(lines[i].substr(0, space));
    formation.member_incarnations.push_back(
        space == std::string::npos ? 0 : std::strtoull(lines[i].c_str() + space + 1, nullptr, 10));
  }
  return formation;
}

bool DeviceRankLess(const std::string& a, const std::string& b) {
  ParsedDeviceName pa, pb;
  if (!ParseDeviceName(a, &pa) || !ParseDeviceName(b, &pb)) return a < b;
  return std::tie(pa.job, pa.replica, pa.task, pa.type, pa.id, a) < std::tie(pb.job, pb.replica, pb.task, pb.type, pb.id, b);
}

caf::actor SpawnCollectiveLeader(caf::actor_system& system, std::string task) {
  return system.spawn(leader_actor, std::move(task));
}

bool IsCollectiveJoinKey(const std::string& key) { return key.rfind(kJoinPrefix, 0) == 0; }

void ServeCollectiveJoin(const caf::actor& leader, const std::string& key,
                         std::function<void(const Status&, const Tensor&, bool)> reply) {
  // "collective-join;<group_key>;<group_size>;<incarnation>;<device>"
  const std::vector<std::string> parts = [&] {
    std::vector<std::string> out;
    const std::string rest = key.substr(sizeof(kJoinPrefix) - 1);
    size_t at = 0;
    for (int i = 0; i < 3; ++i) {
      const size_t semi = rest.find(';', at);
      if (semi == std::string::npos) return std::vector<std::string>{};
      out.push_back(rest.substr(at, semi - at));
      at = semi + 1;
    }
    out.push_back(rest.substr(at));
    return out;
  }();
  auto number = [](const std::string& text, uint64_t max, uint64_t* out) {
    if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos) return false;
    errno = 0;
    *out = std::strtoull(text.c_str(), nullptr, 10);
    return errno == 0 && *out <= max;
  };
  uint64_t group_key = 0, group_size = 0, incarnation = 0;
  if (parts.size() != 4 || !number(parts[0], INT32_MAX, &group_key) || !number(parts[1], INT32_MAX, &group_size) ||
      !number(parts[2], UINT64_MAX, &incarnation)) {
    return reply(errors::InvalidArgument("malformed collective join request"), Tensor(), false);
  }
  caf::anon_send(leader, coll_join_atom::value,
                 CollectiveJoinRequest{static_cast<int>(group_key), static_cast<int>(group_size), incarnation, parts[3],
                                       std::move(reply)});
}

}  // namespace tensoract
