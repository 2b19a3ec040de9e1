// libFuzzer target for the text decoder (built by run_fuzzers.sh with clang;
// the corpus test runs the same entry point under gcc).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "tools/fuzz/fuzz_round_trip.h"
#include "traces/byte_io.h"
#include "traces/text_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace umsim::trace;
  std::unique_ptr<TextReader> reader;
  try {
    reader = std::make_unique<TextReader>(memory_input(std::string(reinterpret_cast<const char*>(data), size)),
                                          "<fuzz>");
  } catch (const TraceError&) {
    return 0;
  }
  fuzz::check_decoder(*reader, /*compare_comments=*/true);
  return 0;
}
