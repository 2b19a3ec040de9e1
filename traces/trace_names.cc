#include "traces/trace_names.h"

namespace umsim::trace {

std::string name_problem(std::string_view name) {
  if (name.empty()) return "empty name";
  if (name.size() > kMaxNameLength)
    return "name of " + std::to_string(name.size()) + " bytes is longer than " + std::to_string(kMaxNameLength);
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "name contains control character " + std::to_string(c);
  return {};
}

std::string quote_name_if_needed(std::string_view name) {
  bool plain = !name.empty();
  for (char c : name)
    if (c == ' ' || c == '\t' || c == '#' || c == '+' || c == '=' || c == '"' || c == '\\') plain = false;
  if (plain) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace umsim::trace
