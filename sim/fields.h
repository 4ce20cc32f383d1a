#pragma once
// One field list per configuration struct. It is the single declaration of a
// field: the YAML decoder, the docs and JSON Schema generators, the resolved-
// scenario writer and the Python bindings all walk it, so a field cannot exist
// in one and be missing from another.
//
//   struct LinkSpec {
//     std::string name;
//     Duration rtt{};
//     static constexpr std::string_view kTypeName = "Link";
//     static constexpr auto fields() {
//       return std::tuple{field("name", &LinkSpec::name, "Unique link name.", kRequired),
//                         field("rtt", &LinkSpec::rtt, "Round-trip time.", kRequired | kPositive)};
//     }
//   };
//
// Models describe their config this way without depending on yaml-cpp.
#include <string_view>
#include <tuple>
#include <utility>

namespace drsim {

// Constraints checked by the decoder, so that errors point at the value.
enum FieldFlags : unsigned {
  kOptional = 0,
  kRequired = 1u << 0,     // must be present (otherwise the member's default applies)
  kPositive = 1u << 1,     // > 0 (durations, rates, counts)
  kNonNegative = 1u << 2,  // >= 0
  kAtMostOne = 1u << 3,    // ratios: <= 100%
};

template <class Owner, class T>
struct FieldInfo {
  using owner_type = Owner;
  using value_type = T;
  std::string_view key;  // YAML key, camelCase
  T Owner::*member;
  std::string_view doc;
  unsigned flags = kOptional;

  constexpr bool required() const { return (flags & kRequired) != 0; }
};

template <class Owner, class T>
constexpr FieldInfo<Owner, T> field(std::string_view key, T Owner::*member, std::string_view doc,
                                    unsigned flags = kOptional) {
  return FieldInfo<Owner, T>{key, member, doc, flags};
}

template <class T>
concept Described = requires {
  T::fields();
  { T::kTypeName } -> std::convertible_to<std::string_view>;
};

// Calls f(field_info) for each field of T, in declaration order.
template <Described T, class F>
constexpr void for_each_field(F&& f) {
  std::apply([&](const auto&... info) { (f(info), ...); }, T::fields());
}

}  // namespace drsim
