// Progress with ETA on stderr for long replays: shown only on a terminal and
// only once the replay has run for more than a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace umsim::sim {

// "sweep: 12/60 points (20%), 3.0 s, ETA 12 s": `done` of `total` items after
// `elapsed_s` seconds; the ETA assumes the remaining items take as long each.
std::string progress_text(const std::string& what, std::uint64_t done, std::uint64_t total, const std::string& unit,
                          double elapsed_s);

class ProgressMeter {
 public:
  // `fraction_done` returns the share of the input consumed (0..1), or a
  // negative number when unknown (then no ETA is shown).
  explicit ProgressMeter(std::function<double()> fraction_done);
  ~ProgressMeter();

  void update(std::uint64_t events);
  void finish();  // clears the line

  static bool stderr_is_terminal();

 private:
  std::function<double()> fraction_done_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  bool shown_ = false;
};

}  // namespace umsim::sim
