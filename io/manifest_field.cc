#include "io/manifest_field.h"

#include <charconv>

#include "io/yaml_decode.h"
#include "io/yaml_document.h"

namespace drsim {

namespace {

std::string child_path(const std::string& parent, std::string_view key) {
  return parent.empty() ? std::string(key) : parent + "." + std::string(key);
}

std::string item_path(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string what_is(const YAML::Node& node) {
  if (node.IsMap()) return "a mapping of " + std::to_string(node.size()) + (node.size() == 1 ? " key" : " keys");
  if (node.IsSequence()) return "a list of " + std::to_string(node.size());
  return describe_node(node);
}

bool under(const std::string& path, const std::vector<std::string>& prefixes) {
  for (const std::string& p : prefixes) {
    if (path == p || (path.size() > p.size() && path.compare(0, p.size(), p) == 0 &&
                      (path[p.size()] == '.' || path[p.size()] == '['))) {
      return true;
    }
  }
  return false;
}

// Aliases can repeat a node many times over (or, through its own anchor, without end): the walk stops
// after as many nodes as the scenario decoder reads at most.
void walk(const YAML::Node& node, const std::string& path, const FieldLedger& ledger,
          const std::vector<std::string>& ignored, std::vector<UnreadField>& out, const std::string& file,
          std::size_t& budget) {
  if (budget == 0) {
    throw ScenarioError(Diagnostic{.file = file,
                                   .line = node.Mark().is_null() ? 0 : node.Mark().line + 1,
                                   .column = node.Mark().is_null() ? 0 : node.Mark().column + 1,
                                   .path = path,
                                   .message = "expected at most " + std::to_string(kMaxDecodedValues) +
                                              " values, got more (do aliases repeat a large part of the document?)"});
  }
  --budget;
  if (under(path, ignored) || ledger.read.contains(path)) return;
  const bool visited = path.empty() || ledger.visited.contains(path);
  if (!visited || !(node.IsMap() || node.IsSequence())) {
    if (!node.IsNull()) out.push_back({path, node.Mark(), what_is(node)});
    return;
  }
  if (node.IsMap()) {
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) continue;
      walk(kv.second, child_path(path, kv.first.Scalar()), ledger, ignored, out, file, budget);
    }
    return;
  }
  for (std::size_t i = 0; i < node.size(); ++i) walk(node[i], item_path(path, i), ledger, ignored, out, file, budget);
}

}  // namespace

ManifestField::ManifestField(YAML::Node node, std::string path, std::string file, std::string object,
                             std::shared_ptr<FieldLedger> ledger)
    : node_(std::move(node)),
      path_(std::move(path)),
      file_(std::move(file)),
      object_(std::move(object)),
      ledger_(std::move(ledger)) {}

void ManifestField::visit() const { ledger_->visited.insert(path_); }

Diagnostic ManifestField::diagnostic(const std::string& message) const {
  const std::string path = object_.empty() ? path_ : path_.empty() ? object_ : object_ + ": " + path_;
  return diagnostic_at(file_, node_.IsDefined() ? node_.Mark() : YAML::Mark::null_mark(), path, message);
}

void ManifestField::fail(const std::string& message) const { throw ScenarioError(diagnostic(message)); }

ManifestField ManifestField::operator[](std::string_view key) const {
  const std::string path = child_path(path_, key);
  if (!present()) return ManifestField(YAML::Node(YAML::NodeType::Undefined), path, file_, object_, ledger_);
  if (!node_.IsMap()) fail("expected a mapping, got " + describe_node(node_));
  visit();
  if (auto value = find_key(node_, std::string(key))) return ManifestField(*value, path, file_, object_, ledger_);
  return ManifestField(YAML::Node(YAML::NodeType::Undefined), path, file_, object_, ledger_);
}

std::vector<ManifestField> ManifestField::items() const {
  std::vector<ManifestField> out;
  if (!present()) return out;
  if (!node_.IsSequence()) fail("expected a list, got " + describe_node(node_));
  visit();
  for (std::size_t i = 0; i < node_.size(); ++i)
    out.emplace_back(node_[i], item_path(path_, i), file_, object_, ledger_);
  return out;
}

std::vector<std::pair<std::string, ManifestField>> ManifestField::entries() const {
  std::vector<std::pair<std::string, ManifestField>> out;
  if (!present()) return out;
  if (!node_.IsMap()) fail("expected a mapping, got " + describe_node(node_));
  visit();
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) {
      throw ScenarioError(diagnostic_at(file_, kv.first.Mark(), object_.empty() ? path_ : object_ + ": " + path_,
                                        "expected a text key, got " + describe_node(kv.first)));
    }
    YAML::Node value;
    value.reset(kv.second);
    out.emplace_back(kv.first.Scalar(),
                     ManifestField(value, child_path(path_, kv.first.Scalar()), file_, object_, ledger_));
  }
  return out;
}

std::string ManifestField::text() const {
  if (!node_.IsScalar()) fail("expected a scalar, got " + describe_node(node_));
  ledger_->read.insert(path_);
  return node_.Scalar();
}

std::int64_t ManifestField::integer() const {
  const std::string s = text();
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end != s.data() + s.size()) fail("expected an integer, got " + describe_node(node_));
  return value;
}

bool ManifestField::boolean() const {
  const std::string s = text();
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  fail("expected true or false, got " + describe_node(node_));
}

void ManifestField::take() const { ledger_->read.insert(path_); }

std::vector<UnreadField> unread_fields(const YAML::Node& root, const std::string& file, const FieldLedger& ledger,
                                       const std::vector<std::string>& ignored, std::size_t& budget) {
  std::vector<UnreadField> out;
  walk(root, "", ledger, ignored, out, file, budget);
  return out;
}

}  // namespace drsim
