#include "io/envelope.h"

namespace drsim {

bool check_envelope(Decoder& decoder, const YAML::Node& root, std::string_view kind) {
  if (!root.IsMap()) return true;
  bool ok = true;
  auto check = [&](const std::string& key, std::string_view expected) {
    for (const auto& pair : root) {
      if (!pair.first.IsScalar() || pair.first.Scalar() != key) continue;
      const YAML::Node& value = pair.second;
      if (value.IsScalar() && value.Scalar() != expected) {
        decoder.error(value.Mark(), key, "expected " + quote(expected) + ", got " + quote(value.Scalar()));
        ok = false;
      }
      return;
    }
  };
  check("apiVersion", Scenario::kApiVersion);
  check("kind", kind);
  return ok;
}

}  // namespace drsim
