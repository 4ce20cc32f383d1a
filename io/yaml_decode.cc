#include "io/yaml_decode.h"

#include <algorithm>

#include "io/yaml_document.h"
#include "sim/quote.h"

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

bool Decoder::check_untagged(const YAML::Node& node, const std::string& path, const YAML::Mark& where) {
  const std::string& tag = node.Tag();
  if (tag.empty() || tag == "?" || tag == "!") return true;
  // yaml-cpp resolves "!!str" to the core schema's long form: shown as written.
  constexpr std::string_view kCore = "tag:yaml.org,2002:";
  const std::string shown = tag.starts_with(kCore) ? "!!" + tag.substr(kCore.size()) : tag;
  error(where, path, "expected a value without a YAML tag (tags are not supported), got the tag " + shown);
  return false;
}

bool Decoder::check_name_text(const std::string& text, const std::string& path, const YAML::Mark& where) {
  if (path != "name" && !path.ends_with(".name")) return true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    // C0 controls (tab and line breaks included), DEL, and the C1 controls
    // U+0080..U+009F (0xc2 0x80..0x9f in UTF-8).
    const auto next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    const bool c1 = byte == 0xc2 && next >= 0x80 && next <= 0x9f;
    if (byte < 0x20 || byte == 0x7f || c1) {
      error(where, path, "expected a name without control characters, got " + quote(text));
      return false;
    }
  }
  return true;
}

std::string Decoder::first_seen(const YAML::Mark& mark) {
  return mark.is_null() ? "" : " (first at line " + std::to_string(mark.line + 1) + ")";
}

}  // namespace drsim
