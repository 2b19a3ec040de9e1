// NVBit mem_trace output. Two kinds of lines matter (everything else, e.g. the
// NVBit banner or the program's own output, is skipped):
//   MEMTRACE: CTX 0x... - LAUNCH - Kernel pc 0x... - Kernel name NAME - grid launch id N
//             - grid size X,Y,Z - block size X,Y,Z - nregs N - shmem N - cuda stream id S
//   [MEMTRACE: ][CTX 0x... - grid_launch_id N - ]CTA X,Y,Z - warp W - OPCODE - 0xADDR x 32
// (older NVBit releases print the access lines without the CTX/grid_launch_id
// prefix). Lanes that did not execute print address 0.
//
// Launch numbering differs between releases: some print the same id on a
// kernel's LAUNCH line and on its access lines; NVBit 1.5.x's mem_trace
// increments its counter before printing the LAUNCH line, so a kernel launched
// as "grid launch id N+1" has accesses tagged "grid_launch_id N". The first
// access after a LAUNCH line decides which scheme the file uses; every later
// access must follow the same one.
#include <map>

#include "traces/importers/importer.h"
#include "traces/importers/line_source.h"
#include "traces/importers/sass_opcode.h"

namespace umsim::import {
namespace {

constexpr std::string_view kPrefix = "MEMTRACE: ";

// The text between `key` and the next " - " (or the end).
bool field_after(std::string_view line, std::string_view key, std::string_view& value) {
  const auto at = line.find(key);
  if (at == std::string_view::npos) return false;
  value = line.substr(at + key.size());
  value = value.substr(0, value.find(" - "));
  return true;
}

}  // namespace

void parse_nvbit(const std::string& input, const ImportOptions& options, ImportVisitor& visitor) {
  LineSource src(input);
  std::string line;
  bool in_kernel = false;
  std::int64_t launch_id = -1;
  // Launch id minus access id: 0 (same numbering) or 1 (NVBit 1.5.x); -1 until the first tagged access.
  std::int64_t id_offset = -1;
  std::map<std::uint64_t, trace::StreamId> streams;  // CUDA stream handle -> dense id (0 = default stream)
  streams[0] = 0;
  while (src.next(line)) {
    std::string_view l = line;
    if (l.substr(0, kPrefix.size()) == kPrefix) l.remove_prefix(kPrefix.size());
    if (l.find(" - LAUNCH - ") != std::string_view::npos) {
      std::string_view name, id_text, stream_text;
      if (!field_after(l, "Kernel name ", name) || name.empty())
        src.fail("LAUNCH line without 'Kernel name NAME - '");
      std::int64_t id = 0;
      if (!field_after(l, "grid launch id ", id_text) || !parse_int(id_text, id))
        src.fail("LAUNCH line without a numeric 'grid launch id'");
      std::uint64_t stream_handle = 0;
      if (field_after(l, "cuda stream id ", stream_text)) {
        std::int64_t s = 0;
        if (stream_text.substr(0, 2) == "0x") {
          if (!parse_hex(stream_text, stream_handle)) src.fail("bad 'cuda stream id' '" + std::string(stream_text) + "'");
        } else if (parse_int(stream_text, s) && s >= 0) {
          stream_handle = static_cast<std::uint64_t>(s);
        } else {
          src.fail("bad 'cuda stream id' '" + std::string(stream_text) + "' (expected a number)");
        }
      }
      if (in_kernel) visitor.kernel_end();
      const auto stream = streams.emplace(stream_handle, static_cast<trace::StreamId>(streams.size())).first->second;
      // Spaces in demangled names would break the text trace syntax.
      std::string kernel(name.substr(0, name.find('(')));
      for (char& c : kernel)
        if (c == ' ' || c == '\t') c = '_';
      visitor.kernel_begin(kernel, options.gpu, stream);
      in_kernel = true;
      launch_id = id;
      continue;
    }
    const auto cta = l.find("CTA ");
    if (cta == std::string_view::npos || l.find(" - warp ") == std::string_view::npos) continue;  // not trace output
    std::string_view id_text;
    if (field_after(l.substr(0, cta), "grid_launch_id ", id_text)) {
      std::int64_t id = 0;
      if (!parse_int(id_text, id)) src.fail("bad grid_launch_id '" + std::string(id_text) + "'");
      if (!in_kernel) src.fail("memory access before any LAUNCH line");
      if (id_offset < 0 && (id == launch_id || id + 1 == launch_id)) id_offset = launch_id - id;
      if (id_offset < 0 || id + id_offset != launch_id) {
        const std::string n = std::to_string(launch_id);
        const std::string expected =
            id_offset == 0   ? n + ": this file numbers launches and their accesses alike"
            : id_offset == 1 ? std::to_string(launch_id - 1) + ": this file numbers launches as NVBit 1.5.x, one ahead of their accesses"
            : launch_id > 0  ? n + ", or " + std::to_string(launch_id - 1) + " as NVBit 1.5.x numbers them"
                             : n;
        src.fail("access of grid_launch_id " + std::to_string(id) + " while the current LAUNCH line says grid launch id " +
                 n + " (expected " + expected + "; each kernel's accesses must follow its LAUNCH line)");
      }
    }
    if (!in_kernel) src.fail("memory access before any LAUNCH line");
    // After "warp W - ": "OPCODE - ADDR ADDR ...".
    std::string_view rest = l.substr(l.find(" - warp ") + 8);
    const auto dash = rest.find(" - ");
    if (dash == std::string_view::npos) src.fail("expected 'warp W - OPCODE - ADDRESSES'");
    rest = rest.substr(dash + 3);
    const auto dash2 = rest.find(" - ");
    if (dash2 == std::string_view::npos) src.fail("expected 'OPCODE - ADDRESSES' after the warp number");
    const std::string_view opcode = rest.substr(0, dash2);
    const MemOp op = classify_sass(opcode);
    if (op.kind == MemOpKind::kNotMemory)
      src.fail("unknown memory opcode '" + std::string(opcode) + "' (expected LD*, ST*, ATOM*, RED* or a "
               "shared/local opcode)");
    const auto addrs = split_ws(rest.substr(dash2 + 3));
    if (addrs.empty() || addrs.size() > 32)
      src.fail("expected 1 to 32 lane addresses, got " + std::to_string(addrs.size()));
    if (op.kind == MemOpKind::kOtherSpace) continue;
    const std::string where = src.where();
    for (auto a : addrs) {
      std::uint64_t address = 0;
      if (!parse_hex(a, address)) src.fail("bad address '" + std::string(a) + "' (expected 0x followed by hex digits)");
      if (address != 0) visitor.access(true, address, op.width, op.access(), where);
    }
  }
  if (in_kernel) visitor.kernel_end();
}

}  // namespace umsim::import
