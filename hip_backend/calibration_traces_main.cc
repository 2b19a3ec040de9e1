// Writes the calibration microbenchmarks that tune_profile.py replays in the
// simulator, as text traces (the same traces `umsim-hip calibrate` runs):
//   calibration_traces OUT_DIR
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string_view>

#include "hip_backend/calibration_traces.h"
#include "traces/memory_trace_reader.h"
#include "traces/trace_copy.h"
#include "traces/trace_writer.h"

int main(int argc, char** argv) {
  using namespace umsim;
  // An option is not a directory name: `--help` once left a folder of that name.
  if (argc != 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: calibration_traces OUT_DIR\n");
    return argc == 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h") ? 0 : 2;
  }
  try {
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    for (auto& [file, t] : hip::tuner_traces()) {
      trace::MemoryTraceReader reader(std::move(t));
      auto writer = trace::create_trace_writer((dir / file).string(), trace::Encoding::kText, reader.version());
      trace::copy_trace(reader, *writer);
      writer->finish();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "calibration_traces: %s\n", e.what());
    return 1;
  }
  return 0;
}
