#pragma once
// The run's sampled spans (sim/span_recorder.h) as OpenTelemetry OTLP JSON (traces.json in the results folder):
// one resourceSpans per service or population (resource attribute service.name), its spans in the order they
// started. Trace ids are the trace's number in 32 hex digits, span ids the span's in 16; times are the simulated
// time in ns (the run starts at the Unix epoch). Only whole traces are written: a trace with a span still open
// when the run ended (a request in flight) is left out, so that every parent is in its trace. A failed span has
// status code 2 (ERROR).
#include <string>

#include "sim/span_recorder.h"

namespace drsim {

std::string otlp_json(const SpanRecorder& spans);

}  // namespace drsim
