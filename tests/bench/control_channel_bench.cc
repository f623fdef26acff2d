// The control channel's cost: round trips of a CAF request between two actor systems in one
// process over loopback, through CAF's plain network backend and through the cluster
// transport (TLS 1.3 with the token's pre-shared key), in the same run, alternating.
// Sizes: an 8-byte request (an atom and an integer: heartbeats, aborts) and a 1 MiB string
// (a RunStep with a feed, a RegisterGraph). Prints median microseconds per round trip.
//   control_channel_bench [round_trips_small] [round_trips_1mb] [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/cluster_transport.h"

namespace {

using ping_atom = caf::atom_constant<caf::atom("ping")>;

caf::behavior Echo(caf::event_based_actor*) {
  return {[](ping_atom, int64_t x) { return x; }, [](ping_atom, const std::string& s) { return s.size(); }};
}

// Median microseconds per round trip of `n` requests carrying `payload` (empty: an integer).
double Measure(bool tls, int n, const std::string& payload) {
  auto configure = [&](caf::actor_system_config& config) {
    if (tls) {
      if (!tensoract::ConfigureClusterTransport(config, tensoract::ClusterCredentials::FromToken("bench-token")).ok()) {
        std::exit(1);
      }
    } else {
      config.load<caf::io::middleman>();
    }
  };
  caf::actor_system_config server_config, client_config;
  configure(server_config);
  configure(client_config);
  caf::actor_system server{server_config};
  caf::actor_system client{client_config};
  caf::actor echo = server.spawn(Echo);
  auto port = server.middleman().publish(echo, 0, "127.0.0.1", true);
  if (!port) std::exit(1);
  caf::scoped_actor self{client};
  caf::actor remote;
  self->request(client.middleman().actor_handle(), std::chrono::seconds(5), caf::connect_atom::value,
                std::string("127.0.0.1"), *port)
      .receive([&](const caf::node_id&, caf::strong_actor_ptr& p, const std::set<std::string>&) {
        remote = caf::actor_cast<caf::actor>(p);
      },
               [&](caf::error&) { std::exit(1); });
  std::vector<double> us;
  for (int i = 0; i < n + 10; ++i) {
    auto start = std::chrono::steady_clock::now();
    bool ok = false;
    if (payload.empty()) {
      self->request(remote, std::chrono::seconds(5), ping_atom::value, int64_t{i})
          .receive([&](int64_t) { ok = true; }, [&](caf::error&) {});
    } else {
      self->request(remote, std::chrono::seconds(5), ping_atom::value, payload)
          .receive([&](size_t) { ok = true; }, [&](caf::error&) {});
    }
    if (!ok) std::exit(1);
    if (i >= 10) {
      us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
  }
  caf::anon_send_exit(echo, caf::exit_reason::user_shutdown);
  std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
  return us[us.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int small = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int large = argc > 2 ? std::atoi(argv[2]) : 100;
  const int rounds = argc > 3 ? std::atoi(argv[3]) : 3;
  const std::string mib(1 << 20, 'x');
  std::vector<double> plain_small, tls_small, plain_large, tls_large;
  for (int r = 0; r < rounds; ++r) {  // alternating, a different one first each round
    bool tls_first = r % 2 == 1;
    for (bool tls : {tls_first, !tls_first}) {
      (tls ? tls_small : plain_small).push_back(Measure(tls, small, ""));
      (tls ? tls_large : plain_large).push_back(Measure(tls, large, mib));
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("control channel round trip, median of %d rounds (us)\n", rounds);
  std::printf("size   plain_caf  tls_psk  tls/plain\n");
  std::printf("8B     %9.1f  %7.1f  %8.2fx\n", median(plain_small), median(tls_small),
              median(tls_small) / median(plain_small));
  std::printf("1MiB   %9.1f  %7.1f  %8.2fx\n", median(plain_large), median(tls_large),
              median(tls_large) / median(plain_large));
  return 0;
}
