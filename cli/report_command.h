#pragma once
// `drsim report SOURCE OUT.html [...]`: the HTML report is drawn by the
// Python package (matplotlib figures, pandas tables), so this command hands
// the whole command line over to `python3 -m drsim report`, the one
// implementation of it, rather than keeping a second one in C++.
#include <string>
#include <vector>

namespace drsim::cli {

// Replaces the process with the Python interpreter the project was built
// against; returns only if that fails (exit code 1, reason on stderr). The
// build tree's package comes first on PYTHONPATH when it exists, so a build
// that was not installed reports with its own code.
int report_command(const std::vector<std::string>& words);

}  // namespace drsim::cli
