// `umsim-hip calibrate`: microbenchmarks that measure the hardware profile's
// parameters on the GPU, returned as raw JSON (see calibration_fit.h for the fit).
#pragma once

#include <nlohmann/json.hpp>

namespace umsim::hip {

struct CalibrateOptions {
  bool quick = false;  // fewer sizes and repetitions (smoke test)
  bool verbose = true;
};

nlohmann::ordered_json run_calibration(const CalibrateOptions& options);

// Checks that UM counters arrive (8 MiB migrated by one kernel); 0 when they do.
int probe_counters();

}  // namespace umsim::hip
