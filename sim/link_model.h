// Transfer time over a link: a fixed latency plus size / bandwidth(size), where
// bandwidth grows with the transfer size (small DMA copies are slow). The curve
// is flat, UVMSmart's fitted arctangent form peak * 2/pi * atan(b * KiB), or
// measured points interpolated linearly in log2(size).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/types.h"

namespace umsim::sim {

struct BandwidthCurve {
  enum class Kind : std::uint8_t { kFlat, kAtan, kPoints };
  Kind kind = Kind::kFlat;
  double peak_gbps = 1.0;        // GB/s (1 GB/s = 1 byte/ns)
  double atan_b_per_kib = 0.0;   // kAtan: steepness b
  std::vector<std::pair<Bytes, double>> points;  // kPoints: (size, GB/s), ascending sizes

  // Bandwidth in bytes/ns for a transfer of `size` bytes.
  double gbps_at(Bytes size) const;
};

struct LinkProfile {
  Nanos latency_ns = 0;
  BandwidthCurve curve;

  // Duration of one copy of `bytes` (0 for 0 bytes). Rounded up to whole ns.
  Nanos transfer_ns(Bytes bytes) const;
};

const char* to_string(BandwidthCurve::Kind k);

}  // namespace umsim::sim
