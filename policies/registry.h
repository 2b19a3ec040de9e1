// Runtime registration of policies by string name, with typed parameters and
// defaults. A policy registers itself from its own .cc file:
//
//   UMSIM_REGISTER_POLICY(sim::PrefetchPolicy, TreePrefetcher, "tree",
//       "NVIDIA driver density prefetcher over the 2 MiB block's implicit tree",
//       {{"threshold", ParamType::kInt, "51", "percent of a subtree that must be resident"},
//        {"min_faults", ParamType::kInt, "1", "fault migrations to the same processor first"}});
//
// where TreePrefetcher has a constructor taking `const Params&`. Its cc_library
// needs `alwayslink = True` so the static registrar is linked in. Specs are
// "name" or "name:key=value,key=value"; unknown names or keys fail with a list
// of what exists. Lookups happen once at start-up, never on the hot path.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace umsim::policies {

enum class ParamType { kInt, kDouble, kBytes, kDuration, kBool, kString };
const char* to_string(ParamType t);

struct ParamSpec {
  std::string name;
  ParamType type;
  std::string default_value;  // in the same syntax as on the command line
  std::string doc;
};

// A bad policy spec or parameter; what() is the complete message.
class PolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parameter values of one policy instance, validated against its ParamSpecs.
class Params {
 public:
  Params() = default;
  // Parses "k=v,k=v" overrides on top of the defaults; throws PolicyError.
  Params(std::string_view policy, const std::vector<ParamSpec>& specs, std::string_view overrides);

  std::int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  std::uint64_t get_bytes(const std::string& name) const;
  std::uint64_t get_duration_ns(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;

  // Resolved values, typed, in declaration order.
  nlohmann::ordered_json to_json() const;

 private:
  struct Value {
    ParamType type;
    std::string text;
    std::int64_t i = 0;
    double d = 0;
    std::uint64_t u = 0;
    bool b = false;
  };
  const Value& find(const std::string& name, ParamType type) const;
  std::string policy_;
  std::vector<std::pair<std::string, Value>> values_;
};

template <typename Interface>
struct PolicyInfo {
  std::string name;
  std::string doc;
  std::vector<ParamSpec> params;
  std::function<std::unique_ptr<Interface>(const Params&)> factory;
};

// Policy kinds by interface: "prefetch", "evict", "migrate", "thrashing".
template <typename Interface>
struct PolicyKind;

template <typename Interface>
class Registry {
 public:
  static Registry& instance() {
    static Registry registry;
    return registry;
  }

  void add(PolicyInfo<Interface> info) {
    if (entries_.count(info.name))
      throw PolicyError(std::string("policy '") + info.name + "' registered twice as " + PolicyKind<Interface>::name);
    std::string name = info.name;
    entries_.emplace(std::move(name), std::move(info));
  }

  // Creates a policy from "name[:k=v,...]". Writes the resolved name and
  // parameters to *resolved when given. Throws PolicyError.
  std::unique_ptr<Interface> create(std::string_view spec, nlohmann::ordered_json* resolved = nullptr) const {
    const auto colon = spec.find(':');
    const std::string name(spec.substr(0, colon));
    if (name.empty())
      throw PolicyError(std::string("empty ") + PolicyKind<Interface>::name + " policy name in '" +
                        std::string(spec) + "' (known: " + known_names() + ")");
    const std::string_view overrides = colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
    auto it = entries_.find(name);
    if (it == entries_.end())
      throw PolicyError(std::string("unknown ") + PolicyKind<Interface>::name + " policy '" + name +
                        "' (known: " + known_names() + ")");
    Params params(std::string(PolicyKind<Interface>::name) + " policy '" + name + "'", it->second.params,
                  overrides);
    if (resolved) {
      (*resolved)["name"] = name;
      (*resolved)["params"] = params.to_json();
    }
    return it->second.factory(params);
  }

  const std::map<std::string, PolicyInfo<Interface>>& entries() const { return entries_; }

  // "a, b, c": the registered names, sorted.
  std::string known_names() const {
    std::string known;
    for (const auto& [n, _] : entries_) known += (known.empty() ? "" : ", ") + n;
    return known;
  }

 private:
  std::map<std::string, PolicyInfo<Interface>> entries_;  // sorted: listings are deterministic
};

template <typename Interface>
struct Registrar {
  explicit Registrar(PolicyInfo<Interface> info) { Registry<Interface>::instance().add(std::move(info)); }
};

}  // namespace umsim::policies

#define UMSIM_POLICY_CONCAT_INNER(a, b) a##b
#define UMSIM_POLICY_CONCAT(a, b) UMSIM_POLICY_CONCAT_INNER(a, b)

// Registers `Class` (constructible from const Params&) under `name` for `Interface`.
#define UMSIM_REGISTER_POLICY(Interface, Class, name, doc, ...)                                  \
  static ::umsim::policies::Registrar<Interface> UMSIM_POLICY_CONCAT(umsim_registrar_, __LINE__)( \
      ::umsim::policies::PolicyInfo<Interface>{                                                  \
          name, doc, std::vector<::umsim::policies::ParamSpec> __VA_ARGS__,                      \
          [](const ::umsim::policies::Params& p) -> std::unique_ptr<Interface> {                 \
            return std::make_unique<Class>(p);                                                   \
          }})
