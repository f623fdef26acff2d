// tensoract-run: runs one step of a GraphDef file and prints the fetches.
// See bootstrap/graph_runner.h for the flags.
#include <iostream>

#include "bootstrap/graph_runner.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  auto spec = tensoract::ParseGraphRunArgs(args);
  tensoract::Status s = spec.ok() ? tensoract::RunGraphFile(*spec, std::cout) : spec.status();
  if (!s.ok()) {
    std::cerr << "tensoract-run: " << s << "\n"
              << "usage: tensoract-run --graph FILE [--feed name=1,2,3@1x3]... [--fetch name]... [--target node]...\n";
    return 1;
  }
  return 0;
}
