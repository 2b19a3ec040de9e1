// Progress with ETA on stderr for long replays: shown only on a terminal and
// only once the replay has run for more than a second.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace umsim::sim {

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
