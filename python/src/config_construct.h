#pragma once
// Building config values in Python, for every class of drsim.config
// (python/src/config_views.h):
//
//   RetryPolicy(attempts=3, per_try_timeout=0.5)   a new value, defaults filled
//   view._replace(concurrency=64)                   a copy with fields changed
//   pickle.dumps(view)                              as its YAML text
//
// Keywords are the fields' Python names (or YAML keys); values are what
// Scenario.replace() takes for the same field (python/src/config_yaml.h).
// They are written as the YAML mapping a scenario file would hold at that
// place and decoded by the scenario decoder (io/config_decode.h), so a value
// built here is the value a scenario gets from the same text, checked the
// same way. Signature mistakes (positional arguments, unknown or missing
// keywords) raise TypeError, as for a Python function; bad values raise
// drsim.ScenarioError naming the class and field ("RetryPolicy.attempts").
//
// A constructed value owns its C++ struct; a view from a loaded scenario
// points into it. Both are the same Python class, so ==, hash, repr and
// _asdict() make no difference between them.
#include "python/src/bindings.h"

namespace drsim::python {

// After bind_config has bound the classes.
void bind_config_construction(py::module_& m);

}  // namespace drsim::python
