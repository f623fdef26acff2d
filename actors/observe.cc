#include "actors/observe.h"

#include <memory>

#include <caf/all.hpp>

#include "actors/messages.h"

namespace tensoract {

void GatherSnapshot(caf::event_based_actor* self, const std::vector<caf::actor>& actors,
                    const std::vector<std::string>& names, observe::NodeSnapshot base,
                    std::chrono::milliseconds timeout, std::function<void(observe::NodeSnapshot)> done) {
  if (actors.empty()) return done(std::move(base));
  struct Pending {
    observe::NodeSnapshot base;
    std::vector<std::string> parts;
    std::vector<std::string> failures;
    size_t remaining;
    std::function<void(observe::NodeSnapshot)> done;
  };
  auto pending = std::make_shared<Pending>();
  pending->base = std::move(base);
  pending->parts.resize(actors.size());
  pending->failures.resize(actors.size());
  pending->remaining = actors.size();
  pending->done = std::move(done);
  auto finish_one = [pending] {
    if (--pending->remaining > 0) return;
    observe::NodeSnapshot all = std::move(pending->base);
    for (size_t i = 0; i < pending->parts.size(); ++i) {
      if (!pending->failures[i].empty()) {
        all.add_notes(pending->failures[i]);
      } else if (!all.MergeFromString(pending->parts[i])) {
        all.add_notes("an unreadable part");
      }
    }
    pending->done(std::move(all));
  };
  for (size_t i = 0; i < actors.size(); ++i) {
    const std::string name = i < names.size() ? names[i] : "an actor";
    self->request(actors[i], timeout, observe_atom::value)
        .then([pending, finish_one, i](std::string& part) {
                pending->parts[i] = std::move(part);
                finish_one();
              },
              [pending, finish_one, i, name](caf::error& e) {
                pending->failures[i] = StrCat(name, " did not answer: ", FromCafError(e, "observing").message());
                finish_one();
              });
  }
}

}  // namespace tensoract
