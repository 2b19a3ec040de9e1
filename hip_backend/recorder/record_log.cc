#include "hip_backend/recorder/record_log.h"

#include <fstream>
#include <sstream>

#include "traces/trace_error.h"

namespace umsim::recorder {
namespace {

class Fields {
 public:
  Fields(const std::string& line, std::string where) : in_(line), where_(std::move(where)) {}
  template <typename T>
  T number(const char* what) {
    std::string s;
    if (!(in_ >> s)) fail(std::string("missing ") + what);
    T v{};
    std::istringstream n(s);
    if (s.size() > 2 && s[0] == '0' && s[1] == 'x') n >> std::hex;
    if (!(n >> v) || !n.eof()) fail(std::string("bad ") + what + " '" + s + "'");
    return v;
  }
  std::string word(const char* what) {
    std::string s;
    if (!(in_ >> s)) fail(std::string("missing ") + what);
    return s;
  }
  std::string rest() {
    std::string s;
    std::getline(in_ >> std::ws, s);
    return s;
  }
  void done() {
    std::string extra;
    if (in_ >> extra) fail("unexpected '" + extra + "'");
  }
  [[noreturn]] void fail(const std::string& what) const { throw trace::TraceError(where_ + ": " + what); }

 private:
  std::istringstream in_;
  std::string where_;
};

}  // namespace

RecordLog parse_record_log(const std::string& text, const std::string& source) {
  RecordLog log;
  std::istringstream in(text);
  std::string line;
  std::uint64_t n = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++n;
    const std::string where = source + ":" + std::to_string(n);
    if (line.empty()) continue;
    if (!header) {
      if (line != "umsim-record 1")
        throw trace::TraceError(where + ": not a recorder log (expected the header 'umsim-record 1')");
      header = true;
      continue;
    }
    if (log.complete) throw trace::TraceError(where + ": record after 'end'");
    Fields f(line, where);
    const std::string kind = f.word("record kind");
    if (kind == "alloc") {
      AllocRecord r;
      r.seq = n;
      r.time = f.number<std::uint64_t>("time");
      const std::string k = f.word("allocation kind");
      const std::optional<trace::AllocKind> parsed = trace::parse_alloc_kind(k);
      if (!parsed) f.fail("unknown allocation kind '" + k + "' (expected managed, device, pinned or mapped)");
      r.kind = *parsed;
      r.ptr = f.number<std::uint64_t>("pointer");
      r.size = f.number<std::uint64_t>("size");
      r.device = f.number<int>("device");
      f.done();
      log.allocs.push_back(r);
    } else if (kind == "free") {
      FreeRecord r;
      r.seq = n;
      r.time = f.number<std::uint64_t>("time");
      r.ptr = f.number<std::uint64_t>("pointer");
      f.done();
      log.frees.push_back(r);
    } else if (kind == "prefetch") {
      PrefetchRecord r;
      r.seq = n;
      r.time = f.number<std::uint64_t>("time");
      r.ptr = f.number<std::uint64_t>("pointer");
      r.size = f.number<std::uint64_t>("size");
      r.destination = f.number<int>("destination");
      r.stream = f.number<std::uint32_t>("stream");
      f.done();
      log.prefetches.push_back(r);
    } else if (kind == "advise") {
      AdviseRecord r;
      r.seq = n;
      r.time = f.number<std::uint64_t>("time");
      r.ptr = f.number<std::uint64_t>("pointer");
      r.size = f.number<std::uint64_t>("size");
      r.advice = f.number<int>("advice");
      if (r.advice < 1 || r.advice > 6) f.fail("advice " + std::to_string(r.advice) + " is not a cudaMemoryAdvise (1..6)");
      r.target = f.number<int>("target");
      f.done();
      log.advises.push_back(r);
    } else if (kind == "launch") {
      LaunchRecord r;
      r.seq = n;
      r.time = f.number<std::uint64_t>("time");
      r.correlation = f.number<std::uint64_t>("correlation id");
      f.done();
      log.launches.push_back(r);
    } else if (kind == "sync") {
      SyncRecord r;
      r.seq = n;
      r.time = f.number<std::uint64_t>("time");
      const std::string scope = f.word("sync scope");
      if (scope != "device" && scope != "stream") f.fail("unknown sync scope '" + scope + "' (expected device or stream)");
      r.stream_scope = scope == "stream";
      r.id = f.number<std::uint32_t>(r.stream_scope ? "stream" : "device");
      f.done();
      log.syncs.push_back(r);
    } else if (kind == "copy" || kind == "memset") {
      const bool copy = kind == "copy";
      CopyRecord r;
      r.seq = n;
      r.time = f.number<std::uint64_t>("time");
      if (copy) {
        r.dst = f.number<std::uint64_t>("destination pointer");
        r.src = f.number<std::uint64_t>("source pointer");
      } else {
        r.dst = f.number<std::uint64_t>("pointer");
      }
      r.size = f.number<std::uint64_t>("size");
      r.device = f.number<int>("device");
      if (r.device < 0) f.fail("device " + std::to_string(r.device) + " is not a GPU");
      r.stream = f.number<std::uint32_t>("stream");
      const int async = f.number<int>("async flag");
      if (async != 0 && async != 1) f.fail("async flag " + std::to_string(async) + " (expected 0 or 1)");
      r.async = async == 1;
      f.done();
      if (copy) log.copies.push_back(r);
      else log.memsets.push_back({r.seq, r.time, r.dst, r.size, r.device, r.stream, r.async});
    } else if (kind == "peer") {
      PeerRecord r;
      r.seq = n;
      r.time = f.number<std::uint64_t>("time");
      r.device = f.number<int>("device");
      r.peer = f.number<int>("peer device");
      if (r.device < 0 || r.peer < 0 || r.device == r.peer)
        f.fail("peer access needs two different GPUs, got " + std::to_string(r.device) + " and " + std::to_string(r.peer));
      f.done();
      log.peers.push_back(r);
    } else if (kind == "kernel") {
      KernelRecord r;
      r.seq = n;
      r.correlation = f.number<std::uint64_t>("correlation id");
      r.start = f.number<std::uint64_t>("start");
      r.end = f.number<std::uint64_t>("end");
      r.device = f.number<int>("device");
      r.stream = f.number<std::uint32_t>("stream");
      r.name = f.rest();
      if (r.name.empty()) f.fail("missing kernel name");
      if (r.end < r.start) f.fail("kernel ends before it starts");
      log.kernels.push_back(r);
    } else if (kind == "um") {
      UmRecord r;
      r.seq = n;
      r.kind = f.number<std::uint32_t>("counter kind");
      r.start = f.number<std::uint64_t>("start");
      r.end = f.number<std::uint64_t>("end");
      r.address = f.number<std::uint64_t>("address");
      r.value = f.number<std::uint64_t>("value");
      r.flags = f.number<std::uint32_t>("flags");
      r.src = f.number<std::uint32_t>("source id");
      r.dst = f.number<std::uint32_t>("destination id");
      f.done();
      log.um.push_back(r);
    } else if (kind == "end") {
      f.number<std::uint64_t>("time");
      f.done();
      log.complete = true;
    } else {
      f.fail("unknown record '" + kind +
             "' (expected alloc, free, prefetch, advise, launch, sync, copy, memset, peer, kernel, um or end)");
    }
  }
  if (!header) throw trace::TraceError(source + ": empty recorder log (the program made no CUDA calls, or the recorder was not loaded)");
  return log;
}

RecordLog read_record_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw trace::TraceError(path + ": cannot open recorder log");
  std::ostringstream s;
  s << in.rdbuf();
  return parse_record_log(s.str(), path);
}

}  // namespace umsim::recorder
