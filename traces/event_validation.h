// Structural validity of one Event (not semantics across events: see trace_checker.h).
// The writers refuse events that fail here and the binary reader rejects records
// that decode to them, so every stored trace converts to either encoding.
#pragma once

#include "traces/event.h"

namespace umsim::trace {

// nullptr if `e` is well formed, otherwise what is wrong ("advice 9 out of range").
const char* event_problem(const Event& e);

// Whether the kind's op / processor fields carry meaning.
bool takes_processor(const Event& e);

}  // namespace umsim::trace
