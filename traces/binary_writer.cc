#include "traces/binary_writer.h"

#include <cstring>
#include <limits>

#include "traces/binary_format.h"
#include "traces/event_validation.h"
#include "traces/trace_error.h"
#include "traces/trace_names.h"
#include "traces/trace_writer.h"

namespace umsim::trace {
namespace {

constexpr std::size_t kRecordBufferBytes = 1 << 20;
constexpr NameId kNoName = std::numeric_limits<NameId>::max();
// Cache only plausible caller ids, so a stray huge id cannot blow up memory.
constexpr NameId kMaxCachedCallerId = 1 << 24;

void put_u16(std::string& s, std::uint16_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>(v >> 8);
}
void put_u32(std::string& s, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint64_t processor_field(Processor p) { return p.is_none() ? 0 : static_cast<std::uint64_t>(p.code) + 1; }

}  // namespace

BinaryWriter::BinaryWriter(std::unique_ptr<ByteOutput> out, std::string target, BinaryWriterOptions options)
    : out_(std::move(out)), target_(std::move(target)), options_(options), records_(kRecordBufferBytes) {
  std::string header(reinterpret_cast<const char*>(binary::kMagic), sizeof(binary::kMagic));
  const auto version = static_cast<std::uint16_t>(options_.version);
  const std::string_view layout = binary::record_layout(version);
  put_u16(header, version);
  put_u16(header, options_.compress ? binary::kFlagZstd : 0);
  put_u32(header, static_cast<std::uint32_t>(layout.size()));
  header += layout;
  out_->write(header.data(), header.size());
  if (options_.compress) {
    cctx_ = ZSTD_createCCtx();
    if (cctx_ == nullptr) throw TraceError(target_ + ": cannot create a zstd compressor");
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, options_.zstd_level);
    // A content checksum per frame, so corruption is detected instead of decoding into wrong events.
    ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
    compressed_.resize(ZSTD_CStreamOutSize());
  }
}

BinaryWriter::~BinaryWriter() {
  // Unwinding from an error: the output is abandoned (a file output then leaves nothing).
  if (!finished_ && std::uncaught_exceptions() == uncaught_at_construction_) {
    try {
      finish();
    } catch (...) {
      // Destructors must not throw; callers who care call finish() themselves.
    }
  }
  ZSTD_freeCCtx(cctx_);
}

void BinaryWriter::reserve(std::size_t n) {
  if (records_.size() - used_ < n) flush_records(false);
  if (records_.size() < n) records_.grow(n, used_);
}

void BinaryWriter::flush_records(bool last) {
  if (!options_.compress) {
    out_->write(reinterpret_cast<const char*>(records_.data()), used_);
    used_ = 0;
    return;
  }
  ZSTD_inBuffer in{records_.data(), used_, 0};
  const ZSTD_EndDirective mode = last ? ZSTD_e_end : ZSTD_e_continue;
  for (;;) {
    ZSTD_outBuffer zout{compressed_.data(), compressed_.size(), 0};
    const std::size_t remaining = ZSTD_compressStream2(cctx_, &zout, &in, mode);
    if (ZSTD_isError(remaining))
      throw TraceError(target_ + ": zstd compression failed: " + ZSTD_getErrorName(remaining));
    out_->write(compressed_.data(), zout.pos);
    if (last ? remaining == 0 : in.pos == in.size) break;
  }
  used_ = 0;
}

void BinaryWriter::put_bytes_record(std::uint8_t tag, std::string_view bytes) {
  reserve(1 + 10 + bytes.size());
  std::uint8_t* p = records_.data() + used_;
  *p++ = tag;
  p = binary::put_varint(p, bytes.size());
  std::memcpy(p, bytes.data(), bytes.size());
  used_ = p + bytes.size() - records_.data();
}

NameId BinaryWriter::name_id(const Event& e, std::string_view name) {
  if (e.name < caller_to_own_.size()) {
    const NameId own = caller_to_own_[e.name];
    if (own != kNoName && names_.name(own) == name) return own;
  }
  const NameId own = define_name(e, name, "");
  if (e.name < kMaxCachedCallerId) {
    if (e.name >= caller_to_own_.size()) caller_to_own_.resize(e.name + 1, kNoName);
    caller_to_own_[e.name] = own;
  }
  return own;
}

NameId BinaryWriter::define_name(const Event& e, std::string_view name, const char* role) {
  const std::string problem = name_problem(name);
  if (!problem.empty())
    throw TraceError(target_ + ": cannot write " + to_string(e.kind) + " event" + role + ": " + problem);
  const std::size_t before = names_.size();
  const NameId own = names_.intern(name);
  if (own == before) {
    put_bytes_record(binary::kTagNameDef, name);
    last_access_end_.push_back(0);
  }
  return own;
}

void BinaryWriter::write(const Event& e, std::string_view name, std::string_view source_name) {
  if (const char* problem = event_problem(e))
    throw TraceError(target_ + ": cannot write " + to_string(e.kind) + " event: " + problem);
  const std::string too_new = version_problem(e, options_.version);
  if (!too_new.empty()) throw TraceError(target_ + ": " + too_new);
  NameId id = 0, source = 0;
  if (has_name(e)) id = name_id(e, name);
  if (has_source_name(e)) source = define_name(e, source_name, "'s source");
  reserve(binary::kMaxEventRecordBytes);
  std::uint8_t* p = records_.data() + used_;
  const bool has_op = e.kind == EventKind::kAlloc || e.kind == EventKind::kGpuAccess ||
                      e.kind == EventKind::kCpuAccess || e.kind == EventKind::kAdvise || e.kind == EventKind::kSync ||
                      e.kind == EventKind::kCopy || e.kind == EventKind::kMemset;
  const bool v2 = static_cast<int>(e.kind) >= kVersion1EventKinds;
  *p++ = static_cast<std::uint8_t>((v2 ? binary::kTagVersion2Event : static_cast<unsigned>(e.kind)) |
                                   (has_op ? e.op << 4 : 0));
  if (v2) p = binary::put_varint(p, static_cast<unsigned>(e.kind) - kVersion1EventKinds);
  switch (e.kind) {
    case EventKind::kAlloc:
      p = binary::put_varint(p, id);
      p = binary::put_varint(p, processor_field(e.processor));
      p = binary::put_varint(p, e.length);
      break;
    case EventKind::kFree:
    case EventKind::kPhase:
      p = binary::put_varint(p, id);
      break;
    case EventKind::kKernelBegin:
      p = binary::put_varint(p, id);
      p = binary::put_varint(p, e.processor.gpu_index());
      p = binary::put_varint(p, e.stream);
      p = binary::put_varint(p, e.duration);
      break;
    case EventKind::kKernelEnd:
      break;
    case EventKind::kGpuAccess:
    case EventKind::kCpuAccess: {
      Bytes& last_end = last_access_end_[id];
      p = binary::put_varint(p, id);
      p = binary::put_varint(p, binary::zigzag(e.offset - last_end));
      p = binary::put_varint(p, e.length);
      p = binary::put_varint(p, e.stride);
      p = binary::put_varint(p, e.count);
      last_end = e.offset + e.length;
      break;
    }
    case EventKind::kPrefetch:
      p = binary::put_varint(p, id);
      p = binary::put_varint(p, processor_field(e.processor));
      p = binary::put_varint(p, e.stream);
      p = binary::put_varint(p, e.offset);
      p = binary::put_varint(p, e.length);
      break;
    case EventKind::kAdvise:
      p = binary::put_varint(p, id);
      p = binary::put_varint(p, takes_processor(e) ? processor_field(e.processor) : 0);
      p = binary::put_varint(p, e.offset);
      p = binary::put_varint(p, e.length);
      break;
    case EventKind::kSync:
      switch (e.sync_scope()) {
        case SyncScope::kAll: p = binary::put_varint(p, 0); break;
        case SyncScope::kGpu: p = binary::put_varint(p, e.processor.gpu_index()); break;
        case SyncScope::kStream: p = binary::put_varint(p, e.stream); break;
      }
      break;
    case EventKind::kEventRecord:
    case EventKind::kEventWait:
      p = binary::put_varint(p, id);
      p = binary::put_varint(p, e.stream);
      break;
    case EventKind::kCopy:
    case EventKind::kMemset:
      p = binary::put_varint(p, id);
      p = binary::put_varint(p, e.offset);
      p = binary::put_varint(p, e.length);
      p = binary::put_varint(p, e.processor.gpu_index());
      p = binary::put_varint(p, e.stream);
      if (has_source_name(e)) {
        p = binary::put_varint(p, source);
        p = binary::put_varint(p, e.copy_source_offset());
      }
      break;
    case EventKind::kPeerEnable:
      p = binary::put_varint(p, e.processor.gpu_index());
      p = binary::put_varint(p, e.count);
      break;
  }
  used_ = p - records_.data();
  ++events_;
}

void BinaryWriter::comment(std::string_view text) {
  // One record per line, as the text encoding stores it.
  for (;;) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // as the text encoding stores it
    if (line.size() > kMaxCommentBytes)
      throw CommentTooLongError(target_, line.size(), kMaxCommentBytes);
    put_bytes_record(binary::kTagComment, line);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
}

void BinaryWriter::finish() {
  if (finished_) return;
  finished_ = true;
  reserve(11);
  std::uint8_t* p = records_.data() + used_;
  *p++ = binary::kTagEndOfTrace;
  p = binary::put_varint(p, events_);
  used_ = p - records_.data();
  flush_records(true);
  out_->close();
}

}  // namespace umsim::trace
