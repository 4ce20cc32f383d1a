#include "io/yaml_decode.h"

#include <algorithm>

#include "io/yaml_document.h"

namespace drsim {

void DecodeSession::report(Diagnostic d) {
  if (diagnostics_.size() < kMaxDiagnostics) {
    diagnostics_.push_back(std::move(d));
  } else {
    ++dropped_;
  }
}

std::vector<Diagnostic> DecodeSession::diagnostics() const {
  std::vector<Diagnostic> out = diagnostics_;
  if (dropped_ > 0) {
    out.push_back(Diagnostic{.file = out.back().file,
                             .message = "... and " + std::to_string(dropped_) + " more problems not shown"});
  }
  return out;
}

void Decoder::take_budget(const YAML::Mark& where, const std::string& path) {
  if (session_.take_budget()) return;
  error(where, path,
        "expected at most " + std::to_string(kMaxDecodedValues) +
            " values, got more (do aliases repeat a large part of the document?)");
  throw DecodeBudgetExceeded{};
}

void Decoder::error(const YAML::Mark& where, const std::string& path, std::string message) {
  session_.report(diagnostic_at(file_of(path), where, path, std::move(message)));
}

const std::string& Decoder::file_of(const std::string& path) const {
  return origin_of(scope_.origins, path, scope_.file);
}

void Decoder::record(const YAML::Mark& where, const std::string& path) {
  if (!is_path_prefix(scope_.document_root, path)) return;  // a topology file's envelope
  // One source per file this document's values come from: the document, or
  // a --set label.
  const std::string& file = file_of(path);
  std::uint32_t source = 0;
  auto known = std::find_if(sources_.begin(), sources_.end(), [&](const auto& s) { return s.first == &file; });
  if (known != sources_.end()) {
    source = known->second;
  } else {
    source = session_.source_map.add_source(file, scope_.document_root, scope_.scenario_root);
    sources_.emplace_back(&file, source);
  }
  const bool located = !where.is_null();
  session_.source_map.record(scope_.scenario_root + path.substr(scope_.document_root.size()), source,
                             located ? where.line + 1 : 0, located ? where.column + 1 : 0);
}

std::string Decoder::first_seen(const YAML::Mark& mark) {
  return mark.is_null() ? "" : " (first at line " + std::to_string(mark.line + 1) + ")";
}

}  // namespace drsim
