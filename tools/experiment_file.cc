#include "tools/experiment_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "third_party/toml.h"

namespace umsim::cli {
namespace {

struct StringAxis {
  const char* key;
  std::vector<std::string> SweepAxes::*axis;
};

constexpr StringAxis kStringAxes[] = {
    {"traces", &SweepAxes::traces},     {"vendors", &SweepAxes::vendors},     {"profiles", &SweepAxes::profiles},
    {"prefetch", &SweepAxes::prefetch}, {"evict", &SweepAxes::evict},         {"migrate", &SweepAxes::migrate},
    {"thrashing", &SweepAxes::thrashing}, {"gpu_mem", &SweepAxes::gpu_mem}};

std::string known_keys() {
  std::string keys;
  for (const auto& a : kStringAxes) keys += std::string(a.key) + ", ";
  return keys + "seeds";
}

// The node's elements: an array's items, or the node itself.
std::vector<const toml::node*> items(const toml::node& node) {
  std::vector<const toml::node*> out;
  if (const toml::array* array = node.as_array())
    for (const toml::node& item : *array) out.push_back(&item);
  else
    out.push_back(&node);
  return out;
}

}  // namespace

void read_experiment_file(const std::string& path, SweepAxes* axes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the experiment file");
  std::ostringstream text;
  text << in.rdbuf();
  toml::table root;
  try {
    root = toml::parse(text.str(), path);
  } catch (const toml::parse_error& e) {
    throw std::runtime_error(fmt::format("{}:{}: {}", path, e.source().begin.line, e.description()));
  }
  const auto fail = [&](const toml::node& node, const std::string& what) {
    return std::runtime_error(fmt::format("{}:{}: {}", path, node.source().begin.line, what));
  };
  const std::filesystem::path base = std::filesystem::path(path).parent_path();
  for (const auto& [key, node] : root) {
    const std::string name(key.str());
    const StringAxis* axis = nullptr;
    for (const auto& a : kStringAxes)
      if (name == a.key) axis = &a;
    if (name == "seeds") {
      std::vector<std::int64_t> seeds;
      for (const toml::node* item : items(node)) {
        const auto seed = item->value<std::int64_t>();
        if (!item->is_integer() || !seed) throw fail(*item, "'seeds' takes integers");
        seeds.push_back(*seed);
      }
      if (seeds.empty()) throw fail(node, "'seeds' is empty");
      axes->seeds = seeds;
      continue;
    }
    if (!axis) throw fail(node, "unknown key '" + name + "' (known: " + known_keys() + ")");
    std::vector<std::string> values;
    for (const toml::node* item : items(node)) {
      const auto value = item->value<std::string>();
      if (!item->is_string() || !value) throw fail(*item, "'" + name + "' takes strings");
      std::string v = *value;
      // Relative trace paths are relative to the experiment file, wherever the sweep runs.
      const bool is_file = axis->axis == &SweepAxes::traces ||
                           (axis->axis == &SweepAxes::profiles && v.size() > 5 && v.ends_with(".toml"));
      if (is_file && std::filesystem::path(v).is_relative()) v = (base / v).string();
      values.push_back(std::move(v));
    }
    if (values.empty()) throw fail(node, "'" + name + "' is empty");
    axes->*(axis->axis) = std::move(values);
  }
}

}  // namespace umsim::cli
