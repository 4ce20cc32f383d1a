#pragma once
// "Did you mean ...?" for unknown keys and names.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace drsim {

// The candidate closest to word by edit distance (ignoring case), when it is
// close enough to be a likely typo; the first one on a tie.
std::optional<std::string_view> closest_match(std::string_view word, const std::vector<std::string_view>& candidates);

// unknown <what> "<name>", did you mean "<closest>"? (<list_label>: a, b, c)
// The list is cut after a screenful of names.
std::string unknown_name_message(std::string_view what, std::string_view name,
                                 const std::vector<std::string_view>& known, std::string_view list_label);

}  // namespace drsim
