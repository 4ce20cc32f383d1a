// The N+1 report as text (for people) and as JSON (for CI); declared in
// analysis/n_plus_one.h.
#include <cmath>
#include <cstdio>

#include "analysis/n_plus_one.h"
#include "sim/json_scalars.h"

namespace drsim {

namespace {

std::string milliseconds(Duration d) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f ms", to_seconds(d) * 1e3);
  return text;
}

std::string percent(double ratio, const char* format) {
  if (!std::isfinite(ratio)) return ratio > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof text, format, 100 * ratio);
  return text;
}

// --- JSON --------------------------------------------------------------------

std::string json_seconds(const std::optional<Duration>& d) { return d ? json_number_rounded(to_seconds(*d)) : "null"; }

}  // namespace

std::string format_report(const NPlusOneReport& report) {
  std::string out;
  char line[320];
  std::snprintf(line, sizeof line,
                "N+1 capacity check (utilization target %.0f%%; M/M/c per pod, workers held during calls)\n\n",
                100 * report.utilization_target);
  out += line;
  for (const FailureCase& c : report.cases) {
    out += c.name + (c.overloaded ? "  -- OVERLOADED\n" : "\n");
    if (!c.error.empty()) out += "  error: " + c.error + "\n";
    for (const std::string& note : c.notes) out += "  note: " + note + "\n";
    for (const std::string& lost : c.blast_radius) out += "  blast radius: " + lost + "\n";
    std::snprintf(line, sizeof line, "  %-14s %-16s %5s %10s %7s %9s %8s %6s %10s %10s\n", "service", "zone", "pods",
                  "rate/s", "util", "headroom", "blocked", "spill", "holding", "response");
    out += line;
    for (const StationRow& s : c.stations) {
      const std::string holding = s.mean_holding ? milliseconds(*s.mean_holding) : "-";
      const std::string response = !s.stable ? "UNSTABLE" : s.mean_response ? milliseconds(*s.mean_response) : "-";
      const std::string headroom = s.up_pods && s.rate_per_s > 0 ? percent(s.headroom, "%.0f%%") : "-";
      const std::string spill = s.spill > 0 ? percent(s.spill, "%.1f%%") : "-";
      std::snprintf(line, sizeof line, "  %-14s %-16s %5u %10.1f %7s %9s %7.2f%% %6s %10s %10s%s\n",
                    s.service.c_str(), s.zone.c_str(), s.up_pods, s.rate_per_s,
                    percent(s.utilization, "%.1f%%").c_str(), headroom.c_str(), 100 * s.blocking, spill.c_str(),
                    holding.c_str(), response.c_str(), s.overloaded ? "  OVERLOAD" : "");
      out += line;
    }
    if (!c.pools.empty()) {
      // Connection pools (one per pod and database): only for scenarios with database calls.
      std::snprintf(line, sizeof line, "  %-14s %-14s %-16s %5s %5s %10s %7s %10s %10s\n", "pool of", "database",
                    "zone", "pods", "conns", "borrows/s", "util", "hold", "wait");
      out += line;
      for (const PoolRow& p : c.pools) {
        const std::string hold = p.mean_hold ? milliseconds(*p.mean_hold) : "-";
        const std::string wait = !p.stable ? "UNSTABLE" : p.mean_wait ? milliseconds(*p.mean_wait) : "-";
        std::snprintf(line, sizeof line, "  %-14s %-14s %-16s %5u %5u %10.1f %7s %10s %10s%s\n", p.service.c_str(),
                      p.database.c_str(), p.zone.c_str(), p.up_pods, p.connections, p.rate_per_s,
                      percent(p.utilization, "%.1f%%").c_str(), hold.c_str(), wait.c_str(),
                      p.overloaded ? "  OVERLOAD" : "");
        out += line;
      }
    }
    for (const PopulationRow& p : c.populations) {
      const std::string latency = p.mean_latency ? milliseconds(*p.mean_latency) : "unbounded";
      std::snprintf(line, sizeof line, "  population %-20s %10.1f/s  mean latency %s", p.population.c_str(),
                    p.rate_per_s, latency.c_str());
      out += line;
      if (p.unserved_rate_per_s > 0) {
        std::snprintf(line, sizeof line, "  (%.1f/s unserved: no up pod or unreachable)", p.unserved_rate_per_s);
        out += line;
      }
      out += "\n";
    }
    out += "\n";
  }
  return out;
}

std::string format_report_json(const NPlusOneReport& report) {
  std::string out = "{\n  \"utilization_target\": " + json_number_rounded(report.utilization_target) +
                    ",\n  \"overloaded\": " + json_bool(report.any_overloaded()) + ",\n  \"cases\": [";
  for (std::size_t i = 0; i < report.cases.size(); ++i) {
    const FailureCase& c = report.cases[i];
    out += i ? ",\n    {" : "\n    {";
    out += "\"name\": " + json_string(c.name) + ", \"overloaded\": " + json_bool(c.overloaded);
    out += ", \"error\": " + (c.error.empty() ? std::string("null") : json_string(c.error));
    out += ", \"notes\": [";
    for (std::size_t k = 0; k < c.notes.size(); ++k) out += (k ? ", " : "") + json_string(c.notes[k]);
    out += "], \"blast_radius\": [";
    for (std::size_t k = 0; k < c.blast_radius.size(); ++k) out += (k ? ", " : "") + json_string(c.blast_radius[k]);
    out += "],\n     \"stations\": [";
    for (std::size_t k = 0; k < c.stations.size(); ++k) {
      const StationRow& s = c.stations[k];
      out += k ? ",\n      {" : "\n      {";
      out += "\"service\": " + json_string(s.service) + ", \"zone\": " + json_string(s.zone) +
             ", \"up_pods\": " + std::to_string(s.up_pods) + ", \"rate_per_s\": " + json_number_rounded(s.rate_per_s) +
             ", \"utilization\": " + json_number_rounded(s.utilization) + ", \"headroom\": " + json_number_rounded(s.headroom) +
             ", \"blocking\": " + json_number_rounded(s.blocking) + ", \"spill\": " + json_number_rounded(s.spill) +
             ", \"mean_holding_s\": " + json_seconds(s.mean_holding) +
             ", \"mean_response_s\": " + json_seconds(s.mean_response) + ", \"stable\": " + json_bool(s.stable) +
             ", \"overloaded\": " + json_bool(s.overloaded) + "}";
    }
    out += "],\n     \"pools\": [";
    for (std::size_t k = 0; k < c.pools.size(); ++k) {
      const PoolRow& p = c.pools[k];
      out += k ? ",\n      {" : "\n      {";
      out += "\"service\": " + json_string(p.service) + ", \"database\": " + json_string(p.database) +
             ", \"zone\": " + json_string(p.zone) + ", \"up_pods\": " + std::to_string(p.up_pods) +
             ", \"connections\": " + std::to_string(p.connections) +
             ", \"rate_per_s\": " + json_number_rounded(p.rate_per_s) +
             ", \"utilization\": " + json_number_rounded(p.utilization) +
             ", \"mean_hold_s\": " + json_seconds(p.mean_hold) + ", \"mean_wait_s\": " + json_seconds(p.mean_wait) +
             ", \"stable\": " + json_bool(p.stable) + ", \"overloaded\": " + json_bool(p.overloaded) + "}";
    }
    out += "],\n     \"populations\": [";
    for (std::size_t k = 0; k < c.populations.size(); ++k) {
      const PopulationRow& p = c.populations[k];
      out += k ? ",\n      {" : "\n      {";
      out += "\"population\": " + json_string(p.population) + ", \"rate_per_s\": " + json_number_rounded(p.rate_per_s) +
             ", \"unserved_rate_per_s\": " + json_number_rounded(p.unserved_rate_per_s) +
             ", \"mean_latency_s\": " + json_seconds(p.mean_latency) + "}";
    }
    out += "]}";
  }
  out += "\n  ]\n}\n";
  return out;
}

}  // namespace drsim
