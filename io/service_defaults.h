#pragma once
// `serviceDefaults` in a topology: Service keys that every service takes
// unless it sets them itself, so that a fleet-wide setting is written once.
// Merged into the YAML tree before decoding (after --set overrides, so that
// an override of a default reaches every service), so each merged value goes
// through the checks a value written in the service does, and a problem in
// it is reported at the default's own line. Internal to io/.
#include <yaml-cpp/yaml.h>

#include <string>

namespace drsim {

class Decoder;

// The YAML key, beside `services` in a topology mapping.
inline constexpr const char* kServiceDefaultsKey = "serviceDefaults";
// Its line in the generated docs and schema.
inline constexpr const char* kServiceDefaultsDoc =
    "Service keys every service takes unless it sets them itself: a mapping is merged key by key (when both "
    "name the same `kind` or neither names one), a list or a value the service sets replaces the default's. "
    "A problem in a default is reported at its own line; `--set` reaches it before it is merged.";

// Takes `serviceDefaults` out of the topology mapping at path (decoder
// spelling: "spec.topology" inline, "spec" in a topology file), checks it as
// a Service without a name, and merges it into each service:
//  - a key the service does not set takes the default's value;
//  - mappings are merged key by key when both name the same `kind` or
//    neither names one (distributions, policies); otherwise the service's
//    mapping replaces the default's whole;
//  - lists and scalars the service sets replace the default's.
// Problems are reported through decoder; when the defaults themselves are
// wrong nothing is merged, so each problem is reported once.
void merge_service_defaults(Decoder& decoder, YAML::Node topology, const std::string& path);

}  // namespace drsim
