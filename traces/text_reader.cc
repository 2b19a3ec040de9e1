#include "traces/text_reader.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "traces/trace_names.h"
#include "traces/units.h"

namespace umsim::trace {
namespace {

constexpr std::size_t kChunkBytes = 1 << 20;
constexpr std::size_t kMaxLineBytes = 1 << 20;
constexpr std::size_t kMaxTokens = 16;
constexpr Bytes kUnknownSize = std::numeric_limits<Bytes>::max();
constexpr std::uint32_t kMaxGpuIndex = std::numeric_limits<std::int16_t>::max() - 1;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string shorten(std::string_view s) {
  if (s.size() <= 60) return std::string(s);
  return std::string(s.substr(0, 57)) + "...";
}

// Position just past the closing quote of a quoted name starting at s[0] == '"',
// or npos if it is not terminated.
std::size_t end_of_quoted(std::string_view s) {
  for (std::size_t i = 1; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace

struct TextReader::Tokens {
  std::string_view tok[kMaxTokens];
  std::size_t size = 0;
  std::string_view comment;
  bool has_comment = false;
};

TextReader::TextReader(std::unique_ptr<ByteInput> in, std::string source)
    : in_(std::move(in)), source_(std::move(source)), buf_(kChunkBytes) {
  std::string_view line;
  if (!next_line(line)) fail("empty file: expected the header 'umsim-trace 1'");
  while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
  constexpr std::string_view kMagic = "umsim-trace";
  if (line.substr(0, kMagic.size()) != kMagic)
    fail("expected the header 'umsim-trace 1', got '" + shorten(line) + "'");
  std::string_view rest = line.substr(kMagic.size());
  if (rest.empty() || !is_space(rest[0])) fail("expected the header 'umsim-trace 1', got '" + shorten(line) + "'");
  while (!rest.empty() && is_space(rest[0])) rest.remove_prefix(1);
  const ParsedNumber version = parse_unsigned(rest);
  if (!version.ok()) fail("bad version in header: " + version.error);
  if (version.value != 1 && version.value != 2)
    fail("unsupported text trace version " + shorten(rest) + " (this reader supports versions 1 and 2)");
  version_ = static_cast<int>(version.value);
}

void TextReader::fail(const std::string& message) const {
  throw TraceError(source_ + ":" + std::to_string(line_no_) + ": " + message);
}

std::string TextReader::position(std::size_t index_in_last_batch) const {
  if (index_in_last_batch >= lines_.size()) return source_;
  return source_ + ":" + std::to_string(lines_[index_in_last_batch]);
}

bool TextReader::next_line(std::string_view& line) {
  for (;;) {
    const char* start = buf_.chars() + pos_;
    const void* nl = std::memchr(start, '\n', end_ - pos_);
    if (nl != nullptr) {
      const std::size_t len = static_cast<const char*>(nl) - start;
      line = std::string_view(start, len);
      pos_ += len + 1;
      ++line_no_;
      return true;
    }
    if (eof_) {
      if (pos_ == end_) return false;
      line = std::string_view(start, end_ - pos_);  // last line without a newline
      pos_ = end_;
      ++line_no_;
      return true;
    }
    // Move the partial line to the front and read more behind it.
    if (pos_ > 0) {
      std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
      end_ -= pos_;
      pos_ = 0;
    }
    if (end_ == buf_.size()) {
      if (buf_.size() >= kMaxLineBytes) {
        ++line_no_;
        fail("line is longer than 1 MiB");
      }
      buf_.grow(buf_.size() * 2, end_);
    }
    const std::size_t got = in_->read_some(buf_.chars() + end_, buf_.size() - end_);
    if (got == 0) eof_ = true;
    end_ += got;
  }
}

std::size_t TextReader::read(std::span<Event> out) {
  comments_.clear();
  lines_.resize(out.size());
  std::size_t n = 0;
  std::string_view line;
  while (n < out.size() && next_line(line)) {
    bool produced;
    if (!on_error_) {
      produced = parse_line(line, &out[n], n);
    } else {
      try {
        produced = parse_line(line, &out[n], n);
      } catch (const TraceError& e) {
        // fail() formats "SOURCE:LINE: MESSAGE"; hand the two parts over separately.
        const std::string position = source_ + ":" + std::to_string(line_no_);
        const std::string what = e.what();
        on_error_(n, position, what.substr(std::min(what.size(), position.size() + 2)));
        continue;
      }
    }
    if (produced) {
      lines_[n] = line_no_;
      ++n;
    }
  }
  lines_.resize(n);
  return n;
}

NameId TextReader::parse_name(std::string_view token) {
  std::string_view name = token;
  if (!token.empty() && token[0] == '"') {
    const std::size_t end = end_of_quoted(token);
    if (end == std::string_view::npos) fail("unterminated quoted name " + shorten(token));
    if (end != token.size()) fail("unexpected text after quoted name in '" + shorten(token) + "'");
    scratch_.clear();
    for (std::size_t i = 1; i + 1 < end; ++i) {
      if (token[i] == '\\') ++i;
      scratch_ += token[i];
    }
    name = scratch_;
  } else if (token.find_first_of("=+\"\\") != std::string_view::npos) {
    fail("bad name '" + shorten(token) + "' (names containing = + \" or \\ must be quoted)");
  }
  const std::string problem = name_problem(name);
  if (!problem.empty()) fail(problem);
  const NameId id = names_.intern(name);
  if (id >= alloc_size_.size()) alloc_size_.resize(id + 1, kUnknownSize);
  return id;
}

void TextReader::parse_address(std::string_view token, Event* e) {
  std::size_t name_end;
  if (!token.empty() && token[0] == '"') {
    name_end = end_of_quoted(token);
    if (name_end == std::string_view::npos) fail("unterminated quoted name " + shorten(token));
  } else {
    name_end = token.find('+');
  }
  e->name = parse_name(token.substr(0, name_end));
  e->offset = 0;
  if (name_end >= token.size()) return;
  if (token[name_end] != '+')
    fail("expected ALLOCATION or ALLOCATION+OFFSET, got '" + shorten(token) + "'");
  const std::string_view off = token.substr(name_end + 1);
  const ParsedNumber v = off.size() > 2 && off[0] == '0' && (off[1] == 'x' || off[1] == 'X')
                             ? parse_unsigned(off)
                             : parse_bytes(off);
  if (!v.ok()) fail("bad offset in '" + shorten(token) + "': " + v.error);
  e->offset = v.value;
}

Bytes TextReader::bytes_value(std::string_view key, std::string_view value) {
  const ParsedNumber v = parse_bytes(value);
  if (!v.ok()) fail("bad " + std::string(key) + ": " + v.error);
  return v.value;
}

std::uint32_t TextReader::u32_value(std::string_view key, std::string_view value) {
  const ParsedNumber v = parse_unsigned(value);
  if (!v.ok()) fail("bad " + std::string(key) + "=: " + v.error);
  if (v.value > std::numeric_limits<std::uint32_t>::max())
    fail(std::string(key) + "=" + std::string(value) + " is out of range (at most 4294967295)");
  return static_cast<std::uint32_t>(v.value);
}

Processor TextReader::processor_value(std::string_view key, std::string_view value) {
  if (value == "cpu") return Processor::cpu();
  if (value.size() > 3 && value.substr(0, 3) == "gpu" &&
      std::all_of(value.begin() + 3, value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    const ParsedNumber v = parse_unsigned(value.substr(3));
    if (!v.ok() || v.value > kMaxGpuIndex)
      fail("GPU index in " + std::string(key) + "=" + shorten(value) + " is out of range (at most " +
           std::to_string(kMaxGpuIndex) + ")");
    return Processor::gpu(static_cast<int>(v.value));
  }
  fail("bad " + std::string(key) + "=" + shorten(value) + " (expected cpu or gpuN, e.g. gpu0)");
}

namespace {

// KEY=VALUE fields after the positional ones. Each key may appear once.
template <std::size_t N>
struct Fields {
  std::string_view value[N];
  bool present[N] = {};
};

}  // namespace

#define UMSIM_PARSE_FIELDS(t, first, keyword, fields, ...)                                            \
  do {                                                                                                \
    static constexpr std::string_view kKeys[] = {__VA_ARGS__};                                        \
    for (std::size_t fi = (first); fi < (t).size; ++fi) {                                             \
      const std::string_view tok = (t).tok[fi];                                                       \
      const std::size_t eq = tok.find('=');                                                           \
      std::size_t k = 0;                                                                              \
      if (eq != std::string_view::npos)                                                               \
        while (k < std::size(kKeys) && kKeys[k] != tok.substr(0, eq)) ++k;                            \
      if (eq == std::string_view::npos || k == std::size(kKeys)) {                                    \
        std::string expected;                                                                         \
        for (auto key : kKeys) expected += (expected.empty() ? "" : ", ") + std::string(key) + "=";   \
        fail("unexpected '" + shorten(tok) + "' in " keyword " line (expected " + expected + ")");    \
      }                                                                                               \
      if ((fields).present[k]) fail("field '" + std::string(kKeys[k]) + "=' given twice");           \
      (fields).present[k] = true;                                                                     \
      (fields).value[k] = tok.substr(eq + 1);                                                         \
    }                                                                                                 \
  } while (0)

void TextReader::parse_alloc(Tokens& t, Event* e) {
  if (t.size < 4) fail("alloc needs a name, a size and a kind: alloc NAME SIZE managed|device|pinned|mapped|system [on=PROC]");
  e->kind = EventKind::kAlloc;
  e->name = parse_name(t.tok[1]);
  e->length = bytes_value("allocation size", t.tok[2]);
  const std::string_view kind = t.tok[3];
  const std::optional<AllocKind> parsed = parse_alloc_kind(kind);
  if (!parsed) fail("unknown allocation kind '" + shorten(kind) + "' (expected managed, device, pinned, mapped or system)");
  e->op = static_cast<std::uint8_t>(*parsed);
  Fields<1> f;
  UMSIM_PARSE_FIELDS(t, 4, "alloc", f, "on");
  if (f.present[0]) e->processor = processor_value("on", f.value[0]);
  alloc_size_[e->name] = e->length;
}

void TextReader::parse_kernel(Tokens& t, Event* e) {
  if (t.size < 2) fail("kernel needs a name: kernel NAME gpu=N [stream=N] [compute=DURATION]");
  e->kind = EventKind::kKernelBegin;
  e->name = parse_name(t.tok[1]);
  Fields<3> f;
  UMSIM_PARSE_FIELDS(t, 2, "kernel", f, "gpu", "stream", "compute");
  if (!f.present[0]) fail("kernel needs gpu=N");
  const std::uint32_t gpu = u32_value("gpu", f.value[0]);
  if (gpu > kMaxGpuIndex) fail("gpu=" + std::to_string(gpu) + " is out of range (at most " + std::to_string(kMaxGpuIndex) + ")");
  e->processor = Processor::gpu(static_cast<int>(gpu));
  if (f.present[1]) e->stream = u32_value("stream", f.value[1]);
  if (f.present[2]) {
    const ParsedNumber v = parse_duration_ns(f.value[2]);
    if (!v.ok()) fail("bad compute=: " + v.error);
    e->duration = v.value;
  }
}

void TextReader::parse_access(Tokens& t, std::size_t first, EventKind kind, Event* e) {
  e->kind = kind;
  const std::string_view type = first < t.size ? t.tok[first] : std::string_view();
  if (type == "r") e->op = static_cast<std::uint8_t>(AccessType::kRead);
  else if (type == "w") e->op = static_cast<std::uint8_t>(AccessType::kWrite);
  else if (type == "a") e->op = static_cast<std::uint8_t>(AccessType::kAtomic);
  else if (type == "rmw") require_version_2("a read-modify-write access 'rmw'"), e->op = static_cast<std::uint8_t>(AccessType::kReadModifyWrite);
  else fail("expected an access type r, w, a or rmw after 'cpu', got '" + shorten(type) + "'");
  if (first + 1 >= t.size) fail("access needs an address: r|w|a|rmw ALLOCATION[+OFFSET] [len=SIZE] [stride=SIZE] [count=N]");
  parse_address(t.tok[first + 1], e);
  Fields<3> f;
  UMSIM_PARSE_FIELDS(t, first + 2, "access", f, "len", "stride", "count");
  e->length = f.present[0] ? bytes_value("len=", f.value[0]) : 4;
  if (f.present[1]) e->stride = bytes_value("stride=", f.value[1]);
  if (f.present[2]) {
    e->count = u32_value("count", f.value[2]);
    if (e->count == 0) fail("count=0: an access makes at least one pass");
  }
}

Bytes TextReader::whole_rest_of_allocation(const Event& e, std::string_view keyword) {
  const Bytes size = alloc_size_[e.name];
  if (size == kUnknownSize)
    fail(std::string(keyword) + " without len= of '" + names_.name(e.name) +
         "', which has not been allocated (give len=)");
  if (e.offset > size)
    fail(std::string(keyword) + " offset " + describe_bytes(e.offset) + " is beyond the end of '" +
         names_.name(e.name) + "' (" + describe_bytes(size) + ")");
  return size - e.offset;
}

void TextReader::parse_prefetch(Tokens& t, Event* e) {
  if (t.size < 2) fail("prefetch needs an address: prefetch ALLOCATION[+OFFSET] [len=SIZE] to=PROC [stream=N]");
  e->kind = EventKind::kPrefetch;
  parse_address(t.tok[1], e);
  Fields<3> f;
  UMSIM_PARSE_FIELDS(t, 2, "prefetch", f, "len", "to", "stream");
  if (!f.present[1]) fail("prefetch needs to=cpu or to=gpuN");
  e->processor = processor_value("to", f.value[1]);
  if (f.present[2]) e->stream = u32_value("stream", f.value[2]);
  e->length = f.present[0] ? bytes_value("len=", f.value[0]) : whole_rest_of_allocation(*e, "prefetch");
}

void TextReader::parse_advise(Tokens& t, Event* e) {
  constexpr const char* kUsage =
      "advise ALLOCATION[+OFFSET] [len=SIZE] readmostly|unset_readmostly|preferred=PROC|unset_preferred|"
      "accessed_by=PROC|unset_accessed_by=PROC";
  if (t.size < 3) fail(std::string("advise needs an address and an advice: ") + kUsage);
  e->kind = EventKind::kAdvise;
  parse_address(t.tok[1], e);
  bool have_len = false, have_advice = false;
  for (std::size_t i = 2; i < t.size; ++i) {
    const std::string_view tok = t.tok[i];
    const std::size_t eq = tok.find('=');
    const std::string_view key = tok.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : tok.substr(eq + 1);
    if (key == "len" && eq != std::string_view::npos) {
      if (have_len) fail("field 'len=' given twice");
      have_len = true;
      e->length = bytes_value("len=", value);
      continue;
    }
    Advice a;
    bool takes_processor = false;
    if (tok == "readmostly") a = Advice::kSetReadMostly;
    else if (tok == "unset_readmostly") a = Advice::kUnsetReadMostly;
    else if (tok == "unset_preferred") a = Advice::kUnsetPreferredLocation;
    else if (key == "preferred" && eq != std::string_view::npos) a = Advice::kSetPreferredLocation, takes_processor = true;
    else if (key == "accessed_by" && eq != std::string_view::npos) a = Advice::kSetAccessedBy, takes_processor = true;
    else if (key == "unset_accessed_by" && eq != std::string_view::npos) a = Advice::kUnsetAccessedBy, takes_processor = true;
    else fail("unknown advice '" + shorten(tok) + "' (expected " + kUsage + ")");
    if (have_advice) fail("advise takes one advice per line, got a second: '" + shorten(tok) + "'");
    have_advice = true;
    e->op = static_cast<std::uint8_t>(a);
    if (takes_processor) e->processor = processor_value(key, value);
  }
  if (!have_advice) fail(std::string("advise needs an advice: ") + kUsage);
  if (!have_len) e->length = whole_rest_of_allocation(*e, "advise");
}

void TextReader::parse_sync(Tokens& t, Event* e) {
  e->kind = EventKind::kSync;
  if (t.size != 2) fail("sync takes one scope: sync all|gpu=N|stream=N");
  const std::string_view tok = t.tok[1];
  if (tok == "all") {
    e->op = static_cast<std::uint8_t>(SyncScope::kAll);
  } else if (tok.substr(0, 4) == "gpu=") {
    const std::uint32_t gpu = u32_value("gpu", tok.substr(4));
    if (gpu > kMaxGpuIndex) fail("gpu=" + std::to_string(gpu) + " is out of range (at most " + std::to_string(kMaxGpuIndex) + ")");
    e->op = static_cast<std::uint8_t>(SyncScope::kGpu);
    e->processor = Processor::gpu(static_cast<int>(gpu));
  } else if (tok.substr(0, 7) == "stream=") {
    e->op = static_cast<std::uint8_t>(SyncScope::kStream);
    e->stream = u32_value("stream", tok.substr(7));
  } else {
    fail("unknown sync scope '" + shorten(tok) + "' (expected all, gpu=N or stream=N)");
  }
}

void TextReader::require_version_2(std::string_view what) {
  if (version_ < 2)
    fail(std::string(what) + " needs trace format version 2, but the header says 'umsim-trace " +
         std::to_string(version_) + "' (write 'umsim-trace 2' as the first line)");
}

std::uint32_t TextReader::gpu_value(std::string_view key, std::string_view value) {
  const std::uint32_t gpu = u32_value(key, value);
  if (gpu > kMaxGpuIndex)
    fail(std::string(key) + "=" + std::to_string(gpu) + " is out of range (at most " + std::to_string(kMaxGpuIndex) + ")");
  return gpu;
}

void TextReader::parse_issue_fields(Tokens& t, std::size_t first, const char* keyword, Event* e,
                                    std::initializer_list<std::string_view> extra_keys, std::string_view* extra_values) {
  bool have_gpu = false, have_stream = false, have_async = false;
  std::vector<bool> have_extra(extra_keys.size(), false);
  for (std::size_t i = first; i < t.size; ++i) {
    const std::string_view tok = t.tok[i];
    if (tok == "async") {
      if (have_async) fail("'async' given twice");
      have_async = true;
      e->op |= kAsyncBit;
      continue;
    }
    const std::size_t eq = tok.find('=');
    const std::string_view key = tok.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : tok.substr(eq + 1);
    if (eq != std::string_view::npos && key == "gpu") {
      if (have_gpu) fail("field 'gpu=' given twice");
      have_gpu = true;
      e->processor = Processor::gpu(static_cast<int>(gpu_value("gpu", value)));
      continue;
    }
    if (eq != std::string_view::npos && key == "stream") {
      if (have_stream) fail("field 'stream=' given twice");
      have_stream = true;
      e->stream = u32_value("stream", value);
      continue;
    }
    std::size_t k = 0;
    for (std::string_view x : extra_keys) {
      if (eq != std::string_view::npos && key == x) break;
      ++k;
    }
    if (k == extra_keys.size()) {
      std::string expected;
      for (std::string_view x : extra_keys) expected += std::string(x) + "=, ";
      fail("unexpected '" + shorten(tok) + "' in " + keyword + " line (expected " + expected + "gpu=, stream= or async)");
    }
    if (have_extra[k]) fail("field '" + std::string(key) + "=' given twice");
    have_extra[k] = true;
    extra_values[k] = value;
  }
  if (!have_gpu) fail(std::string(keyword) + " needs gpu=N (the GPU that runs it)");
}

void TextReader::parse_copy(Tokens& t, Event* e) {
  constexpr const char* kUsage =
      "copy ALLOCATION[+OFFSET] from=ALLOCATION[+OFFSET]|from_host=pinned|pageable|to_host=pinned|pageable "
      "len=SIZE gpu=N [stream=N] [async]";
  require_version_2("'copy'");
  if (t.size < 2) fail(std::string("copy needs an address: ") + kUsage);
  e->kind = EventKind::kCopy;
  parse_address(t.tok[1], e);
  std::string_view v[4];  // len, from, from_host, to_host
  std::string_view* values = v;
  parse_issue_fields(t, 2, "copy", e, {"len", "from", "from_host", "to_host"}, values);
  const std::uint8_t async = e->op;
  const int sides = !v[1].empty() + !v[2].empty() + !v[3].empty();
  if (sides != 1)
    fail(std::string("copy needs exactly one of from=, from_host= and to_host= (the other side): ") + kUsage);
  if (v[0].empty()) fail(std::string("copy needs len=SIZE: ") + kUsage);
  e->length = bytes_value("len=", v[0]);
  auto host_kind = [&](std::string_view value, CopyKind pinned, CopyKind pageable, const char* key) {
    if (value == "pinned") return pinned;
    if (value == "pageable") return pageable;
    fail(std::string("bad ") + key + "=" + shorten(value) + " (expected pinned or pageable)");
  };
  CopyKind kind;
  if (!v[1].empty()) {
    kind = CopyKind::kBetweenAllocations;
    Event src;
    parse_address(v[1], &src);
    e->count = src.name;
    e->stride = src.offset;
  } else if (!v[2].empty()) {
    kind = host_kind(v[2], CopyKind::kFromPinnedHost, CopyKind::kFromPageableHost, "from_host");
  } else {
    kind = host_kind(v[3], CopyKind::kToPinnedHost, CopyKind::kToPageableHost, "to_host");
  }
  e->op = static_cast<std::uint8_t>(async | static_cast<std::uint8_t>(kind));
}

void TextReader::parse_memset(Tokens& t, Event* e) {
  constexpr const char* kUsage = "memset ALLOCATION[+OFFSET] [len=SIZE] gpu=N [stream=N] [async]";
  require_version_2("'memset'");
  if (t.size < 2) fail(std::string("memset needs an address: ") + kUsage);
  e->kind = EventKind::kMemset;
  parse_address(t.tok[1], e);
  std::string_view len;
  parse_issue_fields(t, 2, "memset", e, {"len"}, &len);
  e->length = !len.empty() ? bytes_value("len=", len) : whole_rest_of_allocation(*e, "memset");
}

void TextReader::parse_peer(Tokens& t, Event* e) {
  require_version_2("'peer'");
  if (t.size != 4 || t.tok[1] != "enable")
    fail("expected 'peer enable gpuA gpuB' (hipDeviceEnablePeerAccess between two GPUs, both ways)");
  e->kind = EventKind::kPeerEnable;
  const Processor a = processor_value("peer", t.tok[2]);
  const Processor b = processor_value("peer", t.tok[3]);
  if (!a.is_gpu() || !b.is_gpu()) fail("peer access joins two GPUs, not the CPU: peer enable gpuA gpuB");
  if (a == b) fail("peer enable needs two different GPUs (a GPU always reaches its own memory)");
  e->processor = a;
  e->count = static_cast<std::uint32_t>(b.gpu_index());
}

bool TextReader::parse_line(std::string_view line, Event* e, std::size_t batch_index) {
  Tokens t;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size()) break;
    if (line[i] == '#') {
      t.has_comment = true;
      std::string_view c = line.substr(i + 1);
      if (!c.empty() && c[0] == ' ') c.remove_prefix(1);
      while (!c.empty() && c.back() == '\r') c.remove_suffix(1);  // CR LF line ends
      t.comment = c;
      break;
    }
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i]) && line[i] != '#') {
      if (line[i] == '"') {
        const std::size_t end = end_of_quoted(line.substr(i));
        if (end == std::string_view::npos) fail("unterminated quoted name " + shorten(line.substr(i)));
        i += end;
      } else {
        ++i;
      }
    }
    if (t.size == kMaxTokens) fail("too many fields on one line (at most " + std::to_string(kMaxTokens) + ")");
    t.tok[t.size++] = line.substr(start, i - start);
  }
  if (t.has_comment)
    comments_.push_back({batch_index, std::string(t.comment), source_ + ":" + std::to_string(line_no_)});
  if (t.size == 0) return false;
  if (end_line_ != 0)
    fail("statement after 'end-of-trace' (line " + std::to_string(end_line_) +
         "): only comments and blank lines may follow the end of the trace");

  *e = Event{};
  const std::string_view kw = t.tok[0];
  auto no_fields = [&](const char* usage) {
    if (t.size != 1) fail("unexpected '" + shorten(t.tok[1]) + "' (" + usage + ")");
  };
  auto name_and_stream = [&](EventKind kind, const char* keyword) {
    if (t.size < 2) fail(std::string(keyword) + " needs an event name: " + keyword + " EVENT [stream=N]");
    e->kind = kind;
    e->name = parse_name(t.tok[1]);
    Fields<1> f;
    UMSIM_PARSE_FIELDS(t, 2, "record/wait", f, "stream");
    if (f.present[0]) e->stream = u32_value("stream", f.value[0]);
  };
  switch (kw[0]) {
    case 'a':
      if (kw == "alloc") return parse_alloc(t, e), true;
      if (kw == "advise") return parse_advise(t, e), true;
      if (kw == "a") return parse_access(t, 0, EventKind::kGpuAccess, e), true;
      break;
    case 'r':
      if (kw == "r") return parse_access(t, 0, EventKind::kGpuAccess, e), true;
      if (kw == "record") return name_and_stream(EventKind::kEventRecord, "record"), true;
      if (kw == "rmw") return parse_access(t, 0, EventKind::kGpuAccess, e), true;
      break;
    case 'w':
      if (kw == "w") return parse_access(t, 0, EventKind::kGpuAccess, e), true;
      if (kw == "wait") return name_and_stream(EventKind::kEventWait, "wait"), true;
      break;
    case 'c':
      if (kw == "cpu") return parse_access(t, 1, EventKind::kCpuAccess, e), true;
      if (kw == "copy") return parse_copy(t, e), true;
      break;
    case 'm':
      if (kw == "memset") return parse_memset(t, e), true;
      break;
    case 'k':
      if (kw == "kernel") return parse_kernel(t, e), true;
      break;
    case 'e':
      if (kw == "end") {
        no_fields("'end' closes a kernel and takes no fields");
        e->kind = EventKind::kKernelEnd;
        return true;
      }
      if (kw == "end-of-trace") {
        no_fields("'end-of-trace' ends the trace and takes no fields");
        end_line_ = line_no_;
        return false;
      }
      break;
    case 'f':
      if (kw == "free") {
        if (t.size != 2) fail("free takes one allocation name: free NAME");
        e->kind = EventKind::kFree;
        e->name = parse_name(t.tok[1]);
        return true;
      }
      break;
    case 'p':
      if (kw == "prefetch") return parse_prefetch(t, e), true;
      if (kw == "peer") return parse_peer(t, e), true;
      if (kw == "phase") {
        if (t.size != 2) fail("phase takes one name: phase NAME");
        e->kind = EventKind::kPhase;
        e->name = parse_name(t.tok[1]);
        return true;
      }
      break;
    case 's':
      if (kw == "sync") return parse_sync(t, e), true;
      break;
    default:
      break;
  }
  fail("unknown keyword '" + shorten(kw) +
       "' (expected alloc, free, kernel, end, r, w, a, rmw, cpu, prefetch, advise, sync, record, wait, phase, copy, "
       "memset, peer or end-of-trace)");
}

}  // namespace umsim::trace
