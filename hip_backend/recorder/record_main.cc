#include "hip_backend/recorder/record_main.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "hip_backend/recorder/record_log.h"
#include "hip_backend/recorder/record_to_trace.h"
#include "traces/trace_writer.h"

namespace umsim::recorder {
namespace {

constexpr const char* kUsage =
    "usage: umsim-hip record -o OUT [--log LOG] [--recorder LIB] [--encoding text|binary] [--compute zero|measured]\n"
    "                         -- PROGRAM [ARGS...]\n"
    "  Runs PROGRAM with the recorder preloaded (CUPTI callbacks and unified-memory fault records) and writes\n"
    "  a umsim trace of its allocations, prefetches, advice, kernels, syncs and the pages it faulted on.\n"
    "  -o OUT          output trace (.umtb: binary, otherwise text)\n"
    "  --log LOG       keep the raw recorder log at LOG (default: a temporary file, removed)\n"
    "  --recorder LIB  libumsim_recorder.so (default: $UMSIM_RECORDER_SO, else next to this program)\n"
    "  --from-log LOG  convert an existing recorder log instead of running a program\n"
    "  --compute zero|measured  kernel compute time in the trace: 0 (default; the simulator adds fault stalls)\n"
    "                  or the measured GPU duration (fault stalls included)\n";

std::string self_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(".") : exe.parent_path().string();
}

int fail(const std::string& message) {
  std::fprintf(stderr, "umsim-hip record: %s\n", message.c_str());
  return 2;
}

}  // namespace

int record_main(int argc, char** argv) {
  std::string output, log_path, library, from_log, encoding = "auto", compute = "zero";
  int program = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(std::string(name) + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--") {
        program = i + 1;
        break;
      } else if (a == "-o" || a == "--output") {
        output = value("-o");
      } else if (a == "--log") {
        log_path = value("--log");
      } else if (a == "--recorder") {
        library = value("--recorder");
      } else if (a == "--from-log") {
        from_log = value("--from-log");
      } else if (a == "--encoding") {
        encoding = value("--encoding");
      } else if (a == "--compute") {
        compute = value("--compute");
      } else if (a == "-h" || a == "--help") {
        std::fputs(kUsage, stdout);
        return 0;
      } else {
        return fail("unknown option '" + a + "'\n" + kUsage);
      }
    } catch (const std::exception& e) {
      return fail(e.what());
    }
  }
  if (output.empty()) return fail(std::string("-o OUT is required\n") + kUsage);
  if (encoding != "auto" && encoding != "text" && encoding != "binary")
    return fail("--encoding must be auto, text or binary");
  if (compute != "zero" && compute != "measured") return fail("--compute must be zero or measured");
  int program_status = 0;
  bool temporary_log = false;
  if (from_log.empty()) {
    if (program < 0 || program >= argc) return fail(std::string("no PROGRAM after '--'\n") + kUsage);
    if (library.empty()) {
      const char* env = std::getenv("UMSIM_RECORDER_SO");
      library = env ? env : self_dir() + "/libumsim_recorder.so";
    }
    if (!std::filesystem::exists(library))
      return fail("recorder library '" + library + "' not found (build it with hip_backend/recorder/build.sh, or pass --recorder)");
    library = std::filesystem::absolute(library).string();
    if (log_path.empty()) {
      log_path = (std::filesystem::temp_directory_path() / ("umsim-record-" + std::to_string(getpid()) + ".log")).string();
      temporary_log = true;
    }
    std::filesystem::remove(log_path);
    const pid_t child = fork();
    if (child < 0) return fail(std::string("fork failed: ") + std::strerror(errno));
    if (child == 0) {
      const char* old = std::getenv("LD_PRELOAD");
      const std::string preload = library + (old && *old ? std::string(":") + old : std::string());
      setenv("LD_PRELOAD", preload.c_str(), 1);
      setenv("UMSIM_RECORD_LOG", log_path.c_str(), 1);
      execvp(argv[program], argv + program);
      std::fprintf(stderr, "umsim-hip record: cannot run '%s': %s\n", argv[program], std::strerror(errno));
      _exit(127);
    }
    int status = 0;
    if (waitpid(child, &status, 0) < 0) return fail(std::string("waitpid failed: ") + std::strerror(errno));
    program_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (program_status == 127) return fail("the program could not be started");
    from_log = log_path;
  }
  try {
    const RecordLog log = read_record_log(from_log);
    const trace::Encoding enc = encoding == "auto"   ? trace::encoding_for_path(output)
                                : encoding == "text" ? trace::Encoding::kText
                                                     : trace::Encoding::kBinary;
    auto writer = trace::create_trace_writer(output, enc, trace_version_for(log));
    ConvertOptions convert;
    convert.measured_compute = compute == "measured";
    const ConvertStats s = convert_record_log(log, *writer, convert);
    writer->finish();
    std::printf("recorded %s: %llu allocations, %llu kernels, %llu GPU fault records, %llu CPU fault records "
                "(%llu unattributed, %llu outside allocations)%s\n",
                output.c_str(), static_cast<unsigned long long>(s.allocations),
                static_cast<unsigned long long>(s.kernels), static_cast<unsigned long long>(s.gpu_faults),
                static_cast<unsigned long long>(s.cpu_faults), static_cast<unsigned long long>(s.unattributed),
                static_cast<unsigned long long>(s.outside), log.complete ? "" : "; the log has no 'end' record (the program crashed?)");
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  if (temporary_log) std::filesystem::remove(log_path);
  if (program_status != 0) {
    std::fprintf(stderr, "umsim-hip record: the program exited with status %d\n", program_status);
    return program_status;
  }
  return 0;
}

}  // namespace umsim::recorder
