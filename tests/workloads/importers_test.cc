// Importers: the sample files (written from NVBit's mem_trace and Accel-Sim's
// trace-format documentation) become the checked-in expected traces; bad input
// fails with file:line and what was expected.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "traces/importers/address_map.h"
#include "traces/importers/importer.h"
#include "traces/trace_error.h"
#include "traces/trace_writer.h"

namespace umsim::import {
namespace {

const std::string kSamples = "tests/workloads/samples/";
const std::string kExpected = "tests/workloads/expected/";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string temp_file(const std::string& name, const std::string& content) {
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  std::ofstream(path) << content;
  return path;
}

std::string import_text(const std::string& format, const std::string& input, const ImportOptions& options,
                        ImportResult* result = nullptr) {
  std::string text;
  auto writer = trace::create_trace_writer_to_string(&text, trace::Encoding::kText);
  ImportResult r = import_trace(format, input, options, *writer);
  writer->finish();
  if (result) *result = r;
  return text;
}

// The error message of importing `content` as `format`.
std::string import_error(const std::string& format, const std::string& name, const std::string& content,
                         ImportOptions options = {}) {
  const std::string path = temp_file(name, content);
  try {
    import_text(format, path, options);
  } catch (const trace::TraceError& e) {
    std::string m = e.what();
    const auto at = m.find(name);  // strip the temporary directory
    return at == std::string::npos ? m : m.substr(at);
  }
  return "no error";
}

TEST(NvbitImporter, SampleWithInferredAllocations) {
  ImportResult r;
  const std::string text = import_text("nvbit", kSamples + "vecadd.nvbit.txt", {}, &r);
  EXPECT_EQ(text, read_file(kExpected + "vecadd_nvbit_inferred.umt"));
  EXPECT_TRUE(r.inferred);
  ASSERT_EQ(r.allocations.size(), 3u);
  EXPECT_EQ(r.allocations[1].base, 0x7f3a5e200000u);
  EXPECT_EQ(r.stats.kernels, 2u);
  // 12 warp instructions x 32 lanes, 8 strided lanes, 1 atomic lane, 1 reduction lane (the LDS line is skipped).
  EXPECT_EQ(r.stats.accesses, 12u * 32 + 8 + 1 + 1);
}

// NVBit 1.5.5's mem_trace prints "grid launch id N+1" on a kernel's LAUNCH line and
// "grid_launch_id N" on its accesses; the same program's trace imports the same.
TEST(NvbitImporter, Release155NumbersLaunchesOneAheadOfTheirAccesses) {
  ImportResult r;
  const std::string text = import_text("nvbit", kSamples + "vecadd.nvbit155.txt", {}, &r);
  std::string want = read_file(kExpected + "vecadd_nvbit_inferred.umt");
  const std::string old_name = "vecadd.nvbit.txt";
  want.replace(want.find(old_name), old_name.size(), "vecadd.nvbit155.txt");  // the comment naming the source
  EXPECT_EQ(text, want);
  EXPECT_EQ(r.stats.kernels, 2u);
  EXPECT_EQ(r.stats.accesses, 12u * 32 + 8 + 1 + 1);
}

TEST(NvbitImporter, SampleWithAllocationSideFile) {
  ImportOptions o;
  o.allocs_file = kSamples + "vecadd.allocs";
  EXPECT_EQ(import_text("nvbit", kSamples + "vecadd.nvbit.txt", o), read_file(kExpected + "vecadd_nvbit_allocs.umt"));
}

TEST(AccelsimImporter, KernelsListWithMemcpys) {
  ImportResult r;
  EXPECT_EQ(import_text("accelsim", kSamples + "accelsim/kernelslist.g", {}, &r),
            read_file(kExpected + "saxpy_accelsim.umt"));
  // Per thread block: 32 (base+stride) + 32 (base+delta) + 16 (listed) global lanes; 3 memcpys.
  EXPECT_EQ(r.stats.accesses, 2u * (32 + 32 + 16) + 3);
}

// Accel-Sim's compressed kernel traces: the list names kernel-1.traceg, the folder
// holds kernel-1.traceg.xz (xz -9 of the plain sample): the import is the same.
TEST(AccelsimImporter, XzCompressedKernelTraces) {
  ImportResult r;
  const std::string text = import_text("accelsim", kSamples + "accelsim_xz/kernelslist.g", {}, &r);
  std::string want = read_file(kExpected + "saxpy_accelsim.umt");
  const std::string old_name = "accelsim/kernelslist.g";
  want.replace(want.find(old_name), old_name.size(), "accelsim_xz/kernelslist.g");
  EXPECT_EQ(text, want);
  // A single compressed kernel file is recognised by its content, not its name.
  ImportResult single;
  import_text("accelsim", kSamples + "accelsim_xz/kernel-1.traceg.xz", {}, &single);
  EXPECT_EQ(single.stats.accesses, 2u * (32 + 32 + 16));
}

TEST(ImporterErrors, DamagedXzData) {
  std::string xz = read_file(kSamples + "accelsim_xz/kernel-1.traceg.xz");
  ASSERT_GT(xz.size(), 100u);
  EXPECT_EQ(import_error("accelsim", "cut.traceg.xz", xz.substr(0, 100)),
            "cut.traceg.xz: truncated xz data: the file ends inside the compressed stream at compressed byte 100");
  xz[60] = static_cast<char>(xz[60] ^ 0x55);
  const std::string corrupt = import_error("accelsim", "bad.traceg.xz", xz);
  EXPECT_EQ(corrupt.substr(0, 40), "bad.traceg.xz: corrupt xz data at compre") << corrupt;
}

// Tracer versions before 3 list one address per active lane with no format field;
// older NVBit releases print access lines without the CTX / grid_launch_id prefix.
TEST(AccelsimImporter, TracerVersion2ListsEveryActiveLane) {
  const std::string path = temp_file("v2.traceg",
                                     "-kernel name = old\n-accelsim tracer version = 2\n#BEGIN_TB\nwarp = 0\n"
                                     "0010 00000005 0 STG.E 1 R2 4 0x7f0000000000 0x7f0000003000\n#END_TB\n");
  ImportOptions o;
  o.gap = 4096;
  ImportResult r;
  const std::string text = import_text("accelsim", path, o, &r);
  EXPECT_EQ(r.stats.accesses, 2u);
  ASSERT_EQ(r.allocations.size(), 1u);  // 12 KiB apart, both inside one 64 KiB-aligned region
  EXPECT_NE(text.find("kernel old gpu=0\n  w region0 len=4KiB\n  w region0+12KiB len=4KiB\nend\n"), std::string::npos)
      << text;
}

TEST(NvbitImporter, OlderFormatWithoutLaunchIdsAndDemangledNames) {
  const std::string path = temp_file(
      "old.txt",
      "MEMTRACE: CTX 0x1 - LAUNCH - Kernel pc 0x2 - Kernel name void scale<float>(float*, int) - grid launch id 0 - "
      "grid size 1,1,1 - block size 32,1,1 - nregs 8 - shmem 0 - cuda stream id 0\n"
      "CTA 0,0,0 - warp 0 - LDG.E.128 - 0x00007f0000000ff8 0x0000000000000000\n");
  ImportResult r;
  const std::string text = import_text("nvbit", path, {}, &r);
  // A 16-byte load 8 bytes before a page boundary touches two pages; the name loses its parameters and spaces.
  EXPECT_NE(text.find("kernel void_scale<float> gpu=0\n  r region0 len=8KiB\nend\n"), std::string::npos) << text;
  EXPECT_EQ(r.stats.accesses, 1u);
}

TEST(CsvImporter, ColumnMappedSample) {
  ImportOptions o;
  o.columns = "time=0,op=1,addr=2,size=3,kernel=4,proc=5,stream=6";
  o.header = true;
  EXPECT_EQ(import_text("csv", kSamples + "accesses.csv", o), read_file(kExpected + "accesses_csv.umt"));
}

// RFC 4180: quoted fields keep delimiters, doubled quotes and line breaks.
TEST(CsvImporter, QuotedFieldsFollowRfc4180) {
  ImportOptions o;
  o.columns = "op=0,addr=1,size=2,kernel=3";
  const std::string path = temp_file("quoted.csv",
                                     "r,0x7f0000000000,4096,\"vecAdd(float*, float*)\"\n"
                                     "\"w\" , 0x7f0000001000 ,4096,  \"vecAdd(float*, float*)\"\n"
                                     "r,0x7f0000002000,4096,\"say \"\"hi\"\"\"\n"
                                     "r,0x7f0000003000,4096,\"two\nlines\"\n");
  ImportResult r;
  const std::string text = import_text("csv", path, o, &r);
  EXPECT_EQ(r.stats.kernels, 3u);  // the first two rows are one kernel: the comma is inside the quotes
  EXPECT_EQ(r.stats.accesses, 4u);
  EXPECT_NE(text.find("kernel k_vecAdd(float*,_float*) gpu=0\n  r region0 len=4KiB\n  w region0+4KiB len=4KiB\nend\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("k_say_\\\"hi\\\""), std::string::npos) << text;  // the quotes survive, escaped
  EXPECT_NE(text.find("k_two_lines"), std::string::npos) << text;
}

TEST(AllocationInference, ClustersByGapAndAlignsTo64KiB) {
  AllocationInference inf(1 << 20);
  inf.touch(0x100000 + 10, 4);
  inf.touch(0x100000 + 0x80000, 4);  // 512 KiB further: same cluster
  inf.touch(0x400000, 8);            // 3 MiB further: a new one
  const AddressMap m = inf.result();
  ASSERT_EQ(m.allocations().size(), 2u);
  EXPECT_EQ(m.allocations()[0].base, 0x100000u);
  EXPECT_EQ(m.allocations()[0].size, 0x90000u);
  EXPECT_EQ(m.allocations()[1].base, 0x400000u);
  EXPECT_EQ(m.allocations()[1].size, 0x10000u);
  EXPECT_EQ(m.find(0x100000 + 0x8ffff)->name, "region0");
  EXPECT_EQ(m.find(0x190000), nullptr);
}

TEST(ImporterErrors, NvbitBadInputs) {
  const std::string launch =
      "MEMTRACE: CTX 0x1 - LAUNCH - Kernel pc 0x2 - Kernel name k(int*) - grid launch id 0 - grid size 1,1,1 - "
      "block size 32,1,1 - nregs 8 - shmem 0 - cuda stream id 0\n";
  EXPECT_EQ(import_error("nvbit", "before.txt", "CTA 0,0,0 - warp 0 - LDG.E - 0x7f0000001000\n"),
            "before.txt:1: memory access before any LAUNCH line");
  EXPECT_EQ(import_error("nvbit", "badaddr.txt", launch + "CTA 0,0,0 - warp 0 - LDG.E - 0x7f00zz001000\n"),
            "badaddr.txt:2: bad address '0x7f00zz001000' (expected 0x followed by hex digits)");
  EXPECT_EQ(import_error("nvbit", "opcode.txt", launch + "CTA 0,0,0 - warp 0 - FADD.FTZ - 0x7f0000001000\n"),
            "opcode.txt:2: unknown memory opcode 'FADD.FTZ' (expected LD*, ST*, ATOM*, RED* or a shared/local opcode)");
  EXPECT_EQ(import_error("nvbit", "noname.txt",
                         "MEMTRACE: CTX 0x1 - LAUNCH - Kernel pc 0x2 - grid launch id 0 - cuda stream id 0\n"),
            "noname.txt:1: LAUNCH line without 'Kernel name NAME - '");
  EXPECT_EQ(import_error("nvbit", "launchid.txt",
                         launch + "CTX 0x1 - grid_launch_id 3 - CTA 0,0,0 - warp 0 - STG.E - 0x7f0000001000\n"),
            "launchid.txt:2: access of grid_launch_id 3 while the current LAUNCH line says grid launch id 0 "
            "(expected 0; each kernel's accesses must follow its LAUNCH line)");
  // The first tagged access fixes the numbering scheme; a later kernel must keep it.
  const std::string launch1 =
      "MEMTRACE: CTX 0x1 - LAUNCH - Kernel pc 0x2 - Kernel name k2(int*) - grid launch id 1 - grid size 1,1,1 - "
      "block size 32,1,1 - nregs 8 - shmem 0 - cuda stream id 0\n";
  const std::string access0 = "CTX 0x1 - grid_launch_id 0 - CTA 0,0,0 - warp 0 - STG.E - 0x7f0000001000\n";
  const std::string access1 = "CTX 0x1 - grid_launch_id 1 - CTA 0,0,0 - warp 0 - STG.E - 0x7f0000001000\n";
  EXPECT_EQ(import_error("nvbit", "alike.txt", launch + access0 + launch1 + access0),
            "alike.txt:4: access of grid_launch_id 0 while the current LAUNCH line says grid launch id 1 "
            "(expected 1: this file numbers launches and their accesses alike; each kernel's accesses must follow its "
            "LAUNCH line)");
  EXPECT_EQ(import_error("nvbit", "ahead.txt", launch1 + access0 + launch1 + access1),
            "ahead.txt:4: access of grid_launch_id 1 while the current LAUNCH line says grid launch id 1 "
            "(expected 0: this file numbers launches as NVBit 1.5.x, one ahead of their accesses; each kernel's "
            "accesses must follow its LAUNCH line)");
  EXPECT_EQ(import_error("nvbit", "far.txt", launch1 + "CTX 0x1 - grid_launch_id 7 - CTA 0,0,0 - warp 0 - STG.E - 0x7f0000001000\n"),
            "far.txt:2: access of grid_launch_id 7 while the current LAUNCH line says grid launch id 1 "
            "(expected 1, or 0 as NVBit 1.5.x numbers them; each kernel's accesses must follow its LAUNCH line)");
  EXPECT_EQ(import_error("nvbit", "noaddr.txt", launch + "CTA 0,0,0 - warp 0 - LDG.E - \n"),
            "noaddr.txt:2: expected 1 to 32 lane addresses, got 0");
  EXPECT_EQ(import_error("nvbit", "empty.txt", "hello from the program\n"),
            "empty.txt: no unified-memory accesses found in the input");
}

TEST(ImporterErrors, AccelsimBadInputs) {
  const std::string header = "-kernel name = k\n-accelsim tracer version = 4\n#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n";
  EXPECT_EQ(import_error("accelsim", "mask.traceg", header + "0000 fffffffffff 0 LDG.E 1 R2 4 1 0x7f0000000000 4\n"),
            "mask.traceg:6: bad active mask 'fffffffffff' (expected 8 hex digits)");
  EXPECT_EQ(import_error("accelsim", "short.traceg", header + "0010 ffffffff 1 R1 LDG.E 2 R2\n"),
            "short.traceg:6: instruction line ends early: expected source register");
  EXPECT_EQ(import_error("accelsim", "format.traceg", header + "0010 ffffffff 0 LDG.E 1 R2 4 7 0x7f0000000000\n"),
            "format.traceg:6: unknown address format 7 (expected 0, 1 or 2)");
  EXPECT_EQ(import_error("accelsim", "deltas.traceg", header + "0010 00000003 0 STG.E 1 R2 4 2 0x7f0000000000\n"),
            "deltas.traceg:6: instruction line ends early: expected address delta");
  EXPECT_EQ(import_error("accelsim", "extra.traceg", header + "0010 00000001 0 STG.E 1 R2 4 0 0x7f0000000000 0x5\n"),
            "extra.traceg:6: unexpected '0x5' after the addresses");
  EXPECT_EQ(import_error("accelsim", "list.g", "MemcpyHtoD,0x7f0000000000,4096\nkernel-9.traceg\n"),
            "list.g:2: kernel trace '" + std::string(std::getenv("TEST_TMPDIR") ? std::getenv("TEST_TMPDIR") : "/tmp") +
                "/kernel-9.traceg' does not exist (nor kernel-9.traceg.xz)");
  EXPECT_EQ(import_error("accelsim", "cmd.g", "MemsetD8,0x7f0000000000,4096\n"),
            "cmd.g:1: expected 'MemcpyHtoD,...', 'MemcpyDtoH,...' or a kernel-N.traceg file name, got "
            "'MemsetD8,0x7f0000000000,4096'");
  EXPECT_EQ(import_error("accelsim", "bytes.g", "MemcpyHtoD,0x7f0000000000,-5\n"),
            "bytes.g:1: bad byte count in 'MemcpyHtoD,0x7f0000000000,-5'");
}

TEST(ImporterErrors, CsvBadInputs) {
  ImportOptions o;
  o.columns = "time=0,op=1,addr=2";
  EXPECT_EQ(import_error("csv", "op.csv", "1,read,0x1000\n2,fetch,0x2000\n", o),
            "op.csv:2: bad op 'fetch' (expected r/read/load, w/write/store or a/atomic)");
  EXPECT_EQ(import_error("csv", "cols.csv", "1,read\n", o), "cols.csv:1: expected at least 3 columns, got 2");
  EXPECT_EQ(import_error("csv", "time.csv", "5,r,0x1000\n4,w,0x1000\n", o),
            "time.csv:2: time 4 is before the previous row's 5 (rows must be in time order)");
  EXPECT_EQ(import_error("csv", "addr.csv", "1,r,12ab\n", o), "addr.csv:1: bad address '12ab' (expected decimal or 0x hex)");
  o.columns = "op=0,address=1";
  EXPECT_EQ(import_error("csv", "spec.csv", "r,0x1000\n", o),
            "csv: --columns: unknown column 'address' (known: time, op, addr, size, kernel, proc, stream)");
  o.columns = "op=0";
  EXPECT_EQ(import_error("csv", "spec2.csv", "r\n", o), "csv: --columns must map at least op and addr");
  o.columns = "op=0,addr=1,proc=2";
  EXPECT_EQ(import_error("csv", "proc.csv", "r,0x1000,gpu\n", o), "proc.csv:1: bad proc 'gpu' (expected cpu, gpuN or N)");
}

// The pages an import collects take a bit per page of every allocation: more
// than 4 TiB of allocations is refused, naming the one that crosses the limit
// (an access of 130 TB asked for 4 GB of bitmaps: a finding of the import fuzzer).
TEST(ImporterErrors, AllocationsBeyondFourTiBAreRefused) {
  ImportOptions o;
  o.columns = "time=0,op=1,addr=2,size=3";
  EXPECT_EQ(import_error("csv", "huge.csv", "500,read,0x0,130000000000064\n", o),
            "huge.csv: allocation 'region0' at 0x0 of 130000000057344B (0x763bfbd30000) brings the allocations to "
            "more than the 4TiB an import collects the pages of (a bitmap of one bit per page each)");
  // From a side file: 4 TiB and one page more; the message names the side file.
  o.allocs_file = temp_file("four_tib_allocs.txt", "A 0x1000 4398046511104\nB 0x100000000000 4096\n");
  const std::string error = import_error("csv", "small.csv", "500,read,0x1000,4\n", o);
  EXPECT_EQ(error.substr(error.find("four_tib_allocs.txt")),
            "four_tib_allocs.txt: allocation 'B' at 0x100000000000 of 4KiB brings the allocations to more than the "
            "4TiB an import collects the pages of (a bitmap of one bit per page each)");
}

TEST(ImporterErrors, CsvBadQuoting) {
  ImportOptions o;
  o.columns = "op=0,addr=1,size=2,kernel=3";
  EXPECT_EQ(import_error("csv", "q1.csv", "r,0x7f0000000000,4096,k\nr,0x7f00\"00,4096,k\n", o),
            "q1.csv:2: field 2: a quote inside an unquoted field (enclose the field in quotes and double the quote)");
  EXPECT_EQ(import_error("csv", "q2.csv", "\"r\"x,0x7f0000000000,4096,k\n", o),
            "q2.csv:1: field 1: unexpected 'x' after a closing quote (expected the delimiter or the end of the line)");
  EXPECT_EQ(import_error("csv", "q3.csv", "r,0x7f0000000000,4096,k\nr,0x7f0000000000,4096,\"k\nmore\n", o),
            "q3.csv:3: quoted field 4 opened on line 2 is not closed by the end of the input");
}

// --gpu=-1 used to turn every GPU access into a CPU access and succeed.
TEST(ImporterErrors, NegativeGpuIsRefused) {
  ImportOptions o;
  o.gpu = -1;
  EXPECT_EQ(import_error("nvbit", "gpu.txt", "", o), "--gpu: expected a GPU index from 0 to 14, got -1");
  o.gpu = 15;
  EXPECT_EQ(import_error("nvbit", "gpu.txt", "", o), "--gpu: expected a GPU index from 0 to 14, got 15");
}

TEST(ImporterErrors, AllocationFilesAndStrictMode) {
  ImportOptions o;
  o.allocs_file = temp_file("overlap.allocs", "A 0x1000 8KiB\nB 0x2000 4KiB managed\n");
  EXPECT_EQ(import_error("nvbit", "x.txt", "", o).substr(0, 200),
            o.allocs_file + ":2: allocation 'B' at 0x2000 overlaps 'A' [0x1000, +8192)");
  o.allocs_file = temp_file("kind.allocs", "A 0x1000 8KiB shared\n");
  EXPECT_EQ(import_error("nvbit", "x.txt", "", o),
            o.allocs_file + ":1: unknown kind 'shared' (expected managed, device, pinned or mapped)");
  o.allocs_file = temp_file("size.allocs", "A 0x1000 8KB\n");
  EXPECT_NE(import_error("nvbit", "x.txt", "", o).find(o.allocs_file + ":1: bad size '8KB'"), std::string::npos);
  o.allocs_file = kSamples + "vecadd.allocs";
  o.strict = true;
  const std::string launch =
      "MEMTRACE: CTX 0x1 - LAUNCH - Kernel pc 0x2 - Kernel name k - grid launch id 0 - cuda stream id 0\n";
  EXPECT_EQ(import_error("nvbit", "strict.txt", launch + "CTA 0,0,0 - warp 0 - LDG.E - 0x00007f3a5e000000 0x1234\n", o),
            "strict.txt:2: address 0x1234 is outside every allocation");
  // Without --strict the stray access is counted, not fatal.
  o.strict = false;
  ImportResult r;
  import_text("nvbit", temp_file("lenient.txt", launch + "CTA 0,0,0 - warp 0 - LDG.E - 0x00007f3a5e000000 0x1234\n"), o,
              &r);
  EXPECT_EQ(r.stats.outside, 1u);
  EXPECT_NE(r.stats.first_outside.find("lenient.txt:2"), std::string::npos);
}

TEST(ImporterErrors, UnknownFormat) {
  EXPECT_THROW(import_text("pin", kSamples + "accesses.csv", {}), trace::TraceError);
}

}  // namespace
}  // namespace umsim::import
