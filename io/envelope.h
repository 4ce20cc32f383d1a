#pragma once
// The Kubernetes-style envelope: apiVersion and kind are checked before the
// rest of a document, so that a Topology file passed as a scenario gets one
// clear message instead of a page of unknown keys. Internal to io/.
#include <yaml-cpp/yaml.h>

#include <string_view>

#include "io/yaml_decode.h"

namespace drsim {

// Reports a wrong apiVersion or kind; false when there was one. Missing keys
// and wrong shapes are left to the decoder.
bool check_envelope(Decoder& decoder, const YAML::Node& root, std::string_view kind);

}  // namespace drsim
