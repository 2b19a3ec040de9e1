#include "traces/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace umsim::trace {

std::string demangled_name(std::string_view name) {
  if (name.substr(0, 2) != "_Z") return std::string(name);
  const std::string mangled(name);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                             std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

}  // namespace umsim::trace
