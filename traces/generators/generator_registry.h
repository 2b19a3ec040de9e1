// Workload generators, registered by name with typed parameters:
//
//   UMSIM_REGISTER_GENERATOR("streaming", "what it models", {param specs...}, run_streaming);
//
// where run_streaming(const GenParams&, TraceEmitter&) streams its events
// through the builder. Generators are deterministic for a given parameter set
// (including `seed`) and never hold the trace in memory. The parameter syntax
// and validation are the policies' (policies/registry.h): "k=v,k=v" on top of
// documented defaults; unknown names or keys fail with a list of what exists.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "policies/registry.h"
#include "traces/generators/trace_emitter.h"
#include "traces/generators/trace_summary.h"
#include "traces/trace_writer.h"

namespace umsim::gen {

using GenParams = policies::Params;
using ParamSpec = policies::ParamSpec;
using ParamType = policies::ParamType;
using GeneratorError = policies::PolicyError;

struct GeneratorInfo {
  std::string name;
  std::string doc;
  std::vector<ParamSpec> params;
  std::function<void(const GenParams&, TraceEmitter&)> run;
  // The trace format version the parameters need (version-2 statements such as
  // explicit copies); unset: version 1.
  std::function<int(const GenParams&)> format_version;
};

class GeneratorRegistry {
 public:
  static GeneratorRegistry& instance();
  void add(GeneratorInfo info);
  // Throws GeneratorError naming the known generators.
  const GeneratorInfo& find(std::string_view name) const;
  const std::map<std::string, GeneratorInfo>& entries() const { return entries_; }

 private:
  std::map<std::string, GeneratorInfo> entries_;  // sorted: listings are deterministic
};

struct GeneratorRegistrar {
  explicit GeneratorRegistrar(GeneratorInfo info) { GeneratorRegistry::instance().add(std::move(info)); }
};

// Resolves "k=v,k=v" overrides against the generator's specs; throws GeneratorError.
GenParams resolve_params(std::string_view generator, std::string_view overrides);

// Runs generator `name` with `overrides` ("k=v,k=v"), streaming into `out`.
// Writes a header comment with the resolved parameters; does not call finish().
void generate_trace(std::string_view name, std::string_view overrides, trace::TraceWriter& out);

// The trace format version generator `name` writes with `overrides` (1 or 2).
int generator_format_version(std::string_view name, std::string_view overrides);

// Runs generator `name` into the file `path` (in `encoding`; by default as the
// extension says: ".umtb" binary, otherwise text) and returns its summary. Bad names or parameters fail before the file is
// created; on any error the partial file is removed. The C++ entry point for
// `umsim demo` and other tools.
TraceSummary generate_file(std::string_view name, std::string_view overrides, const std::string& path,
                           std::optional<trace::Encoding> encoding = std::nullopt);

// A human-readable listing: every generator, its doc and parameters with defaults.
std::string list_generators();

// Parameter specs most generators share, with generator-specific defaults.
ParamSpec footprint_param(std::string_view default_value);
ParamSpec iterations_param(std::string_view default_value);
ParamSpec gpus_param(std::string_view default_value = "1");
ParamSpec hints_param(std::string_view choices, std::string_view default_value = "none");
ParamSpec seed_param();
ParamSpec compute_param(std::string_view default_value);

// Reads a string parameter that must be one of `choices`; throws GeneratorError.
std::string get_choice(const GenParams& p, const std::string& name, const std::vector<std::string>& choices);
// Reads an int parameter that must lie in [lo, hi]; throws GeneratorError.
std::int64_t get_int_in(const GenParams& p, const std::string& name, std::int64_t lo, std::int64_t hi);

}  // namespace umsim::gen

#define UMSIM_GEN_CONCAT_INNER(a, b) a##b
#define UMSIM_GEN_CONCAT(a, b) UMSIM_GEN_CONCAT_INNER(a, b)
#define UMSIM_REGISTER_GENERATOR(name, doc, specs, fn)                                            \
  static ::umsim::gen::GeneratorRegistrar UMSIM_GEN_CONCAT(umsim_generator_, __LINE__)(             \
      ::umsim::gen::GeneratorInfo{name, doc, std::vector<::umsim::gen::ParamSpec> specs, fn, {}})
// Same, for a generator whose parameters may need format version 2 (`version_fn`).
#define UMSIM_REGISTER_GENERATOR_VERSIONED(name, doc, specs, fn, version_fn)                      \
  static ::umsim::gen::GeneratorRegistrar UMSIM_GEN_CONCAT(umsim_generator_, __LINE__)(             \
      ::umsim::gen::GeneratorInfo{name, doc, std::vector<::umsim::gen::ParamSpec> specs, fn, version_fn})
