// libFuzzer entry point for everything the workloads code parses: the first
// byte picks the parser (NVBit mem_trace, Accel-Sim, CSV, allocation side
// file, recorder log), the rest is its input. Malformed input must end in a
// TraceError; any other exception, crash or sanitizer report is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "hip_backend/recorder/record_log.h"
#include "hip_backend/recorder/record_to_trace.h"
#include "traces/generators/trace_summary.h"
#include "traces/importers/address_map.h"
#include "traces/importers/importer.h"
#include "traces/trace_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const int which = data[0] % 5;
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  static const std::string path = "/tmp/umsim_workload_fuzz_" + std::to_string(getpid()) + ".in";
  try {
    if (which == 4) {
      const auto log = umsim::recorder::parse_record_log(body, "fuzz.log");
      umsim::gen::SummaryWriter out;
      umsim::recorder::convert_record_log(log, out);
      return 0;
    }
    std::ofstream(path, std::ios::binary) << body;
    if (which == 3) {
      umsim::import::read_allocation_file(path);
      return 0;
    }
    umsim::import::ImportOptions options;
    options.columns = "time=0,op=1,addr=2,size=3,kernel=4,proc=5,stream=6";
    options.gap = 64 * 1024;
    umsim::gen::SummaryWriter out;
    umsim::import::import_trace(which == 0 ? "nvbit" : which == 1 ? "accelsim" : "csv", path, options, out);
  } catch (const umsim::trace::TraceError&) {
  }
  return 0;
}
