#include "io/trace_workload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "io/scenario_error.h"
#include "sim/quote.h"

namespace drsim {

namespace {

using Key = std::pair<std::string, std::string>;  // (service, operation)

std::string key_text(const Key& k) { return k.first + " " + quote(k.second); }

// What one span is to the workload.
enum class Role : std::uint8_t {
  kServing,  // an operation's request: it has self time and calls
  kCall,     // a CLIENT span, or work inside an operation
  kAsync,    // a CONSUMER span: work a message started, not a request
};

struct CallSeen {
  std::size_t key = 0;  // into the operation keys
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

// One request of an operation: its span and the calls it made.
struct Invocation {
  std::size_t span = 0;
  std::vector<CallSeen> calls;
};

// Per callee of an operation, over its requests.
struct CalleeStats {
  std::uint64_t calls = 0;
  std::uint64_t requests_making = 0;
  std::uint32_t most = 0;
  std::uint32_t least = 0xFFFFFFFFu;
  double first_offset_sum = 0;  // ns from the request's start to its first call of the callee
  std::uint64_t self_overlapping = 0;  // requests whose calls of it overlap one another
};

class WorkloadBuilder {
 public:
  WorkloadBuilder(const TraceSet& set, const TraceWorkloadOptions& options) : set_(set), options_(options) {}

  TraceWorkload build() {
    check_options();
    group_traces();
    classify();
    attribute_calls();
    TraceWorkload out;
    out.format = set_.format;
    out.spans = set_.spans.size();
    out.traces = traces_.size();
    out.window = options_.window;
    operations(out);
    entries(out);
    untraced_callee_notes(out);
    out.notes.insert(out.notes.end(), notes_.begin(), notes_.end());
    return out;
  }

 private:
  void check_options() const {
    if (!(options_.sampling > 0 && options_.sampling <= 1)) {
      throw ScenarioError(Diagnostic{.message = "the sampling ratio must be above 0 and at most 1 (the share of "
                                                "requests the traces hold), got " + std::to_string(options_.sampling)});
    }
    if (options_.window <= Duration::zero()) {
      throw ScenarioError(Diagnostic{.message = "the load profile's window must be positive"});
    }
    if (options_.max_samples < 2) {
      throw ScenarioError(Diagnostic{.message = "at least 2 self-time samples per operation are needed"});
    }
  }

  void note(const TraceSpan& s, const std::string& object, const std::string& message) {
    notes_.push_back(ImportNote{.file = s.file, .line = s.line, .column = s.column, .object = object,
                                .message = message});
  }

  [[noreturn]] static void fail(const TraceSpan& s, const std::string& message) {
    throw ScenarioError(Diagnostic{.file = s.file, .line = s.line, .column = s.column, .message = message});
  }

  void group_traces() {
    std::map<std::string, std::size_t> trace_of;
    parent_.assign(set_.spans.size(), kNone);
    for (std::size_t i = 0; i < set_.spans.size(); ++i) {
      const auto [it, added] = trace_of.try_emplace(set_.spans[i].trace_id, traces_.size());
      if (added) traces_.emplace_back();
      traces_[it->second].push_back(i);
    }
    for (const std::vector<std::size_t>& trace : traces_) {
      std::unordered_map<std::string_view, std::size_t> by_id;
      for (std::size_t i : trace) by_id.emplace(set_.spans[i].span_id, i);
      // read_trace_texts has checked that every parent is in its trace.
      for (std::size_t i : trace) {
        if (!set_.spans[i].parent_id.empty()) parent_[i] = by_id.at(set_.spans[i].parent_id);
      }
    }
    // Every chain of parents ends at a root: walk each once (0 unseen, 1 on the walk, 2 done).
    std::vector<std::uint8_t> state(set_.spans.size(), 0);
    std::vector<std::size_t> path;
    for (std::size_t i = 0; i < set_.spans.size(); ++i) {
      path.clear();
      std::size_t at = i;
      while (at != kNone && state[at] == 0) {
        state[at] = 1;
        path.push_back(at);
        at = parent_[at];
      }
      if (at != kNone && state[at] == 1) {
        fail(set_.spans[at], "span " + set_.spans[at].span_id + " of trace " + set_.spans[at].trace_id +
                                 " is its own ancestor: its parents form a cycle");
      }
      for (std::size_t p : path) state[p] = 2;
    }
  }

  // A span serves a request when its tracer says so (SERVER), or, when it does not say, when nothing of its own
  // service is above it (a root, or a child of another service's span).
  void classify() {
    role_.assign(set_.spans.size(), Role::kCall);
    for (std::size_t i = 0; i < set_.spans.size(); ++i) {
      const TraceSpan& s = set_.spans[i];
      switch (s.kind) {
        case SpanKind::kServer: role_[i] = Role::kServing; break;
        case SpanKind::kConsumer: role_[i] = Role::kAsync; break;
        case SpanKind::kClient:
        case SpanKind::kProducer: role_[i] = Role::kCall; break;
        case SpanKind::kInternal:
        case SpanKind::kUnspecified:
          role_[i] = parent_[i] == kNone || set_.spans[parent_[i]].service != s.service ? Role::kServing
                                                                                         : Role::kCall;
          break;
      }
    }
  }

  // The serving span a span's work belongs to: the nearest serving ancestor (kNone for a request's first
  // span; kAsyncWork under a consumer's span). group_traces has ruled out cycles.
  std::size_t enclosing(std::size_t i) {
    std::vector<std::size_t> path;
    std::size_t at = parent_[i];
    std::size_t found = kNone;
    while (at != kNone) {
      if (memo_.contains(at)) {
        found = memo_[at];
        break;
      }
      if (role_[at] == Role::kServing) {
        found = at;
        break;
      }
      if (role_[at] == Role::kAsync) {
        found = kAsyncWork;
        break;
      }
      path.push_back(at);
      at = parent_[at];
    }
    for (std::size_t p : path) memo_[p] = found;
    return found;
  }

  // Under a CONSUMER span, however many requests down: work a message started.
  bool in_async_work(std::size_t i) {
    for (std::size_t at = enclosing(i);; at = enclosing(at)) {
      if (at == kAsyncWork) return true;
      if (at == kNone) return false;
    }
  }

  std::size_t key_index(const TraceSpan& s) {
    const auto [it, added] = key_ids_.try_emplace(Key{s.service, s.operation}, keys_.size());
    if (added) {
      keys_.push_back(it->first);
      first_span_.push_back(&s);
      invocations_.emplace_back();
    }
    return it->second;
  }

  void attribute_calls() {
    std::vector<std::size_t> invocation_of(set_.spans.size(), kNone);  // serving span -> its invocation
    // Serving spans in file order, so that every operation's first position is where it is first written.
    for (std::size_t i = 0; i < set_.spans.size(); ++i) {
      if (role_[i] != Role::kServing) continue;
      const std::size_t above = enclosing(i);
      if (in_async_work(i)) {
        async_skipped_[Key{set_.spans[i].service, set_.spans[i].operation}]++;
        continue;
      }
      const std::size_t k = key_index(set_.spans[i]);
      invocation_of[i] = invocations_[k].size();
      invocations_[k].push_back(Invocation{.span = i, .calls = {}});
      if (above == kNone) roots_.push_back(i);
    }
    for (std::size_t i = 0; i < set_.spans.size(); ++i) {
      if (role_[i] == Role::kAsync) {
        const std::size_t above = enclosing(i);
        if (above != kNone && above != kAsyncWork && !in_async_work(above)) async_started_[span_key(above)]++;
      }
      if (role_[i] != Role::kServing || invocation_of[i] == kNone) continue;
      const std::size_t above = enclosing(i);
      if (above == kNone) continue;
      // The call's time in its caller: the CLIENT span that made it, when that is its parent; else its own.
      const std::size_t p = parent_[i];
      const std::size_t interval = set_.spans[p].kind == SpanKind::kClient && role_[p] == Role::kCall ? p : i;
      client_answered_.insert(interval);
      const std::size_t caller_key = key_ids_.at(span_key(above));
      invocations_[caller_key][invocation_of[above]].calls.push_back(
          CallSeen{.key = key_ids_.at(span_key(i)),
                   .start_ns = set_.spans[interval].start_ns,
                   .end_ns = set_.spans[interval].end_ns});
    }
  }

  Key span_key(std::size_t i) const { return Key{set_.spans[i].service, set_.spans[i].operation}; }

  // The operation's span less the union of its calls' spans, clipped to it.
  static std::int64_t self_time(const TraceSpan& s, std::vector<CallSeen> calls) {
    std::sort(calls.begin(), calls.end(), [](const CallSeen& a, const CallSeen& b) { return a.start_ns < b.start_ns; });
    std::int64_t covered = 0;
    std::int64_t reach = s.start_ns;
    for (const CallSeen& c : calls) {
      const std::int64_t from = std::max(c.start_ns, reach);
      const std::int64_t to = std::min(c.end_ns, s.end_ns);
      if (to > from) covered += to - from;
      reach = std::max(reach, std::min(c.end_ns, s.end_ns));
    }
    return std::max<std::int64_t>(1, (s.end_ns - s.start_ns) - covered);
  }

  std::vector<Duration> samples_of(std::vector<std::int64_t> self) const {
    std::sort(self.begin(), self.end());
    const std::size_t n = self.size();
    const std::size_t keep = std::min(n, options_.max_samples);
    std::vector<Duration> out;
    out.reserve(keep);
    // Every sample, or the quantiles at (j + 1/2) / keep: a draw from them is within 1/keep of the samples'
    // distribution at every quantile.
    for (std::size_t j = 0; j < keep; ++j) {
      const std::size_t at = keep == n ? j : std::min(n - 1, static_cast<std::size_t>((j + 0.5) * n / keep));
      out.push_back(Duration(self[at]));
    }
    return out;
  }

  void operations(TraceWorkload& out) {
    std::vector<std::size_t> order(keys_.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys_[a] < keys_[b]; });
    for (std::size_t k : order) out.operations.push_back(operation(k));
  }

  TracedOperation operation(std::size_t k) {
    const std::vector<Invocation>& runs = invocations_[k];
    TracedOperation op;
    op.service = keys_[k].first;
    op.operation = keys_[k].second;
    op.requests = runs.size();
    op.file = first_span_[k]->file;
    op.line = first_span_[k]->line;
    op.column = first_span_[k]->column;

    std::vector<std::int64_t> self;
    self.reserve(runs.size());
    std::map<std::size_t, CalleeStats> callees;
    // Per request: each callee's calls, for the parallel groups.
    std::vector<std::map<std::size_t, std::vector<const CallSeen*>>> calls_of(runs.size());
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const TraceSpan& s = set_.spans[runs[r].span];
      self.push_back(self_time(s, runs[r].calls));
      std::map<std::size_t, std::vector<const CallSeen*>> by_callee;
      for (const CallSeen& c : runs[r].calls) by_callee[c.key].push_back(&c);
      for (auto& [callee, calls] : by_callee) {
        std::sort(calls.begin(), calls.end(), [](const CallSeen* a, const CallSeen* b) {
          return a->start_ns < b->start_ns;
        });
        CalleeStats& st = callees[callee];
        const auto n = static_cast<std::uint32_t>(calls.size());
        st.calls += n;
        st.requests_making++;
        st.most = std::max(st.most, n);
        st.least = std::min(st.least, n);
        st.first_offset_sum += static_cast<double>(calls.front()->start_ns - s.start_ns);
        std::int64_t last_end = calls.front()->end_ns;
        bool overlapping = false;
        for (std::size_t j = 1; j < calls.size(); ++j) {
          if (calls[j]->start_ns < last_end) overlapping = true;
          last_end = std::max(last_end, calls[j]->end_ns);
        }
        if (overlapping) st.self_overlapping++;
        calls_of[r][callee] = calls;
      }
    }
    double sum = 0;
    for (std::int64_t v : self) sum += static_cast<double>(v);
    op.self_time_mean = Duration(static_cast<std::int64_t>(std::llround(sum / static_cast<double>(self.size()))));
    op.self_times = samples_of(std::move(self));

    // Callees in the order of their mean first start; ties by name.
    std::vector<std::size_t> order;
    for (const auto& [callee, st] : callees) order.push_back(callee);
    auto mean_offset = [&](std::size_t c) {
      return callees[c].first_offset_sum / static_cast<double>(callees[c].requests_making);
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      const double oa = mean_offset(a), ob = mean_offset(b);
      return oa != ob ? oa < ob : keys_[a] < keys_[b];
    });
    // A callee joins the group of the one before it when, in most requests that make both, one of its calls runs
    // at the same time as one of that one's.
    std::vector<bool> joins_previous(order.size(), false);
    for (std::size_t j = 1; j < order.size(); ++j) {
      std::uint64_t both = 0, overlapping = 0;
      for (const auto& calls : calls_of) {
        const auto prev = calls.find(order[j - 1]);
        const auto here = calls.find(order[j]);
        if (prev == calls.end() || here == calls.end()) continue;
        both++;
        const bool at_once = std::any_of(prev->second.begin(), prev->second.end(), [&](const CallSeen* a) {
          return std::any_of(here->second.begin(), here->second.end(), [&](const CallSeen* b) {
            return a->start_ns < b->end_ns && b->start_ns < a->end_ns;
          });
        });
        if (at_once) overlapping++;
      }
      joins_previous[j] = both > 0 && 2 * overlapping > both;
    }
    for (std::size_t j = 0; j < order.size(); ++j) {
      const CalleeStats& st = callees[order[j]];
      TracedCall call;
      call.service = keys_[order[j]].first;
      call.operation = keys_[order[j]].second;
      call.count = st.most;
      call.calls = st.calls;
      call.probability = static_cast<double>(st.calls) / (static_cast<double>(st.most) * static_cast<double>(runs.size()));
      const bool in_group = joins_previous[j] || (j + 1 < order.size() && joins_previous[j + 1]);
      call.parallel = in_group || (st.most > 1 && 2 * st.self_overlapping > st.requests_making);
      const std::string object = key_text(keys_[k]);
      if (st.least != st.most) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "made %u to %u times in the requests that make it (%.3g a request): drsim "
                      "makes each of %u calls with probability %.3g, the same mean", st.least, st.most,
                      static_cast<double>(st.calls) / static_cast<double>(runs.size()), st.most, call.probability);
        note(*first_span_[k], object, "calls to " + key_text(keys_[order[j]]) + " " + buf);
      }
      if (call.parallel && !joins_previous[j] && j > 0 && op.calls.back().parallel) {
        note(*first_span_[k], object,
             "the parallel calls to " + key_text(keys_[order[j]]) + " follow the parallel calls to " +
                 key_text(keys_[order[j - 1]]) + " in the traces; drsim starts consecutive parallel calls "
                 "together, so it makes them as one group");
      }
      op.calls.push_back(std::move(call));
    }
    return op;
  }

  void entries(TraceWorkload& out) {
    if (roots_.empty()) {
      throw ScenarioError(Diagnostic{
          .file = set_.spans.empty() ? "" : set_.spans.front().file,
          .message = "the traces hold no request: no span serves one (a SERVER span, or a span without a parent)"});
    }
    std::int64_t first = set_.spans[roots_.front()].start_ns, last = first;
    for (std::size_t r : roots_) {
      first = std::min(first, set_.spans[r].start_ns);
      last = std::max(last, set_.spans[r].start_ns);
    }
    if (last == first) {
      const TraceSpan& s = set_.spans[roots_.front()];
      fail(s, "the traces' " + std::to_string(roots_.size()) +
                  " requests all start at one instant: a request rate needs requests spread over time");
    }
    out.observed = Duration(last - first);
    // Equal windows as close to the asked one as the observed time allows, so that none is a sliver.
    const double observed = static_cast<double>(last - first);
    const auto windows = static_cast<std::size_t>(
        std::max(1.0, std::round(observed / static_cast<double>(options_.window.count()))));
    const double width = observed / static_cast<double>(windows);
    out.window = Duration(static_cast<std::int64_t>(std::llround(width)));
    std::map<Key, TracedEntry> by_key;
    for (std::size_t r : roots_) {
      TracedEntry& e = by_key[span_key(r)];
      if (e.rates.empty()) {
        e.service = set_.spans[r].service;
        e.operation = set_.spans[r].operation;
        e.rates.assign(windows, 0.0);
      }
      e.requests++;
      const auto w = std::min(windows - 1, static_cast<std::size_t>(
                                               static_cast<double>(set_.spans[r].start_ns - first) / width));
      e.rates[w] += 1.0;
    }
    const double per_second = 1e9 / (width * options_.sampling);
    for (auto& [key, e] : by_key) {
      for (double& v : e.rates) v *= per_second;
      out.entries.push_back(std::move(e));
    }
  }

  void untraced_callee_notes(TraceWorkload& out) {
    // CLIENT spans with no serving span below: calls to what was not traced (a database, an outside API).
    std::map<std::pair<Key, std::string>, std::pair<std::uint64_t, const TraceSpan*>> untraced;
    for (std::size_t i = 0; i < set_.spans.size(); ++i) {
      if (set_.spans[i].kind != SpanKind::kClient || client_answered_.contains(i)) continue;
      const std::size_t above = enclosing(i);
      if (above == kNone || above == kAsyncWork || in_async_work(above)) continue;
      auto& [n, first] = untraced[{span_key(above), set_.spans[i].operation}];
      if (n++ == 0) first = &set_.spans[i];
    }
    for (const auto& [what, seen] : untraced) {
      const std::uint64_t requests = invocations_[key_ids_.at(what.first)].size();
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(seen.first) / static_cast<double>(requests));
      out.notes.push_back(ImportNote{
          .file = seen.second->file, .line = seen.second->line, .column = seen.second->column,
          .object = key_text(what.first),
          .message = "its CLIENT span " + quote(what.second) + " (" + buf +
                     " a request) reaches nothing traced (a database or an outside service): its time stays in "
                     "the operation's self time; model it as a call by hand"});
    }
    for (const auto& [key, n] : async_started_) {
      out.notes.push_back(ImportNote{.object = key_text(key),
                                     .message = std::to_string(n) + " asynchronous messages it sent were consumed "
                                                "(CONSUMER spans): drsim does not model that work"});
    }
    for (const auto& [key, n] : async_skipped_) {
      out.notes.push_back(ImportNote{.object = key_text(key),
                                     .message = std::to_string(n) + " of its spans serve work a message started "
                                                "(under a CONSUMER span): left out"});
    }
  }

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  static constexpr std::size_t kAsyncWork = static_cast<std::size_t>(-2);

  const TraceSet& set_;
  const TraceWorkloadOptions& options_;
  std::vector<std::vector<std::size_t>> traces_;
  std::vector<std::size_t> parent_;
  std::vector<Role> role_;
  std::unordered_map<std::size_t, std::size_t> memo_;
  std::map<Key, std::size_t> key_ids_;
  std::vector<Key> keys_;
  std::vector<const TraceSpan*> first_span_;
  std::vector<std::vector<Invocation>> invocations_;
  std::vector<std::size_t> roots_;
  std::set<std::size_t> client_answered_;
  std::map<Key, std::uint64_t> async_started_;
  std::map<Key, std::uint64_t> async_skipped_;
  std::vector<ImportNote> notes_;
};

}  // namespace

TraceWorkload derive_workload(const TraceSet& traces, const TraceWorkloadOptions& options) {
  return WorkloadBuilder(traces, options).build();
}

}  // namespace drsim
