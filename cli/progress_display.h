#pragma once
// A one-line progress indicator on a terminal: simulated time reached and
// events per second. It stays silent for runs shorter than a second, and the
// caller only installs it when stderr is a TTY and --quiet is not given.
#include <cstdio>

#include "sim/simulation.h"

namespace drsim::cli {

class ProgressDisplay {
 public:
  explicit ProgressDisplay(std::FILE* out) : out_(out) {}
  void update(const RunProgress& progress);
  // Erases the line, if one was drawn.
  void clear();

 private:
  std::FILE* out_;
  bool drawn_ = false;
};

}  // namespace drsim::cli
