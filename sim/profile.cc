#include "sim/profile.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "third_party/toml.h"
#include "traces/units.h"

namespace umsim::sim {
namespace {

// The slowest bandwidth and the largest single cost a profile may give, far
// beyond any hardware (bandwidths are GB/s, costs microseconds): past them a
// value is a mistake of units, and a handful of operations would overflow the
// simulated clock (ns in 64 bits) without a word.
constexpr double kMinGbps = 0.001;
constexpr Nanos kMaxCostNs = 1'000'000'000;

// Reads the keys of one TOML table, remembering which were used so that
// unknown keys can be reported with their line.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string prefix, const std::string& source)
      : table_(table), prefix_(std::move(prefix)), source_(source) {}

  [[noreturn]] void fail(const toml::node& node, const std::string& what) const {
    throw ProfileError(fmt::format("{}:{}: {}", source_, node.source().begin.line, what));
  }

  std::string path(std::string_view key) const { return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key); }

  const toml::node* optional(std::string_view key) {
    used_.insert(std::string(key));
    return table_.get(key);
  }

  const toml::node& required(std::string_view key) {
    const toml::node* n = optional(key);
    if (!n) {
      const auto line = table_.source().begin.line;
      throw ProfileError(line && !prefix_.empty() ? fmt::format("{}:{}: missing key '{}'", source_, line, path(key))
                              : fmt::format("{}: missing key '{}'", source_, path(key)));
    }
    return *n;
  }

  const toml::table& table(std::string_view key) {
    const toml::node& n = required(key);
    if (!n.is_table()) fail(n, fmt::format("'{}' must be a table", path(key)));
    return *n.as_table();
  }

  std::string string(std::string_view key) {
    const toml::node& n = required(key);
    if (!n.is_string()) fail(n, fmt::format("'{}' must be a string", path(key)));
    return std::string(n.as_string()->get());
  }

  bool boolean(std::string_view key) {
    const toml::node& n = required(key);
    if (!n.is_boolean()) fail(n, fmt::format("'{}' must be true or false", path(key)));
    return n.as_boolean()->get();
  }

  std::int64_t integer(std::string_view key, std::int64_t min, std::int64_t max) {
    const toml::node& n = required(key);
    if (!n.is_integer()) fail(n, fmt::format("'{}' must be an integer", path(key)));
    const std::int64_t v = n.as_integer()->get();
    if (v < min || v > max) fail(n, fmt::format("'{}' = {} is out of range [{}, {}]", path(key), v, min, max));
    return v;
  }

  // A number from 0 to `max` (a share of something).
  double fraction(std::string_view key, double max) {
    const toml::node& n = required(key);
    double v = -1;
    if (n.is_floating_point()) v = n.as_floating_point()->get();
    else if (n.is_integer()) v = static_cast<double>(n.as_integer()->get());
    if (!(v >= 0 && v <= max)) fail(n, fmt::format("'{}' must be a number from 0 to {}", path(key), max));
    return v;
  }

  // A share of a speed: above 0, at most 1.
  double share(std::string_view key) {
    const toml::node& n = required(key);
    double v = -1;
    if (n.is_floating_point()) v = n.as_floating_point()->get();
    else if (n.is_integer()) v = static_cast<double>(n.as_integer()->get());
    if (!(v > 0 && v <= 1)) fail(n, fmt::format("'{}' must be a number above 0 and at most 1", path(key)));
    return v;
  }

  double positive_number(std::string_view key) {
    const toml::node& n = required(key);
    return positive_number_of(n, path(key));
  }

  double positive_number_of(const toml::node& n, const std::string& what) const {
    double v = 0;
    if (n.is_floating_point()) v = n.as_floating_point()->get();
    else if (n.is_integer()) v = static_cast<double>(n.as_integer()->get());
    else fail(n, fmt::format("'{}' must be a number", what));
    // inf (TOML's infinity) is a free transfer: the `ideal` profile's links take no time.
    if (!(v > 0) || std::isnan(v)) fail(n, fmt::format("'{}' must be positive (or inf: no transfer cost)", what));
    return v;
  }

  // A bandwidth in GB/s: positive, at least kMinGbps, or inf.
  double bandwidth(std::string_view key) { return bandwidth_of(required(key), path(key)); }

  double bandwidth_of(const toml::node& n, const std::string& what) const {
    const double v = positive_number_of(n, what);
    if (v < kMinGbps)
      fail(n, fmt::format("'{}' = {} GB/s is below the {} GB/s (1 MB/s) the model takes (a mistake of units?)",
                          what, v, kMinGbps));
    return v;
  }

  // An integer (nanoseconds) or a string with a unit ("20us"), at most kMaxCostNs.
  Nanos duration(std::string_view key) {
    const toml::node& n = required(key);
    Nanos v = 0;
    if (n.is_integer()) {
      if (n.as_integer()->get() < 0) fail(n, fmt::format("'{}' must not be negative", path(key)));
      v = static_cast<Nanos>(n.as_integer()->get());
    } else {
      if (!n.is_string())
        fail(n, fmt::format("'{}' must be a duration such as \"20us\" or an integer of ns", path(key)));
      const auto parsed = trace::parse_duration_ns(n.as_string()->get());
      if (!parsed.ok()) fail(n, fmt::format("'{}': {}", path(key), parsed.error));
      v = parsed.value;
    }
    if (v > kMaxCostNs)
      fail(n, fmt::format("'{}' = {}ns is longer than the 1s the model takes for one operation's cost (a mistake "
                          "of units?)",
                          path(key), v));
    return v;
  }

  // A cost below or around a nanosecond (a page touch on the GPU): a number of
  // ns, or a string of a decimal number and a unit ("0.093ns", "93ps";
  // trace::parse_fine_duration_ns).
  double fine_duration(std::string_view key) {
    const toml::node& n = required(key);
    double v = -1;
    if (n.is_integer()) v = static_cast<double>(n.as_integer()->get());
    else if (n.is_floating_point()) v = n.as_floating_point()->get();
    else if (n.is_string()) {
      const trace::ParsedFineDuration d = trace::parse_fine_duration_ns(n.as_string()->get());
      if (!d.ok())
        fail(n, fmt::format("'{}' must be a duration such as \"0.1ns\" or \"100ps\": {}", path(key), d.error));
      v = d.ns;
    } else {
      fail(n, fmt::format("'{}' must be a duration such as \"0.1ns\" or a number of ns", path(key)));
    }
    if (!(v >= 0) || std::isinf(v))
      fail(n, fmt::format("'{}' must be a duration such as \"0.1ns\", \"100ps\" or a non-negative number of ns",
                          path(key)));
    if (v > static_cast<double>(kMaxCostNs))
      fail(n, fmt::format("'{}' is longer than the 1s the model takes for one operation's cost (a mistake of units?)",
                          path(key)));
    return v;
  }

  // An integer (bytes) or a string with a unit ("141GiB").
  Bytes bytes_of(const toml::node& n, const std::string& what) const {
    if (n.is_integer()) {
      if (n.as_integer()->get() <= 0) fail(n, fmt::format("'{}' must be positive", what));
      return static_cast<Bytes>(n.as_integer()->get());
    }
    if (!n.is_string()) fail(n, fmt::format("'{}' must be a size such as \"64MiB\" or an integer of bytes", what));
    const auto parsed = trace::parse_bytes(n.as_string()->get());
    if (!parsed.ok()) fail(n, fmt::format("'{}': {}", what, parsed.error));
    if (parsed.value == 0) fail(n, fmt::format("'{}' must be positive", what));
    return parsed.value;
  }
  Bytes bytes(std::string_view key) { return bytes_of(required(key), path(key)); }
  // Keys that may be left out (added after the first profiles).
  bool has(std::string_view key) { return optional(key) != nullptr; }

  // Reports the first key not in `known` (before any missing key, so that a
  // misspelt key is named as such).
  void only(std::initializer_list<std::string_view> known) const {
    for (auto&& [k, v] : table_) {
      bool ok = false;
      for (auto n : known) ok |= n == k.str();
      if (!ok) throw ProfileError(fmt::format("{}:{}: unknown key '{}'", source_, k.source().begin.line, path(k.str())));
    }
  }

  // Every key of the table must have been read.
  void finish() const {
    for (auto&& [k, v] : table_) {
      if (!used_.count(std::string(k.str())))
        throw ProfileError(fmt::format("{}:{}: unknown key '{}'", source_, k.source().begin.line, path(k.str())));
    }
  }

 private:
  const toml::table& table_;
  std::string prefix_;
  const std::string& source_;
  std::set<std::string> used_;
};

LinkProfile read_link(TableReader& parent, std::string_view key, const std::string& source) {
  TableReader t(parent.table(key), parent.path(key), source);
  t.only({"latency", "curve", "peak_gbps", "atan_b_per_kib", "points"});
  LinkProfile link;
  link.latency_ns = t.duration("latency");
  const std::string curve = t.string("curve");
  auto& c = link.curve;
  if (curve == "flat") {
    c.kind = BandwidthCurve::Kind::kFlat;
    c.peak_gbps = t.bandwidth("peak_gbps");
  } else if (curve == "atan") {
    c.kind = BandwidthCurve::Kind::kAtan;
    c.peak_gbps = t.bandwidth("peak_gbps");
    c.atan_b_per_kib = t.positive_number("atan_b_per_kib");
  } else if (curve == "points") {
    c.kind = BandwidthCurve::Kind::kPoints;
    const toml::node& n = t.required("points");
    const toml::array* arr = n.as_array();
    if (!arr || arr->empty()) t.fail(n, fmt::format("'{}.points' must be a non-empty array of [size, GB/s] pairs", t.path("")));
    for (const toml::node& item : *arr) {
      const toml::array* pair = item.as_array();
      if (!pair || pair->size() != 2)
        t.fail(item, fmt::format("'{}points' entries must be [size, GB/s] pairs", t.path("")));
      const Bytes size = t.bytes_of(*pair->get(0), t.path("points") + " size");
      const double gbps = t.bandwidth_of(*pair->get(1), t.path("points") + " bandwidth");
      if (!c.points.empty() && size <= c.points.back().first)
        t.fail(item, fmt::format("'{}' sizes must be strictly ascending", t.path("points")));
      c.points.emplace_back(size, gbps);
    }
    c.peak_gbps = 0;
    for (const auto& [s, g] : c.points) c.peak_gbps = std::max(c.peak_gbps, g);
  } else {
    t.fail(t.required("curve"), fmt::format("'{}' must be \"flat\", \"atan\" or \"points\", not \"{}\"", t.path("curve"), curve));
  }
  t.finish();
  return link;
}

// A transaction unit: a power of two from 4 bytes to the 4 KiB page.
Bytes access_unit(TableReader& t, std::string_view key) {
  const Bytes unit = t.bytes(key);
  if (unit < 4 || unit > HardwareProfile::kPageSizeBytes || (unit & (unit - 1)))
    t.fail(t.required(key), fmt::format("'{}' must be a power of two from 4B to 4KiB, not {} bytes", t.path(key), unit));
  return unit;
}

}  // namespace

HardwareProfile parse_profile(std::string_view text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    throw ProfileError(fmt::format("{}:{}: {}", source, e.source().begin.line, e.description()));
  }
  HardwareProfile p;
  p.source = source;
  TableReader top(root, "", source);
  top.only({"name", "description", "gpu", "copy_engines", "link", "faults", "cpu", "remote", "prefetch", "eviction", "host",
            "calibrated_on"});
  p.name = top.string("name");
  if (p.name.empty()) top.fail(top.required("name"), "'name' must not be empty");
  p.description = top.string("description");
  {
    TableReader t(top.table("gpu"), "gpu", source);
    t.only({"count", "memory", "peer_access", "access_gbps", "access_lanes", "access_window", "fill_lanes", "access_unit", "access_cost",
            "rmw_cost", "launch_cost", "idle_start_cost", "idle_start_after", "fault_compute_overlap",
            "compute_beside_faults", "resident_kernels_wait_for_faults"});
    p.gpus = static_cast<int>(t.integer("count", 1, kMaxGpus));
    p.gpu_memory = t.bytes("memory");
    if (p.gpu_memory < kBlockSize) t.fail(t.required("memory"), "'gpu.memory' must be at least 2MiB");
    p.peer_access = t.boolean("peer_access");
    if (t.has("access_gbps")) p.gpu_access_gbps = t.bandwidth("access_gbps");
    if (t.has("access_lanes")) p.gpu_access_lanes = static_cast<std::uint32_t>(t.integer("access_lanes", 1, 1 << 20));
    if (t.has("access_window")) p.gpu_access_window = static_cast<std::uint64_t>(t.integer("access_window", 0, std::int64_t{1} << 40));
    if (t.has("fill_lanes")) p.gpu_fill_lanes = static_cast<std::uint32_t>(t.integer("fill_lanes", 1, 1 << 20));
    if (t.has("access_unit")) p.gpu_access_unit = access_unit(t, "access_unit");
    if (t.has("access_cost")) p.gpu_access_ns = t.fine_duration("access_cost");
    if (t.has("rmw_cost")) p.gpu_rmw_ns = t.fine_duration("rmw_cost");
    if (t.has("launch_cost")) p.gpu_launch_ns = t.duration("launch_cost");
    if (t.has("idle_start_cost")) p.gpu_idle_start_ns = t.duration("idle_start_cost");
    if (t.has("idle_start_after")) p.gpu_idle_after_ns = t.duration("idle_start_after");
    if (t.has("fault_compute_overlap")) p.gpu_fault_compute_overlap = t.fraction("fault_compute_overlap", 1.0);
    if (t.has("compute_beside_faults")) p.gpu_compute_beside_faults = t.fraction("compute_beside_faults", 1.0);
    if (t.has("resident_kernels_wait_for_faults"))
      p.gpu_resident_kernels_wait_for_faults = t.boolean("resident_kernels_wait_for_faults");
    t.finish();
  }
  {
    TableReader t(top.table("copy_engines"), "copy_engines", source);
    t.only({"h2d", "d2h", "peer", "fault_share"});
    p.copy_engines_h2d = static_cast<int>(t.integer("h2d", 1, 64));
    p.copy_engines_d2h = static_cast<int>(t.integer("d2h", 1, 64));
    p.copy_engines_peer = static_cast<int>(t.integer("peer", 1, 64));
    if (t.has("fault_share")) {
      p.link_sharing.on = true;
      p.link_sharing.fault_share = t.share("fault_share");
    }
    t.finish();
  }
  {
    TableReader t(top.table("link"), "link", source);
    t.only({"host_to_gpu", "gpu_to_host", "gpu_to_gpu"});
    p.h2d = read_link(t, "host_to_gpu", source);
    p.d2h = read_link(t, "gpu_to_host", source);
    p.peer = read_link(t, "gpu_to_gpu", source);
    t.finish();
  }
  {
    TableReader t(top.table("faults"), "faults", source);
    t.only({"batch_size", "concurrency", "batch_cost", "wakeup_cost", "va_block_cost", "page_cost", "populate_va_block_cost",
            "populate_gbps", "duplicate_va_block_cost", "migrated_page_cost", "duplicated_page_cost",
            "revoke_duplicate_page_cost", "revoke_cpu_write_page_cost", "run_cost", "copy_runs_by_cause", "cold_start_cost", "cold_start_time", "cold_start_carry"});
    p.fault_batch_size = static_cast<std::uint32_t>(t.integer("batch_size", 1, 1 << 20));
    p.fault_concurrency = static_cast<std::uint32_t>(t.integer("concurrency", 1, 1 << 20));
    p.fault_batch_ns = t.duration("batch_cost");
    if (t.has("wakeup_cost")) p.fault_wakeup_ns = t.duration("wakeup_cost");
    if (t.has("cold_start_cost")) p.fault_cold_start_ns = t.duration("cold_start_cost");
    if (t.has("cold_start_time")) {
      p.fault_cold_time_ns = t.duration("cold_start_time");
      if (p.fault_cold_time_ns == 0) t.fail(t.required("cold_start_time"), "'faults.cold_start_time' must be longer than 0");
    }
    if (t.has("cold_start_carry")) p.fault_cold_carry = t.fraction("cold_start_carry", 0.99);
    p.fault_va_block_ns = t.duration("va_block_cost");
    p.fault_page_ns = t.duration("page_cost");
    if (t.has("populate_va_block_cost")) p.fault_populate_block_ns = t.duration("populate_va_block_cost");
    if (t.has("populate_gbps")) p.populate_gbps = t.bandwidth("populate_gbps");
    if (t.has("duplicate_va_block_cost")) p.fault_duplicate_block_ns = t.duration("duplicate_va_block_cost");
    if (t.has("migrated_page_cost")) p.fault_migrated_page_ns = t.duration("migrated_page_cost");
    if (t.has("duplicated_page_cost")) p.fault_duplicated_page_ns = t.duration("duplicated_page_cost");
    if (t.has("run_cost")) p.fault_run_ns = t.duration("run_cost");
    if (t.has("copy_runs_by_cause")) p.fault_copy_runs_by_cause = t.boolean("copy_runs_by_cause");
    if (t.has("revoke_duplicate_page_cost")) p.fault_revoke_duplicate_page_ns = t.duration("revoke_duplicate_page_cost");
    if (t.has("revoke_cpu_write_page_cost")) p.fault_revoke_cpu_write_page_ns = t.duration("revoke_cpu_write_page_cost");
    t.finish();
  }
  {
    TableReader t(top.table("cpu"), "cpu", source);
    t.only({"fault_cost", "read_fault_cost", "collapse_fault_cost", "first_touch_cost", "page_access_cost",
            "page_read_cost", "word_access_cost", "word_read_cost", "faulted_page_read_cost",
            "faulted_page_write_cost"});
    p.cpu_fault_ns = t.duration("fault_cost");
    if (t.has("read_fault_cost")) p.cpu_read_fault_ns = t.duration("read_fault_cost");
    if (t.has("collapse_fault_cost")) p.cpu_collapse_fault_ns = t.duration("collapse_fault_cost");
    p.cpu_first_touch_ns = t.duration("first_touch_cost");
    p.cpu_access_ns = t.duration("page_access_cost");
    if (t.has("page_read_cost")) p.cpu_read_ns = t.duration("page_read_cost");
    if (t.has("word_access_cost")) p.cpu_word_write_ns = t.duration("word_access_cost");
    if (t.has("word_read_cost")) p.cpu_word_read_ns = t.duration("word_read_cost");
    if (t.has("faulted_page_read_cost")) p.cpu_faulted_read_ns = t.duration("faulted_page_read_cost");
    if (t.has("faulted_page_write_cost")) p.cpu_faulted_write_ns = t.duration("faulted_page_write_cost");
    t.finish();
  }
  {
    TableReader t(top.table("remote"), "remote", source);
    t.only({"gpu_to_host_gbps", "gpu_write_to_host_gbps", "gpu_to_gpu_gbps", "access_unit", "access_cost", "request_unit",
            "request_cost"});
    p.remote_gpu_to_host_gbps = t.bandwidth("gpu_to_host_gbps");
    if (t.has("gpu_write_to_host_gbps")) p.remote_gpu_write_to_host_gbps = t.bandwidth("gpu_write_to_host_gbps");
    p.remote_gpu_to_peer_gbps = t.bandwidth("gpu_to_gpu_gbps");
    if (t.has("access_unit")) p.remote_access_unit = access_unit(t, "access_unit");
    if (t.has("access_cost")) p.remote_access_ns = t.fine_duration("access_cost");
    if (t.has("request_unit")) p.remote_request_unit = access_unit(t, "request_unit");
    if (t.has("request_cost")) p.remote_request_ns = t.fine_duration("request_cost");
    t.finish();
  }
  {
    TableReader t(top.table("prefetch"), "prefetch", source);
    t.only({"va_block_cost", "peer_va_block_cost", "duplicate_va_block_cost", "to_cpu_va_block_cost", "call_cost",
            "cold_call_cost", "cold_call_after", "idle_call_cost", "idle_call_after", "first_on_gpu_cost",
            "first_on_cpu_cost", "next_on_cpu_cost", "queued_call_cost", "to_cpu_page_cost",
            "to_cpu_held_va_block_cost", "host_va_block_cost"});
    p.prefetch_va_block_ns = t.duration("va_block_cost");
    if (t.has("call_cost")) p.prefetch_call_ns = t.duration("call_cost");
    if (t.has("cold_call_cost")) p.prefetch_cold_call_ns = t.duration("cold_call_cost");
    if (t.has("cold_call_after")) p.prefetch_cold_after_ns = t.duration("cold_call_after");
    if (t.has("idle_call_cost")) p.prefetch_idle_call_ns = t.duration("idle_call_cost");
    if (t.has("idle_call_after")) p.prefetch_idle_after_ns = t.duration("idle_call_after");
    if (p.prefetch_idle_call_ns > 0 && p.prefetch_idle_after_ns >= p.prefetch_cold_after_ns)
      t.fail(t.has("idle_call_after") ? *t.optional("idle_call_after") : *t.optional("idle_call_cost"),
             fmt::format("'prefetch.idle_call_after' ({} ns) must be shorter than 'prefetch.cold_call_after' ({} ns)",
                         p.prefetch_idle_after_ns, p.prefetch_cold_after_ns));
    if (t.has("first_on_gpu_cost")) p.prefetch_first_on_gpu_ns = t.duration("first_on_gpu_cost");
    if (t.has("first_on_cpu_cost")) p.prefetch_first_on_cpu_ns = t.duration("first_on_cpu_cost");
    if (t.has("next_on_cpu_cost")) p.prefetch_next_on_cpu_ns = t.duration("next_on_cpu_cost");
    if (t.has("duplicate_va_block_cost")) p.prefetch_duplicate_va_block_ns = t.duration("duplicate_va_block_cost");
    if (t.has("peer_va_block_cost")) p.prefetch_peer_va_block_ns = t.duration("peer_va_block_cost");
    if (t.has("to_cpu_va_block_cost")) p.prefetch_to_cpu_va_block_ns = t.duration("to_cpu_va_block_cost");
    if (t.has("to_cpu_held_va_block_cost"))
      p.prefetch_to_cpu_held_va_block_ns = t.duration("to_cpu_held_va_block_cost");
    if (t.has("queued_call_cost")) p.prefetch_queued_call_ns = t.duration("queued_call_cost");
    if (t.has("to_cpu_page_cost")) p.prefetch_to_cpu_page_ns = t.duration("to_cpu_page_cost");
    if (t.has("host_va_block_cost")) p.prefetch_host_va_block_ns = t.duration("host_va_block_cost");
    t.finish();
  }
  {
    TableReader t(top.table("eviction"), "eviction", source);
    t.only({"chunk_cost"});
    p.eviction_chunk_ns = t.duration("chunk_cost");
    t.finish();
  }
  {
    TableReader t(top.table("host"), "host", source);
    t.only({"pinned_copy_gbps", "pageable_copy_gbps", "pageable_to_host_copy_gbps", "copy_call_cost",
            "pageable_to_host_call_cost", "pageable_cached_copy_gbps", "pageable_cache_bytes", "pageable_warming_share",
            "launch_after_memset_cost", "stream_create_cost", "launch_gap", "idle_launch_gap", "other_stream_launch_gap", "sync_return_cost", "sync_call_cost",
            "free_call_cost", "free_gpu_block_cost",
            "advise_call_cost", "advise_read_mostly_page_cost", "advise_accessed_by_page_cost",
            "advise_preferred_page_cost"});
    p.pinned_copy_gbps = t.bandwidth("pinned_copy_gbps");
    p.pageable_copy_gbps = t.bandwidth("pageable_copy_gbps");
    if (t.has("pageable_to_host_copy_gbps")) p.pageable_to_host_copy_gbps = t.bandwidth("pageable_to_host_copy_gbps");
    if (t.has("pageable_cached_copy_gbps")) {
      p.pageable_cached_copy_gbps = t.bandwidth("pageable_cached_copy_gbps");
      p.pageable_cache_bytes = t.bytes("pageable_cache_bytes");  // a missing one is named
      if (t.has("pageable_warming_share")) p.pageable_warming_share = t.fraction("pageable_warming_share", 2);
    } else {
      for (const char* key : {"pageable_cache_bytes", "pageable_warming_share"})
        if (const toml::node* n = t.optional(key))
          t.fail(*n, fmt::format("'host.{}' is given without 'host.pageable_cached_copy_gbps' (the cached speed)", key));
    }
    if (t.has("copy_call_cost")) p.copy_call_ns = t.duration("copy_call_cost");
    if (t.has("pageable_to_host_call_cost")) p.pageable_to_host_call_ns = t.duration("pageable_to_host_call_cost");
    if (t.has("launch_after_memset_cost")) p.launch_after_memset_ns = t.duration("launch_after_memset_cost");
    if (t.has("stream_create_cost")) p.stream_create_ns = t.duration("stream_create_cost");
    if (t.has("launch_gap")) p.launch_gap_ns = t.duration("launch_gap");
    if (t.has("idle_launch_gap")) p.idle_launch_gap_ns = t.duration("idle_launch_gap");
    if (t.has("other_stream_launch_gap")) p.other_stream_launch_gap_ns = t.duration("other_stream_launch_gap");
    if (t.has("sync_return_cost")) p.sync_return_ns = t.duration("sync_return_cost");
    if (t.has("sync_call_cost")) p.sync_call_ns = t.duration("sync_call_cost");
    if (t.has("free_call_cost")) p.free_call_ns = t.duration("free_call_cost");
    if (t.has("free_gpu_block_cost")) p.free_gpu_block_ns = t.duration("free_gpu_block_cost");
    if (t.has("advise_call_cost")) p.advise_call_ns = t.duration("advise_call_cost");
    if (t.has("advise_read_mostly_page_cost")) p.advise_read_mostly_page_ns = t.duration("advise_read_mostly_page_cost");
    if (t.has("advise_accessed_by_page_cost")) p.advise_accessed_by_page_ns = t.duration("advise_accessed_by_page_cost");
    if (t.has("advise_preferred_page_cost")) p.advise_preferred_page_ns = t.duration("advise_preferred_page_cost");
    t.finish();
  }
  if (top.has("calibrated_on")) {
    TableReader t(top.table("calibrated_on"), "calibrated_on", source);
    t.only({"gpu", "cpu_model", "kernel", "driver", "cuda", "date", "host"});
    for (const char* key : {"gpu", "cpu_model", "kernel", "driver", "cuda", "date", "host"})
      if (t.has(key)) p.calibrated_on.emplace_back(key, t.string(key));
    t.finish();
  }
  top.finish();
  return p;
}

HardwareProfile load_profile_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ProfileError(path + ": cannot open profile");
  std::ostringstream buf;
  buf << in.rdbuf();
  return parse_profile(buf.str(), path);
}

namespace {
// JSON has no infinity: a free transfer (inf GB/s) is written as the string "inf".
nlohmann::ordered_json gbps_json(double gbps) {
  return std::isinf(gbps) ? nlohmann::ordered_json("inf") : nlohmann::ordered_json(gbps);
}

nlohmann::ordered_json link_json(const LinkProfile& l) {
  nlohmann::ordered_json j;
  j["latency_ns"] = l.latency_ns;
  j["curve"] = to_string(l.curve.kind);
  if (l.curve.kind != BandwidthCurve::Kind::kPoints) j["peak_gbps"] = gbps_json(l.curve.peak_gbps);
  if (l.curve.kind == BandwidthCurve::Kind::kAtan) j["atan_b_per_kib"] = l.curve.atan_b_per_kib;
  if (l.curve.kind == BandwidthCurve::Kind::kPoints) {
    j["points"] = nlohmann::ordered_json::array();
    for (const auto& [s, g] : l.curve.points) j["points"].push_back({s, gbps_json(g)});
  }
  return j;
}
}  // namespace

nlohmann::ordered_json to_json(const HardwareProfile& p) {
  nlohmann::ordered_json j;
  j["name"] = p.name;
  j["description"] = p.description;
  j["gpu"] = {{"count", p.gpus},
              {"memory_bytes", p.gpu_memory},
              {"peer_access", p.peer_access},
              {"access_gbps", gbps_json(p.gpu_access_gbps)},
              {"access_lanes", p.gpu_access_lanes},
              {"access_unit_bytes", p.gpu_access_unit},
              {"access_cost_ns", p.gpu_access_ns},
              {"launch_cost_ns", p.gpu_launch_ns},
              {"idle_start_cost_ns", p.gpu_idle_start_ns},
              {"idle_start_after_ns", p.gpu_idle_after_ns},
              {"fault_compute_overlap", p.gpu_fault_compute_overlap}};
  // Reported only where set, so results under profiles without it stay as they were.
  if (p.gpu_fill_lanes) j["gpu"]["fill_lanes"] = p.gpu_fill_lanes;
  if (p.gpu_access_window) j["gpu"]["access_window"] = p.gpu_access_window;
  if (p.gpu_rmw_ns > 0) j["gpu"]["rmw_cost_ns"] = p.gpu_rmw_ns;
  if (p.gpu_compute_beside_faults != 1) j["gpu"]["compute_beside_faults"] = p.gpu_compute_beside_faults;
  if (p.gpu_resident_kernels_wait_for_faults) j["gpu"]["resident_kernels_wait_for_faults"] = true;
  j["copy_engines"] = {{"h2d", p.copy_engines_h2d}, {"d2h", p.copy_engines_d2h}, {"peer", p.copy_engines_peer}};
  if (p.link_sharing.on) {  // absent otherwise: the resolved configuration of a profile without it is unchanged
    j["copy_engines"]["fault_share"] = p.link_sharing.fault_share;
  }
  j["link"] = {{"host_to_gpu", link_json(p.h2d)}, {"gpu_to_host", link_json(p.d2h)}, {"gpu_to_gpu", link_json(p.peer)}};
  j["faults"] = {{"batch_size", p.fault_batch_size},
                 {"concurrency", p.fault_concurrency},
                 {"batch_cost_ns", p.fault_batch_ns},
                 {"wakeup_cost_ns", p.fault_wakeup_ns},
                 {"cold_start_cost_ns", p.fault_cold_start_ns},
                 {"cold_start_time_ns", p.fault_cold_time_ns},
                 {"cold_start_carry", p.fault_cold_carry},
                 {"va_block_cost_ns", p.fault_va_block_ns},
                 {"page_cost_ns", p.fault_page_ns},
                 {"populate_va_block_cost_ns", p.populate_block_ns()},
                 {"populate_gbps", gbps_json(p.populate_gbps)},
                 {"duplicate_va_block_cost_ns", p.duplicate_block_ns()},
                 {"migrated_page_cost_ns", p.fault_migrated_page_ns},
                 {"duplicated_page_cost_ns", p.duplicated_page_ns()},
                 {"revoke_duplicate_page_cost_ns", p.fault_revoke_duplicate_page_ns},
                 {"revoke_cpu_write_page_cost_ns", p.fault_revoke_cpu_write_page_ns}};
  j["cpu"] = {{"fault_cost_ns", p.cpu_fault_ns},
              {"read_fault_cost_ns", p.cpu_read_fault_cost()},
              {"collapse_fault_cost_ns", p.cpu_collapse_fault_cost()},
              {"first_touch_cost_ns", p.cpu_first_touch_ns},
              {"page_access_cost_ns", p.cpu_access_ns},
              {"page_read_cost_ns", p.cpu_read_access_ns()},
              {"word_access_cost_ns", p.cpu_word_write_ns.value_or(p.cpu_access_ns)},
              {"word_read_cost_ns", p.cpu_word_read_ns.value_or(p.cpu_read_access_ns())}};
  j["remote"] = {{"gpu_to_host_gbps", gbps_json(p.remote_gpu_to_host_gbps)},
                 {"gpu_to_gpu_gbps", gbps_json(p.remote_gpu_to_peer_gbps)},
                 {"access_unit_bytes", p.remote_access_unit},
                 {"access_cost_ns", p.remote_access_ns}};
  if (p.remote_gpu_write_to_host_gbps) j["remote"]["gpu_write_to_host_gbps"] = gbps_json(*p.remote_gpu_write_to_host_gbps);
  if (p.remote_request_ns > 0) {  // echoed where set, so profiles without it give the same output
    j["remote"]["request_unit_bytes"] = p.remote_request_unit;
    j["remote"]["request_cost_ns"] = p.remote_request_ns;
  }
  j["prefetch"] = {{"va_block_cost_ns", p.prefetch_va_block_ns},
                   {"peer_va_block_cost_ns", p.prefetch_peer_block_ns()},
                   {"duplicate_va_block_cost_ns", p.prefetch_duplicate_block_ns()},
                   {"to_cpu_va_block_cost_ns", p.prefetch_to_cpu_block_ns()},
                   {"to_cpu_held_va_block_cost_ns", p.prefetch_to_cpu_held_block_ns()},
                   {"call_cost_ns", p.prefetch_call_ns},
                   {"cold_call_cost_ns", p.prefetch_cold_call_ns},
                   {"cold_call_after_ns", p.prefetch_cold_after_ns},
                   {"idle_call_cost_ns", p.prefetch_idle_call_ns},
                   {"idle_call_after_ns", p.prefetch_idle_after_ns},
                   {"first_on_gpu_cost_ns", p.prefetch_first_on_gpu_ns},
                   {"first_on_cpu_cost_ns", p.prefetch_first_on_cpu_ns},
                   {"next_on_cpu_cost_ns", p.prefetch_next_on_cpu_ns}};
  j["eviction"] = {{"chunk_cost_ns", p.eviction_chunk_ns}};
  j["host"] = {{"pinned_copy_gbps", gbps_json(p.pinned_copy_gbps)},
               {"pageable_copy_gbps", gbps_json(p.pageable_copy_gbps)},
               {"pageable_to_host_copy_gbps", gbps_json(p.pageable_d2h_copy_gbps())},
               {"copy_call_cost_ns", p.copy_call_ns}};
  // Reported where set, so that results under profiles without it stay as they were.
  if (p.pageable_to_host_call_ns) j["host"]["pageable_to_host_call_cost_ns"] = p.pageable_to_host_call_ns;
  if (p.pageable_cached_copy_gbps) {
    j["host"]["pageable_cached_copy_gbps"] = gbps_json(*p.pageable_cached_copy_gbps);
    j["host"]["pageable_cache_bytes"] = p.pageable_cache_bytes;
    if (p.pageable_warming_share != 0) j["host"]["pageable_warming_share"] = p.pageable_warming_share;
  }
  if (p.launch_after_memset_ns) j["host"]["launch_after_memset_cost_ns"] = p.launch_after_memset_ns;
  if (p.stream_create_ns) j["host"]["stream_create_cost_ns"] = p.stream_create_ns;
  if (p.launch_gap_ns) j["host"]["launch_gap_ns"] = p.launch_gap_ns;
  if (p.idle_launch_gap_ns) j["host"]["idle_launch_gap_ns"] = p.idle_launch_gap_ns;
  if (p.other_stream_launch_gap_ns) j["host"]["other_stream_launch_gap_ns"] = p.other_stream_launch_gap_ns;
  if (p.sync_return_ns) j["host"]["sync_return_cost_ns"] = p.sync_return_ns;
  if (p.sync_call_ns) j["host"]["sync_call_cost_ns"] = p.sync_call_ns;
  if (p.free_call_ns) j["host"]["free_call_cost_ns"] = p.free_call_ns;
  if (p.free_gpu_block_ns) j["host"]["free_gpu_block_cost_ns"] = p.free_gpu_block_ns;
  if (p.advise_call_ns) j["host"]["advise_call_cost_ns"] = p.advise_call_ns;
  if (p.advise_read_mostly_page_ns) j["host"]["advise_read_mostly_page_cost_ns"] = p.advise_read_mostly_page_ns;
  if (p.advise_accessed_by_page_ns) j["host"]["advise_accessed_by_page_cost_ns"] = p.advise_accessed_by_page_ns;
  if (p.advise_preferred_page_ns) j["host"]["advise_preferred_page_cost_ns"] = p.advise_preferred_page_ns;
  if (p.cpu_faulted_read_ns) j["cpu"]["faulted_page_read_cost_ns"] = *p.cpu_faulted_read_ns;
  if (p.cpu_faulted_write_ns) j["cpu"]["faulted_page_write_cost_ns"] = *p.cpu_faulted_write_ns;
  if (p.prefetch_queued_call_ns) j["prefetch"]["queued_call_cost_ns"] = *p.prefetch_queued_call_ns;
  if (p.fault_run_ns) j["faults"]["run_cost_ns"] = *p.fault_run_ns;
  if (p.fault_copy_runs_by_cause) j["faults"]["copy_runs_by_cause"] = true;
  if (p.prefetch_to_cpu_page_ns) j["prefetch"]["to_cpu_page_cost_ns"] = *p.prefetch_to_cpu_page_ns;
  if (p.prefetch_host_va_block_ns) j["prefetch"]["host_va_block_cost_ns"] = *p.prefetch_host_va_block_ns;
  if (!p.calibrated_on.empty()) {
    nlohmann::ordered_json m = nlohmann::ordered_json::object();
    for (const auto& [k, v] : p.calibrated_on) m[k] = v;
    j["calibrated_on"] = m;
  }
  return j;
}

}  // namespace umsim::sim
