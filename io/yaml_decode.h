#pragma once
// The one YAML -> struct decoder. It walks the field lists of sim/fields.h,
// so every config struct is decoded, checked and located the same way:
// unknown and duplicate keys, missing required keys, nulls, wrong shapes and
// the kPositive / kNonNegative / kAtMostOne flags are reported at the value's
// file:line:col, and decoding goes on after an error so that one run reports
// as much as it can. Internal to io/.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/field_traits.h"
#include "io/overrides.h"
#include "sim/quote.h"
#include "io/scenario.h"
#include "io/scenario_error.h"
#include "io/source_map.h"
#include "io/suggest.h"
#include "io/value_codecs.h"
#include "io/yaml_document.h"
#include "sim/fields.h"

namespace drsim {

// An alias-heavy file can make a few kilobytes of YAML stand for billions of
// values ("billion laughs"); decoding stops after this many.
inline constexpr std::size_t kMaxDecodedValues = 1'000'000;
// A file of garbage would otherwise produce a megabyte of messages.
inline constexpr std::size_t kMaxDiagnostics = 100;

// Thrown when kMaxDecodedValues is reached; the loader turns the session's
// diagnostics (which say so) into a ScenarioError.
struct DecodeBudgetExceeded {};

// Shared by every document of one load: the scenario and its topology file.
class DecodeSession {
 public:
  explicit DecodeSession(std::filesystem::path base_dir) : base_dir_(std::move(base_dir)) {}

  const std::filesystem::path& base_dir() const { return base_dir_; }
  // Overrides for the topology file that spec.topology names.
  std::vector<Override> topology_overrides;
  SourceMap source_map;

  void report(Diagnostic d);
  bool ok() const { return diagnostics_.empty(); }
  // Everything reported, with a last line counting what was left out.
  std::vector<Diagnostic> diagnostics() const;
  // Counts one decoded value; false when the budget is spent.
  bool take_budget() {
    if (values_left_ == 0) return false;
    --values_left_;
    return true;
  }

 private:
  std::filesystem::path base_dir_;
  std::vector<Diagnostic> diagnostics_;
  std::size_t dropped_ = 0;
  std::size_t values_left_ = kMaxDecodedValues;
};

// One document being decoded.
struct DocumentScope {
  std::string file;
  std::vector<OverrideOrigin> origins;  // values that came from --set
  // A topology file's paths are recorded under the scenario's: its "spec"
  // is the scenario's "spec.topology". Empty for the scenario itself.
  std::string document_root;
  std::string scenario_root;
};

// What a message expects for T: "a duration with a unit, e.g. \"28ms\"".
template <class T>
std::string expected_phrase() {
  if constexpr (IsOptional<T>::value) {
    return expected_phrase<typename T::value_type>();
  } else if constexpr (IsVector<T>::value) {
    return "a list";
  } else if constexpr (std::is_same_v<T, TopologyRef>) {
    return "the path of a kind: Topology file or an inline topology mapping";
  } else if constexpr (Described<T>) {
    return "a mapping (" + std::string(T::kTypeName) + ")";
  } else {
    return std::string(ValueCodec<T>::kExpected);
  }
}

// Compile-time check that every flag fits its field's type: kPositive and
// kNonNegative need a signed quantity, kAtMostOne a ratio.
template <Described T>
constexpr bool flags_fit_types() {
  bool ok = true;
  for_each_field<T>([&ok](const auto& f) {
    using E = typename ElementOf<FieldValue<decltype(f)>>::type;
    if constexpr (!Signed<E>) {
      if (f.flags & (kPositive | kNonNegative)) ok = false;
    }
    if constexpr (!std::is_same_v<E, Ratio>) {
      if (f.flags & kAtMostOne) ok = false;
    }
  });
  return ok;
}

class Decoder {
 public:
  Decoder(DecodeSession& session, DocumentScope scope) : session_(session), scope_(std::move(scope)) {}

  // Decodes node into out. `where` is the position reported for the value:
  // the node's own, except for a null value (`key:` with nothing after it)
  // whose mark yaml-cpp puts on the next token, so the key's is used.
  // Returns false when the value could not be used; problems are reported.
  template <class T>
  bool decode(const YAML::Node& node, T& out, const std::string& path, unsigned flags, const YAML::Mark& where);

  // A whole document: the root mapping at path "".
  template <Described T>
  bool decode_document(const YAML::Node& root, T& out) {
    return decode(root, out, "", kRequired, root.Mark());
  }

  void error(const YAML::Mark& where, const std::string& path, std::string message);
  // The file a value at path came from: the document, or the --set that replaced it.
  const std::string& file_of(const std::string& path) const;
  DecodeSession& session() { return session_; }
  // A decoder of the same document that reports into another session: for
  // values checked on their own before they are used (service defaults).
  Decoder reporting_to(DecodeSession& other) const { return Decoder(other, scope_); }

 private:
  template <class T>
  bool decode_value(const YAML::Node& node, T& out, const std::string& path, unsigned flags, const YAML::Mark& where);
  template <Described T>
  bool decode_mapping(const YAML::Node& node, T& out, const std::string& path, const YAML::Mark& where);
  template <Leaf T>
  bool decode_leaf(const YAML::Node& node, T& out, const std::string& path, unsigned flags, const YAML::Mark& where);

  void take_budget(const YAML::Mark& where, const std::string& path);
  // Reports a node with an explicit YAML tag (!!str, !foo): tags would
  // otherwise be ignored silently. The non-specific "!" of a quoted scalar
  // is not a tag a user wrote.
  bool check_untagged(const YAML::Node& node, const std::string& path, const YAML::Mark& where);
  // Reports a name (a key "name") that holds control characters: they would
  // be carried raw into file names, CSV files and messages.
  bool check_name_text(const std::string& text, const std::string& path, const YAML::Mark& where);
  void record(const YAML::Mark& where, const std::string& path);
  static std::string key_path(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static YAML::Mark position_of(const YAML::Node& value, const YAML::Node& key) {
    return value.IsNull() ? key.Mark() : value.Mark();
  }
  static std::string first_seen(const YAML::Mark& mark);

  DecodeSession& session_;
  DocumentScope scope_;
  // SourceMap ids of the files seen so far, by the address of their name in scope_.
  std::vector<std::pair<const std::string*, std::uint32_t>> sources_;
};

// spec.topology is a file path or an inline mapping (io/topology_ref.cc).
bool decode_topology_ref(Decoder& decoder, const YAML::Node& node, TopologyRef& out, const std::string& path);

// ---- implementation ------------------------------------------------------------

template <class T>
bool Decoder::decode(const YAML::Node& node, T& out, const std::string& path, unsigned flags, const YAML::Mark& where) {
  take_budget(where, path);
  record(where, path);
  if (!check_untagged(node, path, where)) return false;
  if (node.IsNull()) {
    error(where, path, "expected " + expected_phrase<T>() + ", got null");
    return false;
  }
  return decode_value(node, out, path, flags, where);
}

template <class T>
bool Decoder::decode_value(const YAML::Node& node, T& out, const std::string& path, unsigned flags,
                           const YAML::Mark& where) {
  if constexpr (IsOptional<T>::value) {
    typename T::value_type value{};
    if (!decode_value(node, value, path, flags, where)) return false;
    out = std::move(value);
    return true;
  } else if constexpr (IsVector<T>::value) {
    if (!node.IsSequence()) {
      error(where, path, "expected " + expected_phrase<T>() + ", got " + describe_node(node));
      return false;
    }
    out.clear();
    bool ok = true;
    std::size_t i = 0;
    for (const YAML::Node& item : node) {
      typename T::value_type value{};
      // yaml-cpp marks a null item ("-" alone) where the next item starts;
      // the list's own position is closer to the truth.
      ok &= decode(item, value, path + "[" + std::to_string(i++) + "]", flags & ~kRequired,
                   item.IsNull() ? where : item.Mark());
      out.push_back(std::move(value));
    }
    return ok;
  } else if constexpr (std::is_same_v<T, TopologyRef>) {
    return decode_topology_ref(*this, node, out, path);
  } else if constexpr (Described<T>) {
    return decode_mapping(node, out, path, where);
  } else {
    return decode_leaf(node, out, path, flags, where);
  }
}

template <Described T>
bool Decoder::decode_mapping(const YAML::Node& node, T& out, const std::string& path, const YAML::Mark& where) {
  static_assert(flags_fit_types<T>(), "a field's flags do not fit its type (see flags_fit_types)");
  if (!node.IsMap()) {
    error(where, path, "expected " + expected_phrase<T>() + ", got " + describe_node(node));
    return false;
  }
  std::vector<std::string_view> keys;
  for_each_field<T>([&keys](const auto& f) { keys.push_back(f.key); });
  // Where each field's key was first seen: yaml-cpp keeps both pairs of a
  // repeated key, so repetition is detected here.
  std::vector<std::optional<YAML::Mark>> seen(keys.size());

  bool ok = true;
  for (const auto& pair : node) {  // each dereference copies the pair: once only
    const YAML::Node& key = pair.first;
    take_budget(key.Mark(), path);
    if (!key.IsScalar()) {
      error(key.Mark(), path, "expected a key, got " + describe_node(key));
      ok = false;
      continue;
    }
    if (!check_untagged(key, key_path(path, key.Scalar()), key.Mark())) {
      ok = false;
      continue;
    }
    const std::string child = key_path(path, key.Scalar());
    std::size_t index = 0;
    while (index < keys.size() && keys[index] != key.Scalar()) ++index;
    if (index == keys.size()) {
      error(key.Mark(), child, unknown_name_message("key", key.Scalar(), keys, "valid keys"));
      ok = false;
      continue;
    }
    if (seen[index]) {
      error(key.Mark(), child, "duplicate key " + quote(key.Scalar()) + first_seen(*seen[index]));
      ok = false;
      continue;
    }
    seen[index] = key.Mark();
    std::size_t i = 0;
    for_each_field<T>([&](const auto& f) {
      if (i++ == index) ok &= decode(pair.second, out.*f.member, child, f.flags, position_of(pair.second, key));
    });
  }
  std::size_t i = 0;
  for_each_field<T>([&](const auto& f) {
    if (f.required() && !seen[i]) {
      error(where, path, "missing required key " + quote(f.key));
      ok = false;
    }
    ++i;
  });
  return ok;
}

template <Leaf T>
bool Decoder::decode_leaf(const YAML::Node& node, T& out, const std::string& path, unsigned flags,
                          const YAML::Mark& where) {
  using Codec = ValueCodec<T>;
  const std::string expected = "expected " + std::string(Codec::kExpected) + ", got ";
  if (!node.IsScalar()) {
    error(where, path, expected + describe_node(node));
    return false;
  }
  const std::string& text = node.Scalar();
  // In YAML '"7"' is a string, not a number; only plain scalars ("?") count.
  // (Any other tag was refused by check_untagged.)
  if (!Codec::kQuotable && node.Tag() != "?") {
    error(where, path, expected + "the quoted string " + quote(text));
    return false;
  }
  if constexpr (std::is_same_v<T, std::string>) {
    if (!check_name_text(text, path, where)) return false;
  }
  try {
    T value = Codec::parse(text);
    if constexpr (Signed<T>) {
      const int sign = Codec::sign(value);
      std::string_view wanted;
      if ((flags & kPositive) && sign <= 0) wanted = "a positive ";
      if ((flags & kNonNegative) && sign < 0) wanted = "a non-negative ";
      if (!wanted.empty()) {
        error(where, path, "expected " + std::string(wanted) + std::string(Codec::kName) + ", got " + quote(text));
        return false;
      }
    }
    if constexpr (std::is_same_v<T, Ratio>) {
      if ((flags & kAtMostOne) && Codec::above_one(value)) {
        error(where, path, "expected a percentage of at most 100%, got " + quote(text));
        return false;
      }
    }
    out = std::move(value);
    return true;
  } catch (const std::invalid_argument& e) {
    error(where, path, e.what());
    return false;
  }
}

}  // namespace drsim
