#pragma once
// Runs the built `drsim` executable as a user would: its exit code and what
// it printed on stdout and stderr.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/cli/cli_test_support.h"

namespace drsim::testing {

struct Completed {
  int exit_code;
  std::string out;
  std::string err;
};

// Runs drsim with the arguments, in the folder `cwd` when one is given.
inline Completed run_drsim(const std::string& arguments, const std::filesystem::path& cwd = {}) {
  const char* binary_dir = std::getenv("DRSIM_BINARY_DIR");
  const std::string binary =
      std::filesystem::absolute(std::string(binary_dir != nullptr ? binary_dir : "build") + "/cli/drsim").string();
  TempDir capture("capture");
  const auto out = capture.path() / "out";
  const auto err = capture.path() / "err";
  const std::string in_dir = cwd.empty() ? "" : "cd '" + cwd.string() + "' && ";
  const std::string command =
      in_dir + binary + " " + arguments + " >" + out.string() + " 2>" + err.string() + " </dev/null";
  const int status = std::system(command.c_str());
  return Completed{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(out), read_file(err)};
}

}  // namespace drsim::testing
