#include "io/results_folder.h"

#include <cstdint>

#include "io/utf8.h"

namespace drsim {

namespace {

bool kept(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

// FNV-1a: fixed by its definition, so a folder name never changes between
// builds or platforms (std::hash may).
std::uint32_t fnv1a(std::string_view text) {
  std::uint32_t h = 2166136261u;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return h;
}

}  // namespace

std::string results_folder_name(std::string_view scenario_name) {
  std::string out;
  bool in_run = false;  // inside a run of replaced characters
  for (std::size_t i = 0; i < scenario_name.size();) {
    const char c = scenario_name[i];
    if (kept(c)) {
      out += c;
      in_run = false;
      ++i;
      continue;
    }
    if (!in_run) out += '-';
    in_run = true;
    // A multi-byte character is one character; a broken byte is one too.
    const std::size_t len = utf8_sequence(scenario_name, i);
    i += len == 0 ? 1 : len;
  }
  const std::size_t first = out.find_first_not_of(".-");
  out = first == std::string::npos ? "" : out.substr(first);
  if (out.empty()) out = "scenario";
  if (out.size() > kMaxResultsFolderChars) {
    constexpr char kHex[] = "0123456789abcdef";
    const std::uint32_t h = fnv1a(scenario_name);
    std::string suffix = "-";
    for (int shift = 28; shift >= 0; shift -= 4) suffix += kHex[(h >> shift) & 0xf];
    out = out.substr(0, kMaxResultsFolderChars - suffix.size()) + suffix;
  }
  return out;
}

std::filesystem::path default_results_dir(std::string_view scenario_name) {
  return std::filesystem::path("results") / results_folder_name(scenario_name);
}

}  // namespace drsim
