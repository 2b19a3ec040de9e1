#include "traces/importers/address_map.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "traces/importers/import_visitor.h"
#include "traces/trace_error.h"
#include "traces/units.h"

namespace umsim::import {

void AddressMap::add(Allocation a) {
  if (a.size == 0) throw std::invalid_argument("allocation '" + a.name + "' is empty");
  auto it = std::lower_bound(allocs_.begin(), allocs_.end(), a.base,
                             [](const Allocation& x, std::uint64_t b) { return x.base < b; });
  if (it != allocs_.end() && it->base < a.base + a.size)
    throw std::invalid_argument(fmt::format("allocation '{}' [{:#x}, +{}) overlaps '{}' at {:#x}", a.name, a.base,
                                            a.size, it->name, it->base));
  if (it != allocs_.begin() && std::prev(it)->base + std::prev(it)->size > a.base)
    throw std::invalid_argument(fmt::format("allocation '{}' at {:#x} overlaps '{}' [{:#x}, +{})", a.name, a.base,
                                            std::prev(it)->name, std::prev(it)->base, std::prev(it)->size));
  for (const auto& x : allocs_)
    if (x.name == a.name) throw std::invalid_argument("allocation name '" + a.name + "' used twice");
  allocs_.insert(it, std::move(a));
}

const Allocation* AddressMap::find(std::uint64_t address) const {
  auto it = std::upper_bound(allocs_.begin(), allocs_.end(), address,
                             [](std::uint64_t addr, const Allocation& x) { return addr < x.base; });
  if (it == allocs_.begin()) return nullptr;
  --it;
  return address - it->base < it->size ? &*it : nullptr;
}

AddressMap read_allocation_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw trace::TraceError(path + ": cannot open allocation file");
  AddressMap map;
  std::string line;
  for (std::uint64_t n = 1; std::getline(in, line); ++n) {
    const auto where = [&] { return path + ":" + std::to_string(n) + ": "; };
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    std::string name, base_text, size_text, kind_text, extra;
    if (!(fields >> name)) continue;
    if (!(fields >> base_text >> size_text))
      throw trace::TraceError(where() + "expected 'NAME BASE SIZE [KIND]', got '" + line + "'");
    const auto base = trace::parse_unsigned(base_text);
    if (!base.ok()) throw trace::TraceError(where() + "bad base address '" + base_text + "': " + base.error);
    const auto size = trace::parse_bytes(size_text);
    if (!size.ok()) throw trace::TraceError(where() + "bad size '" + size_text + "': " + size.error);
    if (size.value == 0) throw trace::TraceError(where() + "allocation '" + name + "' has size 0");
    if (base.value >= kMaxAddress || size.value >= kMaxAddress - base.value)
      throw trace::TraceError(where() + "allocation '" + name + "' ends beyond the 60-bit address space");
    trace::AllocKind kind = trace::AllocKind::kManaged;
    if (fields >> kind_text) {
      const auto k = trace::parse_alloc_kind(kind_text);
      if (!k) throw trace::TraceError(where() + "unknown kind '" + kind_text + "' (expected managed, device, pinned or mapped)");
      kind = *k;
    }
    if (fields >> extra) throw trace::TraceError(where() + "unexpected '" + extra + "' after the allocation");
    try {
      map.add({name, base.value, size.value, kind});
    } catch (const std::invalid_argument& e) {
      throw trace::TraceError(where() + e.what());
    }
  }
  if (map.empty()) throw trace::TraceError(path + ": no allocations in the allocation file");
  return map;
}

void AllocationInference::touch(std::uint64_t address, std::uint64_t size) {
  std::uint64_t begin = address, end = address + std::max<std::uint64_t>(size, 1);
  // Merge with every range within `gap` of [begin, end).
  auto it = ranges_.lower_bound(begin > gap_ ? begin - gap_ : 0);
  if (it != ranges_.begin()) {
    auto prev = std::prev(it);
    if (prev->second + gap_ >= begin) it = prev;
  }
  while (it != ranges_.end() && it->first <= end + gap_) {
    begin = std::min(begin, it->first);
    end = std::max(end, it->second);
    it = ranges_.erase(it);
  }
  ranges_.emplace(begin, end);
}

AddressMap AllocationInference::result() const {
  AddressMap map;
  std::uint64_t prev_end = 0;
  int index = 0;
  for (const auto& [begin, end] : ranges_) {
    std::uint64_t b = begin / kInferenceAlignment * kInferenceAlignment;
    const std::uint64_t e = (end + kInferenceAlignment - 1) / kInferenceAlignment * kInferenceAlignment;
    b = std::max(b, prev_end);  // alignment must not make neighbours overlap
    if (b >= e) continue;       // already inside the previous region
    map.add({"region" + std::to_string(index++), b, e - b, trace::AllocKind::kManaged});
    prev_end = e;
  }
  return map;
}

}  // namespace umsim::import
