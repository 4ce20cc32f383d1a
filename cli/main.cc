// drsim: the command line. Exit codes: 0 ok, 1 internal error, 2 bad input (or a results
// path that cannot be written), 3 check found an overload
// (--fail-on-overload) or recommend-policy found no policy that places the scale-out, 4 stopped by a guard,
// 130 interrupted (results written in both cases).
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cli/arguments.h"
#include "cli/commands.h"
#include "cli/python_command.h"
#include "io/output_error.h"
#include "io/scenario_error.h"

namespace {

std::atomic<bool> g_stop_requested{false};

// The first Ctrl-C asks the run to stop and write what it has; a second one
// falls through to the default action and ends the process.
extern "C" void on_interrupt(int) {
  g_stop_requested.store(true);
  std::signal(SIGINT, SIG_DFL);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace drsim::cli;
  static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");
  std::vector<std::string> words(argv + 1, argv + argc);
  // Its options are the Python command's: hand them over unparsed.
  if (!words.empty() && is_python_command(words[0])) return python_command(words);
  try {
    const Arguments args = parse_arguments(words);
    if (args.command == "version") {
      std::printf("drsim %s\n", DRSIM_VERSION);
      return kExitOk;
    }
    if (args.command == "help") {
      std::fputs(usage_text().c_str(), stdout);
      return kExitOk;
    }
    std::signal(SIGINT, on_interrupt);
    Console console;
    console.err_is_terminal = isatty(STDERR_FILENO) != 0;
    console.stop_flag = &g_stop_requested;
    return dispatch(args, console);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "drsim: %s\n\n%s", e.what(), usage_text().c_str());
    return kExitBadInput;
  } catch (const drsim::ScenarioError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return kExitBadInput;
  } catch (const drsim::OutputError& e) {
    // A results path the user gave or the system refuses: theirs to fix.
    std::fprintf(stderr, "drsim: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    // The estimate before a run and spec.guards.maxMemory during it are meant
    // to stop a run long before this; reaching it means they missed a growth.
    std::fprintf(stderr,
                 "drsim: out of memory: the run needed more memory than the machine could give; lower "
                 "spec.guards.maxMemory so that the run stops in time with its results\n");
    return kExitStoppedByGuard;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "drsim: internal error: %s\n", e.what());
    return kExitInternalError;
  } catch (...) {
    std::fprintf(stderr, "drsim: internal error: unknown exception\n");
    return kExitInternalError;
  }
}
