// Hardware profile loading: the checked-in profile, and every kind of bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/profile.h"
#include "sim/profile_lookup.h"
#include "tests/sim/profile_error_of.h"

namespace umsim::sim {
namespace {

std::string good_profile() {
  return R"(name = "t"
description = "test"
[gpu]
count = 2
memory = "16GiB"
peer_access = true
[copy_engines]
h2d = 1
d2h = 2
peer = 1
[link.host_to_gpu]
latency = "1us"
curve = "flat"
peak_gbps = 25
[link.gpu_to_host]
latency = 500
curve = "atan"
peak_gbps = 20.0
atan_b_per_kib = 0.07292
[link.gpu_to_gpu]
latency = "2us"
curve = "points"
points = [["4KiB", 2.0], ["64KiB", 10.0], ["2MiB", 40.0]]
[faults]
batch_size = 256
concurrency = 128
batch_cost = "30us"
va_block_cost = "20us"
page_cost = "200ns"
[cpu]
fault_cost = "20us"
first_touch_cost = "600ns"
page_access_cost = "300ns"
[remote]
gpu_to_host_gbps = 45.0
gpu_to_gpu_gbps = 40.0
[prefetch]
va_block_cost = "10us"
[eviction]
chunk_cost = "20us"
[host]
pinned_copy_gbps = 55.0
pageable_copy_gbps = 15.0
)";
}

using testing::error_of;

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(Profile, ParsesEveryKey) {
  const HardwareProfile p = parse_profile(good_profile(), "p.toml");
  EXPECT_EQ(p.gpus, 2);
  EXPECT_EQ(p.gpu_memory, 16ull << 30);
  EXPECT_EQ(p.copy_engines_d2h, 2);
  EXPECT_EQ(p.h2d.latency_ns, 1000u);
  EXPECT_EQ(p.d2h.latency_ns, 500u);
  EXPECT_EQ(p.fault_concurrency, 128u);
  EXPECT_EQ(p.fault_batch_ns, 30000u);
  EXPECT_EQ(p.fault_page_ns, 200u);
  EXPECT_EQ(p.cpu_first_touch_ns, 600u);
  EXPECT_DOUBLE_EQ(p.remote_gpu_to_host_gbps, 45.0);
  // Flat: 4096 B at 25 GB/s = 163.84 -> 164 ns + 1000.
  EXPECT_EQ(p.h2d.transfer_ns(4096), 1164u);
  // UVMSmart's fitted curve: 2.2 GB/s at 4 KiB, 10.4 at 64 KiB for a = 12; here a = 20.
  EXPECT_NEAR(p.d2h.curve.gbps_at(4096), 20.0 * 2 / M_PI * std::atan(0.07292 * 4), 1e-9);
  // Points, interpolated in log2(size): 16 KiB is halfway between 4 and 64 KiB.
  EXPECT_DOUBLE_EQ(p.peer.curve.gbps_at(16384), 6.0);
  EXPECT_DOUBLE_EQ(p.peer.curve.gbps_at(1024), 2.0);
  EXPECT_DOUBLE_EQ(p.peer.curve.gbps_at(1ull << 30), 40.0);
}

TEST(Profile, CheckedInH200Loads) {
  const HardwareProfile p = load_profile_file("profiles/h200-pcie5-published.toml");
  EXPECT_EQ(p.name, "h200-pcie5-published");
  EXPECT_EQ(p.fault_batch_size, 256u);
  EXPECT_GT(p.gpu_memory, 100ull << 30);
  // Published: ~55 GB/s for large copies, a few GB/s for 4 KiB.
  EXPECT_GT(p.h2d.curve.gbps_at(2 << 20), 54.0);
  EXPECT_LT(p.h2d.curve.gbps_at(4096), 5.0);
}

// The H100 profile is session 87's calibration on the H200 profile's structure
// (profiles/h100-hbm3.toml's header): its own memory and resident speed, the
// H200 profile's fault batching.
TEST(Profile, CheckedInH100IsOneCallsCalibration) {
  const HardwareProfile p = load_profile_file("profiles/h100-hbm3.toml");
  EXPECT_EQ(p.name, "h100-hbm3");
  EXPECT_EQ(p.gpu_memory, 81559ull << 20);  // nvidia-smi's total
  EXPECT_DOUBLE_EQ(p.gpu_access_gbps, 3327.0);
  EXPECT_DOUBLE_EQ(p.gpu_rmw_ns, 0.004611);
  EXPECT_EQ(p.fault_batch_size, 256u);
}

// The AMD profiles hold their sources' numbers (docs/profiles.md, [S1]-[S3]).
TEST(Profile, AmdProfilesHoldTheirPublishedValues) {
  const HardwareProfile apu = load_profile_file("profiles/mi300a.toml");
  EXPECT_EQ(apu.gpu_memory, 118'000'000'000ull);           // LLNL: 118 GB per SPX APU
  EXPECT_DOUBLE_EQ(apu.gpu_access_gbps, 3339.0);          // 63% of 5.3 TB/s (BabelStream Triad, SPX)
  EXPECT_DOUBLE_EQ(apu.remote_gpu_to_host_gbps, 2904.0);  // 4 KB pages ~15% slower (LLNL)
  const HardwareProfile gcd = load_profile_file("profiles/mi250x.toml");
  EXPECT_EQ(gcd.gpu_memory, 64ull << 30);                 // 64 GB HBM2E per GCD (OLCF)
  EXPECT_DOUBLE_EQ(gcd.h2d.curve.peak_gbps, 36.0);        // Infinity Fabric CPU-GCD peak (OLCF)
  EXPECT_DOUBLE_EQ(gcd.remote_gpu_to_host_gbps, 36.0);
  const HardwareProfile x = load_profile_file("profiles/mi300x.toml");
  EXPECT_EQ(x.gpu_memory, 192ull << 30);
  const HardwareProfile vii = load_profile_file("profiles/radeon-vii.toml");
  EXPECT_DOUBLE_EQ(vii.remote_gpu_to_host_gbps, 15.75);  // PCIe 3.0 x16 line rate
}

// The shipping default holds the values calibrated on an H200
// (profiles/raw/h200-pcie5/fit_values.txt, calibration session 8): 16.5 GB/s
// GPU-to-host, 51.25 GB/s peak host-to-GPU (that session's fit before the peak
// came from the largest prefetches alone: kept, the profile says why); the keys every calibration measures
// directly at the median of sessions 40-56's fourteen (hip_backend/
// pool_calibrations.py): 48.03 GB/s remote reads in 64-byte units, resident
// touches in 64-byte units at 4976 GB/s, a 5776 ns launch.
TEST(Profile, DefaultIsTheCalibratedH200) {
  const HardwareProfile p = load_profile_file(std::string("profiles/") + kDefaultProfile + ".toml");
  EXPECT_EQ(p.name, "h200-pcie5");
  // The values `fit_profile` derives from profiles/raw/h200-pcie5/calibration.json
  // (profiles/raw/h200-pcie5/fit_values.txt), not the published 55 GB/s starting point;
  // a recalibration updates them here (the host-to-device peak is the former fit's).
  EXPECT_DOUBLE_EQ(p.h2d.curve.peak_gbps, 51.25);
  EXPECT_DOUBLE_EQ(p.d2h.curve.peak_gbps, 16.5);
  EXPECT_DOUBLE_EQ(p.remote_gpu_to_host_gbps, 51.32);
  EXPECT_EQ(p.remote_access_unit, 64u);
  EXPECT_DOUBLE_EQ(p.gpu_access_gbps, 4976);
  EXPECT_EQ(p.gpu_access_unit, 64u);
  EXPECT_EQ(p.gpu_launch_ns, 5776u);
  // traces/probe/cpu_faults.umt word and page reads and writes, pooled over sessions 42-91's 22
  // calibrations (hip_backend/pool_cpu_read_faults.py --with-writes).
  EXPECT_EQ(p.cpu_read_fault_cost(), 32960u);
  EXPECT_EQ(p.cpu_faulted_read_ns, std::optional<Nanos>(398));
  EXPECT_EQ(p.cpu_fault_ns, 54636u);
  EXPECT_EQ(p.cpu_faulted_write_ns, std::optional<Nanos>(422));
  EXPECT_EQ(p.cpu_read_access_ns(), 652u);    // the "resident_read" phase
  EXPECT_EQ(p.cpu_touch_ns(false, 1), 76u);   // one line read: the "cpu_words" runs
  ASSERT_FALSE(p.calibrated_on.empty());
  EXPECT_EQ(p.calibrated_on.front().first, "gpu");
}

// The population and GPU-access keys are optional: left out, population
// costs the migration's per-block cost and nothing else, resident accesses are
// free (profiles written before the keys replay as before).
TEST(Profile, PopulateAndAccessKeysAreOptional) {
  const HardwareProfile plain = parse_profile(good_profile(), "p.toml");
  EXPECT_EQ(plain.populate_block_ns(), 20000u);
  EXPECT_EQ(plain.populate_gbps, 0.0);
  EXPECT_EQ(plain.gpu_access_gbps, 0.0);
  EXPECT_EQ(plain.duplicate_block_ns(), 20000u);
  const std::string with_keys =
      replace(replace(good_profile(), "page_cost = \"200ns\"\n",
                      "page_cost = \"200ns\"\npopulate_va_block_cost = \"5us\"\npopulate_gbps = 30\n"
                      "duplicate_va_block_cost = \"10us\"\n"),
              "peer_access = true\n", "peer_access = true\naccess_gbps = 1500\n");
  const HardwareProfile p = parse_profile(with_keys, "p.toml");
  EXPECT_EQ(p.populate_block_ns(), 5000u);
  EXPECT_EQ(p.populate_gbps, 30.0);
  EXPECT_EQ(p.gpu_access_gbps, 1500.0);
  EXPECT_EQ(p.duplicate_block_ns(), 10000u);
  EXPECT_EQ(to_json(p)["faults"]["populate_va_block_cost_ns"], 5000u);
  EXPECT_EQ(to_json(p)["gpu"]["access_gbps"], 1500.0);
  // cpu.page_read_cost: page_access_cost (300 ns) unless given.
  EXPECT_EQ(plain.cpu_read_access_ns(), 300u);
  const std::string reads = replace(good_profile(), "page_access_cost = \"300ns\"\n",
                                    "page_access_cost = \"300ns\"\npage_read_cost = \"120ns\"\n");
  EXPECT_EQ(parse_profile(reads, "p.toml").cpu_read_access_ns(), 120u);
  EXPECT_EQ(to_json(parse_profile(reads, "p.toml"))["cpu"]["page_read_cost_ns"], 120u);
  // prefetch.peer_va_block_cost: va_block_cost unless given.
  EXPECT_EQ(plain.prefetch_peer_block_ns(), plain.prefetch_va_block_ns);
  const std::string peer = replace(good_profile(), "[prefetch]\n", "[prefetch]\npeer_va_block_cost = \"7us\"\n");
  EXPECT_EQ(parse_profile(peer, "p.toml").prefetch_peer_block_ns(), 7000u);
  EXPECT_EQ(to_json(parse_profile(peer, "p.toml"))["prefetch"]["peer_va_block_cost_ns"], 7000u);
  // prefetch.to_cpu_va_block_cost: va_block_cost unless given.
  EXPECT_EQ(plain.prefetch_to_cpu_block_ns(), plain.prefetch_va_block_ns);
  const std::string to_cpu = replace(good_profile(), "[prefetch]\n", "[prefetch]\nto_cpu_va_block_cost = \"60us\"\n");
  EXPECT_EQ(parse_profile(to_cpu, "p.toml").prefetch_to_cpu_block_ns(), 60000u);
  EXPECT_EQ(to_json(parse_profile(to_cpu, "p.toml"))["prefetch"]["to_cpu_va_block_cost_ns"], 60000u);
  // prefetch.to_cpu_held_va_block_cost: to_cpu_va_block_cost unless given.
  EXPECT_EQ(parse_profile(to_cpu, "p.toml").prefetch_to_cpu_held_block_ns(), 60000u);
  const std::string held = replace(to_cpu, "[prefetch]\n", "[prefetch]\nto_cpu_held_va_block_cost = \"0us\"\n");
  EXPECT_EQ(parse_profile(held, "p.toml").prefetch_to_cpu_held_block_ns(), 0u);
  EXPECT_EQ(to_json(parse_profile(held, "p.toml"))["prefetch"]["to_cpu_held_va_block_cost_ns"], 0u);
  // cpu.read_fault_cost: fault_cost (20 us) unless given.
  EXPECT_EQ(plain.cpu_read_fault_cost(), 20000u);
  const std::string read_faults =
      replace(good_profile(), "fault_cost = \"20us\"\n", "fault_cost = \"20us\"\nread_fault_cost = \"5us\"\n");
  EXPECT_EQ(parse_profile(read_faults, "p.toml").cpu_read_fault_cost(), 5000u);
  EXPECT_EQ(to_json(parse_profile(read_faults, "p.toml"))["cpu"]["read_fault_cost_ns"], 5000u);
  EXPECT_EQ(error_of(replace(with_keys, "populate_gbps = 30", "populate_gbps = 0")),
            "p.toml:32: 'faults.populate_gbps' must be positive (or inf: no transfer cost)");
  EXPECT_EQ(error_of(replace(with_keys, "access_gbps = 1500", "access_gbps = \"fast\"")),
            "p.toml:7: 'gpu.access_gbps' must be a number");
  // access_lanes: 1 (address order) unless given; 1 .. 2^20.
  EXPECT_EQ(plain.gpu_access_lanes, 1u);
  const std::string lanes = replace(with_keys, "access_gbps = 1500\n", "access_gbps = 1500\naccess_lanes = 132\n");
  EXPECT_EQ(parse_profile(lanes, "p.toml").gpu_access_lanes, 132u);
  EXPECT_EQ(to_json(parse_profile(lanes, "p.toml"))["gpu"]["access_lanes"], 132u);
  EXPECT_NE(error_of(replace(lanes, "access_lanes = 132", "access_lanes = 0")).find("p.toml:8: 'gpu.access_lanes'"),
            std::string::npos)
      << error_of(replace(lanes, "access_lanes = 132", "access_lanes = 0"));
  // access_window: 0 (the whole range) and absent from the JSON unless given.
  EXPECT_EQ(plain.gpu_access_window, 0u);
  EXPECT_FALSE(to_json(plain)["gpu"].contains("access_window"));
  const std::string window = replace(lanes, "access_lanes = 132\n", "access_lanes = 132\naccess_window = 8192\n");
  EXPECT_EQ(parse_profile(window, "p.toml").gpu_access_window, 8192u);
  EXPECT_EQ(to_json(parse_profile(window, "p.toml"))["gpu"]["access_window"], 8192u);
  EXPECT_NE(error_of(replace(window, "access_window = 8192", "access_window = -1")).find("p.toml:9: 'gpu.access_window'"),
            std::string::npos)
      << error_of(replace(window, "access_window = 8192", "access_window = -1"));
  // fill_lanes: unset (0: the memset's fill kernel sweeps access_lanes) and
  // absent from the JSON unless given; 1 .. 2^20.
  EXPECT_EQ(plain.gpu_fill_lanes, 0u);
  EXPECT_FALSE(to_json(plain)["gpu"].contains("fill_lanes"));
  const std::string fill = replace(lanes, "access_lanes = 132\n", "access_lanes = 132\nfill_lanes = 29\n");
  EXPECT_EQ(parse_profile(fill, "p.toml").gpu_fill_lanes, 29u);
  EXPECT_EQ(to_json(parse_profile(fill, "p.toml"))["gpu"]["fill_lanes"], 29u);
  EXPECT_NE(error_of(replace(fill, "fill_lanes = 29", "fill_lanes = -3")).find("p.toml:9: 'gpu.fill_lanes'"),
            std::string::npos)
      << error_of(replace(fill, "fill_lanes = 29", "fill_lanes = -3"));
}

// gpu.access_unit / remote.access_unit: 4 KiB (whole pages) unless given; a
// power of two from 4 B to 4 KiB, else an error naming the line and the value.
TEST(Profile, AccessUnitIsAPowerOfTwoUpToAPage) {
  EXPECT_EQ(parse_profile(good_profile(), "p.toml").gpu_access_unit, 4096u);
  const std::string unit = replace(good_profile(), "peer_access = true\n", "peer_access = true\naccess_unit = \"64B\"\n");
  EXPECT_EQ(parse_profile(unit, "p.toml").gpu_access_unit, 64u);
  EXPECT_EQ(error_of(replace(unit, "\"64B\"", "\"48B\"")),
            "p.toml:7: 'gpu.access_unit' must be a power of two from 4B to 4KiB, not 48 bytes");
  EXPECT_EQ(error_of(replace(unit, "\"64B\"", "\"8KiB\"")),
            "p.toml:7: 'gpu.access_unit' must be a power of two from 4B to 4KiB, not 8192 bytes");
}

// gpu.access_cost and remote.access_cost: fractions of a nanosecond per page
// touch, as a number of ns or a decimal with ps, ns or us.
TEST(Profile, TouchCostsTakeFractionsOfANanosecond) {
  const auto gpu = [&](const std::string& v) {
    return replace(good_profile(), "peer_access = true\n", "peer_access = true\naccess_cost = " + v + "\n");
  };
  EXPECT_EQ(parse_profile(good_profile(), "p.toml").gpu_access_ns, 0.0);
  EXPECT_DOUBLE_EQ(parse_profile(gpu("\"0.093ns\""), "p.toml").gpu_access_ns, 0.093);
  EXPECT_DOUBLE_EQ(parse_profile(gpu("\"93ps\""), "p.toml").gpu_access_ns, 0.093);
  EXPECT_DOUBLE_EQ(parse_profile(gpu("\"1.5us\""), "p.toml").gpu_access_ns, 1500.0);
  EXPECT_DOUBLE_EQ(parse_profile(gpu("0.25"), "p.toml").gpu_access_ns, 0.25);
  EXPECT_DOUBLE_EQ(parse_profile(gpu("12"), "p.toml").gpu_access_ns, 12.0);
  EXPECT_EQ(to_json(parse_profile(gpu("\"0.093ns\""), "p.toml"))["gpu"]["access_cost_ns"], 0.093);
  const std::string remote =
      replace(good_profile(), "gpu_to_gpu_gbps = 40.0\n", "gpu_to_gpu_gbps = 40.0\naccess_cost = \"0.209ns\"\n");
  EXPECT_DOUBLE_EQ(parse_profile(remote, "p.toml").remote_access_ns, 0.209);
  EXPECT_DOUBLE_EQ(parse_profile(gpu("\"0.1\""), "p.toml").gpu_access_ns, 0.1);  // a bare number is ns
  for (const char* bad : {"\"-1ns\"", "\"0.1.2ns\"", "\"1e400ns\"", "\"fast\"", "\"1min\"", "-0.5", "true"})
    EXPECT_NE(error_of(gpu(bad)).find("p.toml:7: 'gpu.access_cost' must be a duration such as \"0.1ns\""),
              std::string::npos)
        << bad << ": " << error_of(gpu(bad));
  EXPECT_NE(error_of(gpu("\"2000000000ns\"")).find("'gpu.access_cost' is longer than the 1s"), std::string::npos);
  EXPECT_DOUBLE_EQ(parse_profile(gpu("\"0.1ms\""), "p.toml").gpu_access_ns, 100000.0);
  EXPECT_NE(error_of(gpu("\"fast\"")).find("expected a number in duration 'fast'"), std::string::npos);
}

// remote.request_unit / request_cost: 128 B and 0 (bytes only) unless given,
// echoed only where set; the unit a power of two as access_unit's, the cost a
// fraction of a nanosecond.
TEST(Profile, RemoteRequestsHaveAUnitAndACost) {
  const HardwareProfile plain = parse_profile(good_profile(), "p.toml");
  EXPECT_EQ(plain.remote_request_unit, 128u);
  EXPECT_EQ(plain.remote_request_ns, 0.0);
  EXPECT_FALSE(to_json(plain)["remote"].contains("request_cost_ns"));
  const std::string requests = replace(good_profile(), "gpu_to_gpu_gbps = 40.0\n",
                                       "gpu_to_gpu_gbps = 40.0\nrequest_unit = \"64B\"\nrequest_cost = \"1.558ns\"\n");
  const HardwareProfile p = parse_profile(requests, "p.toml");
  EXPECT_EQ(p.remote_request_unit, 64u);
  EXPECT_DOUBLE_EQ(p.remote_request_ns, 1.558);
  EXPECT_EQ(to_json(p)["remote"]["request_unit_bytes"], 64u);
  EXPECT_EQ(to_json(p)["remote"]["request_cost_ns"], 1.558);
  const std::string bad_unit = replace(requests, "\"64B\"", "\"96B\"");
  EXPECT_NE(error_of(bad_unit).find("'remote.request_unit' must be a power of two from 4B to 4KiB, not 96 bytes"),
            std::string::npos)
      << error_of(bad_unit);
  EXPECT_NE(error_of(replace(requests, "\"1.558ns\"", "\"-1ns\"")).find("'remote.request_cost' must be a duration"),
            std::string::npos);
}

// remote.gpu_write_to_host_gbps: the reads' bandwidth (and not echoed) unless given.
TEST(Profile, StoresToHostMemoryMayHaveTheirOwnBandwidth) {
  const HardwareProfile plain = parse_profile(good_profile(), "p.toml");
  EXPECT_FALSE(plain.remote_gpu_write_to_host_gbps);
  EXPECT_DOUBLE_EQ(plain.remote_write_to_host_gbps(), plain.remote_gpu_to_host_gbps);
  EXPECT_FALSE(to_json(plain)["remote"].contains("gpu_write_to_host_gbps"));
  const std::string writes =
      replace(good_profile(), "gpu_to_gpu_gbps = 40.0\n", "gpu_to_gpu_gbps = 40.0\ngpu_write_to_host_gbps = 50.5\n");
  const HardwareProfile p = parse_profile(writes, "p.toml");
  EXPECT_DOUBLE_EQ(p.remote_write_to_host_gbps(), 50.5);
  EXPECT_EQ(to_json(p)["remote"]["gpu_write_to_host_gbps"], 50.5);
  EXPECT_NE(error_of(replace(writes, "= 50.5", "= -1")).find("gpu_write_to_host_gbps"), std::string::npos)
      << error_of(replace(writes, "= 50.5", "= -1"));
}

// gpu.rmw_cost: 0 (and not echoed) unless given; a fine duration, in ps too.
TEST(Profile, ReadModifyWriteStoresHaveACost) {
  const HardwareProfile plain = parse_profile(good_profile(), "p.toml");
  EXPECT_EQ(plain.gpu_rmw_ns, 0.0);
  EXPECT_FALSE(to_json(plain)["gpu"].contains("rmw_cost_ns"));
  const std::string with = replace(good_profile(), "peer_access = true\n", "peer_access = true\nrmw_cost = \"4.79ps\"\n");
  const HardwareProfile p = parse_profile(with, "p.toml");
  EXPECT_DOUBLE_EQ(p.gpu_rmw_ns, 0.00479);
  EXPECT_DOUBLE_EQ(to_json(p)["gpu"]["rmw_cost_ns"].get<double>(), 0.00479);
  EXPECT_NE(error_of(replace(with, "\"4.79ps\"", "\"-1ns\"")).find("'gpu.rmw_cost' must be a duration"),
            std::string::npos)
      << error_of(replace(with, "\"4.79ps\"", "\"-1ns\""));
  EXPECT_NE(error_of(replace(with, "\"4.79ps\"", "\"fast\"")).find("gpu.rmw_cost"), std::string::npos);
}

// gpu.fault_compute_overlap: 0 unless given; a fraction from 0 to 1.
TEST(Profile, FaultComputeOverlapIsAFraction) {
  EXPECT_EQ(parse_profile(good_profile(), "p.toml").gpu_fault_compute_overlap, 0.0);
  const auto with = [&](const std::string& v) {
    return replace(good_profile(), "peer_access = true\n", "peer_access = true\nfault_compute_overlap = " + v + "\n");
  };
  EXPECT_EQ(parse_profile(with("0.25"), "p.toml").gpu_fault_compute_overlap, 0.25);
  EXPECT_EQ(parse_profile(with("1"), "p.toml").gpu_fault_compute_overlap, 1.0);
  EXPECT_EQ(parse_profile(with("0"), "p.toml").gpu_fault_compute_overlap, 0.0);
  EXPECT_EQ(to_json(parse_profile(with("0.25"), "p.toml"))["gpu"]["fault_compute_overlap"], 0.25);
  for (const char* bad : {"1.5", "-0.1", "\"half\""})
    EXPECT_NE(error_of(with(bad)).find("'gpu.fault_compute_overlap' must be a number from 0 to 1"), std::string::npos)
        << bad << ": " << error_of(with(bad));
}

// gpu.compute_beside_faults: 1 (compute as fast as alone) unless given; a
// fraction from 0 to 1, in the resolved configuration only where set.
TEST(Profile, ComputeBesideFaultsIsAFraction) {
  const HardwareProfile plain = parse_profile(good_profile(), "p.toml");
  EXPECT_EQ(plain.gpu_compute_beside_faults, 1.0);
  EXPECT_FALSE(to_json(plain)["gpu"].contains("compute_beside_faults"));
  const auto with = [&](const std::string& v) {
    return replace(good_profile(), "peer_access = true\n", "peer_access = true\ncompute_beside_faults = " + v + "\n");
  };
  EXPECT_EQ(parse_profile(with("0.64"), "p.toml").gpu_compute_beside_faults, 0.64);
  EXPECT_EQ(parse_profile(with("0"), "p.toml").gpu_compute_beside_faults, 0.0);
  EXPECT_EQ(to_json(parse_profile(with("0.64"), "p.toml"))["gpu"]["compute_beside_faults"], 0.64);
  for (const char* bad : {"1.5", "-0.1", "\"slow\""})
    EXPECT_NE(error_of(with(bad)).find("'gpu.compute_beside_faults' must be a number from 0 to 1"), std::string::npos)
        << bad << ": " << error_of(with(bad));
}

// gpu.resident_kernels_wait_for_faults: off unless given; true or false, in
// the resolved configuration only where on.
TEST(Profile, ResidentKernelsWaitForFaultsIsASwitch) {
  const HardwareProfile plain = parse_profile(good_profile(), "p.toml");
  EXPECT_FALSE(plain.gpu_resident_kernels_wait_for_faults);
  EXPECT_FALSE(to_json(plain)["gpu"].contains("resident_kernels_wait_for_faults"));
  const auto with = [&](const std::string& v) {
    return replace(good_profile(), "peer_access = true\n",
                   "peer_access = true\nresident_kernels_wait_for_faults = " + v + "\n");
  };
  EXPECT_TRUE(parse_profile(with("true"), "p.toml").gpu_resident_kernels_wait_for_faults);
  EXPECT_FALSE(parse_profile(with("false"), "p.toml").gpu_resident_kernels_wait_for_faults);
  EXPECT_EQ(to_json(parse_profile(with("true"), "p.toml"))["gpu"]["resident_kernels_wait_for_faults"], true);
  for (const char* bad : {"1", "\"yes\""})
    EXPECT_NE(error_of(with(bad)).find("'gpu.resident_kernels_wait_for_faults' must be true or false"),
              std::string::npos)
        << bad << ": " << error_of(with(bad));
}

// host.other_stream_launch_gap: an optional duration, 0 unless given.
TEST(Profile, OtherStreamLaunchGapIsAnOptionalDuration) {
  const HardwareProfile plain = parse_profile(good_profile(), "p.toml");
  EXPECT_EQ(plain.other_stream_launch_gap_ns, 0u);
  EXPECT_FALSE(to_json(plain)["host"].contains("other_stream_launch_gap_ns"));
  const std::string with =
      replace(good_profile(), "pageable_copy_gbps = 15.0\n", "pageable_copy_gbps = 15.0\nother_stream_launch_gap = \"43us\"\n");
  EXPECT_EQ(parse_profile(with, "p.toml").other_stream_launch_gap_ns, 43000u);
  EXPECT_EQ(to_json(parse_profile(with, "p.toml"))["host"]["other_stream_launch_gap_ns"], 43000u);
  EXPECT_EQ(error_of(replace(with, "\"43us\"", "-3")), "p.toml:44: 'host.other_stream_launch_gap' must not be negative");
}

// copy_engines.fault_share: absent, off (one timeline per direction, and the
// resolved configuration without it); a share above 0 and at most 1.
TEST(Profile, LinkSharingTakesTheFaultShare) {
  const HardwareProfile plain = parse_profile(good_profile(), "p.toml");
  EXPECT_FALSE(plain.link_sharing.on);
  EXPECT_FALSE(to_json(plain)["copy_engines"].contains("fault_share"));
  const auto with = [&](const std::string& v) {
    return replace(good_profile(), "peer = 1\n[link", "peer = 1\nfault_share = " + v + "\n[link");
  };
  const HardwareProfile p = parse_profile(with("0.25"), "p.toml");
  EXPECT_TRUE(p.link_sharing.on);
  EXPECT_EQ(p.link_sharing.fault_share, 0.25);
  EXPECT_EQ(to_json(p)["copy_engines"]["fault_share"], 0.25);
  EXPECT_EQ(parse_profile(with("1"), "p.toml").link_sharing.fault_share, 1.0);
  for (const char* bad : {"0", "1.5", "-0.1", "\"half\""})
    EXPECT_NE(error_of(with(bad)).find("'copy_engines.fault_share' must be a number above 0 and at most 1"),
              std::string::npos)
        << bad << ": " << error_of(with(bad));
}

TEST(Profile, UnknownKeyNamesItsLine) {
  EXPECT_EQ(error_of(replace(good_profile(), "latency = \"1us\"", "latency = \"1us\"\nlatncy = 3")),
            "p.toml:13: unknown key 'link.host_to_gpu.latncy'");
  EXPECT_EQ(error_of("extra = 1\n" + good_profile()), "p.toml:1: unknown key 'extra'");
}

TEST(Profile, WrongTypesAndValues) {
  EXPECT_EQ(error_of(replace(good_profile(), "batch_size = 256", "batch_size = \"256\"")),
            "p.toml:25: 'faults.batch_size' must be an integer");
  EXPECT_EQ(error_of(replace(good_profile(), "count = 2", "count = 0")),
            "p.toml:4: 'gpu.count' = 0 is out of range [1, 15]");
  EXPECT_EQ(error_of(replace(good_profile(), "memory = \"16GiB\"", "memory = \"16GB\"")).rfind("p.toml:5: 'gpu.memory': ", 0), 0u);
  EXPECT_EQ(error_of(replace(good_profile(), "page_cost = \"200ns\"", "page_cost = \"200 parsecs\"")).rfind("p.toml:29: 'faults.page_cost': ", 0), 0u);
  EXPECT_EQ(error_of(replace(good_profile(), "peak_gbps = 25", "peak_gbps = -25")),
            "p.toml:14: 'link.host_to_gpu.peak_gbps' must be positive (or inf: no transfer cost)");
  EXPECT_EQ(error_of(replace(good_profile(), "curve = \"flat\"", "curve = \"cubic\"")),
            "p.toml:13: 'link.host_to_gpu.curve' must be \"flat\", \"atan\" or \"points\", not \"cubic\"");
  EXPECT_EQ(error_of(replace(good_profile(), "[\"64KiB\", 10.0], ", "[\"1KiB\", 10.0], ")),
            "p.toml:23: 'link.gpu_to_gpu.points' sizes must be strictly ascending");
  EXPECT_EQ(error_of(replace(good_profile(), "peer_access = true", "peer_access = 1")),
            "p.toml:6: 'gpu.peer_access' must be true or false");
}

// [host] copy_call_cost and pageable_to_host_call_cost (durations up to 1 s)
// and pageable_to_host_copy_gbps (a bandwidth from 0.001 GB/s, or inf):
// optional; a bad value is refused with its line.
std::string with_host_key(const std::string& key, const std::string& value) {
  return good_profile() + key + " = " + value + "\n";  // line 44, in [host]
}

TEST(Profile, HostCopyKeysTakeTheirRanges) {
  const HardwareProfile none = parse_profile(good_profile(), "p.toml");
  EXPECT_EQ(none.copy_call_ns, 0u);
  EXPECT_DOUBLE_EQ(none.pageable_d2h_copy_gbps(), 15.0);  // left out: pageable_copy_gbps
  EXPECT_EQ(parse_profile(with_host_key("copy_call_cost", "\"14798ns\""), "p.toml").copy_call_ns, 14798u);
  EXPECT_EQ(parse_profile(with_host_key("copy_call_cost", "0"), "p.toml").copy_call_ns, 0u);
  EXPECT_EQ(parse_profile(with_host_key("copy_call_cost", "\"1s\""), "p.toml").copy_call_ns, 1000000000u);
  EXPECT_DOUBLE_EQ(parse_profile(with_host_key("pageable_to_host_copy_gbps", "13.85"), "p.toml").pageable_d2h_copy_gbps(),
                   13.85);
  EXPECT_DOUBLE_EQ(parse_profile(with_host_key("pageable_to_host_copy_gbps", "0.001"), "p.toml").pageable_d2h_copy_gbps(),
                   0.001);
  EXPECT_TRUE(std::isinf(
      parse_profile(with_host_key("pageable_to_host_copy_gbps", "inf"), "p.toml").pageable_d2h_copy_gbps()));
  EXPECT_EQ(none.pageable_to_host_call_ns, 0u);
  const HardwareProfile staged = parse_profile(with_host_key("pageable_to_host_call_cost", "\"14us\""), "p.toml");
  EXPECT_EQ(staged.pageable_to_host_call_ns, 14000u);
  EXPECT_EQ(to_json(staged)["host"]["pageable_to_host_call_cost_ns"], 14000u);
  EXPECT_EQ(error_of(with_host_key("pageable_to_host_call_cost", "-5")),
            "p.toml:44: 'host.pageable_to_host_call_cost' must not be negative");
}

// [host] pageable_cached_copy_gbps and pageable_cache_bytes: together or not
// at all; echoed where set.
TEST(Profile, PageableCacheKeysComeTogether) {
  const HardwareProfile none = parse_profile(good_profile(), "p.toml");
  EXPECT_FALSE(none.pageable_cached_copy_gbps);
  EXPECT_EQ(none.pageable_cache_bytes, 0u);
  EXPECT_FALSE(to_json(none)["host"].contains("pageable_cached_copy_gbps"));
  const HardwareProfile cached = parse_profile(
      good_profile() + "pageable_cached_copy_gbps = 12.5\npageable_cache_bytes = \"32MiB\"\n", "p.toml");
  EXPECT_DOUBLE_EQ(*cached.pageable_cached_copy_gbps, 12.5);
  EXPECT_EQ(cached.pageable_cache_bytes, 32u << 20);
  EXPECT_EQ(to_json(cached)["host"]["pageable_cached_copy_gbps"], 12.5);
  EXPECT_EQ(to_json(cached)["host"]["pageable_cache_bytes"], 32u << 20);
  EXPECT_EQ(error_of(with_host_key("pageable_cached_copy_gbps", "12.5")), "p.toml:41: missing key 'host.pageable_cache_bytes'");
  EXPECT_EQ(error_of(with_host_key("pageable_cache_bytes", "\"32MiB\"")), "p.toml:44: 'host.pageable_cache_bytes' is given without "
            "'host.pageable_cached_copy_gbps' (the cached speed)");
  EXPECT_EQ(error_of(good_profile() + "pageable_cached_copy_gbps = 0\npageable_cache_bytes = \"32MiB\"\n"),
            "p.toml:44: 'host.pageable_cached_copy_gbps' must be positive (or inf: no transfer cost)");
  EXPECT_EQ(error_of(good_profile() + "pageable_cached_copy_gbps = 12.5\npageable_cache_bytes = \"lots\"\n"),
            "p.toml:45: 'host.pageable_cache_bytes': expected a number in size 'lots'");
}

// [host] pageable_warming_share: 0-2, only beside the cached speed; echoed where set.
TEST(Profile, PageableWarmingShare) {
  const std::string cached = good_profile() + "pageable_cached_copy_gbps = 12.5\npageable_cache_bytes = \"32MiB\"\n";
  EXPECT_EQ(parse_profile(cached, "p.toml").pageable_warming_share, 0.0);
  EXPECT_FALSE(to_json(parse_profile(cached, "p.toml"))["host"].contains("pageable_warming_share"));
  const HardwareProfile warming = parse_profile(cached + "pageable_warming_share = 0.69\n", "p.toml");
  EXPECT_DOUBLE_EQ(warming.pageable_warming_share, 0.69);
  EXPECT_EQ(to_json(warming)["host"]["pageable_warming_share"], 0.69);
  for (const char* v : {"-0.1", "2.5", "\"half\"", "nan"})
    EXPECT_EQ(error_of(cached + "pageable_warming_share = " + v + "\n"),
              "p.toml:46: 'host.pageable_warming_share' must be a number from 0 to 2") << v;
  EXPECT_EQ(error_of(with_host_key("pageable_warming_share", "0.5")), "p.toml:44: 'host.pageable_warming_share' is given "
            "without 'host.pageable_cached_copy_gbps' (the cached speed)");
}

TEST(Profile, HostCopyCallCostRefusesBadValues) {
  const auto error = [](const std::string& v) { return error_of(with_host_key("copy_call_cost", v)); };
  const std::string not_duration = "p.toml:44: 'host.copy_call_cost' must be a duration such as \"20us\" or an integer of ns";
  EXPECT_EQ(error("-5"), "p.toml:44: 'host.copy_call_cost' must not be negative");
  EXPECT_EQ(error("\"-5us\""), "p.toml:44: 'host.copy_call_cost': negative duration '-5us'");
  EXPECT_EQ(error("\"fast\""), "p.toml:44: 'host.copy_call_cost': expected a number in duration 'fast'");
  EXPECT_EQ(error("\"20 us\""), "p.toml:44: 'host.copy_call_cost': unknown unit ' us' in '20 us' (expected ns, us, ms or s)");
  for (const char* v : {"1.5", "nan", "inf", "-inf", "true"}) EXPECT_EQ(error(v), not_duration) << v;
  // Beyond one second: a mistake of units, and the simulated clock would overflow after a few calls.
  EXPECT_EQ(error("1000000001"), "p.toml:44: 'host.copy_call_cost' = 1000000001ns is longer than the 1s the model takes "
                                 "for one operation's cost (a mistake of units?)");
  EXPECT_EQ(error("\"2s\""), "p.toml:44: 'host.copy_call_cost' = 2000000000ns is longer than the 1s the model takes "
                             "for one operation's cost (a mistake of units?)");
  EXPECT_EQ(error("9223372036854775807"), "p.toml:44: 'host.copy_call_cost' = 9223372036854775807ns is longer than the "
                                          "1s the model takes for one operation's cost (a mistake of units?)");
  EXPECT_EQ(error("\"99999999999999s\""), "p.toml:44: 'host.copy_call_cost': duration '99999999999999s' is too large");
}

TEST(Profile, HostPageableDownloadBandwidthRefusesBadValues) {
  const auto error = [](const std::string& v) { return error_of(with_host_key("pageable_to_host_copy_gbps", v)); };
  const std::string not_positive =
      "p.toml:44: 'host.pageable_to_host_copy_gbps' must be positive (or inf: no transfer cost)";
  for (const char* v : {"-1", "0", "-0.0", "nan", "-inf"}) EXPECT_EQ(error(v), not_positive) << v;
  for (const char* v : {"\"fast\"", "\"13.85\"", "true"})
    EXPECT_EQ(error(v), "p.toml:44: 'host.pageable_to_host_copy_gbps' must be a number") << v;
  // Below 1 MB/s: a mistake of units (and a copy's time would overflow the clock).
  EXPECT_EQ(error("0.0009"), "p.toml:44: 'host.pageable_to_host_copy_gbps' = 0.0009 GB/s is below the 0.001 GB/s "
                             "(1 MB/s) the model takes (a mistake of units?)");
  EXPECT_EQ(error("1e-300"), "p.toml:44: 'host.pageable_to_host_copy_gbps' = 1e-300 GB/s is below the 0.001 GB/s "
                             "(1 MB/s) the model takes (a mistake of units?)");
  // The other bandwidths have the same floor.
  EXPECT_EQ(error_of(replace(good_profile(), "pinned_copy_gbps = 55.0", "pinned_copy_gbps = 1e-6")),
            "p.toml:42: 'host.pinned_copy_gbps' = 1e-06 GB/s is below the 0.001 GB/s (1 MB/s) the model takes (a "
            "mistake of units?)");
}

// faults.revoke_duplicate_page_cost (the CPU copy a GPU write revokes) goes
// through the shared duration checks, with its own name and line in each error.
TEST(Profile, RevokeDuplicatePageCostRefusesBadValues) {
  const auto error = [](const std::string& v) {
    return error_of(replace(good_profile(), "page_cost = \"200ns\"\n",
                            "page_cost = \"200ns\"\nrevoke_duplicate_page_cost = " + v + "\n"));
  };
  EXPECT_EQ(error("\"25512ns\""), "");
  EXPECT_EQ(error("-1"), "p.toml:30: 'faults.revoke_duplicate_page_cost' must not be negative");
  EXPECT_EQ(error("\"25 us\""), "p.toml:30: 'faults.revoke_duplicate_page_cost': unknown unit ' us' in '25 us' "
                                "(expected ns, us, ms or s)");
  EXPECT_EQ(error("\"2s\""), "p.toml:30: 'faults.revoke_duplicate_page_cost' = 2000000000ns is longer than the 1s the "
                             "model takes for one operation's cost (a mistake of units?)");
  EXPECT_EQ(error("true"), "p.toml:30: 'faults.revoke_duplicate_page_cost' must be a duration such as \"20us\" or an "
                           "integer of ns");
}

// faults.wakeup_cost (the fault interrupt waking an idle servicer): optional,
// 0 when absent, a duration like the other costs.
TEST(Profile, WakeupCostIsAnOptionalDuration) {
  EXPECT_EQ(parse_profile(good_profile(), "p.toml").fault_wakeup_ns, 0u);
  const std::string with = replace(good_profile(), "page_cost = \"200ns\"\n", "page_cost = \"200ns\"\nwakeup_cost = \"12us\"\n");
  EXPECT_EQ(parse_profile(with, "p.toml").fault_wakeup_ns, 12000u);
  EXPECT_EQ(error_of(replace(with, "\"12us\"", "-3")), "p.toml:30: 'faults.wakeup_cost' must not be negative");
  EXPECT_EQ(error_of(replace(with, "\"12us\"", "\"12 us\"")),
            "p.toml:30: 'faults.wakeup_cost': unknown unit ' us' in '12 us' (expected ns, us, ms or s)");
}

// faults.cold_start_cost and cold_start_time: optional durations, 0 and
// 10 ms when absent; a time constant of 0 is refused.
TEST(Profile, FaultColdStartIsAnOptionalDurationAfterAnOptionalIdleTime) {
  const HardwareProfile plain = parse_profile(good_profile(), "p.toml");
  EXPECT_EQ(plain.fault_cold_start_ns, 0u);
  EXPECT_EQ(plain.fault_cold_time_ns, 10000000u);
  const std::string with = replace(good_profile(), "page_cost = \"200ns\"\n",
                                   "page_cost = \"200ns\"\ncold_start_cost = \"300us\"\ncold_start_time = \"5ms\"\n");
  const HardwareProfile p = parse_profile(with, "p.toml");
  EXPECT_EQ(p.fault_cold_start_ns, 300000u);
  EXPECT_EQ(p.fault_cold_time_ns, 5000000u);
  EXPECT_EQ(error_of(replace(with, "\"5ms\"", "0")), "p.toml:31: 'faults.cold_start_time' must be longer than 0");
  EXPECT_EQ(error_of(replace(with, "\"300us\"", "-3")), "p.toml:30: 'faults.cold_start_cost' must not be negative");
  // cold_start_carry: a share from 0 to 0.99, 0 when absent.
  EXPECT_EQ(p.fault_cold_carry, 0.0);
  const std::string carry = replace(with, "cold_start_time = \"5ms\"\n", "cold_start_time = \"5ms\"\ncold_start_carry = 0.25\n");
  EXPECT_EQ(parse_profile(carry, "p.toml").fault_cold_carry, 0.25);
  EXPECT_EQ(error_of(replace(carry, "0.25", "1.5")), "p.toml:32: 'faults.cold_start_carry' must be a number from 0 to 0.99");
  EXPECT_EQ(error_of(replace(carry, "0.25", "\"half\"")), "p.toml:32: 'faults.cold_start_carry' must be a number from 0 to 0.99");
}

TEST(Profile, IdleStartCostIsAnOptionalDurationAfterAnOptionalIdleTime) {
  const HardwareProfile plain = parse_profile(good_profile(), "p.toml");
  EXPECT_EQ(plain.gpu_idle_start_ns, 0u);
  EXPECT_EQ(plain.gpu_idle_after_ns, 1000000u);
  const std::string with = replace(good_profile(), "peer_access = true\n",
                                   "peer_access = true\nidle_start_cost = \"25us\"\nidle_start_after = \"2ms\"\n");
  const HardwareProfile p = parse_profile(with, "p.toml");
  EXPECT_EQ(p.gpu_idle_start_ns, 25000u);
  EXPECT_EQ(p.gpu_idle_after_ns, 2000000u);
  EXPECT_EQ(error_of(replace(with, "\"25us\"", "-3")), "p.toml:7: 'gpu.idle_start_cost' must not be negative");
  EXPECT_EQ(error_of(replace(with, "\"2ms\"", "\"2 parsecs\"")),
            "p.toml:8: 'gpu.idle_start_after': unknown unit ' parsecs' in '2 parsecs' (expected ns, us, ms or s)");
}

// prefetch.idle_call_cost / idle_call_after / first_on_gpu_cost /
// first_on_cpu_cost / next_on_cpu_cost: optional (no such costs), the idle
// step shorter than the cold one.
TEST(Profile, PrefetchPauseAndFirstMappingCostsAreOptional) {
  const HardwareProfile plain = parse_profile(good_profile(), "p.toml");
  EXPECT_EQ(plain.prefetch_idle_call_ns, 0u);
  EXPECT_EQ(plain.prefetch_idle_after_ns, 1000000u);
  EXPECT_EQ(plain.prefetch_first_on_gpu_ns, 0u);
  EXPECT_EQ(plain.prefetch_first_on_cpu_ns, 0u);
  EXPECT_EQ(plain.prefetch_next_on_cpu_ns, 0u);
  const std::string with = replace(good_profile(), "[prefetch]\n",
                                   "[prefetch]\nidle_call_cost = \"31us\"\nidle_call_after = \"2ms\"\n"
                                   "cold_call_after = \"32ms\"\nfirst_on_gpu_cost = \"60us\"\n"
                                   "first_on_cpu_cost = \"57us\"\nnext_on_cpu_cost = \"32us\"\n");
  const HardwareProfile p = parse_profile(with, "p.toml");
  EXPECT_EQ(p.prefetch_idle_call_ns, 31000u);
  EXPECT_EQ(p.prefetch_idle_after_ns, 2000000u);
  EXPECT_EQ(p.prefetch_cold_after_ns, 32000000u);
  EXPECT_EQ(p.prefetch_first_on_gpu_ns, 60000u);
  EXPECT_EQ(to_json(p)["prefetch"]["first_on_gpu_cost_ns"], 60000u);
  EXPECT_EQ(p.prefetch_first_on_cpu_ns, 57000u);
  EXPECT_EQ(p.prefetch_next_on_cpu_ns, 32000u);
  EXPECT_EQ(to_json(p)["prefetch"]["next_on_cpu_cost_ns"], 32000u);
  EXPECT_EQ(error_of(replace(with, "\"57us\"", "\"57 parsecs\"")),
            "p.toml:42: 'prefetch.first_on_cpu_cost': unknown unit ' parsecs' in '57 parsecs' (expected ns, us, ms or s)");
  EXPECT_EQ(error_of(replace(with, "\"31us\"", "-3")), "p.toml:38: 'prefetch.idle_call_cost' must not be negative");
  EXPECT_EQ(error_of(replace(with, "\"2ms\"", "\"40ms\"")),
            "p.toml:39: 'prefetch.idle_call_after' (40000000 ns) must be shorter than 'prefetch.cold_call_after' "
            "(32000000 ns)");
}

TEST(Profile, DuplicatedPageCostDefaultsToTheMigratedPageCost) {
  const std::string migrated = replace(good_profile(), "page_cost = \"200ns\"\n",
                                       "page_cost = \"200ns\"\nmigrated_page_cost = \"250ns\"\n");
  EXPECT_EQ(parse_profile(migrated, "p.toml").duplicated_page_ns(), 250u);
  const std::string with = replace(migrated, "migrated_page_cost = \"250ns\"\n",
                                   "migrated_page_cost = \"250ns\"\nduplicated_page_cost = \"70ns\"\n");
  EXPECT_EQ(parse_profile(with, "p.toml").duplicated_page_ns(), 70u);
  EXPECT_EQ(error_of(replace(with, "\"70ns\"", "\"fast\"")).rfind("p.toml:31: 'faults.duplicated_page_cost'", 0), 0u);
}

// faults.run_cost is optional: unset, no cost and no key in the results'
// profile echo; set, parsed as a duration and echoed.
TEST(Profile, RunCostIsOptional) {
  EXPECT_FALSE(parse_profile(good_profile(), "p.toml").fault_run_ns.has_value());
  const std::string with = replace(good_profile(), "page_cost = \"200ns\"\n", "page_cost = \"200ns\"\nrun_cost = \"5us\"\n");
  EXPECT_EQ(parse_profile(with, "p.toml").fault_run_ns, 5000u);
  EXPECT_EQ(error_of(replace(with, "\"5us\"", "\"soon\"")).rfind("p.toml:30: 'faults.run_cost'", 0), 0u);
  // copy_runs_by_cause: false and absent from the echo unless set.
  EXPECT_FALSE(parse_profile(with, "p.toml").fault_copy_runs_by_cause);
  EXPECT_FALSE(to_json(parse_profile(with, "p.toml"))["faults"].contains("copy_runs_by_cause"));
  const std::string by_cause = replace(with, "run_cost = \"5us\"\n", "run_cost = \"5us\"\ncopy_runs_by_cause = true\n");
  EXPECT_TRUE(parse_profile(by_cause, "p.toml").fault_copy_runs_by_cause);
  EXPECT_EQ(to_json(parse_profile(by_cause, "p.toml"))["faults"]["copy_runs_by_cause"], true);
  EXPECT_EQ(error_of(replace(by_cause, "copy_runs_by_cause = true", "copy_runs_by_cause = 1")), "p.toml:31: 'faults.copy_runs_by_cause' must be true or false");
}

TEST(Profile, MissingKeysAndSyntaxErrors) {
  EXPECT_EQ(error_of(replace(good_profile(), "page_cost = \"200ns\"\n", "")),
            "p.toml:24: missing key 'faults.page_cost'");
  EXPECT_EQ(error_of(replace(good_profile(), "[eviction]\nchunk_cost = \"20us\"\n", "")),
            "p.toml: missing key 'eviction'");
  EXPECT_EQ(error_of("name = \n").substr(0, 9), "p.toml:1:");
  EXPECT_EQ(error_of(replace(good_profile(), "[cpu]", "[cpu\n")).substr(0, 10), "p.toml:30:");
}

// A character toml++'s character tables do not list, where the parser asks
// whether it is whitespace (after a key): a parse error, not the "unreachable"
// the tables ended in (third_party/toml.h; a finding of the import fuzzer,
// caught here by the sanitized CI run).
TEST(Profile, UnlistedCharacterAfterAKeyIsAParseError) {
  const std::string expected = "p.toml:2: Error while parsing key-value pair: expected '=', saw ";
  EXPECT_EQ(error_of("name = \"x\"\nkey\u0399 = 1\n"), expected + "'\u0399'");
  EXPECT_EQ(error_of("name = \"x\"\nkey\u00e9 = 1\n"), expected + "'\u00e9'");
  EXPECT_EQ(error_of("name = \"x\"\nkey \u2c10 = 1\n"), expected + "'\u2c10'");
  EXPECT_EQ(error_of("name = \"x\"\nkey = 1 \ufb10\n"),
            "p.toml:2: Error while parsing key-value pair: expected a comment or whitespace, saw '\ufb10'");
}

TEST(Profile, MissingFile) {
  EXPECT_THROW(load_profile_file("/nonexistent/x.toml"), ProfileError);
}

}  // namespace
}  // namespace umsim::sim
