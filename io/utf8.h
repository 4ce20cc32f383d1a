#pragma once
// UTF-8 validation shared by the readers of scenario text and CSV files.
// Internal to io/.
#include <cstddef>
#include <string_view>

namespace drsim {

// Length of the valid UTF-8 sequence starting at text[i], or 0: no overlong
// forms, no UTF-16 surrogates, nothing beyond U+10FFFF.
inline std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = b(i);
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the first continuation byte
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) {
    len = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    len = 3;
    if (lead == 0xe0) lo = 0xa0;  // overlong
    if (lead == 0xed) hi = 0x9f;  // UTF-16 surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    len = 4;
    if (lead == 0xf0) lo = 0x90;  // overlong
    if (lead == 0xf4) hi = 0x8f;  // beyond U+10FFFF
  } else {
    return 0;
  }
  for (std::size_t k = 1; k < len; ++k) {
    if (i + k >= text.size() || b(i + k) < (k == 1 ? lo : 0x80) || b(i + k) > (k == 1 ? hi : 0xbf)) return 0;
  }
  return len;
}

}  // namespace drsim
