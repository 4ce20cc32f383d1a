#pragma once
// Bad scenario input. Every diagnostic names the file, line and column (1-based)
// and the YAML path, then what was expected and what was found:
//   scenarios/x.yaml:12:9: spec.timeline[1].at: expected a duration with a unit, e.g. "28ms", got "30"
// Cross-reference problems are collected and thrown together.
#include <stdexcept>
#include <string>
#include <vector>

namespace drsim {

struct Diagnostic {
  std::string file;  // or "--set spec.seed=7" for an override's value
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown
  std::string path;  // YAML path, e.g. "spec.timeline[1].at"; empty for the whole document
  std::string message;

  // "file:line:col: path: message" (parts that are unknown are left out).
  std::string to_string() const;
};

class ScenarioError : public std::runtime_error {
 public:
  explicit ScenarioError(std::vector<Diagnostic> diagnostics);
  explicit ScenarioError(Diagnostic diagnostic) : ScenarioError(std::vector<Diagnostic>{std::move(diagnostic)}) {}
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace drsim
