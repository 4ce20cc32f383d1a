#pragma once
// One config struct written on its own as YAML flow text, by the writer of
// the resolved scenario (to_yaml, io/scenario_yaml_writer.cc): the same keys,
// unit text and quoting, absent optionals left out, and values read from a
// CSV file left out too (their `file:` stands for them). decode_config
// (io/config_decode.h) reads the text back to an equal value. drsim.config
// pickles its values this way and writes them into overrides; yaml-cpp stays
// inside io/.
#include <string>
#include <typeindex>
#include <typeinfo>

#include "sim/fields.h"

namespace drsim {

// Whether encode_config knows the type: every struct reachable from Scenario.
bool config_encodable(std::type_index type);

// The YAML flow mapping of *value, a value of type `type`. Throws
// std::logic_error for a type config_encodable() refuses.
std::string encode_config_from(std::type_index type, const void* value);

template <Described T>
std::string encode_config(const T& value) {
  return encode_config_from(typeid(T), &value);
}

}  // namespace drsim
