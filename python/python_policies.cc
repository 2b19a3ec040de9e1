#include "python/python_policies.h"

#include <string>

namespace umsim::python {
namespace py = pybind11;
namespace {

class PythonEviction final : public sim::EvictionPolicy {
 public:
  explicit PythonEviction(py::object policy)
      : policy_(std::move(policy)),
        on_allocated_(policy_.attr("on_chunk_allocated")),
        on_freed_(policy_.attr("on_chunk_freed")),
        choose_(policy_.attr("choose_victim")) {
    if (py::hasattr(policy_, "on_chunk_accessed")) on_accessed_ = policy_.attr("on_chunk_accessed");
    if (py::hasattr(policy_, "granularity")) granularity_ = policy_.attr("granularity").cast<sim::Bytes>();
  }

  sim::Bytes granularity() const override { return granularity_; }
  bool wants_access_callbacks() const override { return static_cast<bool>(on_accessed_); }
  void attach(const sim::EvictionContext& ctx) override {
    EvictionPolicy::attach(ctx);
    evictable_ = py::cpp_function([this](int gpu, std::uint32_t slot) { return ctx_.evictable(gpu, slot); });
  }
  void on_chunk_allocated(const sim::ChunkInfo& c, sim::Nanos now) override {
    on_allocated_(c.gpu, c.slot, c.alloc, c.first_page, now);
  }
  void on_chunk_accessed(const sim::ChunkInfo& c, std::uint64_t, sim::Nanos now) override {
    on_accessed_(c.gpu, c.slot, now);
  }
  void on_chunk_freed(const sim::ChunkInfo& c) override { on_freed_(c.gpu, c.slot); }
  std::uint32_t choose_victim(int gpu, sim::Nanos now) override {
    const py::object slot = choose_(gpu, now, evictable_);
    return slot.is_none() ? sim::kNoVictim : slot.cast<std::uint32_t>();
  }

 private:
  py::object policy_, on_allocated_, on_freed_, choose_, on_accessed_, evictable_;
  sim::Bytes granularity_ = sim::kBlockSize;
};

py::list pages_of(const sim::PageMask& mask, std::uint32_t pages) {
  py::list list;
  for (std::uint32_t p = 0; p < pages; ++p)
    if (mask.test(p)) list.append(p);
  return list;
}

class PythonPrefetch final : public sim::PrefetchPolicy {
 public:
  explicit PythonPrefetch(py::object policy) : policy_(std::move(policy)), prefetch_(policy_.attr("prefetch")) {}

  void prefetch(const sim::PrefetchRequest& r, sim::PageMask& out) override {
    py::dict request;
    request["alloc"] = r.alloc;
    request["block"] = r.block;
    request["pages_in_block"] = r.pages_in_block;
    request["destination"] = trace::to_string(r.destination);
    request["faulted"] = pages_of(r.faulted, r.pages_in_block);
    request["resident_on_destination"] = pages_of(r.resident_on_destination, r.pages_in_block);
    request["resident_anywhere"] = pages_of(r.resident_anywhere, r.pages_in_block);
    request["excluded"] = pages_of(r.excluded, r.pages_in_block);
    request["fault_migrations_to_destination"] = r.fault_migrations_to_destination;
    request["now"] = r.now;
    for (const py::handle page : prefetch_(request)) {
      const auto p = page.cast<std::uint32_t>();
      if (p < r.pages_in_block) out.set(p);  // the engine drops the rest too; out of range is ignored
    }
  }

 private:
  py::object policy_, prefetch_;
};

}  // namespace

std::unique_ptr<sim::EvictionPolicy> make_python_eviction(py::object policy) {
  return std::make_unique<PythonEviction>(std::move(policy));
}

std::unique_ptr<sim::PrefetchPolicy> make_python_prefetch(py::object policy) {
  return std::make_unique<PythonPrefetch>(std::move(policy));
}

}  // namespace umsim::python
