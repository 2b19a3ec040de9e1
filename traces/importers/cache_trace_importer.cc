#include "traces/importers/cache_trace_importer.h"

#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "traces/event.h"
#include "traces/generators/trace_emitter.h"
#include "traces/importers/line_source.h"
#include "traces/trace_error.h"
#include "traces/units.h"

namespace umsim::import {
namespace {

using trace::kPageSize;

constexpr std::size_t kRecordBytes = 24;  // oracleGeneral: uint32 + uint64 + uint32 + int64, packed
// The pages of all objects form one allocation; past 2^47 bytes (x86-64's user
// address space) it could not be a real program's managed memory.
constexpr std::uint64_t kMaxPages = (std::uint64_t{1} << 47) / kPageSize;

struct Request {
  std::uint64_t id = 0;
  std::uint64_t size = 0;  // bytes; 0 when the format has none
};
using RequestFn = std::function<void(const Request&, const std::function<std::string()>& where)>;

// Reads oracleGeneral records in blocks of whole records.
void read_oracle_general(const std::string& path, const RequestFn& fn) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw trace::TraceError(path + ": cannot open input");
  std::vector<char> buf(kRecordBytes * 4096);
  std::uint64_t offset = 0;
  for (;;) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    const std::size_t whole = got / kRecordBytes * kRecordBytes;
    for (std::size_t i = 0; i < whole; i += kRecordBytes, offset += kRecordBytes) {
      std::uint32_t size32 = 0;
      Request r;
      std::memcpy(&r.id, buf.data() + i + 4, 8);  // little-endian, as libCacheSim writes it on x86
      std::memcpy(&size32, buf.data() + i + 12, 4);
      r.size = size32;
      const std::uint64_t at = offset;
      fn(r, [&path, at] { return fmt::format("{}: record at byte offset {}", path, at); });
    }
    if (whole != got)
      throw trace::TraceError(fmt::format("{}: byte offset {}: truncated record ({} of {} bytes; oracleGeneral "
                                          "records are 24 bytes: uint32 time, uint64 id, uint32 size, int64 next)",
                                          path, offset, got - whole, kRecordBytes));
    if (got < buf.size()) break;
  }
}

// A full-range unsigned decimal (object ids use all 64 bits).
bool parse_u64(std::string_view s, std::uint64_t& v) {
  if (s.empty() || s.size() > 20) return false;
  v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  return true;
}

std::string_view trimmed(std::string_view f) {
  while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
  while (!f.empty() && (f.back() == ' ' || f.back() == '\t')) f.remove_suffix(1);
  return f;
}

void read_txt(const std::string& path, const RequestFn& fn) {
  LineSource src(path);
  std::string line;
  while (src.next(line)) {
    const std::string_view v = trimmed(line);
    if (v.empty() || v[0] == '#') continue;
    Request r;
    if (!parse_u64(v, r.id))
      src.fail("expected an object id (an unsigned decimal integer), got '" + std::string(v) + "'");
    fn(r, [&src] { return src.where(); });
  }
}

struct CsvColumns {
  std::size_t obj = 0;
  std::optional<std::size_t> size, time;
};

CsvColumns parse_csv_columns(const std::string& spec) {
  if (spec.empty())
    throw trace::TraceError("cachesim-csv: --columns is required, e.g. --columns time=0,obj=1,size=2");
  CsvColumns c;
  bool have_obj = false;
  std::string_view rest = spec;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto eq = item.find('=');
    std::uint64_t index = 0;
    if (eq == std::string_view::npos || !parse_u64(item.substr(eq + 1), index) || index > 1000)
      throw trace::TraceError("cachesim-csv: --columns: expected NAME=INDEX, got '" + std::string(item) + "'");
    const std::string_view key = item.substr(0, eq);
    if (key == "obj" && !have_obj) c.obj = index, have_obj = true;
    else if (key == "size" && !c.size) c.size = index;
    else if (key == "time" && !c.time) c.time = index;
    else
      throw trace::TraceError("cachesim-csv: --columns: '" + std::string(key) +
                              "' is unknown or given twice (known: obj, size, time)");
  }
  if (!have_obj) throw trace::TraceError("cachesim-csv: --columns must map obj (the object id column)");
  return c;
}

void read_csv(const std::string& path, const CacheTraceOptions& o, const RequestFn& fn) {
  const CsvColumns c = parse_csv_columns(o.columns);
  const std::size_t needed = 1 + std::max({c.obj, c.size.value_or(0), c.time.value_or(0)});
  LineSource src(path);
  std::string line;
  if (o.header && !src.next(line)) src.fail("empty file (expected a header line)");
  std::vector<std::string_view> f;
  while (src.next(line)) {
    if (trimmed(line).empty() || line[0] == '#') continue;
    f.clear();
    std::string_view rest = line;
    for (;;) {
      const auto at = rest.find(o.delimiter);
      f.push_back(trimmed(rest.substr(0, at)));
      if (at == std::string_view::npos) break;
      rest.remove_prefix(at + 1);
    }
    if (f.size() < needed)
      src.fail(fmt::format("expected at least {} columns, got {}", needed, f.size()));
    Request r;
    if (!parse_u64(f[c.obj], r.id))
      src.fail("bad object id '" + std::string(f[c.obj]) + "' (expected an unsigned decimal integer)");
    if (c.size && !parse_u64(f[*c.size], r.size))
      src.fail("bad object size '" + std::string(f[*c.size]) + "' (expected bytes, an unsigned decimal integer)");
    std::uint64_t ignored = 0;
    if (c.time && !parse_u64(f[*c.time], ignored))
      src.fail("bad time '" + std::string(f[*c.time]) + "' (expected an unsigned decimal integer)");
    fn(r, [&src] { return src.where(); });
  }
}

void read_requests(const std::string& format, const std::string& input, const CacheTraceOptions& o,
                   const RequestFn& fn) {
  if (format == "oraclegeneral") return read_oracle_general(input, fn);
  if (format == "cachesim-csv") return read_csv(input, o, fn);
  if (format == "cachesim-txt") return read_txt(input, fn);
  throw trace::TraceError("unknown cache trace format '" + format + "'");
}

// An object's pages: where they start and how many.
struct ObjectPages {
  std::uint64_t first = 0;
  std::uint64_t count = 1;
};

}  // namespace

bool is_cache_trace_format(const std::string& format) {
  return format == "oraclegeneral" || format == "cachesim-csv" || format == "cachesim-txt";
}

CacheTraceResult import_cache_trace(const std::string& format, const std::string& input,
                                    const CacheTraceOptions& options, trace::TraceWriter& out) {
  if (options.gpu < 0 || options.gpu > 14)
    throw trace::TraceError(fmt::format("--gpu {}: expected a GPU index from 0 to 14", options.gpu));
  // Pass 1: objects in order of first request, with the pages each needs.
  std::unordered_map<std::uint64_t, ObjectPages> objects;
  std::vector<std::uint64_t> order;
  read_requests(format, input, options, [&](const Request& r, const std::function<std::string()>& where) {
    std::uint64_t pages = 1;
    if (options.size_aware) {
      if (r.size == 0)
        throw trace::TraceError(where() + ": object " + std::to_string(r.id) +
                                " has size 0, which maps to no page (size-aware mapping needs a size)");
      pages = r.size / kPageSize + (r.size % kPageSize != 0);
    }
    auto [it, fresh] = objects.try_emplace(r.id, ObjectPages{0, pages});
    if (fresh) order.push_back(r.id);
    else if (pages > it->second.count) it->second.count = pages;
    if (pages > kMaxPages)
      throw trace::TraceError(fmt::format("{}: object {} of {} bytes is larger than the 128TiB the objects may span",
                                          where(), r.id, r.size));
  });
  if (order.empty()) throw trace::TraceError(input + ": no requests found in the input");
  std::uint64_t next = 0;
  for (std::uint64_t id : order) {
    ObjectPages& p = objects[id];
    if (p.count > kMaxPages - next)
      throw trace::TraceError(fmt::format("{}: the objects need more than {} pages of 4KiB (128TiB), more than one "
                                          "allocation may span; drop the size-aware mapping or split the trace",
                                          input, kMaxPages));
    p.first = next;
    next += p.count;
  }

  // Pass 2: one GPU read per request, in trace order.
  CacheTraceResult result;
  result.objects = order.size();
  result.pages = next;
  gen::TraceEmitter emit(out);
  emit.comment(fmt::format("imported from {} trace {}: {} objects as {} pages of 4KiB ({})", format, input,
                           result.objects, result.pages, options.size_aware ? "size-aware" : "one page per object"));
  emit.alloc("objects", next * kPageSize);
  emit.kernel_begin("requests", options.gpu, 0, 0);
  read_requests(format, input, options, [&](const Request& r, const std::function<std::string()>& where) {
    const auto it = objects.find(r.id);
    if (it == objects.end())
      throw trace::TraceError(where() + ": object " + std::to_string(r.id) + " was not in the first pass (the input "
                                                                             "changed while it was read)");
    emit.read("objects", it->second.first * kPageSize, it->second.count * kPageSize);
    ++result.requests;
  });
  emit.kernel_end();
  emit.free("objects");
  return result;
}

}  // namespace umsim::import
