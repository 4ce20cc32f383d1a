#include "io/scenario_error.h"

namespace drsim {

namespace {

std::string join_lines(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) {
    if (!out.empty()) out += '\n';
    out += d.to_string();
  }
  return out;
}

}  // namespace

std::string Diagnostic::to_string() const {
  std::string out;
  auto part = [&out](const std::string& text) {
    if (!out.empty()) out += ": ";
    out += text;
  };
  std::string where = file;
  if (line > 0) {
    where += ":" + std::to_string(line);
    if (column > 0) where += ":" + std::to_string(column);
  }
  if (!where.empty()) part(where);
  if (!path.empty()) part(path);
  part(message);
  return out;
}

// what() lists every diagnostic, one per line, so that an uncaught error (or
// Python's str(e)) shows all of them.
ScenarioError::ScenarioError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_lines(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace drsim
