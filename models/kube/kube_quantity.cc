#include "models/kube/kube_quantity.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/quote.h"

namespace drsim {
namespace {

[[noreturn]] void not_a_quantity(std::string_view text) {
  throw std::invalid_argument("expected a number or a Kubernetes quantity such as \"500m\" or \"512Mi\", got " +
                              quote(text));
}

// The suffix as a power of ten and a power of 1024: "m" is 10^-3, "Mi" is 1024^2.
struct Suffix {
  std::string_view text;
  int power_of_ten;
  int power_of_1024;
};
constexpr std::array<Suffix, 15> kSuffixes{{{"n", -9, 0},
                                            {"u", -6, 0},
                                            {"m", -3, 0},
                                            {"k", 3, 0},
                                            {"M", 6, 0},
                                            {"G", 9, 0},
                                            {"T", 12, 0},
                                            {"P", 15, 0},
                                            {"E", 18, 0},
                                            {"Ki", 0, 1},
                                            {"Mi", 0, 2},
                                            {"Gi", 0, 3},
                                            {"Ti", 0, 4},
                                            {"Pi", 0, 5},
                                            {"Ei", 0, 6}}};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Decimal digits, most significant first, times a small factor, in place.
void multiply(std::vector<int>& digits, int factor) {
  int carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    const int v = *it * factor + carry;
    *it = v % 10;
    carry = v / 10;
  }
  while (carry > 0) {
    digits.insert(digits.begin(), carry % 10);
    carry /= 10;
  }
}

}  // namespace

MilliQuantity parse_kube_quantity(std::string_view text) {
  const std::string_view original = text;
  // Surrounding blanks are forgiven, as a manifest's "500m " reads.
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);

  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  // The mantissa's digits, with the decimal point removed: value = digits x 10^exponent.
  std::vector<int> digits;
  int exponent = 0;
  bool any_digit = false;
  bool point = false;
  std::size_t i = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (is_digit(c)) {
      any_digit = true;
      if (digits.empty() && c == '0') {
        if (point) --exponent;  // a leading zero after the point only scales
        continue;
      }
      digits.push_back(c - '0');
      if (point) --exponent;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (!any_digit) not_a_quantity(original);
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E') && i + 1 < text.size() &&
      (is_digit(text[i + 1]) || ((text[i + 1] == '+' || text[i + 1] == '-') && i + 2 < text.size() &&
                                 is_digit(text[i + 2])))) {
    // "1e3" is an exponent; a lone "E" is the exa suffix, handled below.
    ++i;
    bool exponent_negative = false;
    if (text[i] == '+' || text[i] == '-') exponent_negative = text[i++] == '-';
    long long e = 0;
    for (; i < text.size() && is_digit(text[i]); ++i) {
      e = std::min<long long>(e * 10 + (text[i] - '0'), 100000);  // far beyond any int64 either way
    }
    exponent += static_cast<int>(exponent_negative ? -e : e);
  }
  const std::string_view suffix_text = text.substr(i);
  const Suffix* suffix = nullptr;
  if (!suffix_text.empty()) {
    for (const Suffix& s : kSuffixes) {
      if (s.text == suffix_text) suffix = &s;
    }
    if (suffix == nullptr) not_a_quantity(original);
  }
  if (digits.empty()) return MilliQuantity{0};
  if (negative) {
    throw std::invalid_argument("expected a non-negative quantity, got " + quote(original));
  }
  if (suffix != nullptr) {
    exponent += suffix->power_of_ten;
    for (int k = 0; k < suffix->power_of_1024; ++k) multiply(digits, 1024);
  }
  exponent += 3;  // milli-units

  // Integer part and whether anything is left after the point, which rounds up.
  const long long integer_digits = static_cast<long long>(digits.size()) + exponent;
  bool fraction = false;
  std::vector<int> whole;
  if (integer_digits <= 0) {
    fraction = true;  // digits is not empty and starts with a non-zero digit
  } else {
    const auto kept = static_cast<std::size_t>(std::min<long long>(integer_digits, digits.size()));
    whole.assign(digits.begin(), digits.begin() + static_cast<std::ptrdiff_t>(kept));
    fraction = std::any_of(digits.begin() + static_cast<std::ptrdiff_t>(kept), digits.end(),
                           [](int d) { return d != 0; });
    if (integer_digits > static_cast<long long>(digits.size())) {
      const long long zeros = integer_digits - static_cast<long long>(digits.size());
      if (zeros > 20) {
        throw std::invalid_argument("expected a quantity whose milli-units fit in int64, got " + quote(original));
      }
      whole.insert(whole.end(), static_cast<std::size_t>(zeros), 0);
    }
  }
  constexpr auto kMax = static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max());
  unsigned long long value = 0;
  for (const int d : whole) {
    if (value > (kMax - static_cast<unsigned long long>(d)) / 10) {
      throw std::invalid_argument("expected a quantity whose milli-units fit in int64, got " + quote(original));
    }
    value = value * 10 + static_cast<unsigned long long>(d);
  }
  if (fraction) {
    if (value == kMax) {
      throw std::invalid_argument("expected a quantity whose milli-units fit in int64, got " + quote(original));
    }
    ++value;
  }
  return MilliQuantity{static_cast<std::int64_t>(value)};
}

std::string format_kube_quantity(MilliQuantity q) {
  if (q.milli % 1000 == 0) return std::to_string(q.milli / 1000);
  return std::to_string(q.milli) + "m";
}

}  // namespace drsim
