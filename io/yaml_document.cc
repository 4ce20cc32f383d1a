#include "io/yaml_document.h"

#include <yaml-cpp/depthguard.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "io/scenario_loader.h"
#include "io/utf8.h"
#include "sim/quote.h"

namespace drsim {

namespace {

std::string too_large(std::string_view size) {
  return "expected at most " + std::to_string(kMaxScenarioBytes) + " bytes (" +
         std::to_string(kMaxScenarioBytes >> 20) + " MiB), got " + std::string(size) + " bytes";
}

// Refuses text that is too large, not UTF-8, or holds control bytes other
// than tab and line breaks: yaml-cpp would either choke on it later with a
// vaguer message or carry it into names.
void check_text(std::string_view text, const std::string& file) {
  if (text.size() > kMaxScenarioBytes) {
    throw ScenarioError(Diagnostic{.file = file, .message = too_large(std::to_string(text.size()))});
  }
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t len = utf8_sequence(text, i);
    const bool control = byte == 0x7f || (byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r');
    if (len == 0 || control) {
      constexpr char kHex[] = "0123456789abcdef";
      // A broken sequence is reported at its first byte, where it starts to go wrong.
      std::string message = "expected UTF-8 text, got byte 0x";
      message += kHex[byte >> 4];
      message += kHex[byte & 0xf];
      throw ScenarioError(Diagnostic{file, line, static_cast<int>(i - line_start) + 1, "", std::move(message)});
    }
    if (byte == '\n') {
      ++line;
      line_start = i + 1;
    }
    i += len;
  }
}

}  // namespace

std::string describe_node(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return quote(node.Scalar());
    case YAML::NodeType::Null:
      return "null";
    case YAML::NodeType::Undefined:
      break;
  }
  return "nothing";
}

Diagnostic diagnostic_at(const std::string& file, const YAML::Mark& mark, std::string path, std::string message) {
  const bool known = !mark.is_null() && mark.line >= 0;
  return Diagnostic{file, known ? mark.line + 1 : 0, known ? mark.column + 1 : 0, std::move(path), std::move(message)};
}

std::optional<std::string> read_document_file(const std::filesystem::path& path, const std::string& display_name,
                                              std::string& reason) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    reason = "Is a directory";
    return std::nullopt;
  }
  // A 50 MB file is refused from its size alone; reading stops past the
  // limit anyway, for files whose size is not known up front (pipes).
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxScenarioBytes) {
    throw ScenarioError(Diagnostic{.file = display_name, .message = too_large(std::to_string(size))});
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) {
    reason = std::strerror(errno);
    return std::nullopt;
  }
  std::string text;
  char chunk[1 << 16];
  while (const std::size_t n = std::fread(chunk, 1, sizeof chunk, f.get())) {
    text.append(chunk, n);
    if (text.size() > kMaxScenarioBytes) {
      throw ScenarioError(
          Diagnostic{.file = display_name, .message = too_large("more than " + std::to_string(kMaxScenarioBytes))});
    }
  }
  if (std::ferror(f.get())) {
    reason = std::strerror(errno);
    return std::nullopt;
  }
  return text;
}

YAML::Node parse_document(std::string_view text, const std::string& file, std::string_view kind) {
  check_text(text, file);
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(std::string(text));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this is "bad file".
    throw ScenarioError(
        diagnostic_at(file, e.mark, "", "expected fewer levels of nesting, got more than the YAML parser allows"));
  } catch (const YAML::Exception& e) {
    throw ScenarioError(diagnostic_at(file, e.mark, "", e.msg));
  }
  const std::string expected = "expected a " + std::string(kind) + " document, got ";
  if (documents.empty()) throw ScenarioError(Diagnostic{.file = file, .message = expected + "an empty file"});
  if (documents.size() > 1) {
    throw ScenarioError(diagnostic_at(file, documents[1].Mark(), "",
                                      "expected one YAML document, got " + std::to_string(documents.size())));
  }
  if (documents[0].IsNull()) {
    throw ScenarioError(diagnostic_at(file, documents[0].Mark(), "", expected + "an empty document"));
  }
  return documents[0];
}

}  // namespace drsim
