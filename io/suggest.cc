#include "io/suggest.h"

#include <algorithm>
#include <cctype>

#include "sim/quote.h"

namespace drsim {

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Levenshtein distance with adjacent transpositions ("tiemline"), ignoring case.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
    }
    before.swap(prev);
    prev.swap(cur);
  }
  return prev[b.size()];
}

constexpr std::size_t kMaxListed = 20;

}  // namespace

std::optional<std::string_view> closest_match(std::string_view word, const std::vector<std::string_view>& candidates) {
  // A third of the word may be wrong: "durattion" -> "duration", not "at" -> "id".
  const std::size_t allowed = std::max<std::size_t>(1, word.size() / 3);
  std::optional<std::string_view> best;
  std::size_t best_distance = allowed + 1;
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

std::string unknown_name_message(std::string_view what, std::string_view name,
                                 const std::vector<std::string_view>& known, std::string_view list_label) {
  std::string out = "unknown " + std::string(what) + " " + quote(name);
  if (auto guess = closest_match(name, known)) out += ", did you mean \"" + std::string(*guess) + "\"?";
  out += " (" + std::string(list_label) + ": ";
  if (known.empty()) out += "none";
  for (std::size_t i = 0; i < known.size() && i < kMaxListed; ++i) {
    if (i > 0) out += ", ";
    out += known[i];
  }
  if (known.size() > kMaxListed) out += ", ... " + std::to_string(known.size() - kMaxListed) + " more";
  return out + ")";
}

}  // namespace drsim
