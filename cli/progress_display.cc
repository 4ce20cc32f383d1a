#include "cli/progress_display.h"

namespace drsim::cli {

void ProgressDisplay::update(const RunProgress& p) {
  if (p.wall_seconds < 1.0) return;
  const double fraction = to_seconds(p.horizon) > 0 ? to_seconds(p.now) / to_seconds(p.horizon) : 1.0;
  const double rate = static_cast<double>(p.events) / p.wall_seconds;
  std::fprintf(out_, "\r  t=%s / %s (%3.0f%%)  %.3g events  %.3g events/s   ", format_clock(p.now).c_str(),
               format_clock(p.horizon).c_str(), 100.0 * fraction, static_cast<double>(p.events), rate);
  std::fflush(out_);
  drawn_ = true;
}

void ProgressDisplay::clear() {
  if (!drawn_) return;
  std::fprintf(out_, "\r%80s\r", "");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace drsim::cli
