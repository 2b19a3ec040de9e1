#include "traces/text_writer.h"

#include "traces/event_validation.h"
#include "traces/trace_error.h"
#include "traces/trace_names.h"
#include "traces/units.h"

namespace umsim::trace {
namespace {

constexpr std::size_t kFlushBytes = 1 << 20;

[[noreturn]] void unwritable(const Event& e, const std::string& why) {
  throw TraceError(std::string("cannot write ") + to_string(e.kind) + " event as text: " + why);
}

std::string checked_name(const Event& e, std::string_view name) {
  const std::string problem = name_problem(name);
  if (!problem.empty()) unwritable(e, problem);
  return quote_name_if_needed(name);
}

std::string processor_text(const Event& e, Processor p) {
  if (p.is_none()) unwritable(e, "it needs a processor");
  return to_string(p);
}

// NAME or NAME+OFFSET.
std::string address(const Event& e, std::string_view name) {
  std::string s = checked_name(e, name);
  if (e.offset != 0) s += "+" + format_bytes(e.offset);
  return s;
}

void append_range(std::string& s, const Event& e) { s += " len=" + format_bytes(e.length); }

void append_stream(std::string& s, const Event& e) {
  if (e.stream != 0) s += " stream=" + std::to_string(e.stream);
}

std::string access_line(const Event& e, std::string_view name) {
  if (e.op > static_cast<int>(AccessType::kReadModifyWrite)) unwritable(e, "access type " + std::to_string(e.op));
  std::string s = std::string(to_string(e.access())) + " " + address(e, name);
  append_range(s, e);
  if (e.stride != 0) s += " stride=" + format_bytes(e.stride);
  if (e.count != 1) {
    if (e.count == 0) unwritable(e, "count 0");
    s += " count=" + std::to_string(e.count);
  }
  return s;
}

std::string advice_text(const Event& e) {
  switch (e.advice()) {
    case Advice::kSetReadMostly: return "readmostly";
    case Advice::kUnsetReadMostly: return "unset_readmostly";
    case Advice::kSetPreferredLocation: return "preferred=" + processor_text(e, e.processor);
    case Advice::kUnsetPreferredLocation: return "unset_preferred";
    case Advice::kSetAccessedBy: return "accessed_by=" + processor_text(e, e.processor);
    case Advice::kUnsetAccessedBy: return "unset_accessed_by=" + processor_text(e, e.processor);
  }
  unwritable(e, "advice " + std::to_string(e.op));
}

// gpu=N [stream=N] [async] of a copy or memset.
void append_issue(std::string& s, const Event& e) {
  if (!e.processor.is_gpu()) unwritable(e, "it runs on a GPU, not on " + to_string(e.processor));
  s += " gpu=" + std::to_string(e.processor.gpu_index());
  append_stream(s, e);
  if (e.is_async()) s += " async";
}

std::string copy_line(const Event& e, std::string_view name, std::string_view source_name) {
  if (const char* problem = event_problem(e)) unwritable(e, problem);
  std::string s = "copy " + address(e, name);
  switch (e.copy_kind()) {
    case CopyKind::kFromPinnedHost: s += " from_host=pinned"; break;
    case CopyKind::kFromPageableHost: s += " from_host=pageable"; break;
    case CopyKind::kToPinnedHost: s += " to_host=pinned"; break;
    case CopyKind::kToPageableHost: s += " to_host=pageable"; break;
    case CopyKind::kBetweenAllocations: {
      s += " from=" + checked_name(e, source_name);
      if (e.copy_source_offset() != 0) s += "+" + format_bytes(e.copy_source_offset());
      break;
    }
  }
  append_range(s, e);
  append_issue(s, e);
  return s;
}

}  // namespace

std::string TextWriter::format_event(const Event& e, std::string_view name, std::string_view source_name) {
  std::string s;
  switch (e.kind) {
    case EventKind::kAlloc:
      if (e.op > static_cast<int>(kLastAllocKind)) unwritable(e, "allocation kind " + std::to_string(e.op));
      s = "alloc " + checked_name(e, name) + " " + format_bytes(e.length) + " " + to_string(e.alloc_kind());
      if (!e.processor.is_none()) s += " on=" + to_string(e.processor);
      return s;
    case EventKind::kFree:
      return "free " + checked_name(e, name);
    case EventKind::kKernelBegin:
      if (!e.processor.is_gpu()) unwritable(e, "a kernel runs on a GPU, not on " + to_string(e.processor));
      s = "kernel " + checked_name(e, name) + " gpu=" + std::to_string(e.processor.gpu_index());
      append_stream(s, e);
      if (e.duration != 0) s += " compute=" + format_duration_ns(e.duration);
      return s;
    case EventKind::kKernelEnd:
      return "end";
    case EventKind::kGpuAccess:
      return access_line(e, name);
    case EventKind::kCpuAccess:
      return "cpu " + access_line(e, name);
    case EventKind::kPrefetch:
      s = "prefetch " + address(e, name);
      append_range(s, e);
      s += " to=" + processor_text(e, e.processor);
      append_stream(s, e);
      return s;
    case EventKind::kAdvise:
      if (e.op > static_cast<int>(Advice::kUnsetAccessedBy)) unwritable(e, "advice " + std::to_string(e.op));
      s = "advise " + address(e, name);
      append_range(s, e);
      return s + " " + advice_text(e);
    case EventKind::kSync:
      switch (e.sync_scope()) {
        case SyncScope::kAll: return "sync all";
        case SyncScope::kGpu:
          if (!e.processor.is_gpu()) unwritable(e, "sync gpu needs a GPU, not " + to_string(e.processor));
          return "sync gpu=" + std::to_string(e.processor.gpu_index());
        case SyncScope::kStream: return "sync stream=" + std::to_string(e.stream);
      }
      unwritable(e, "sync scope " + std::to_string(e.op));
    case EventKind::kEventRecord:
      s = "record " + checked_name(e, name);
      append_stream(s, e);
      return s;
    case EventKind::kEventWait:
      s = "wait " + checked_name(e, name);
      append_stream(s, e);
      return s;
    case EventKind::kPhase:
      return "phase " + checked_name(e, name);
    case EventKind::kCopy:
      return copy_line(e, name, source_name);
    case EventKind::kMemset:
      if (const char* problem = event_problem(e)) unwritable(e, problem);
      s = "memset " + address(e, name);
      append_range(s, e);
      append_issue(s, e);
      return s;
    case EventKind::kPeerEnable:
      if (const char* problem = event_problem(e)) unwritable(e, problem);
      return "peer enable " + to_string(e.processor) + " " + to_string(e.peer_gpu());
  }
  throw TraceError("cannot write event of unknown kind " + std::to_string(static_cast<int>(e.kind)) + " as text");
}

TextWriter::TextWriter(std::unique_ptr<ByteOutput> out, std::string target, int version)
    : out_(std::move(out)), target_(std::move(target)), version_(version) {
  buffer_ = "umsim-trace " + std::to_string(version_) + "\n";
}

TextWriter::~TextWriter() {
  // Unwinding from an error: the output is abandoned (a file output then leaves nothing).
  if (!finished_ && std::uncaught_exceptions() == uncaught_at_construction_) {
    try {
      finish();
    } catch (...) {
      // Destructors must not throw; callers who care call finish() themselves.
    }
  }
}

void TextWriter::write(const Event& e, std::string_view name, std::string_view source_name) {
  const std::string too_new = version_problem(e, version_);
  if (!too_new.empty()) throw TraceError(target_ + ": " + too_new);
  if (e.kind == EventKind::kKernelEnd) in_kernel_ = false;
  if (in_kernel_) buffer_ += "  ";
  try {
    buffer_ += format_event(e, name, source_name);
  } catch (const TraceError& err) {
    throw TraceError(target_ + ": " + err.what());
  }
  buffer_ += '\n';
  if (e.kind == EventKind::kKernelBegin) in_kernel_ = true;
  flush_if_full();
}

void TextWriter::comment(std::string_view text) {
  // One '#' line per line of the comment.
  for (;;) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // the reader drops them too
    if (line.size() > kMaxCommentBytes)
      throw CommentTooLongError(target_, line.size(), kMaxCommentBytes);
    if (in_kernel_) buffer_ += "  ";
    buffer_ += '#';
    if (!line.empty()) {
      buffer_ += ' ';
      buffer_ += line;
    }
    buffer_ += '\n';
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  flush_if_full();
}

void TextWriter::flush_if_full() {
  if (buffer_.size() >= kFlushBytes) {
    out_->write(buffer_.data(), buffer_.size());
    buffer_.clear();
  }
}

void TextWriter::finish() {
  if (finished_) return;
  finished_ = true;
  buffer_ += "end-of-trace\n";  // lets readers tell a complete trace from a truncated one
  out_->write(buffer_.data(), buffer_.size());
  buffer_.clear();
  out_->close();
}

}  // namespace umsim::trace
