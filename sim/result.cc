#include "sim/result.h"

#include <stdexcept>

namespace umsim {

const std::vector<CounterField>& counter_fields() {
  static const std::vector<CounterField> fields = {
      {"time_ns", &Counters::time_ns},
      {"stall_ns", &Counters::stall_ns},
      {"gpu_faults", &Counters::gpu_faults},
      {"gpu_fault_pages", &Counters::gpu_fault_pages},
      {"fault_batches", &Counters::fault_batches},
      {"cpu_faults", &Counters::cpu_faults},
      {"bytes_h2d", &Counters::bytes_h2d},
      {"bytes_d2h", &Counters::bytes_d2h},
      {"bytes_peer", &Counters::bytes_peer},
      {"bytes_prefetched", &Counters::bytes_prefetched},
      {"evictions", &Counters::evictions},
      {"bytes_evicted", &Counters::bytes_evicted},
      {"remote_accesses", &Counters::remote_accesses},
      {"thrashing_events", &Counters::thrashing_events},
      {"throttles", &Counters::throttles},
      {"accesses", &Counters::accesses},
  };
  return fields;
}

Counters& Counters::operator+=(const Counters& o) {
  for (const auto& f : counter_fields()) this->*f.member += o.*f.member;
  return *this;
}

nlohmann::ordered_json to_json(const Counters& c) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& f : counter_fields()) j[f.name] = c.*f.member;
  return j;
}

Counters counters_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("counters: expected an object");
  Counters c;
  for (const auto& f : counter_fields()) {
    auto it = j.find(f.name);
    if (it == j.end()) continue;  // absent = not measured
    // A negative number would wrap to 2^64 - n in the unsigned counter.
    if (!it->is_number_unsigned())
      throw std::runtime_error(std::string("counters: field '") + f.name + "' must be a non-negative integer, got " +
                               it->dump());
    c.*f.member = it->get<std::uint64_t>();
  }
  return c;
}

namespace {

nlohmann::ordered_json scope_to_json(const ScopeResult& s) {
  nlohmann::ordered_json j;
  j["name"] = s.name;
  if (s.gpu >= 0) j["gpu"] = s.gpu;
  j["start_ns"] = s.start_ns;
  j["counters"] = to_json(s.counters);
  return j;
}

ScopeResult scope_from_json(const nlohmann::json& j, const char* what) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
    throw std::runtime_error(std::string(what) + ": each entry needs a string 'name'");
  ScopeResult s;
  s.name = j["name"].get<std::string>();
  const std::string where = std::string(what) + " '" + s.name + "': ";
  if (j.contains("gpu")) {
    const auto& g = j["gpu"];
    if (!g.is_number_integer() || g.get<std::int64_t>() < -1 || g.get<std::int64_t>() > 32766)
      throw std::runtime_error(where + "'gpu' must be an integer from -1 to 32766, got " + g.dump());
    s.gpu = g.get<int>();
  }
  if (j.contains("start_ns")) {
    if (!j["start_ns"].is_number_unsigned())
      throw std::runtime_error(where + "'start_ns' must be a non-negative integer, got " + j["start_ns"].dump());
    s.start_ns = j["start_ns"].get<std::uint64_t>();
  }
  if (j.contains("counters")) s.counters = counters_from_json(j["counters"]);
  return s;
}

}  // namespace

nlohmann::ordered_json to_json(const Result& r) {
  nlohmann::ordered_json j;
  j["schema"] = "umsim-result-1";
  j["producer"] = r.producer;
  j["trace"] = r.trace;
  j["total"] = to_json(r.total);
  j["kernels"] = nlohmann::ordered_json::array();
  for (const auto& k : r.kernels) j["kernels"].push_back(scope_to_json(k));
  j["phases"] = nlohmann::ordered_json::array();
  for (const auto& p : r.phases) j["phases"].push_back(scope_to_json(p));
  j["unmeasured"] = r.unmeasured;
  j["config"] = r.config.is_null() ? nlohmann::ordered_json::object() : r.config;
  j["hardware"] = r.hardware.is_null() ? nlohmann::ordered_json::object() : r.hardware;
  return j;
}

Result result_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("result: expected a JSON object");
  if (j.value("schema", "") != "umsim-result-1")
    throw std::runtime_error("result: missing or unknown 'schema' (expected \"umsim-result-1\")");
  Result r;
  r.producer = j.value("producer", "");
  r.trace = j.value("trace", "");
  if (!j.contains("total")) throw std::runtime_error("result: missing 'total'");
  r.total = counters_from_json(j["total"]);
  for (const auto& k : j.value("kernels", nlohmann::json::array())) r.kernels.push_back(scope_from_json(k, "kernels"));
  for (const auto& p : j.value("phases", nlohmann::json::array())) r.phases.push_back(scope_from_json(p, "phases"));
  r.unmeasured = j.value("unmeasured", std::vector<std::string>{});
  if (j.contains("config")) r.config = j["config"];
  if (j.contains("hardware")) r.hardware = j["hardware"];
  return r;
}

}  // namespace umsim
