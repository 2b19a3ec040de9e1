// Kernel names for people: C++ names mangled by the Itanium ABI ("_Z6vecAddPfS_")
// are shown demangled ("vecAdd(float*, float*)"); anything else is shown as
// recorded. Traces and JSON results keep the recorded (mangled) name, which
// is unambiguous and what the tools that produced it print.
#pragma once

#include <string>
#include <string_view>

namespace umsim::trace {

std::string demangled_name(std::string_view name);

}  // namespace umsim::trace
