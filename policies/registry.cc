#include "policies/registry.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "traces/units.h"

namespace umsim::policies {

const char* to_string(ParamType t) {
  switch (t) {
    case ParamType::kInt: return "int";
    case ParamType::kDouble: return "double";
    case ParamType::kBytes: return "size";
    case ParamType::kDuration: return "duration";
    case ParamType::kBool: return "bool";
    case ParamType::kString: return "string";
  }
  return "?";
}

namespace {

// Parses `text` as `type`; returns an error message or "".
std::string parse_value(ParamType type, const std::string& text, std::int64_t& i, double& d, std::uint64_t& u,
                        bool& b) {
  if (type != ParamType::kString && !text.empty() && (std::isspace(static_cast<unsigned char>(text.front())) ||
                                                      std::isspace(static_cast<unsigned char>(text.back()))))
    return std::string("unexpected space in '") + text + "'";
  switch (type) {
    case ParamType::kInt: {
      if (text.empty()) return "expected an integer";
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (*end != '\0' || errno != 0) return "expected an integer, got '" + text + "'";
      i = v;
      return "";
    }
    case ParamType::kDouble: {
      if (text.empty()) return "expected a number";
      char* end = nullptr;
      const double v = std::strtod(text.c_str(), &end);
      if (*end != '\0') return "expected a number, got '" + text + "'";
      d = v;
      return "";
    }
    case ParamType::kBytes: {
      const auto r = trace::parse_bytes(text);
      if (!r.ok()) return r.error;
      u = r.value;
      return "";
    }
    case ParamType::kDuration: {
      const auto r = trace::parse_duration_ns(text);
      if (!r.ok()) return r.error;
      u = r.value;
      return "";
    }
    case ParamType::kBool:
      if (text == "true" || text == "1" || text == "on") b = true;
      else if (text == "false" || text == "0" || text == "off") b = false;
      else return "expected true/false, got '" + text + "'";
      return "";
    case ParamType::kString:
      return "";
  }
  return "unknown parameter type";
}

}  // namespace

Params::Params(std::string_view policy, const std::vector<ParamSpec>& specs, std::string_view overrides)
    : policy_(policy) {
  for (const auto& s : specs) {
    Value v{s.type, s.default_value};
    const std::string err = parse_value(s.type, s.default_value, v.i, v.d, v.u, v.b);
    if (!err.empty()) throw PolicyError(policy_ + ": bad default for '" + s.name + "': " + err);
    values_.emplace_back(s.name, v);
  }
  std::string_view rest = overrides;
  std::vector<std::string> seen_keys;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (comma != std::string_view::npos && rest.empty())
      throw PolicyError(policy_ + ": expected key=value after the last ',' in '" + std::string(overrides) + "'");
    const auto eq = item.find('=');
    if (eq == std::string_view::npos)
      throw PolicyError(policy_ + ": expected key=value, got '" + std::string(item) + "'");
    const std::string key(item.substr(0, eq));
    const std::string text(item.substr(eq + 1));
    for (const auto& seen : seen_keys)
      if (seen == key) throw PolicyError(policy_ + ": parameter '" + key + "' given twice");
    seen_keys.push_back(key);
    Value* target = nullptr;
    for (auto& [name, value] : values_)
      if (name == key) target = &value;
    if (target == nullptr) {
      std::string known;
      for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      throw PolicyError(policy_ + ": unknown parameter '" + key + "' (parameters: " +
                        (known.empty() ? std::string("none") : known) + ")");
    }
    const std::string err = parse_value(target->type, text, target->i, target->d, target->u, target->b);
    if (!err.empty()) throw PolicyError(policy_ + ": parameter '" + key + "': " + err);
    target->text = text;
  }
}

const Params::Value& Params::find(const std::string& name, ParamType type) const {
  for (const auto& [n, v] : values_) {
    if (n != name) continue;
    if (v.type != type)
      throw PolicyError(policy_ + ": parameter '" + name + "' is a " + to_string(v.type) + ", read as " +
                        to_string(type));
    return v;
  }
  throw PolicyError(policy_ + ": no parameter '" + name + "' declared");
}

std::int64_t Params::get_int(const std::string& name) const { return find(name, ParamType::kInt).i; }
double Params::get_double(const std::string& name) const { return find(name, ParamType::kDouble).d; }
std::uint64_t Params::get_bytes(const std::string& name) const { return find(name, ParamType::kBytes).u; }
std::uint64_t Params::get_duration_ns(const std::string& name) const {
  return find(name, ParamType::kDuration).u;
}
bool Params::get_bool(const std::string& name) const { return find(name, ParamType::kBool).b; }
const std::string& Params::get_string(const std::string& name) const {
  return find(name, ParamType::kString).text;
}

nlohmann::ordered_json Params::to_json() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, v] : values_) {
    switch (v.type) {
      case ParamType::kInt: j[name] = v.i; break;
      case ParamType::kDouble: j[name] = v.d; break;
      case ParamType::kBytes:
      case ParamType::kDuration: j[name] = v.u; break;
      case ParamType::kBool: j[name] = v.b; break;
      case ParamType::kString: j[name] = v.text; break;
    }
  }
  return j;
}

}  // namespace umsim::policies
