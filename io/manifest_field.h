#pragma once
// A field of a Kubernetes object read from a manifest, for the importers (io/kubernetes_import.h). Every field
// the importer reads is marked in a ledger, so that what it never read can be listed afterwards: an import
// drops nothing silently. Reading a scalar or calling take() marks the field read; stepping into a mapping or
// a list marks it visited, and unread_fields() then reports its children one by one. Wrong types are
// ScenarioErrors at the field's file, line and column. Internal to io/.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/scenario_error.h"

namespace drsim {

// What an importer read of one object: paths such as "spec.template.spec.containers[0].resources".
struct FieldLedger {
  std::set<std::string> visited;  // stepped into
  std::set<std::string> read;     // taken whole
};

class ManifestField {
 public:
  // `object` ("Deployment api") starts every diagnostic's path, so that an error names the object it is in.
  ManifestField(YAML::Node node, std::string path, std::string file, std::string object,
                std::shared_ptr<FieldLedger> ledger);

  // Not there, or null: what the API treats as unset.
  bool present() const { return node_.IsDefined() && !node_.IsNull(); }
  bool is_map() const { return node_.IsMap(); }
  bool is_list() const { return node_.IsSequence(); }
  const std::string& path() const { return path_; }
  const std::string& file() const { return file_; }
  YAML::Mark mark() const { return node_.Mark(); }

  // A key of this mapping (absent: present() is false). Throws unless this is a mapping or unset.
  ManifestField operator[](std::string_view key) const;
  // The items of this list (none when unset). Throws unless this is a list or unset.
  std::vector<ManifestField> items() const;
  // The keys and values of this mapping, in file order (none when unset).
  std::vector<std::pair<std::string, ManifestField>> entries() const;

  // Reading marks the field read. Each throws a ScenarioError naming the field unless it is of that kind.
  std::string text() const;
  std::int64_t integer() const;
  bool boolean() const;
  std::optional<std::string> optional_text() const { return present() ? std::optional(text()) : std::nullopt; }
  std::optional<std::int64_t> optional_integer() const { return present() ? std::optional(integer()) : std::nullopt; }
  // Marks the whole field read, e.g. a selector whose meaning the importer takes from elsewhere.
  void take() const;

  // "file:line:col: path: message" as a ScenarioError.
  [[noreturn]] void fail(const std::string& message) const;
  Diagnostic diagnostic(const std::string& message) const;

 private:
  void visit() const;

  YAML::Node node_;
  std::string path_;
  std::string file_;
  std::string object_;
  std::shared_ptr<FieldLedger> ledger_;
};

// A field nobody read: the topmost one (a mapping nobody stepped into is one entry, with its size).
struct UnreadField {
  std::string path;
  YAML::Mark mark;
  std::string what;  // "a mapping of 3 keys", "a list of 2", "\"Always\""
};

// The fields of `root` (an object of `file` whose fields were read through ManifestFields on `ledger`) that
// were not read, in file order. Paths under any of `ignored` (e.g. "status") are left out. Each node walked
// takes one of `budget`: aliases can repeat a node many times over (or, through its own anchor, without end),
// so a ScenarioError stops the walk when it runs out.
std::vector<UnreadField> unread_fields(const YAML::Node& root, const std::string& file, const FieldLedger& ledger,
                                       const std::vector<std::string>& ignored, std::size_t& budget);

}  // namespace drsim
