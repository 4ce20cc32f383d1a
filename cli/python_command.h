#pragma once
// The commands drawn or computed by the Python package: `drsim report`
// (matplotlib figures, pandas tables), `drsim uncertainty` and `drsim
// regress` (studies over many runs, on local processes or Dask). This hands
// the whole command line over to `python3 -m drsim <command>`, the one
// implementation of each, rather than keeping a second one in C++.
#include <string>
#include <string_view>
#include <vector>

namespace drsim::cli {

// Whether `command` is one of those the Python package implements.
bool is_python_command(std::string_view command);

// Replaces the process with the Python interpreter the project was built
// against; returns only if that fails (exit code 1, reason on stderr). The
// build tree's package comes first on PYTHONPATH when it exists, so a build
// that was not installed runs its own code.
int python_command(const std::vector<std::string>& words);

}  // namespace drsim::cli
