#include "sim/link_model.h"

#include <cmath>

namespace umsim::sim {

double BandwidthCurve::gbps_at(Bytes size) const {
  switch (kind) {
    case Kind::kFlat:
      return peak_gbps;
    case Kind::kAtan: {
      const double kib = static_cast<double>(size) / 1024.0;
      return peak_gbps * 2.0 / M_PI * std::atan(atan_b_per_kib * kib);
    }
    case Kind::kPoints: {
      if (size <= points.front().first) return points.front().second;
      if (size >= points.back().first) return points.back().second;
      for (std::size_t i = 1; i < points.size(); ++i) {
        if (size > points[i].first) continue;
        const double x0 = std::log2(static_cast<double>(points[i - 1].first));
        const double x1 = std::log2(static_cast<double>(points[i].first));
        const double t = (std::log2(static_cast<double>(size)) - x0) / (x1 - x0);
        return points[i - 1].second + t * (points[i].second - points[i - 1].second);
      }
      return points.back().second;
    }
  }
  return peak_gbps;
}

Nanos LinkProfile::transfer_ns(Bytes bytes) const {
  if (bytes == 0) return 0;
  const double bw = curve.gbps_at(bytes);
  return latency_ns + static_cast<Nanos>(std::ceil(static_cast<double>(bytes) / bw));
}

const char* to_string(BandwidthCurve::Kind k) {
  switch (k) {
    case BandwidthCurve::Kind::kFlat: return "flat";
    case BandwidthCurve::Kind::kAtan: return "atan";
    case BandwidthCurve::Kind::kPoints: return "points";
  }
  return "?";
}

}  // namespace umsim::sim
