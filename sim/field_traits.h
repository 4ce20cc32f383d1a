#pragma once
// Shapes a field can have around its value type: std::optional<T> (may be
// absent) and std::vector<T> (a YAML list). The decoder, the writer, the docs
// generators, the validation and the Python bindings peel these off the same way.
#include <optional>
#include <type_traits>
#include <vector>

namespace drsim {

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};

// The type a field holds once optional<> and vector<> are peeled off.
template <class T>
struct ElementOf {
  using type = T;
};
template <class T>
struct ElementOf<std::optional<T>> : ElementOf<T> {};
template <class T>
struct ElementOf<std::vector<T>> : ElementOf<T> {};

// The value type of a FieldInfo, for use on the `const auto& field` of
// for_each_field's callback.
template <class Info>
using FieldValue = typename std::decay_t<Info>::value_type;

}  // namespace drsim
