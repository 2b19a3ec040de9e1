#include "traces/importers/page_reducer.h"

#include <algorithm>

#include <fmt/format.h>

#include "traces/trace_error.h"
#include "traces/units.h"

namespace umsim::import {

PageReducer::PageReducer(gen::TraceEmitter& out, const AddressMap& map, bool strict, int gpu)
    : out_(out), map_(map), strict_(strict) {
  std::uint64_t total = 0;
  for (const Allocation& a : map_.allocations()) {
    total += std::min(a.size, kMaxImportedBytes + 1);  // a running sum that cannot wrap
    if (total > kMaxImportedBytes)
      throw PageSetTooLarge(fmt::format(
          "allocation '{}' at {:#x} of {} brings the allocations to more than the {} an import collects the pages of "
          "(a bitmap of one bit per page each)",
          a.name, a.base, trace::describe_bytes(a.size), trace::format_bytes(kMaxImportedBytes)));
    out_.comment(fmt::format("{} at {:#x}", a.name, a.base));
    out_.alloc(a.name, a.size, a.kind,
               a.kind == trace::AllocKind::kDevice ? trace::Processor::gpu(gpu) : trace::Processor::none());
    pages_.add(a.name, a.size);
  }
}

void PageReducer::flush_cpu() {
  if (!in_kernel_) pages_.flush(out_);
}

void PageReducer::kernel_begin(std::string_view name, int gpu, trace::StreamId stream) {
  if (in_kernel_) kernel_end();
  flush_cpu();
  out_.kernel_begin(name, gpu, stream, 0);
  in_kernel_ = true;
  ++stats_.kernels;
}

void PageReducer::kernel_end() {
  if (!in_kernel_) return;
  pages_.flush(out_);
  out_.kernel_end();
  in_kernel_ = false;
  kernels_unsynced_ = true;
}

namespace {

void check_address(std::uint64_t address, std::uint64_t size, const std::string& where) {
  if (address >= kMaxAddress || size >= kMaxAddress)
    throw trace::TraceError(fmt::format("{}: address {:#x} (+{} bytes) is beyond the 60-bit address space", where,
                                        address, size));
}

}  // namespace

void AddressCollector::access(bool, std::uint64_t address, std::uint64_t size, trace::AccessType,
                              const std::string& where) {
  check_address(address, size, where);
  inference_.touch(address, size);
}

void PageReducer::access(bool gpu, std::uint64_t address, std::uint64_t size, trace::AccessType type,
                         const std::string& where) {
  check_address(address, size, where);
  if (gpu != in_kernel_) {
    if (gpu) throw trace::TraceError(where + ": GPU access outside a kernel");
    kernel_end();
  }
  if (!gpu && kernels_unsynced_) {  // a CPU access after kernels: the CPU waited for them (memcpy / sync)
    out_.sync_all();
    kernels_unsynced_ = false;
  }
  const Allocation* a = map_.find(address);
  if (a == nullptr) {
    if (strict_)
      throw trace::TraceError(fmt::format("{}: address {:#x} is outside every allocation", where, address));
    if (stats_.outside++ == 0) stats_.first_outside = where;
    return;
  }
  ++stats_.accesses;
  const std::uint64_t offset = address - a->base;
  pages_.touch(map_.index_of(a), offset, std::min(std::max<std::uint64_t>(size, 1), a->size - offset), type);
}

void PageReducer::finish() {
  kernel_end();
  pages_.flush(out_);
  if (kernels_unsynced_) out_.sync_all();
  for (const Allocation& a : map_.allocations()) out_.free(a.name);
}

}  // namespace umsim::import
