#include "io/json_text.h"

#include <stdexcept>

namespace drsim {

namespace {

void append_string(std::string& out, std::string_view s) {
  constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte < 0x20) {
          out += "\\u00";
          out += kHex[byte >> 4];
          out += kHex[byte & 0xf];
        } else {
          out += c;  // UTF-8 passes through
        }
    }
  }
  out += '"';
}

}  // namespace

Json& Json::set(std::string_view key, Json value) {
  if (kind_ != Kind::kObject) throw std::logic_error("Json::set on a non-object");
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return values_[i] = std::move(value);
  }
  keys_.emplace_back(key);
  values_.push_back(std::move(value));
  return values_.back();
}

Json& Json::at(std::string_view key) {
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return values_[i];
  }
  throw std::logic_error("Json::at: no key " + std::string(key));
}

Json& Json::push(Json value) {
  if (kind_ != Kind::kArray) throw std::logic_error("Json::push on a non-array");
  values_.push_back(std::move(value));
  return values_.back();
}

std::string Json::dump() const {
  std::string out;
  dump_to(out, 0);
  return out + "\n";
}

void Json::dump_to(std::string& out, int indent) const {
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  switch (kind_) {
    case Kind::kLiteral:
      out += text_;
      return;
    case Kind::kString:
      append_string(out, text_);
      return;
    case Kind::kArray:
    case Kind::kObject: {
      const bool object = kind_ == Kind::kObject;
      if (values_.empty()) {
        out += object ? "{}" : "[]";
        return;
      }
      out += object ? "{\n" : "[\n";
      for (std::size_t i = 0; i < values_.size(); ++i) {
        out += pad;
        if (object) {
          append_string(out, keys_[i]);
          out += ": ";
        }
        values_[i].dump_to(out, indent + 2);
        out += i + 1 < values_.size() ? ",\n" : "\n";
      }
      out += std::string(static_cast<std::size_t>(indent), ' ') + (object ? "}" : "]");
      return;
    }
  }
}

}  // namespace drsim
