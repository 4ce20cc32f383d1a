#pragma once
// A results file or folder that cannot be written: the user's path (a file
// where a folder belongs, no permission, a full disk, a name too long), not a
// bug in drsim. The CLI reports it as bad input (exit 2) and Python as
// OSError with the errno, which is why it is a std::system_error.
//   what(): "cannot create the results folder out/x: Not a directory"
#include <filesystem>
#include <string>
#include <system_error>

namespace drsim {

class OutputError : public std::system_error {
 public:
  // action: "cannot write", "cannot create the results folder", ...
  OutputError(std::error_code code, const std::string& action, std::filesystem::path path)
      : std::system_error(code, action + " " + path.string()), path_(std::move(path)) {}

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace drsim
