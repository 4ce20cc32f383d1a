#include "io/yaml_document.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>

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

std::vector<std::pair<std::string, std::string>> read_text_files(const std::vector<std::filesystem::path>& files,
                                                                 std::string_view what) {
  std::vector<std::pair<std::string, std::string>> texts;
  for (const std::filesystem::path& p : files) {
    std::string reason;
    std::optional<std::string> text = read_document_file(p, p.string(), reason);
    if (!text) {
      throw ScenarioError(
          Diagnostic{.file = p.string(), .message = "cannot read the " + std::string(what) + ": " + reason});
    }
    texts.emplace_back(p.string(), std::move(*text));
  }
  return texts;
}

namespace {

// The shape of a YAML stream, from its events alone (no nodes are built).
struct StreamOutline {
  std::size_t documents = 0;
  YAML::Mark second_root = YAML::Mark::null_mark();  // where the second document's value starts
};

// Counts documents, and notes where the second document's value starts.
class OutlineHandler : public YAML::EventHandler {
 public:
  explicit OutlineHandler(StreamOutline& outline) : outline_(outline) {}
  YAML::Mark document_start = YAML::Mark::null_mark();

  void OnDocumentStart(const YAML::Mark& mark) override {
    document_start = mark;
    ++outline_.documents;
    awaiting_root_ = true;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { node(mark); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& mark) {
    if (awaiting_root_ && outline_.documents == 2) outline_.second_root = mark;
    awaiting_root_ = false;
  }
  StreamOutline& outline_;
  bool awaiting_root_ = false;
};

// The token at a mark, for a message: the character there when it is plain
// ASCII punctuation (marks count bytes), else a description.
std::string token_at(std::string_view text, const YAML::Mark& mark) {
  if (mark.pos >= 0 && static_cast<std::size_t>(mark.pos) < text.size()) {
    const auto c = static_cast<unsigned char>(text[static_cast<std::size_t>(mark.pos)]);
    if (c > 0x20 && c < 0x7f) return quote(std::string(1, static_cast<char>(c)));
  }
  return "a token that cannot start one";
}

// Walks the stream event by event. yaml-cpp 0.7's LoadAll never ends on a
// token that cannot start a value outside a flow collection (a ',' where a
// document starts, "," or "!,"): its parser reports an empty document without
// consuming that token, then the same empty document again, each one a new
// node, until memory runs out (upstream yaml-cpp issue 1040). A document that starts at
// the same place as the one before it consumed nothing: that token is the
// error. Every other document consumes at least one token, so the walk ends.
StreamOutline outline_stream(std::string_view text, const std::string& file) {
  StreamOutline outline;
  std::istringstream stream{std::string(text)};
  YAML::Parser parser(stream);
  OutlineHandler handler(outline);
  std::optional<int> previous_start;
  while (parser.HandleNextDocument(handler)) {
    const YAML::Mark start = handler.document_start;
    if (previous_start && start.pos == *previous_start) {
      throw ScenarioError(diagnostic_at(
          file, start, "", "expected a value (a scalar, a [list] or a {mapping}), got " + token_at(text, start)));
    }
    previous_start = start.pos;
  }
  return outline;
}

// Runs a yaml-cpp step, its exceptions turned into ScenarioError.
template <class F>
auto with_yaml_errors(const std::string& file, F&& step) {
  try {
    return step();
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this is "bad file".
    throw ScenarioError(
        diagnostic_at(file, e.mark, "", "expected fewer levels of nesting, got more than the YAML parser allows"));
  } catch (const YAML::Exception& e) {
    throw ScenarioError(diagnostic_at(file, e.mark, "", e.msg));
  }
}

// The first document of a stream that outline_stream has walked without
// error (YAML::Load parses the first document only).
YAML::Node load_first(std::string_view text, const std::string& file) {
  return with_yaml_errors(file, [&] { return YAML::Load(std::string(text)); });
}

}  // namespace

YAML::Node parse_document(std::string_view text, const std::string& file, std::string_view kind) {
  check_text(text, file);
  const StreamOutline outline = with_yaml_errors(file, [&] { return outline_stream(text, file); });
  const std::string expected = "expected a " + std::string(kind) + " document, got ";
  if (outline.documents == 0) throw ScenarioError(Diagnostic{.file = file, .message = expected + "an empty file"});
  if (outline.documents > 1) {
    throw ScenarioError(diagnostic_at(file, outline.second_root, "",
                                      "expected one YAML document, got " + std::to_string(outline.documents)));
  }
  YAML::Node document = load_first(text, file);
  if (document.IsNull()) {
    throw ScenarioError(diagnostic_at(file, document.Mark(), "", expected + "an empty document"));
  }
  return document;
}

std::vector<YAML::Node> parse_documents(std::string_view text, const std::string& file) {
  check_text(text, file);
  // The outline walk first: it ends where yaml-cpp's LoadAll would not (see outline_stream).
  with_yaml_errors(file, [&] { return outline_stream(text, file); });
  std::vector<YAML::Node> all = with_yaml_errors(file, [&] { return YAML::LoadAll(std::string(text)); });
  std::erase_if(all, [](const YAML::Node& d) { return d.IsNull(); });
  return all;
}

YAML::Node parse_value(std::string_view text, const std::string& file) {
  check_text(text, file);
  const StreamOutline outline = with_yaml_errors(file, [&] { return outline_stream(text, file); });
  // An empty value is null, as "~" is.
  if (outline.documents == 0) return load_first("~", file);
  if (outline.documents > 1) {
    throw ScenarioError(
        diagnostic_at(file, outline.second_root, "",
                      "expected one YAML value, got " + std::to_string(outline.documents) + " documents"));
  }
  return load_first(text, file);
}

// The value of key in a mapping (the first, if the key is repeated: the
// decoder reports the repetition).
std::optional<YAML::Node> find_key(const YAML::Node& map, const std::string& key) {
  for (const auto& pair : map) {
    if (pair.first.IsScalar() && pair.first.Scalar() == key) {
      YAML::Node value;
      value.reset(pair.second);
      return value;
    }
  }
  return std::nullopt;
}

}  // namespace drsim
