#include "sim/progress_meter.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace umsim::sim {

std::string progress_text(const std::string& what, std::uint64_t done, std::uint64_t total, const std::string& unit,
                          double elapsed_s) {
  std::string text = fmt::format("{}: {}/{} {}", what, done, total, unit);
  if (total == 0) return text;
  text += fmt::format(" ({:.0f}%), {:.1f} s", 100.0 * static_cast<double>(done) / static_cast<double>(total), elapsed_s);
  if (done > 0 && done < total)
    text += fmt::format(", ETA {:.0f} s",
                        elapsed_s * static_cast<double>(total - done) / static_cast<double>(done));
  return text;
}

ProgressMeter::ProgressMeter(std::function<double()> fraction_done)
    : fraction_done_(std::move(fraction_done)), start_(std::chrono::steady_clock::now()), last_(start_) {}

ProgressMeter::~ProgressMeter() { finish(); }

bool ProgressMeter::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

void ProgressMeter::update(std::uint64_t events) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0 || std::chrono::duration<double>(now - last_).count() < 0.2) return;
  last_ = now;
  const double f = fraction_done_ ? fraction_done_() : -1.0;
  std::string line = fmt::format("\rreplaying: {:.1f} M events, {:.1f} M events/s", events / 1e6, events / 1e6 / elapsed);
  if (f > 0.0 && f <= 1.0)
    line += fmt::format(", {:.0f}% done, ETA {:.0f} s", f * 100, elapsed * (1.0 - f) / f);
  line += "   ";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  shown_ = true;
}

void ProgressMeter::finish() {
  if (!shown_) return;
  std::fputs("\r\033[K", stderr);
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace umsim::sim
