// libFuzzer target for the binary decoder (built by run_fuzzers.sh with clang;
// the corpus test runs the same entry point under gcc).
//
// Input: a first byte 'R' means "raw records": the rest is an uncompressed
// record stream behind a valid header, so mutations reach the record decoder
// directly. Anything else is a whole file (header, zstd) as open_trace sees it
// (which also detects text, so encoding detection is fuzzed here too).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "tools/fuzz/fuzz_round_trip.h"
#include "traces/binary_format.h"
#include "traces/binary_reader.h"
#include "traces/byte_io.h"

namespace {

std::string raw_header() {
  using namespace umsim::trace;
  std::string h(reinterpret_cast<const char*>(binary::kMagic), sizeof(binary::kMagic));
  h += static_cast<char>(binary::kVersion & 0xff);
  h += static_cast<char>(binary::kVersion >> 8);
  h += std::string(2, '\0');  // flags: uncompressed
  const auto n = static_cast<std::uint32_t>(binary::kRecordLayout.size());
  for (int i = 0; i < 4; ++i) h += static_cast<char>((n >> (8 * i)) & 0xff);
  h += binary::kRecordLayout;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace umsim::trace;
  std::string input(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<TraceReader> reader;
  try {
    // Raw records go straight to the binary reader; whole files through open_trace's detection.
    if (!input.empty() && input[0] == 'R') {
      static const std::string header = raw_header();
      reader = std::make_unique<BinaryReader>(memory_input(header + input.substr(1)), "<fuzz>");
    } else {
      reader = open_trace_from_memory(std::move(input), "<fuzz>");
    }
  } catch (const TraceError&) {
    return 0;
  }
  // Binary comments may hold newlines, which re-encode as several comments: compare events only.
  fuzz::check_decoder(*reader, /*compare_comments=*/false);
  return 0;
}
