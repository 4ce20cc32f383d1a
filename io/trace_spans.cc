#include "io/trace_spans.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <map>
#include <memory>
#include <set>

#include "io/manifest_field.h"
#include "io/scenario_error.h"
#include "io/yaml_document.h"
#include "sim/quote.h"

namespace drsim {

namespace {

class SpanReader {
 public:
  SpanReader(std::string file, const YAML::Node& doc) : file_(std::move(file)), doc_(doc) {}

  ManifestField root() const { return ManifestField(doc_, "", file_, "", ledger_); }

  // An integer written as a number or as a decimal string (OTLP's nanoseconds are strings in JSON).
  static std::int64_t count(const ManifestField& f) {
    const std::string s = f.text();
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size() || v < 0) {
      f.fail("expected a non-negative integer, got " + quote(s));
    }
    return v;
  }

  // A field the span must have; when it has not, the message points at the span (`where`).
  static std::string required(const ManifestField& f, const ManifestField& where) {
    if (!f.present()) where.fail("expected " + f.path().substr(where.path().size() + 1) + ", got nothing");
    const std::string s = f.text();
    if (s.empty()) f.fail("expected a value, got an empty text");
    return s;
  }

  TraceSpan base(const ManifestField& span) const {
    TraceSpan s;
    s.file = file_;
    s.line = span.mark().is_null() ? 0 : span.mark().line + 1;
    s.column = span.mark().is_null() ? 0 : span.mark().column + 1;
    return s;
  }

  static SpanKind kind_of(std::string k) {
    for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (k == "server" || k == "span_kind_server" || k == "2") return SpanKind::kServer;
    if (k == "client" || k == "span_kind_client" || k == "3") return SpanKind::kClient;
    if (k == "producer" || k == "span_kind_producer" || k == "4") return SpanKind::kProducer;
    if (k == "consumer" || k == "span_kind_consumer" || k == "5") return SpanKind::kConsumer;
    if (k == "internal" || k == "span_kind_internal" || k == "1") return SpanKind::kInternal;
    return SpanKind::kUnspecified;
  }

  void otlp(std::vector<TraceSpan>& out) const {
    for (const ManifestField& rs : root()["resourceSpans"].items()) {
      std::string service;
      for (const ManifestField& a : rs["resource"]["attributes"].items()) {
        if (a["key"].optional_text() == std::optional<std::string>("service.name"))
          service = a["value"]["stringValue"].text();
      }
      if (service.empty()) rs["resource"].fail("expected a service.name attribute of the resource");
      for (const char* scopes : {"scopeSpans", "instrumentationLibrarySpans"}) {
        for (const ManifestField& ss : rs[scopes].items()) {
          for (const ManifestField& span : ss["spans"].items()) {
            TraceSpan s = base(span);
            s.trace_id = required(span["traceId"], span);
            s.span_id = required(span["spanId"], span);
            s.parent_id = span["parentSpanId"].optional_text().value_or("");
            s.service = service;
            s.operation = required(span["name"], span);
            if (span["kind"].present()) s.kind = kind_of(span["kind"].text());
            s.start_ns = count(span["startTimeUnixNano"]);
            s.end_ns = count(span["endTimeUnixNano"]);
            out.push_back(std::move(s));
          }
        }
      }
    }
  }

  void jaeger(std::vector<TraceSpan>& out) const {
    for (const ManifestField& trace : root()["data"].items()) {
      std::map<std::string, std::string> processes;
      for (const auto& [id, p] : trace["processes"].entries()) processes[id] = required(p["serviceName"], p);
      for (const ManifestField& span : trace["spans"].items()) {
        TraceSpan s = base(span);
        s.trace_id = required(span["traceID"], span);
        s.span_id = required(span["spanID"], span);
        for (const ManifestField& r : span["references"].items()) {
          if (r["refType"].optional_text().value_or("CHILD_OF") == "CHILD_OF" && s.parent_id.empty()) {
            s.parent_id = required(r["spanID"], r);
          }
        }
        const std::string process = required(span["processID"], span);
        const auto it = processes.find(process);
        if (it == processes.end()) span["processID"].fail("expected a process of the trace, got " + quote(process));
        s.service = it->second;
        s.operation = required(span["operationName"], span);
        for (const ManifestField& t : span["tags"].items()) {
          if (t["key"].optional_text() == std::optional<std::string>("span.kind")) s.kind = kind_of(t["value"].text());
        }
        s.start_ns = count(span["startTime"]) * 1000;
        s.end_ns = s.start_ns + count(span["duration"]) * 1000;
        out.push_back(std::move(s));
      }
    }
  }

  void zipkin_spans(const ManifestField& list, std::vector<TraceSpan>& out) const {
    for (const ManifestField& span : list.items()) {
      if (span.is_list()) {
        zipkin_spans(span, out);  // a list of traces
        continue;
      }
      TraceSpan s = base(span);
      s.trace_id = required(span["traceId"], span);
      s.span_id = required(span["id"], span);
      s.parent_id = span["parentId"].optional_text().value_or("");
      s.service = required(span["localEndpoint"]["serviceName"], span);
      s.operation = required(span["name"], span);
      if (span["kind"].present()) s.kind = kind_of(span["kind"].text());
      s.start_ns = count(span["timestamp"]) * 1000;
      s.end_ns = s.start_ns + count(span["duration"]) * 1000;
      out.push_back(std::move(s));
    }
  }

  std::string read(std::vector<TraceSpan>& out) const {
    const ManifestField r = root();
    if (doc_.IsMap() && doc_["resourceSpans"]) {
      otlp(out);
      return "otlp";
    }
    if (doc_.IsMap() && doc_["data"]) {
      jaeger(out);
      return "jaeger";
    }
    if (doc_.IsSequence()) {
      zipkin_spans(r, out);
      return "zipkin";
    }
    r.fail("expected OTLP JSON (resourceSpans), Jaeger JSON (data) or Zipkin v2 JSON (a list of spans), got " +
           describe_node(doc_));
  }

 private:
  std::string file_;
  YAML::Node doc_;
  std::shared_ptr<FieldLedger> ledger_ = std::make_shared<FieldLedger>();
};

// Every parent is in its trace, span ids are unique in it, and no span ends before it starts.
void check_traces(const std::vector<TraceSpan>& spans) {
  std::set<std::pair<std::string, std::string>> ids;
  for (const TraceSpan& s : spans) {
    if (!ids.insert({s.trace_id, s.span_id}).second) {
      throw ScenarioError(Diagnostic{.file = s.file,
                                     .line = s.line,
                                     .column = s.column,
                                     .message = "span " + s.span_id + " of trace " + s.trace_id + " is given twice"});
    }
    if (s.end_ns < s.start_ns) {
      throw ScenarioError(Diagnostic{.file = s.file,
                                     .line = s.line,
                                     .column = s.column,
                                     .message = "span " + s.span_id + " ends before it starts"});
    }
  }
  for (const TraceSpan& s : spans) {
    if (!s.parent_id.empty() && !ids.contains({s.trace_id, s.parent_id})) {
      throw ScenarioError(Diagnostic{.file = s.file,
                                     .line = s.line,
                                     .column = s.column,
                                     .message = "span " + s.span_id + " (" + s.service + " " + s.operation +
                                                ") has parent " + s.parent_id + ", which is not in trace " +
                                                s.trace_id + " (an orphan: export whole traces)"});
    }
  }
}

}  // namespace

TraceSet read_trace_texts(const std::vector<std::pair<std::string, std::string>>& files) {
  TraceSet set;
  for (const auto& [name, text] : files) {
    for (const YAML::Node& doc : parse_documents(text, name)) {
      const std::string format = SpanReader(name, doc).read(set.spans);
      if (!set.format.empty() && set.format != format) {
        throw ScenarioError(
            diagnostic_at(name, doc.Mark(), "", "expected " + set.format + " like the files before it, got " + format));
      }
      set.format = format;
    }
  }
  check_traces(set.spans);
  return set;
}

}  // namespace drsim
