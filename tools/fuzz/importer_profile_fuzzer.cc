// libFuzzer target for the other readers of user files: the recorded-trace
// importers (nvbit, accelsim, csv) and the hardware profile loader. The first
// byte picks the reader; the rest is the file. An import that succeeds must
// produce a trace that `trace check` finds no error in and that reads back;
// a profile that loads must serialise. Errors must be TraceError / runtime_error
// with a message, never a crash.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "sim/profile.h"
#include "traces/byte_io.h"
#include "traces/importers/importer.h"
#include "traces/text_reader.h"
#include "traces/trace_checker.h"
#include "traces/trace_writer.h"

namespace {

using namespace umsim;

// The importers read files: one scratch file per process.
const std::string& scratch_path() {
  static const std::string path = [] {
    const char* dir = std::getenv("TEST_TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/umsim-import-fuzz-" + std::to_string(::getpid());
  }();
  return path;
}

void fuzz_import(std::uint8_t selector, const std::string& body) {
  import::ImportOptions options;
  const char* formats[] = {"nvbit", "accelsim", "csv"};
  const std::string format = formats[(selector & 3) % 3];  // bits 0-1: the format; above: options
  options.gpu = (selector >> 2) & 1;
  options.strict = (selector >> 3) & 1;
  options.header = (selector >> 4) & 1;
  options.gap = (selector >> 5) & 1 ? 4096 : 1u << 20;
  if (format == "csv") options.columns = (selector >> 6) & 1 ? "time=0,op=1,addr=2,size=3,kernel=4,proc=5,stream=6" : "op=1,addr=2";
  {
    std::ofstream out(scratch_path(), std::ios::binary | std::ios::trunc);
    out << body;
  }
  std::string text;
  try {
    auto writer = trace::create_trace_writer_to_string(&text, trace::Encoding::kText);
    import::import_trace(format, scratch_path(), options, *writer);
    writer->finish();
  } catch (const trace::TraceError&) {
    return;
  } catch (const std::runtime_error&) {
    return;  // e.g. a bad --columns mapping: reported with a message
  }
  trace::TextReader reader(trace::memory_input(text), "<imported>");
  std::uint64_t errors = 0;
  trace::check_trace(reader, [&](const trace::TraceProblem& p) {
    if (p.severity == trace::Severity::kError) {
      std::cerr << format << " import produced a trace with an error: " << trace::to_string(p) << "\n" << text;
      ++errors;
    }
  });
  if (errors != 0) std::abort();
}

void fuzz_profile(const std::string& body) {
  try {
    const sim::HardwareProfile p = sim::parse_profile(body, "<fuzz>.toml");
    (void)sim::to_json(p).dump();
  } catch (const std::runtime_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] >= 0xf0)
    fuzz_profile(body);
  else
    fuzz_import(data[0], body);
  return 0;
}
