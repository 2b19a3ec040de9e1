// Column-mapped CSV (RFC 4180 quoting, csv_records.h): one access per row. --columns names which column holds
// what, e.g. "time=0,op=1,addr=2,size=3,kernel=4,proc=5,stream=6":
//   op      r/read/load, w/write/store, a/atomic (case-insensitive)   required
//   addr    absolute address, decimal or 0x hex                        required
//   size    bytes (default 4)
//   kernel  kernel name or id: consecutive GPU rows with the same value form one kernel
//   proc    cpu, gpuN or N (GPU N); without it, rows with a kernel are GPU rows
//   stream  stream number of the row's kernel (default 0)
//   time    must not decrease (rows are in program order)
#include <algorithm>
#include <map>
#include <optional>

#include "traces/importers/csv_records.h"
#include "traces/importers/importer.h"
#include "traces/importers/line_source.h"
#include "traces/trace_error.h"

namespace umsim::import {
namespace {

struct Columns {
  std::optional<std::size_t> time, op, addr, size, kernel, proc, stream;
};

Columns parse_columns(const std::string& spec) {
  Columns c;
  if (spec.empty()) throw trace::TraceError("csv: --columns is required, e.g. --columns op=0,addr=1,size=2");
  std::string_view rest = spec;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto eq = item.find('=');
    std::int64_t index = 0;
    if (eq == std::string_view::npos || !parse_int(item.substr(eq + 1), index) || index < 0)
      throw trace::TraceError("csv: --columns: expected NAME=INDEX, got '" + std::string(item) + "'");
    const std::string_view key = item.substr(0, eq);
    std::optional<std::size_t>* slot = key == "time"     ? &c.time
                                       : key == "op"     ? &c.op
                                       : key == "addr"   ? &c.addr
                                       : key == "size"   ? &c.size
                                       : key == "kernel" ? &c.kernel
                                       : key == "proc"   ? &c.proc
                                       : key == "stream" ? &c.stream
                                                         : nullptr;
    if (slot == nullptr)
      throw trace::TraceError("csv: --columns: unknown column '" + std::string(key) +
                              "' (known: time, op, addr, size, kernel, proc, stream)");
    if (slot->has_value()) throw trace::TraceError("csv: --columns: '" + std::string(key) + "' given twice");
    *slot = static_cast<std::size_t>(index);
  }
  if (!c.op || !c.addr) throw trace::TraceError("csv: --columns must map at least op and addr");
  return c;
}

std::optional<trace::AccessType> parse_op(std::string_view s) {
  std::string v(s);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (v == "r" || v == "read" || v == "load" || v == "ld") return trace::AccessType::kRead;
  if (v == "w" || v == "write" || v == "store" || v == "st") return trace::AccessType::kWrite;
  if (v == "a" || v == "atomic" || v == "atom") return trace::AccessType::kAtomic;
  return std::nullopt;
}

bool parse_number(std::string_view s, std::uint64_t& v) {
  if (s.substr(0, 2) == "0x" || s.substr(0, 2) == "0X") return parse_hex(s, v);
  std::int64_t i = 0;
  if (!parse_int(s, i) || i < 0) return false;
  v = static_cast<std::uint64_t>(i);
  return true;
}

}  // namespace

void parse_csv(const std::string& input, const ImportOptions& options, ImportVisitor& visitor) {
  const Columns c = parse_columns(options.columns);
  const std::size_t needed =
      1 + std::max({*c.op, *c.addr, c.time.value_or(0), c.size.value_or(0), c.kernel.value_or(0),
                    c.proc.value_or(0), c.stream.value_or(0)});
  LineSource src(input);
  CsvRecords records(src, options.delimiter);
  std::vector<std::string> f;
  if (options.header && !records.next(f)) src.fail("empty file (expected a header line)");
  bool in_kernel = false;
  std::string current_kernel;
  int current_gpu = -1;
  trace::StreamId current_stream = 0;
  std::uint64_t last_time = 0;
  while (records.next(f)) {
    if (f.size() < needed)
      src.fail("expected at least " + std::to_string(needed) + " columns, got " + std::to_string(f.size()));
    const auto op = parse_op(f[*c.op]);
    if (!op) src.fail("bad op '" + std::string(f[*c.op]) + "' (expected r/read/load, w/write/store or a/atomic)");
    std::uint64_t address = 0, size = 4, time = 0, stream = 0;
    if (!parse_number(f[*c.addr], address))
      src.fail("bad address '" + std::string(f[*c.addr]) + "' (expected decimal or 0x hex)");
    if (c.size && (!parse_number(f[*c.size], size) || size == 0))
      src.fail("bad size '" + std::string(f[*c.size]) + "' (expected a positive number of bytes)");
    if (c.time) {
      if (!parse_number(f[*c.time], time)) src.fail("bad time '" + std::string(f[*c.time]) + "'");
      if (time < last_time)
        src.fail("time " + std::to_string(time) + " is before the previous row's " + std::to_string(last_time) +
                 " (rows must be in time order)");
      last_time = time;
    }
    if (c.stream && (!parse_number(f[*c.stream], stream) || stream > 0xffffffffULL))
      src.fail("bad stream '" + std::string(f[*c.stream]) + "'");
    const std::string_view kernel = c.kernel ? f[*c.kernel] : std::string_view("kernel");
    int gpu = -1;  // -1: the CPU
    if (c.proc) {
      std::string_view p = f[*c.proc];
      std::int64_t g = 0;
      if (p == "cpu" || p == "CPU") gpu = -1;
      else if ((p.substr(0, 3) == "gpu" && parse_int(p.substr(3), g) && g >= 0) || (parse_int(p, g) && g >= 0))
        gpu = static_cast<int>(g);
      else src.fail("bad proc '" + std::string(p) + "' (expected cpu, gpuN or N)");
    } else {
      gpu = kernel.empty() ? -1 : options.gpu;
    }
    if (gpu >= 0 && kernel.empty()) src.fail("GPU row without a kernel value");
    const bool new_kernel = gpu >= 0 && (!in_kernel || kernel != current_kernel || gpu != current_gpu ||
                                         static_cast<trace::StreamId>(stream) != current_stream);
    if (new_kernel) {
      if (in_kernel) visitor.kernel_end();
      current_kernel.assign(kernel);
      current_gpu = gpu;
      current_stream = static_cast<trace::StreamId>(stream);
      std::string name = "k_" + current_kernel;
      for (char& ch : name)
        if (ch == ' ' || ch == '\t' || ch == '#' || ch == '\n') ch = '_';
      visitor.kernel_begin(name, gpu, current_stream);
      in_kernel = true;
    } else if (gpu < 0 && in_kernel) {
      visitor.kernel_end();
      in_kernel = false;
    }
    visitor.access(gpu >= 0, address, size, *op, src.where());
  }
  if (in_kernel) visitor.kernel_end();
}

}  // namespace umsim::import
