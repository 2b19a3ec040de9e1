// Accel-Sim SASS traces. The input is either a kernelslist.g, whose lines are
//   MemcpyHtoD,0xADDR,BYTES   (a host-to-device copy: here a CPU write of the range)
//   MemcpyDtoH,0xADDR,BYTES   (a CPU read of the range)
//   kernel-N.traceg           (a kernel trace, relative to the list's folder)
// or a single kernel-N.traceg: '-key = value' header lines (kernel name, cuda
// stream id, accelsim tracer version...), then per thread block
// '#BEGIN_TB' / 'thread block = X,Y,Z' / 'warp = W' / 'insts = N' and one line per
// executed instruction:
//   PC MASK DEST_NUM [DESTS] OPCODE SRC_NUM [SRCS] MEM_WIDTH [FORMAT ADDRESSES...]
// Any of these files may be xz-compressed (kernel-N.traceg.xz, as Accel-Sim's
// tracer can write them); a listed kernel-N.traceg found only as .xz is read from
// the .xz. Where, for tracer version >= 3, FORMAT is 0 (one address per active lane),
// 1 (base and stride) or 2 (base, then a delta per further active lane).
#include <bit>
#include <filesystem>
#include <map>

#include "traces/importers/importer.h"
#include "traces/importers/line_source.h"
#include "traces/importers/sass_opcode.h"

namespace umsim::import {
namespace {

// CUDA stream handles (printed as numbers) -> dense stream ids, 0 = default stream.
using StreamIds = std::map<std::int64_t, trace::StreamId>;

void parse_kernel_file(const std::string& path, const ImportOptions& options, ImportVisitor& visitor,
                       StreamIds& streams) {
  LineSource src(path);
  std::string line, name;
  std::int64_t stream = 0, version = 0;
  bool started = false;
  auto start = [&] {
    if (started) return;
    if (name.empty()) src.fail("instruction before the '-kernel name = ...' header");
    visitor.kernel_begin(name, options.gpu,
                         streams.emplace(stream, static_cast<trace::StreamId>(streams.size())).first->second);
    started = true;
  };
  while (src.next(line)) {
    std::string_view l = line;
    while (!l.empty() && (l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    if (l.empty() || l[0] == '#') continue;
    if (l[0] == '-') {
      const auto eq = l.find(" = ");
      if (eq == std::string_view::npos) src.fail("expected '-key = value' header line");
      if (started) src.fail("header line after the first instruction");
      const std::string_view key = l.substr(1, eq - 1), value = l.substr(eq + 3);
      if (key == "kernel name") {
        name.assign(value.substr(0, value.find('(')));
        for (char& c : name)
          if (c == ' ') c = '_';
      } else if (key == "cuda stream id") {
        if (!parse_int(value, stream) || stream < 0) src.fail("bad cuda stream id '" + std::string(value) + "'");
      } else if (key == "accelsim tracer version") {
        if (!parse_int(value, version)) src.fail("bad tracer version '" + std::string(value) + "'");
      } else if (key == "enable lineinfo" && value != "0") {
        src.fail("traces with line info are not supported (record without -lineinfo)");
      }
      continue;
    }
    if (l.substr(0, 12) == "thread block" || l.substr(0, 4) == "warp" || l.substr(0, 5) == "insts") {
      if (l.find('=') == std::string_view::npos) src.fail("expected 'KEY = VALUE'");
      continue;
    }
    start();
    const auto t = split_ws(l);
    std::size_t i = 0;
    auto need = [&](const char* what) -> std::string_view {
      if (i >= t.size()) src.fail(std::string("instruction line ends early: expected ") + what);
      return t[i++];
    };
    auto need_int = [&](const char* what) {
      std::int64_t v = 0;
      const auto s = need(what);
      if (!parse_int(s, v) || v < 0) src.fail(std::string("expected ") + what + ", got '" + std::string(s) + "'");
      return v;
    };
    std::uint64_t pc = 0, mask = 0;
    if (!parse_hex(need("PC"), pc)) src.fail("bad PC '" + std::string(t[0]) + "' (expected hex)");
    const auto mask_text = need("active mask");
    if (!parse_hex(mask_text, mask) || mask > 0xffffffffULL)
      src.fail("bad active mask '" + std::string(mask_text) + "' (expected 8 hex digits)");
    const auto dests = need_int("destination count");
    for (std::int64_t k = 0; k < dests; ++k) need("destination register");
    const std::string_view opcode = need("opcode");
    const auto srcs = need_int("source count");
    for (std::int64_t k = 0; k < srcs; ++k) need("source register");
    const auto width = need_int("memory width");
    if (width == 0) {
      if (i != t.size()) src.fail("unexpected '" + std::string(t[i]) + "' after memory width 0");
      continue;
    }
    const int active = std::popcount(mask);
    std::int64_t format = 0;
    if (version >= 3) format = need_int("address format (0, 1 or 2)");
    std::vector<std::uint64_t> addrs;
    if (format == 0) {
      for (int k = 0; k < active; ++k) {
        std::uint64_t a = 0;
        if (!parse_hex(need("lane address"), a)) src.fail("bad address '" + std::string(t[i - 1]) + "'");
        addrs.push_back(a);
      }
    } else if (format == 1 || format == 2) {
      std::uint64_t base = 0;
      if (!parse_hex(need("base address"), base)) src.fail("bad base address '" + std::string(t[i - 1]) + "'");
      addrs.push_back(base);
      if (format == 1) {
        std::int64_t stride = 0;
        if (!parse_int(need("stride"), stride)) src.fail("bad stride '" + std::string(t[i - 1]) + "'");
        for (int k = 1; k < active; ++k) addrs.push_back(base + static_cast<std::uint64_t>(stride * k));
      } else {
        for (int k = 1; k < active; ++k) {
          std::int64_t delta = 0;
          if (!parse_int(need("address delta"), delta)) src.fail("bad delta '" + std::string(t[i - 1]) + "'");
          addrs.push_back(addrs.back() + static_cast<std::uint64_t>(delta));
        }
      }
    } else {
      src.fail("unknown address format " + std::to_string(format) + " (expected 0, 1 or 2)");
    }
    if (i != t.size()) src.fail("unexpected '" + std::string(t[i]) + "' after the addresses");
    const MemOp op = classify_sass(opcode);
    if (op.kind == MemOpKind::kOtherSpace || op.kind == MemOpKind::kNotMemory) continue;
    const std::string where = src.where();
    for (std::uint64_t a : addrs) visitor.access(true, a, static_cast<std::uint64_t>(width), op.access(), where);
  }
  if (name.empty()) src.fail("no '-kernel name = ...' header: not an Accel-Sim kernel trace");
  start();
  visitor.kernel_end();
}

bool looks_like_kernel_file(const std::string& path) {
  LineSource src(path);
  std::string line;
  while (src.next(line)) {
    if (line.empty() || line[0] == '#') continue;
    return line[0] == '-';
  }
  return false;
}

}  // namespace

void parse_accelsim(const std::string& input, const ImportOptions& options, ImportVisitor& visitor) {
  StreamIds streams{{0, 0}};
  if (looks_like_kernel_file(input)) {
    parse_kernel_file(input, options, visitor, streams);
    return;
  }
  LineSource src(input);
  const std::filesystem::path folder = std::filesystem::path(input).parent_path();
  std::string line;
  while (src.next(line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("Memcpy", 0) == 0) {
      const auto c1 = line.find(','), c2 = line.find(',', c1 == std::string::npos ? c1 : c1 + 1);
      if (c1 == std::string::npos || c2 == std::string::npos)
        src.fail("expected 'MemcpyHtoD,0xADDRESS,BYTES', got '" + line + "'");
      const std::string kind = line.substr(0, c1);
      std::uint64_t address = 0;
      std::int64_t bytes = 0;
      if (!parse_hex(std::string_view(line).substr(c1 + 1, c2 - c1 - 1), address))
        src.fail("bad address in '" + line + "' (expected 0x hex)");
      if (!parse_int(std::string_view(line).substr(c2 + 1), bytes) || bytes <= 0)
        src.fail("bad byte count in '" + line + "'");
      if (kind != "MemcpyHtoD" && kind != "MemcpyDtoH")
        src.fail("unknown command '" + kind + "' (expected MemcpyHtoD, MemcpyDtoH or a kernel trace file)");
      visitor.access(false, address, static_cast<std::uint64_t>(bytes),
                     kind == "MemcpyHtoD" ? trace::AccessType::kWrite : trace::AccessType::kRead, src.where());
      continue;
    }
    if (line.find(".traceg") == std::string::npos)
      src.fail("expected 'MemcpyHtoD,...', 'MemcpyDtoH,...' or a kernel-N.traceg file name, got '" + line + "'");
    std::filesystem::path kernel = folder / line;
    // Accel-Sim may compress kernel traces after listing them: kernel-N.traceg.xz stands in for kernel-N.traceg.
    if (!std::filesystem::exists(kernel) && std::filesystem::exists(kernel.string() + ".xz")) kernel += ".xz";
    if (!std::filesystem::exists(kernel))
      src.fail("kernel trace '" + kernel.string() + "' does not exist (nor " + kernel.filename().string() + ".xz)");
    parse_kernel_file(kernel.string(), options, visitor, streams);
  }
}

}  // namespace umsim::import
