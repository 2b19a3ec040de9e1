// Attribution of UM counter records to kernels, phases and the total.
#include "hip_backend/um_counters.h"

#include <gtest/gtest.h>

namespace umsim::hip {
namespace {

UmRecord rec(UmKind k, std::uint64_t value, std::uint64_t start, std::uint64_t end = 0,
             MigrationCause cause = MigrationCause::kCoherence) {
  UmRecord r;
  r.kind = k;
  r.value = value;
  r.start = start;
  r.end = end;
  r.flags = static_cast<std::uint32_t>(cause);
  return r;
}

TEST(UmCountersTest, AttributesByStartTimeAndGroupsBatchesByReplayTime) {
  const std::vector<Window> kernels = {{100, 200}, {300, 400}};
  const std::vector<Window> phases = {{0, 250}, {251, 1000}};
  const std::vector<UmRecord> records = {
      rec(UmKind::kGpuPageFault, 2, 110, 150),  // kernel 0, batch A
      rec(UmKind::kGpuPageFault, 1, 120, 150),  // kernel 0, batch A
      rec(UmKind::kGpuPageFault, 3, 160, 190),  // kernel 0, batch B
      rec(UmKind::kBytesH2D, 4096, 130),        // kernel 0
      rec(UmKind::kBytesH2D, 65536, 140, 0, MigrationCause::kPrefetch),  // driver prefetch: kernel 0
      rec(UmKind::kBytesH2D, 1 << 20, 50, 0, MigrationCause::kUser),     // explicit prefetch: phase 0 only
      rec(UmKind::kGpuPageFault, 1, 310, 390),  // kernel 1
      rec(UmKind::kBytesD2H, 8192, 500, 0, MigrationCause::kEviction),
      rec(UmKind::kCpuPageFault, 0xdeadbeef, 600),  // value is a PC: counts as one fault
      rec(UmKind::kThrashing, 8192, 700),
      rec(UmKind::kThrottling, 0, 710, 720),
      rec(UmKind::kRemoteMap, 4096, 730),
  };
  const Attributed a = attribute(records, kernels, phases);
  EXPECT_EQ(a.kernels[0].gpu_faults, 6u);
  EXPECT_EQ(a.kernels[0].gpu_fault_pages, 3u);
  EXPECT_EQ(a.kernels[0].fault_batches, 2u);
  EXPECT_EQ(a.kernels[0].bytes_h2d, 4096u + 65536u);
  EXPECT_EQ(a.kernels[0].bytes_prefetched, 65536u);
  EXPECT_EQ(a.kernels[1].fault_batches, 1u);
  EXPECT_EQ(a.phases[0].bytes_h2d, 4096u + 65536u + (1u << 20));
  EXPECT_EQ(a.phases[0].bytes_prefetched, 65536u + (1u << 20));
  EXPECT_EQ(a.phases[1].bytes_d2h, 8192u);
  EXPECT_EQ(a.phases[1].bytes_evicted, 8192u);
  EXPECT_EQ(a.phases[1].cpu_faults, 1u);
  EXPECT_EQ(a.phases[1].thrashing_events, 2u);
  EXPECT_EQ(a.phases[1].throttles, 1u);
  EXPECT_EQ(a.total.fault_batches, 3u);
  EXPECT_EQ(a.total.gpu_faults, 7u);
  EXPECT_EQ(a.remote_maps, 1u);
}

// Kernels of two GPUs running at the same time: each record goes to the kernel
// on its own GPU, not to the first kernel whose window holds it.
TEST(UmCountersTest, KernelsOfTwoGpusAtTheSameTimeTakeTheirOwnGpusRecords) {
  const std::vector<Window> kernels = {{100, 400, 0}, {120, 420, 1}};
  auto on = [](UmRecord r, std::int32_t device) {
    r.device = device;
    return r;
  };
  const std::vector<UmRecord> records = {
      on(rec(UmKind::kGpuPageFault, 2, 150, 200), 1),  // gpu1's fault: kernel 1
      on(rec(UmKind::kGpuPageFault, 1, 160, 210), 0),  // gpu0's fault: kernel 0
      on(rec(UmKind::kBytesD2D, 8192, 220), 1),        // peer copy into gpu1: kernel 1
      on(rec(UmKind::kBytesH2D, 4096, 230), 0),        // into gpu0: kernel 0
      on(rec(UmKind::kBytesH2D, 65536, 410), 0),       // after kernel 0 ended: no kernel on gpu0 runs
      rec(UmKind::kBytesH2D, 1024, 240),               // no device: the first window holding it
  };
  const Attributed a = attribute(records, kernels, {});
  EXPECT_EQ(a.kernels[0].gpu_faults, 1u);
  EXPECT_EQ(a.kernels[1].gpu_faults, 2u);
  EXPECT_EQ(a.kernels[1].fault_batches, 1u);
  EXPECT_EQ(a.kernels[1].bytes_peer, 8192u);
  EXPECT_EQ(a.kernels[0].bytes_peer, 0u);
  EXPECT_EQ(a.kernels[0].bytes_h2d, 4096u + 1024u);
  EXPECT_EQ(a.kernels[1].bytes_h2d, 0u);
  EXPECT_EQ(a.total.bytes_h2d, 4096u + 65536u + 1024u);
}

// Which GPU CUPTI's source / destination ids name for each kind of record.
TEST(UmCountersTest, DeviceOfARecordIsTheFaultingOrReceivingGpu) {
  EXPECT_EQ(device_of_record(UmKind::kGpuPageFault, 1, 7), 1);
  EXPECT_EQ(device_of_record(UmKind::kThrottling, 1, 7), 1);
  EXPECT_EQ(device_of_record(UmKind::kBytesH2D, 5, 1), 1);
  EXPECT_EQ(device_of_record(UmKind::kBytesD2D, 0, 1), 1);
  EXPECT_EQ(device_of_record(UmKind::kBytesD2H, 1, 5), 1);
  EXPECT_EQ(device_of_record(UmKind::kCpuPageFault, 1, 1), -1);
  EXPECT_EQ(device_of_record(UmKind::kThrashing, 3, 0), -1);
  EXPECT_EQ(device_of_record(UmKind::kRemoteMap, 1, 0), -1);
}

TEST(UmCountersTest, RecordsOutsideEveryWindowStillCountInTheTotal) {
  const Attributed a = attribute({rec(UmKind::kBytesH2D, 4096, 5000)}, {{0, 10}}, {{0, 10}});
  EXPECT_EQ(a.total.bytes_h2d, 4096u);
  EXPECT_EQ(a.kernels[0].bytes_h2d, 0u);
  EXPECT_EQ(a.phases[0].bytes_h2d, 0u);
}

TEST(UmCountersTest, SummarisesFaultRecords) {
  const auto j = fault_record_summary({rec(UmKind::kGpuPageFault, 2, 1, 9), rec(UmKind::kGpuPageFault, 1, 2, 9),
                                       rec(UmKind::kBytesH2D, 100, 3)});
  EXPECT_EQ(j["gpu_fault_records"], 2);
  EXPECT_EQ(j["gpu_fault_groups"], 3);
  EXPECT_EQ(j["distinct_fault_replay_times"], 1);
  EXPECT_EQ(j["largest_transfer_bytes"], 100);
}

TEST(UmCountersTest, ListsRecordsAsCsvInStartOrderWithTheirKernel) {
  std::vector<UmRecord> records = {rec(UmKind::kBytesH2D, 65536, 1150, 1180, MigrationCause::kPrefetch),
                                   rec(UmKind::kGpuPageFault, 2, 1110, 1150),
                                   rec(UmKind::kBytesH2D, 1 << 20, 1120, 1130, MigrationCause::kUser),
                                   rec(UmKind::kCpuPageFault, 7, 900)};
  records[1].address = 4096;
  records[1].device = 0;
  const std::vector<Window> kernels = {{1100, 1200, 0}};
  EXPECT_EQ(um_records_csv(records, kernels),
            "kind,start_ns,end_ns,value,flags,address,device,kernel\n"
            "kernel_window,0,100,0,0,0,0,0\n"
            "cpu_fault,-200,,7,2,0,-1,-1\n"      // before the kernel, no end
            "gpu_fault,10,50,2,2,4096,0,0\n"
            "h2d,20,30,1048576,1,0,-1,-1\n"       // an explicit prefetch belongs to no kernel
            "h2d,50,80,65536,3,0,-1,0\n");
}

}  // namespace
}  // namespace umsim::hip
