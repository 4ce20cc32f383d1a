#include "cli/python_command.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "cli/commands.h"

namespace drsim::cli {

bool is_python_command(std::string_view command) {
  return command == "report" || command == "uncertainty" || command == "regress";
}

int python_command(const std::vector<std::string>& words) {
  const char* python = std::getenv("DRSIM_PYTHON");
  if (python == nullptr || *python == '\0') python = DRSIM_PYTHON_EXECUTABLE;
  std::error_code ignored;
  if (std::filesystem::is_regular_file(std::filesystem::path(DRSIM_BUILD_PYTHON_DIR) / "drsim" / "__init__.py",
                                       ignored)) {
    std::string path = DRSIM_BUILD_PYTHON_DIR;
    if (const char* old = std::getenv("PYTHONPATH"); old != nullptr && *old != '\0') path += std::string(":") + old;
    setenv("PYTHONPATH", path.c_str(), 1);
  }
  std::vector<std::string> args{python, "-m", "drsim"};
  args.insert(args.end(), words.begin(), words.end());  // words[0] is the command
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  execv(python, argv.data());
  std::fprintf(stderr, "drsim: %s: cannot start %s: %s (the command is run by the drsim Python package)\n",
               words.front().c_str(), python, std::strerror(errno));
  return kExitInternalError;
}

}  // namespace drsim::cli
