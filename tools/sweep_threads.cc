#include "tools/sweep_threads.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace umsim::cli {

unsigned run_points_on_threads(std::size_t count, unsigned threads, const std::function<std::string(std::size_t)>& run,
                               const std::function<bool(std::size_t, PointOutcome&)>& finish) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;  // one finish() at a time
  auto worker = [&] {
    for (std::size_t i; !stop && (i = next.fetch_add(1)) < count;) {
      PointOutcome outcome;
      try {
        outcome.line = run(i);
      } catch (const std::exception& e) {
        outcome.error = e.what();
      }
      std::lock_guard lock(mutex);
      if (!finish(i, outcome)) stop = true;
    }
  };
  const auto used = static_cast<unsigned>(std::min<std::size_t>(std::max(threads, 1u), count));
  std::vector<std::thread> pool;
  pool.reserve(used);
  for (unsigned t = 0; t < used; ++t) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  return used;
}

}  // namespace umsim::cli
