#include "traces/binary_reader.h"

#include <cstring>
#include <limits>

#include "traces/binary_format.h"
#include "traces/trace_error.h"
#include "traces/trace_names.h"

namespace umsim::trace {
namespace {

constexpr std::size_t kBufferBytes = 4 << 20;
// Zero bytes kept after the data so a record cut off by the end of the stream
// decodes without bounds checks; the decoder then notices it ran past the end.
constexpr std::size_t kPadBytes = 96;
static_assert(kPadBytes > binary::kMaxEventRecordBytes);
// Name and comment records must fit in the buffer whole.
static_assert(kBufferBytes > kMaxCommentBytes + 16);
constexpr std::uint64_t kMaxProcessorField = std::numeric_limits<std::int16_t>::max() + 1ull;
constexpr std::uint64_t kMaxGpuIndex = std::numeric_limits<std::int16_t>::max() - 1ull;

// LEB128; nullptr if the value needs more than 64 bits.
inline const std::uint8_t* get_varint(const std::uint8_t* p, std::uint64_t& v) {
  std::uint64_t b = *p++;
  if (b < 0x80) {
    v = b;
    return p;
  }
  std::uint64_t r = b & 0x7f;
  for (int shift = 7;; shift += 7) {
    b = *p++;
    if (shift == 63) {
      if (b > 1) return nullptr;
      v = r | (b << 63);
      return p;
    }
    r |= (b & 0x7f) << shift;
    if (b < 0x80) {
      v = r;
      return p;
    }
  }
}

std::uint16_t le16(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
std::uint32_t le32(const unsigned char* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}

std::string hex_byte(unsigned v) {
  static const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[(v >> 4) & 15] + digits[v & 15];
}

}  // namespace

BinaryReader::BinaryReader(std::unique_ptr<ByteInput> in, std::string source)
    : in_(std::move(in)), source_(std::move(source)), buf_(kBufferBytes + kPadBytes) {
  read_header();
}

BinaryReader::~BinaryReader() { ZSTD_freeDCtx(dctx_); }

void BinaryReader::fail_at(std::uint64_t stream_offset, const std::string& message) const {
  throw TraceError(source_ + ":byte " + std::to_string(stream_offset) + ": " + message);
}

void BinaryReader::fail_file(std::uint64_t file_offset, const std::string& message) const {
  throw TraceError(source_ + ": file byte " + std::to_string(file_offset) + ": " + message);
}

std::string BinaryReader::position(std::size_t index_in_last_batch) const {
  if (index_in_last_batch >= last_batch_size_) return source_;
  return source_ + ":byte " + std::to_string(offsets_[index_in_last_batch]);
}

void BinaryReader::read_exact(char* dst, std::size_t n, const char* what) {
  std::size_t got = 0;
  while (got < n) {
    const std::size_t k = in_->read_some(dst + got, n - got);
    if (k == 0)
      fail_file(file_consumed_ + got, std::string("truncated header: the file ends inside the ") + what);
    got += k;
  }
  file_consumed_ += n;
}

void BinaryReader::read_header() {
  unsigned char fixed[binary::kFixedHeaderBytes];
  read_exact(reinterpret_cast<char*>(fixed), sizeof(binary::kMagic), "magic number");
  if (std::memcmp(fixed, binary::kMagic, sizeof(binary::kMagic)) != 0)
    fail_file(0, "bad magic number (not a umsim binary trace)");
  read_exact(reinterpret_cast<char*>(fixed) + 8, binary::kFixedHeaderBytes - 8, "fixed header");
  const std::uint16_t version = le16(fixed + 8);
  if (version != binary::kVersion && version != binary::kVersion2)
    fail_file(8, "unsupported binary trace version " + std::to_string(version) + " (this reader supports versions " +
                     std::to_string(binary::kVersion) + " and " + std::to_string(binary::kVersion2) + ")");
  version_ = version;
  const std::uint16_t flags = le16(fixed + 10);
  if ((flags & ~binary::kFlagZstd) != 0)
    fail_file(10, "unknown header flags " + std::to_string(flags) + " (known: 1 = zstd)");
  compressed_ = (flags & binary::kFlagZstd) != 0;
  const std::uint32_t layout_size = le32(fixed + 12);
  if (layout_size > binary::kMaxLayoutBytes)
    fail_file(12, "record layout of " + std::to_string(layout_size) + " bytes is too long (at most " +
                      std::to_string(binary::kMaxLayoutBytes) + ")");
  std::string layout(layout_size, '\0');
  read_exact(layout.data(), layout_size, "record layout description");
  if (layout != binary::record_layout(version))
    fail_file(16, "the record layout description differs from this reader's (written by an incompatible "
                  "version of umsim?)");
  if (compressed_) {
    dctx_ = ZSTD_createDCtx();
    if (dctx_ == nullptr) throw TraceError(source_ + ": cannot create a zstd decompressor");
    zin_.grow(ZSTD_DStreamInSize() * 8, 0);
    zin_view_ = ZSTD_inBuffer{zin_.data(), 0, 0};
  }
}

void BinaryReader::decompress_into(std::uint8_t* dst, std::size_t capacity, std::size_t& produced) {
  ZSTD_outBuffer out{dst, capacity, 0};
  while (out.pos < out.size) {
    if (zin_view_.pos == zin_view_.size && !file_eof_) {
      file_consumed_ += zin_view_.size;
      zin_view_.size = in_->read_some(zin_.chars(), zin_.size());
      zin_view_.pos = 0;
      if (zin_view_.size == 0) file_eof_ = true;
    }
    const std::size_t before = out.pos;
    const std::size_t in_before = zin_view_.pos;
    const std::size_t ret = ZSTD_decompressStream(dctx_, &out, &zin_view_);
    if (ZSTD_isError(ret))
      fail_file(file_consumed_ + zin_view_.pos,
                std::string("corrupt zstd data: ") + ZSTD_getErrorName(ret));
    // A call that makes no progress answers a hint for the next frame, not the state of the last one.
    if (zin_view_.pos != in_before || out.pos != before) frame_open_ = ret != 0;
    if (file_eof_ && zin_view_.pos == zin_view_.size && out.pos == before) {
      stream_done_ = true;
      if (frame_open_)
        fail_file(file_consumed_ + zin_view_.pos, "truncated zstd stream: the file ends inside a compressed frame");
      break;
    }
  }
  produced = out.pos;
}

void BinaryReader::refill() {
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    buf_offset_ += pos_;
    pos_ = 0;
  }
  const std::size_t room = kBufferBytes - end_;
  if (room > 0 && !stream_done_) {
    std::size_t produced = 0;
    if (compressed_) {
      decompress_into(buf_.data() + end_, room, produced);
    } else {
      while (produced < room) {
        const std::size_t k = in_->read_some(buf_.chars() + end_ + produced, room - produced);
        if (k == 0) {
          stream_done_ = true;
          break;
        }
        produced += k;
      }
    }
    end_ += produced;
  }
  std::memset(buf_.data() + end_, 0, kPadBytes);
}

void BinaryReader::ensure(std::size_t need) {
  while (end_ - pos_ < need && !stream_done_) refill();
}

void BinaryReader::read_bytes_record(std::uint8_t tag, std::size_t batch_index) {
  const std::uint64_t at = buf_offset_ + pos_;
  ensure(11);
  std::uint64_t length = 0;
  const std::uint8_t* p = get_varint(buf_.data() + pos_ + 1, length);
  if (p == nullptr) fail_at(at, "varint overflow (a value longer than 64 bits)");
  const std::size_t header = p - (buf_.data() + pos_);
  if (header > end_ - pos_) fail_at(at, "truncated record at the end of the stream");
  const bool is_name = tag == binary::kTagNameDef;
  const std::uint64_t limit = is_name ? kMaxNameLength : kMaxCommentBytes;
  if (length > limit)
    fail_at(at, std::string(is_name ? "name" : "comment") + " of " + std::to_string(length) +
                    " bytes is too long (at most " + std::to_string(limit) + ")");
  ensure(header + length);
  if (end_ - pos_ < header + length) fail_at(at, "truncated record at the end of the stream");
  const std::string_view text(buf_.chars() + pos_ + header, length);
  if (is_name) {
    const std::string problem = name_problem(text);
    if (!problem.empty()) fail_at(at, "bad name definition: " + problem);
    const std::size_t expected = names_.size();
    if (names_.intern(text) != expected) fail_at(at, "name '" + std::string(text) + "' is defined twice");
    last_access_end_.push_back(0);
  } else {
    comments_.push_back({batch_index, std::string(text), source_ + ":byte " + std::to_string(at)});
  }
  pos_ += header + length;
}

void BinaryReader::finish_stream(const std::uint8_t* p) {
  const std::uint64_t at = buf_offset_ + pos_;
  std::uint64_t count = 0;
  const std::uint8_t* q = get_varint(p + 1, count);
  if (q == nullptr) fail_at(at, "varint overflow (a value longer than 64 bits)");
  if (static_cast<std::size_t>(q - buf_.data()) > end_) fail_at(at, "truncated record at the end of the stream");
  if (count != events_)
    fail_at(at, "the end-of-trace record counts " + std::to_string(count) + " events but the stream holds " +
                    std::to_string(events_));
  pos_ = q - buf_.data();
  saw_end_record_ = true;
  ensure(1);
  if (end_ > pos_) fail_at(buf_offset_ + pos_, "unexpected data after the end-of-trace record");
}

std::size_t BinaryReader::read(std::span<Event> out) {
  comments_.clear();
  if (offsets_.size() < out.size()) offsets_.resize(out.size());
  last_batch_size_ = 0;
  std::size_t n = 0;
  const std::size_t capacity = out.size();
  NameId name_count = static_cast<NameId>(names_.size());

  while (n < capacity && !saw_end_record_) {
    if (end_ - pos_ < binary::kMaxEventRecordBytes && !stream_done_) refill();
    if (pos_ == end_) fail_at(buf_offset_ + pos_, "truncated: the record stream ends without an end-of-trace record");

    std::uint8_t* const base = buf_.data();
    const std::uint8_t* p = base + pos_;
    const std::uint8_t* const data_end = base + end_;
    // A record starting before `safe` lies wholly in the buffer (or runs into the zero padding at the
    // very end of the stream, which the check after each record catches).
    const std::uint8_t* const safe = stream_done_ ? data_end : data_end - (binary::kMaxEventRecordBytes - 1);
    const std::size_t first = n;
    const std::uint8_t* rec = p;

// A record that ran into the zero padding was cut off by the end of the stream: say
// so, rather than report the value the padding made up.
#define UMSIM_FAIL(msg)                                                                                   \
  fail_at(buf_offset_ + (rec - base), p != nullptr && p > data_end                                        \
                                          ? std::string("truncated record at the end of the stream")     \
                                          : std::string(msg))
#define UMSIM_VARINT(var)                                                 \
  do {                                                                    \
    p = get_varint(p, var);                                               \
    if (p == nullptr) UMSIM_FAIL("varint overflow (a value longer than 64 bits)"); \
  } while (0)
#define UMSIM_NAME(var)                                                                         \
  do {                                                                                          \
    UMSIM_VARINT(var);                                                                          \
    if (var >= name_count)                                                                      \
      UMSIM_FAIL("name id " + std::to_string(var) + " out of range (" + std::to_string(name_count) + \
                 " names defined so far)");                                                     \
  } while (0)
#define UMSIM_U32(var, what)                                                                  \
  do {                                                                                        \
    UMSIM_VARINT(var);                                                                        \
    if (var > std::numeric_limits<std::uint32_t>::max())                                      \
      UMSIM_FAIL(std::string(what) + " " + std::to_string(var) + " out of range (at most 4294967295)"); \
  } while (0)
#define UMSIM_PROCESSOR(var, e)                                                              \
  do {                                                                                       \
    UMSIM_VARINT(var);                                                                       \
    if (var > kMaxProcessorField) UMSIM_FAIL("processor " + std::to_string(var) + " out of range"); \
    (e).processor = Processor{static_cast<std::int16_t>(static_cast<int>(var) - 1)};        \
  } while (0)
#define UMSIM_GPU(var, e)                                                                   \
  do {                                                                                      \
    UMSIM_VARINT(var);                                                                      \
    if (var > kMaxGpuIndex) UMSIM_FAIL("gpu index " + std::to_string(var) + " out of range"); \
    (e).processor = Processor::gpu(static_cast<int>(var));                                  \
  } while (0)

    bool slow = false;
    while (n < capacity && p < safe) {
      rec = p;
      const std::uint8_t tag = *p;
      const std::uint8_t type = tag & 15;
      const std::uint8_t op = tag >> 4;
      if (type >= kVersion1EventKinds && type != binary::kTagVersion2Event) {  // name, comment, end or a bad tag
        slow = true;
        break;
      }
      ++p;
      Event& e = out[n];
      e = Event{};
      e.kind = static_cast<EventKind>(type);
      std::uint64_t a, b, c, d, f;
      if (type == binary::kTagVersion2Event) {
        if (version_ < 2)
          UMSIM_FAIL("record tag " + hex_byte(tag) +
                     " is a version-2 statement (copy, memset or peer) in a version 1 trace");
        UMSIM_VARINT(a);
        if (a >= static_cast<std::uint64_t>(kEventKindCount - kVersion1EventKinds))
          UMSIM_FAIL("version-2 event subkind " + std::to_string(a) + " out of range (0 copy, 1 memset, 2 peer)");
        e.kind = static_cast<EventKind>(kVersion1EventKinds + a);
      }
      switch (e.kind) {
        case EventKind::kGpuAccess:
        case EventKind::kCpuAccess: {
          if (op == static_cast<int>(AccessType::kReadModifyWrite) && version_ < 2)
            UMSIM_FAIL("access type 3 (rmw) needs format version 2, but this is a version 1 trace");
          if (op > static_cast<int>(AccessType::kReadModifyWrite)) UMSIM_FAIL("access type " + std::to_string(op) + " out of range");
          e.op = op;
          UMSIM_NAME(a);
          UMSIM_VARINT(b);
          UMSIM_VARINT(c);
          UMSIM_VARINT(d);
          UMSIM_U32(f, "count");
          if (f == 0) UMSIM_FAIL("access count 0 (at least one pass)");
          Bytes& last_end = last_access_end_[a];
          e.name = static_cast<NameId>(a);
          e.offset = last_end + binary::unzigzag(b);
          e.length = c;
          e.stride = d;
          e.count = static_cast<std::uint32_t>(f);
          last_end = e.offset + e.length;
          break;
        }
        case EventKind::kAlloc:
          if (op > static_cast<int>(kLastAllocKind)) UMSIM_FAIL("allocation kind " + std::to_string(op) + " out of range");
          e.op = op;
          UMSIM_NAME(a);
          e.name = static_cast<NameId>(a);
          UMSIM_PROCESSOR(b, e);
          UMSIM_VARINT(c);
          e.length = c;
          break;
        case EventKind::kFree:
        case EventKind::kPhase:
          if (op != 0) UMSIM_FAIL("unexpected op bits in tag " + hex_byte(tag));
          UMSIM_NAME(a);
          e.name = static_cast<NameId>(a);
          break;
        case EventKind::kKernelBegin:
          if (op != 0) UMSIM_FAIL("unexpected op bits in tag " + hex_byte(tag));
          UMSIM_NAME(a);
          e.name = static_cast<NameId>(a);
          UMSIM_GPU(b, e);
          UMSIM_U32(c, "stream");
          e.stream = static_cast<StreamId>(c);
          UMSIM_VARINT(d);
          e.duration = d;
          break;
        case EventKind::kKernelEnd:
          if (op != 0) UMSIM_FAIL("unexpected op bits in tag " + hex_byte(tag));
          break;
        case EventKind::kPrefetch:
          if (op != 0) UMSIM_FAIL("unexpected op bits in tag " + hex_byte(tag));
          UMSIM_NAME(a);
          e.name = static_cast<NameId>(a);
          UMSIM_PROCESSOR(b, e);
          if (e.processor.is_none()) UMSIM_FAIL("a prefetch needs a destination processor");
          UMSIM_U32(c, "stream");
          e.stream = static_cast<StreamId>(c);
          UMSIM_VARINT(d);
          UMSIM_VARINT(f);
          e.offset = d;
          e.length = f;
          break;
        case EventKind::kAdvise: {
          if (op > static_cast<int>(Advice::kUnsetAccessedBy)) UMSIM_FAIL("advice " + std::to_string(op) + " out of range");
          e.op = op;
          UMSIM_NAME(a);
          e.name = static_cast<NameId>(a);
          UMSIM_PROCESSOR(b, e);
          const Advice adv = e.advice();
          const bool needs = adv == Advice::kSetPreferredLocation || adv == Advice::kSetAccessedBy ||
                             adv == Advice::kUnsetAccessedBy;
          if (needs && e.processor.is_none()) UMSIM_FAIL(std::string("advice ") + to_string(adv) + " needs a processor");
          if (!needs && !e.processor.is_none())
            UMSIM_FAIL(std::string("advice ") + to_string(adv) + " takes no processor");
          UMSIM_VARINT(c);
          UMSIM_VARINT(d);
          e.offset = c;
          e.length = d;
          break;
        }
        case EventKind::kSync:
          if (op > static_cast<int>(SyncScope::kStream)) UMSIM_FAIL("sync scope " + std::to_string(op) + " out of range");
          e.op = op;
          if (e.sync_scope() == SyncScope::kGpu) {
            UMSIM_GPU(a, e);
          } else if (e.sync_scope() == SyncScope::kStream) {
            UMSIM_U32(a, "stream");
            e.stream = static_cast<StreamId>(a);
          } else {
            UMSIM_VARINT(a);
            if (a != 0) UMSIM_FAIL("sync all carries value " + std::to_string(a) + " (expected 0)");
          }
          break;
        case EventKind::kEventRecord:
        case EventKind::kEventWait:
          if (op != 0) UMSIM_FAIL("unexpected op bits in tag " + hex_byte(tag));
          UMSIM_NAME(a);
          e.name = static_cast<NameId>(a);
          UMSIM_U32(b, "stream");
          e.stream = static_cast<StreamId>(b);
          break;
        case EventKind::kCopy:
        case EventKind::kMemset: {
          const bool copy = e.kind == EventKind::kCopy;
          if (copy ? ((op & kCopyKindMask) > static_cast<int>(CopyKind::kBetweenAllocations)) : ((op & ~kAsyncBit) != 0))
            UMSIM_FAIL(std::string(copy ? "copy kind " : "memset flags ") + std::to_string(op) + " out of range");
          e.op = op;
          UMSIM_NAME(a);
          e.name = static_cast<NameId>(a);
          UMSIM_VARINT(b);
          UMSIM_VARINT(c);
          e.offset = b;
          e.length = c;
          UMSIM_GPU(d, e);
          UMSIM_U32(f, "stream");
          e.stream = static_cast<StreamId>(f);
          if (copy && e.copy_kind() == CopyKind::kBetweenAllocations) {
            UMSIM_NAME(a);
            e.count = static_cast<std::uint32_t>(a);
            UMSIM_VARINT(b);
            e.stride = b;
          }
          break;
        }
        case EventKind::kPeerEnable:
          if (op != 0) UMSIM_FAIL("unexpected op bits in tag " + hex_byte(tag));
          UMSIM_GPU(a, e);
          UMSIM_VARINT(b);
          if (b > kMaxGpuIndex) UMSIM_FAIL("gpu index " + std::to_string(b) + " out of range");
          if (b == a) UMSIM_FAIL("peer enable joins gpu" + std::to_string(a) + " with itself");
          e.count = static_cast<std::uint32_t>(b);
          break;
      }
      if (p > data_end) UMSIM_FAIL("truncated record at the end of the stream");
      offsets_[n] = buf_offset_ + (rec - base);
      ++n;
    }
#undef UMSIM_GPU
#undef UMSIM_PROCESSOR
#undef UMSIM_U32
#undef UMSIM_NAME
#undef UMSIM_VARINT
#undef UMSIM_FAIL
    events_ += n - first;
    if (!slow) {
      pos_ = static_cast<std::size_t>(p - base);
      continue;
    }
    pos_ = static_cast<std::size_t>(rec - base);

    // Slow path: the record at pos_ is not an event.
    const std::uint8_t tag = base[pos_];
    switch (tag) {
      case binary::kTagNameDef:
      case binary::kTagComment:
        read_bytes_record(tag, n);
        name_count = static_cast<NameId>(names_.size());
        break;
      case binary::kTagEndOfTrace:
        finish_stream(base + pos_);
        break;
      default:
        fail_at(buf_offset_ + pos_, "unknown record tag " + hex_byte(tag));
    }
  }
  last_batch_size_ = n;
  return n;
}

}  // namespace umsim::trace
