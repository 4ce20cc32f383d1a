#pragma once
// A Kubernetes resource quantity (k8s.io/apimachinery resource.Quantity) as the HPA controller reads it: in
// milli-units, rounded up the way Quantity.MilliValue() rounds ("1.0001m" is 2 milli-units).
//
// The text is a decimal number with an optional exponent and an optional suffix: SI (n, u, m, k, M, G, T, P, E)
// or binary (Ki, Mi, Gi, Ti, Pi, Ei), so "500m", "1.5", "512Mi", "1e3" and "2.5k" all read. The arithmetic is
// exact on the decimal digits (no floating point), so "0.3" is 300 milli-units and not 299.
#include <cstdint>
#include <string>
#include <string_view>

namespace drsim {

struct MilliQuantity {
  std::int64_t milli = 0;
  friend bool operator==(MilliQuantity, MilliQuantity) = default;
};

// Throws std::invalid_argument with an "expected ..., got ..." message for text that is not a quantity, a
// negative quantity, or one whose milli-units do not fit in int64.
MilliQuantity parse_kube_quantity(std::string_view text);

// The shortest text that parse_kube_quantity reads back to the same value: "500m", "2", "1500m".
std::string format_kube_quantity(MilliQuantity q);

}  // namespace drsim
