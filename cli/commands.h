#pragma once
// The `drsim` commands. Each returns the process exit code; bad input is
// reported through exceptions (ScenarioError, UsageError) that main() maps to
// exit code 2. `check --fail-on-overload` returns kExitOverloaded when a case
// overloads something, so that CI can tell it from bad input; so does
// `recommend-policy` when no policy places the scale-out (the healthy zones
// stay overloaded whatever the policy). `run --fail-on-objective` returns
// kExitObjectiveFailed, the same code, when a target of spec.objectives fails
// in a run that completed (a guard's or an interrupt's code comes first).
#include <atomic>
#include <cstdio>

#include "cli/arguments.h"

namespace drsim::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitInternalError = 1,
  kExitBadInput = 2,
  kExitOverloaded = 3,       // check: an overload; recommend-policy: no policy places the scale-out
  kExitObjectiveFailed = 3,  // run --fail-on-objective: a target of spec.objectives failed
  kExitStoppedByGuard = 4,
  kExitInterrupted = 130,
};

// Where the commands write and what stops a run; main() fills it in.
struct Console {
  std::FILE* out = stdout;
  std::FILE* err = stderr;
  bool err_is_terminal = false;
  const std::atomic<bool>* stop_flag = nullptr;
};

int run_command(const Arguments& args, const Console& console);
int validate_command(const Arguments& args, const Console& console);
int describe_command(const Arguments& args, const Console& console);
int check_command(const Arguments& args, const Console& console);
int recommend_policy_command(const Arguments& args, const Console& console);
int docs_command(const Arguments& args, const Console& console);
int import_command(const Arguments& args, const Console& console);

int dispatch(const Arguments& args, const Console& console);

}  // namespace drsim::cli
