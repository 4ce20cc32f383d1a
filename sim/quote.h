#pragma once
// User text inside a message: quoted, with control bytes escaped so that a
// message about garbage input stays one readable line.
#include <string>
#include <string_view>

namespace drsim {

std::string quote(std::string_view text);

}  // namespace drsim
