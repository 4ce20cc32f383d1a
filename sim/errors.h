#pragma once
// Errors of the engine itself. Simulated failures (a zone going down) are
// state and events, never exceptions; these are for broken invariants and
// misuse of the API. They are thrown, never abort()ed: an abort would kill a
// Jupyter kernel.
#include <stdexcept>
#include <string>

namespace drsim {

class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An exception that escaped an event handler, rethrown with where it happened.
class HandlerError : public SimulationError {
 public:
  HandlerError(const std::string& where, const std::string& what)
      : SimulationError(where + ": " + what), where_(where) {}
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

}  // namespace drsim
