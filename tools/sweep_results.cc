#include "tools/sweep_results.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace umsim::cli {
namespace {

std::runtime_error error_at(const std::string& where, const std::string& what) {
  return std::runtime_error(where + ": " + what);
}

// The first key whose values differ between two JSON objects ("config.profile.gpu_memory").
std::string first_difference(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b,
                             const std::string& prefix) {
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      const std::string path = prefix.empty() ? key : prefix + "." + key;
      if (!b.contains(key)) return path;
      if (value != b.at(key)) return first_difference(value, b.at(key), path);
    }
    for (const auto& [key, value] : b.items())
      if (!a.contains(key)) return prefix.empty() ? key : prefix + "." + key;
  }
  return prefix.empty() ? "(the whole value)" : prefix;
}

std::string list_indices(const std::vector<std::size_t>& indices) {
  std::string text;
  for (std::size_t i = 0; i < indices.size() && i < 20; ++i) text += (i ? ", " : "") + std::to_string(indices[i]);
  if (indices.size() > 20) text += fmt::format(", ... ({} more)", indices.size() - 20);
  return text;
}

}  // namespace

SweepLine parse_sweep_line(const std::string& text, const std::string& source, std::size_t line) {
  SweepLine l{source, line, {}};
  try {
    l.json = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw error_at(l.where(), std::string("not a JSON line (") + e.what() + ")");
  }
  if (!l.json.is_object()) throw error_at(l.where(), "not a JSON object");
  for (const char* key : {"index", "trace", "sweep"})
    if (!l.json.contains(key)) throw error_at(l.where(), std::string("missing field '") + key + "' (is this `umsim sweep` output?)");
  if (!l.json["index"].is_number_unsigned()) throw error_at(l.where(), "'index' is not a non-negative integer");
  const auto& sweep = l.json["sweep"];
  if (!sweep.is_object() || !sweep.contains("points") || !sweep["points"].is_number_unsigned() ||
      !sweep.contains("experiment"))
    throw error_at(l.where(), "'sweep' lacks 'points' or 'experiment'");
  if (l.index() >= sweep["points"].get<std::size_t>())
    throw error_at(l.where(), fmt::format("index {} is outside the sweep's {} points", l.index(),
                                          sweep["points"].get<std::size_t>()));
  if (!l.json.contains("result") && !l.json.contains("error"))
    throw error_at(l.where(), "neither 'result' nor 'error'");
  return l;
}

std::vector<SweepLine> read_sweep_files(const std::vector<std::string>& paths) {
  std::vector<SweepLine> lines;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    std::size_t number = 0;
    for (std::size_t start = 0; start < text.size();) {
      ++number;
      const std::size_t nl = text.find('\n', start);
      if (nl == std::string::npos)
        throw error_at(path + ":" + std::to_string(number), "incomplete last line (no newline: an interrupted write?)");
      const std::string line = text.substr(start, nl - start);
      start = nl + 1;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      lines.push_back(parse_sweep_line(line, path, number));
    }
  }
  return lines;
}

std::vector<SweepLine> merge_sweep_lines(std::vector<SweepLine> lines) {
  if (lines.empty()) throw std::runtime_error("sweep merge: no sweep lines in the inputs");
  const SweepLine& first = lines.front();
  const auto& sweep0 = first.json["sweep"];
  for (const auto& l : lines) {
    const auto& sweep = l.json["sweep"];
    for (const char* key : {"experiment", "points", "umsim"})
      if (sweep.value(key, nlohmann::ordered_json()) != sweep0.value(key, nlohmann::ordered_json()))
        throw error_at(l.where(), fmt::format("from a different sweep than {} (sweep.{} differs at {})", first.where(),
                                              key, first_difference(sweep0.value(key, nlohmann::ordered_json()),
                                                                    sweep.value(key, nlohmann::ordered_json()), key)));
  }
  const std::size_t points = sweep0["points"].get<std::size_t>();
  std::vector<const SweepLine*> at(points, nullptr);
  for (const auto& l : lines) {
    if (at[l.index()]) throw error_at(l.where(), fmt::format("point {} is also in {}", l.index(), at[l.index()]->where()));
    at[l.index()] = &l;
  }
  std::vector<std::size_t> missing;
  for (std::size_t i = 0; i < points; ++i)
    if (!at[i]) missing.push_back(i);
  if (!missing.empty()) {
    // Shards split by index modulo their count: name the shards that hold the missing points.
    std::string shards;
    const std::string shard0 = sweep0.value("shard", "0/1");
    const auto slash = shard0.find('/');
    const std::size_t count = slash == std::string::npos ? 1 : std::stoul(shard0.substr(slash + 1));
    if (count > 1) {
      std::vector<bool> named(count);
      for (const auto i : missing)
        if (!named[i % count]) {
          named[i % count] = true;
          shards += (shards.empty() ? "" : ", ") + fmt::format("{}/{}", i % count, count);
        }
      shards = " (shard " + shards + ")";
    }
    throw std::runtime_error(fmt::format("sweep merge: {} of {} points missing{}: index {}", missing.size(), points,
                                         shards, list_indices(missing)));
  }
  std::vector<SweepLine> merged;
  merged.reserve(points);
  for (const SweepLine* l : at) merged.push_back(*l);
  return merged;
}

std::string point_label(const nlohmann::ordered_json& line) {
  std::string label = line.value("trace", "");
  for (const char* key : {"vendor", "profile", "prefetch", "evict", "migrate", "thrashing"})
    label += " / " + line.value(key, std::string("?"));
  if (line.contains("seed") && !line["seed"].is_null()) label += " / seed " + line["seed"].dump();
  label += " @ " + (line.contains("gpu_mem_bytes") ? line["gpu_mem_bytes"].dump() : std::string("?")) + " B";
  return label;
}

void check_labels_distinct(const std::vector<SweepLine>& lines) {
  std::map<std::string, const SweepLine*> by_label;
  for (const auto& l : lines) {
    if (l.failed()) continue;
    const auto [it, fresh] = by_label.emplace(point_label(l.json), &l);
    if (fresh) continue;
    const auto& a = it->second->json["result"]["config"];
    const auto& b = l.json["result"]["config"];
    if (a != b)
      throw error_at(l.where(), fmt::format("same label as {} ({}) but a different configuration ({} differs): the two "
                                            "would be drawn as one point",
                                            it->second->where(), it->first, first_difference(a, b, "config")));
  }
}

}  // namespace umsim::cli
