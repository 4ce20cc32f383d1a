#pragma once
// A small ordered JSON value, enough to generate the JSON Schema with stable
// key order and formatting (two-space indent, like Python's json.dumps).
// Internal to io/.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace drsim {

class Json {
 public:
  static Json object() { return Json(Kind::kObject); }
  static Json array() { return Json(Kind::kArray); }
  // A number, written as given ("10000000").
  static Json number(std::string text) {
    Json j(Kind::kLiteral);
    j.text_ = std::move(text);
    return j;
  }
  // Implicit, so that schema code reads like the JSON it builds.
  Json(std::string_view text) : kind_(Kind::kString), text_(text) {}
  Json(const char* text) : Json(std::string_view(text)) {}
  Json(const std::string& text) : Json(std::string_view(text)) {}
  Json(bool value) : kind_(Kind::kLiteral), text_(value ? "true" : "false") {}
  Json(std::int64_t value) : kind_(Kind::kLiteral), text_(std::to_string(value)) {}

  // Objects keep insertion order; setting an existing key replaces its value.
  Json& set(std::string_view key, Json value);
  // The value at key, which must exist.
  Json& at(std::string_view key);
  Json& push(Json value);

  std::string dump() const;

 private:
  enum class Kind { kLiteral, kString, kArray, kObject };
  explicit Json(Kind kind) : kind_(kind) {}
  void dump_to(std::string& out, int indent) const;

  Kind kind_;
  std::string text_;               // literal or string
  std::vector<std::string> keys_;  // object
  std::vector<Json> values_;       // array items or object values
};

}  // namespace drsim
