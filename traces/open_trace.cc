// open_trace / create_trace_writer: pick the encoding from the content (reading)
// or from the caller (writing).
#include <cstring>

#include "traces/binary_format.h"
#include "traces/binary_reader.h"
#include "traces/binary_writer.h"
#include "traces/byte_io.h"
#include "traces/text_reader.h"
#include "traces/text_writer.h"
#include "traces/trace_reader.h"
#include "traces/trace_writer.h"

namespace umsim::trace {
namespace {

// Replays the bytes already read for detection, then continues with the source.
class PrefixedInput final : public ByteInput {
 public:
  PrefixedInput(std::string prefix, std::unique_ptr<ByteInput> rest) : prefix_(std::move(prefix)), rest_(std::move(rest)) {}
  std::size_t read_some(char* dst, std::size_t n) override {
    if (pos_ < prefix_.size()) {
      const std::size_t k = std::min(n, prefix_.size() - pos_);
      std::memcpy(dst, prefix_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return rest_->read_some(dst, n);
  }

 private:
  std::string prefix_;
  std::size_t pos_ = 0;
  std::unique_ptr<ByteInput> rest_;
};

std::unique_ptr<TraceReader> open_detected(std::unique_ptr<ByteInput> in, const std::string& source) {
  std::string head(8, '\0');
  std::size_t got = 0;
  while (got < head.size()) {
    const std::size_t k = in->read_some(head.data() + got, head.size() - got);
    if (k == 0) break;
    got += k;
  }
  head.resize(got);
  if (got == 0) throw TraceError(source + ": empty file (not a umsim trace)");
  const std::string_view magic(reinterpret_cast<const char*>(binary::kMagic), sizeof(binary::kMagic));
  const bool binary_like = head.size() >= 4 && std::string_view(head).substr(0, 4) == magic.substr(0, 4);
  constexpr std::string_view kText = "umsim-tr";
  const bool text_like = std::string_view(head) == kText.substr(0, head.size()) && head.size() >= 5;
  auto input = std::make_unique<PrefixedInput>(head, std::move(in));
  if (binary_like) return std::make_unique<BinaryReader>(std::move(input), source);
  if (text_like) return std::make_unique<TextReader>(std::move(input), source);
  if (head.size() >= 4 && static_cast<unsigned char>(head[0]) == 0x28 && static_cast<unsigned char>(head[1]) == 0xb5 &&
      static_cast<unsigned char>(head[2]) == 0x2f && static_cast<unsigned char>(head[3]) == 0xfd)
    throw TraceError(source + ": file byte 0: a bare zstd stream, not a umsim trace (binary traces start with the "
                              "umsim header; decompress it or convert it with 'umsim trace convert')");
  throw TraceError(source +
                   ": file byte 0: not a umsim trace (expected the text header 'umsim-trace 1' or the binary magic "
                   "\\x89UMTB\\r\\n\\x1a)");
}

}  // namespace

std::unique_ptr<TraceReader> open_trace(const std::string& path) {
  return open_detected(open_file_input(path), path);
}

std::unique_ptr<TraceReader> open_trace_from_memory(std::string data, std::string source) {
  return open_detected(memory_input(std::move(data)), source);
}

namespace {
void check_version(int version) {
  if (version < 1 || version > kLatestVersion)
    throw TraceError("trace format version " + std::to_string(version) + " is unknown (known: 1 and 2)");
}
}  // namespace

std::unique_ptr<TraceWriter> create_trace_writer(const std::string& path, Encoding encoding, int version) {
  check_version(version);
  BinaryWriterOptions options;
  options.version = version;
  if (encoding == Encoding::kBinary) return std::make_unique<BinaryWriter>(open_file_output(path), path, options);
  return std::make_unique<TextWriter>(open_file_output(path), path, version);
}

std::unique_ptr<TraceWriter> create_trace_writer_to_string(std::string* out, Encoding encoding, int version) {
  check_version(version);
  BinaryWriterOptions options;
  options.version = version;
  if (encoding == Encoding::kBinary) return std::make_unique<BinaryWriter>(string_output(out), "<memory>", options);
  return std::make_unique<TextWriter>(string_output(out), "<memory>", version);
}

std::string version_problem(const Event& e, int version) {
  if (required_version(e) <= version) return {};
  const std::string what = e.kind == EventKind::kGpuAccess || e.kind == EventKind::kCpuAccess
                               ? std::string("a read-modify-write access")
                               : std::string("a ") + to_string(e.kind) + " statement";
  return "cannot write " + what + " in a version " + std::to_string(version) +
         " trace (it needs format version 2; write the trace as version 2)";
}

Encoding encoding_for_path(std::string_view path) {
  return path.size() >= kBinaryExtension.size() && path.substr(path.size() - kBinaryExtension.size()) == kBinaryExtension
             ? Encoding::kBinary
             : Encoding::kText;
}

}  // namespace umsim::trace
