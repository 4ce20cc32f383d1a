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

// A mean time: "inf" when unbounded, `none` when there is nothing to measure.
std::string milliseconds(const MeanTime& t, const char* none = "-") {
  if (t) return milliseconds(*t);
  return t.is_unbounded() ? "inf" : none;
}

std::string percent(double ratio, const char* format) {
  if (std::isnan(ratio)) return "-";
  if (!std::isfinite(ratio)) return ratio > 0 ? "inf" : "-inf";
  char text[32];
  std::snprintf(text, sizeof text, format, 100 * ratio);
  return text;
}

// ">=" before a lower bound, "<=" before an upper bound (finite values only).
std::string bounded(std::string text, bool bound, const char* mark) {
  return bound && text != "inf" && text != "-inf" && text != "-" ? mark + text : text;
}

std::string queue_length(double n) {
  if (std::isnan(n)) return "-";
  if (std::isinf(n)) return "inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", n);
  return text;
}

// The flag at the end of a row: unstable (no steady state) or over the target.
const char* verdict(bool overloaded, bool stable) {
  return !overloaded ? "" : stable ? "  OVERLOAD" : "  UNSTABLE OVERLOAD";
}

// --- JSON --------------------------------------------------------------------

// JSON has no infinity: an infinite number is the string "inf" ("-inf"), and
// NaN (nothing to measure) is null.
std::string json_value(double v) {
  if (std::isnan(v)) return "null";
  if (std::isinf(v)) return v > 0 ? "\"inf\"" : "\"-inf\"";
  return json_number_rounded(v);
}

std::string json_seconds(const MeanTime& t) { return t || t.is_unbounded() ? json_value(t.seconds()) : "null"; }

std::string worst_table(const NPlusOneReport& report) {
  const std::vector<ServiceWorstCase> worst = report.worst_per_service();
  if (worst.empty()) return "";
  std::string out = "worst case per service (its station with the highest utilisation over every case)\n";
  char line[320];
  std::snprintf(line, sizeof line, "  %-14s %-24s %-16s %9s %9s  %s\n", "service", "case", "zone", "util", "headroom",
                "overloaded");
  out += line;
  const std::size_t cases = report.cases.size();
  for (const ServiceWorstCase& w : worst) {
    const std::string util = bounded(percent(w.utilization, "%.1f%%"), w.holding_lower_bound, ">=");
    const std::string headroom = bounded(percent(w.headroom, "%.0f%%"), w.holding_lower_bound, "<=");
    std::snprintf(line, sizeof line, "  %-14s %-24s %-16s %9s %9s  in %zu of %zu cases%s\n", w.service.c_str(),
                  w.case_name.c_str(), w.zone.c_str(), util.c_str(), headroom.c_str(), w.overloaded_cases, cases,
                  verdict(w.overloaded, w.stable));
    out += line;
  }
  return out + "\n";
}

}  // namespace

std::string format_report(const NPlusOneReport& report) {
  std::string out;
  char line[320];
  std::snprintf(line, sizeof line,
                "N+1 capacity check (utilization target %.0f%%; M/M/c per pod, workers held during calls)\n\n",
                100 * report.utilization_target);
  out += line;
  out += worst_table(report);
  for (const FailureCase& c : report.cases) {
    out += c.name + (c.overloaded ? "  -- OVERLOADED\n" : "\n");
    if (!c.error.empty()) out += "  error: " + c.error + "\n";
    for (const std::string& note : c.notes) out += "  note: " + note + "\n";
    for (const std::string& lost : c.blast_radius) out += "  blast radius: " + lost + "\n";
    std::snprintf(line, sizeof line, "  %-14s %-16s %5s %10s %9s %9s %8s %6s %11s %10s %7s %10s %8s %8s\n", "service",
                  "zone", "pods", "rate/s", "util", "headroom", "blocked", "spill", "holding", "wait", "queue",
                  "response", "cpu/req", "cpu/lim");
    out += line;
    bool any_bound = false;
    for (const StationRow& s : c.stations) {
      any_bound = any_bound || s.holding_lower_bound;
      const std::string util = bounded(percent(s.utilization, "%.1f%%"), s.holding_lower_bound, ">=");
      const std::string holding = bounded(milliseconds(s.mean_holding), s.holding_lower_bound, ">=");
      const std::string headroom = bounded(percent(s.headroom, "%.0f%%"), s.holding_lower_bound, "<=");
      const std::string spill = s.spill > 0 ? percent(s.spill, "%.1f%%") : "-";
      std::snprintf(line, sizeof line, "  %-14s %-16s %5u %10.1f %9s %9s %7.2f%% %6s %11s %10s %7s %10s %8s %8s%s\n",
                    s.service.c_str(), s.zone.c_str(), s.up_pods, s.rate_per_s, util.c_str(), headroom.c_str(),
                    100 * s.blocking, spill.c_str(), holding.c_str(), milliseconds(s.mean_wait).c_str(),
                    queue_length(s.mean_queue_length).c_str(), milliseconds(s.mean_response).c_str(),
                    percent(s.cpu_request_share, "%.0f%%").c_str(), percent(s.cpu_limit_share, "%.0f%%").c_str(),
                    verdict(s.overloaded, s.stable));
      out += line;
    }
    if (any_bound) {
      out += "  >= / <=: bounds; the workers wait for a station without a steady state, whose growing wait is left "
             "out\n";
    }
    if (!c.pools.empty()) {
      // Connection pools (one per pod and database): only for scenarios with database calls.
      std::snprintf(line, sizeof line, "  %-14s %-14s %-16s %5s %5s %10s %7s %10s %10s\n", "pool of", "database",
                    "zone", "pods", "conns", "borrows/s", "util", "hold", "wait");
      out += line;
      for (const PoolRow& p : c.pools) {
        std::snprintf(line, sizeof line, "  %-14s %-14s %-16s %5u %5u %10.1f %7s %10s %10s%s\n", p.service.c_str(),
                      p.database.c_str(), p.zone.c_str(), p.up_pods, p.connections, p.rate_per_s,
                      percent(p.utilization, "%.1f%%").c_str(), milliseconds(p.mean_hold).c_str(),
                      milliseconds(p.mean_wait).c_str(), verdict(p.overloaded, p.stable));
        out += line;
      }
    }
    for (const PopulationRow& p : c.populations) {
      const std::string latency = milliseconds(p.mean_latency);
      std::snprintf(line, sizeof line, "  population %-20s %10.1f/s  mean latency %s", p.population.c_str(),
                    p.rate_per_s, latency.c_str());
      out += line;
      if (p.unserved_rate_per_s > 0) {
        std::snprintf(line, sizeof line, "  (%.1f/s unserved: no up pod or unreachable)", p.unserved_rate_per_s);
        out += line;
      }
      out += "\n";
      for (const OperationRow& o : c.operations) {
        if (o.population != p.population) continue;
        std::snprintf(line, sizeof line, "    operation %-19s %10.1f/s  mean latency %s\n", o.operation.c_str(),
                      o.rate_per_s, milliseconds(o.mean_latency).c_str());
        out += line;
      }
    }
    out += "\n";
  }
  return out;
}

std::string format_report_json(const NPlusOneReport& report) {
  std::string out = "{\n  \"utilization_target\": " + json_number_rounded(report.utilization_target) +
                    ",\n  \"overloaded\": " + json_bool(report.any_overloaded()) + ",\n  \"worst\": [";
  const std::vector<ServiceWorstCase> worst = report.worst_per_service();
  for (std::size_t i = 0; i < worst.size(); ++i) {
    const ServiceWorstCase& w = worst[i];
    out += i ? ",\n    {" : "\n    {";
    out += "\"service\": " + json_string(w.service) + ", \"case\": " + json_string(w.case_name) +
           ", \"zone\": " + json_string(w.zone) + ", \"utilization\": " + json_value(w.utilization) +
           ", \"headroom\": " + json_value(w.headroom) +
           ", \"holding_lower_bound\": " + json_bool(w.holding_lower_bound) + ", \"stable\": " + json_bool(w.stable) +
           ", \"overloaded\": " + json_bool(w.overloaded) +
           ", \"overloaded_cases\": " + std::to_string(w.overloaded_cases) + "}";
  }
  out += worst.empty() ? "],\n  \"cases\": [" : "\n  ],\n  \"cases\": [";
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
             ", \"utilization\": " + json_value(s.utilization) + ", \"headroom\": " + json_value(s.headroom) +
             ", \"blocking\": " + json_number_rounded(s.blocking) + ", \"spill\": " + json_number_rounded(s.spill) +
             ", \"mean_holding_s\": " + json_seconds(s.mean_holding) +
             ", \"holding_lower_bound\": " + json_bool(s.holding_lower_bound) +
             ", \"mean_wait_s\": " + json_seconds(s.mean_wait) +
             ", \"mean_queue_length\": " + json_value(s.mean_queue_length) +
             ", \"mean_response_s\": " + json_seconds(s.mean_response) +
             ", \"cpu_cores\": " + json_value(s.cpu_cores) +
             ", \"cpu_request_share\": " + json_value(s.cpu_request_share) +
             ", \"cpu_limit_share\": " + json_value(s.cpu_limit_share) + ", \"stable\": " + json_bool(s.stable) +
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
             ", \"utilization\": " + json_value(p.utilization) +
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
    out += "],\n     \"operations\": [";
    for (std::size_t k = 0; k < c.operations.size(); ++k) {
      const OperationRow& o = c.operations[k];
      out += k ? ",\n      {" : "\n      {";
      out += "\"population\": " + json_string(o.population) + ", \"operation\": " + json_string(o.operation) +
             ", \"rate_per_s\": " + json_number_rounded(o.rate_per_s) +
             ", \"mean_latency_s\": " + json_seconds(o.mean_latency) + "}";
    }
    out += "]}";
  }
  out += "\n  ]\n}\n";
  return out;
}

}  // namespace drsim
