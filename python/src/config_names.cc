#include "python/src/config_names.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace drsim::python {

namespace {

bool is_upper(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }
bool is_lower_or_digit(char c) {
  return std::islower(static_cast<unsigned char>(c)) != 0 || std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// The keywords a lowercase identifier can collide with (keyword.kwlist
// without True, False and None, which snake_case cannot produce).
constexpr std::array<std::string_view, 32> kKeywords = {
    "and",      "as",     "assert",  "async", "await", "break",  "class", "continue", "def",  "del",   "elif",
    "else",     "except", "finally", "for",   "from",  "global", "if",    "import",   "in",   "is",    "lambda",
    "nonlocal", "not",    "or",      "pass",  "raise", "return", "try",   "while",    "with", "yield",
};

}  // namespace

std::string python_name(std::string_view key) {
  std::string out;
  for (std::size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (c == '-' || c == '.' || c == ' ') {
      out += '_';
      continue;
    }
    if (is_upper(c)) {
      // A new word starts at an upper-case letter after a lower-case one or
      // a digit ("serviceTime"), and at the last capital of a run followed
      // by a lower-case letter ("RPSBudget" -> "rps_budget").
      const bool after_word = i > 0 && is_lower_or_digit(key[i - 1]);
      const bool ends_acronym =
          i > 0 && is_upper(key[i - 1]) && i + 1 < key.size() && !is_upper(key[i + 1]) && is_lower_or_digit(key[i + 1]);
      if ((after_word || ends_acronym) && !out.empty() && out.back() != '_') out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  if (std::find(kKeywords.begin(), kKeywords.end(), out) != kKeywords.end()) out += '_';
  return out;
}

bool names_field(std::string_view text, std::string_view yaml_key) {
  return text == yaml_key || text == python_name(yaml_key);
}

}  // namespace drsim::python
