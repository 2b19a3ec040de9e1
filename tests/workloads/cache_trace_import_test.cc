// Cache-simulator request traces (libCacheSim's oracleGeneral binary records,
// its csv and txt request formats): hand-made files become the hand-written
// traces below, object by object; records that cannot be mapped fail with the
// byte offset or file:line.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "traces/importers/cache_trace_importer.h"
#include "traces/trace_error.h"
#include "traces/trace_writer.h"

namespace umsim::import {
namespace {

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string write_file(const std::string& name, const std::string& bytes) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

struct Record {
  std::uint32_t time;
  std::uint64_t id;
  std::uint32_t size;
  std::int64_t next;
};

// oracleGeneral: 24 packed little-endian bytes per record.
std::string oracle_general(const std::vector<Record>& records) {
  std::string out;
  for (const Record& r : records) {
    char b[24];
    std::memcpy(b, &r.time, 4);
    std::memcpy(b + 4, &r.id, 8);
    std::memcpy(b + 12, &r.size, 4);
    std::memcpy(b + 16, &r.next, 8);
    out.append(b, 24);
  }
  return out;
}

std::string import_text(const std::string& format, const std::string& path, const CacheTraceOptions& o = {},
                        CacheTraceResult* result = nullptr) {
  std::string text;
  auto writer = trace::create_trace_writer_to_string(&text, trace::Encoding::kText);
  const CacheTraceResult r = import_cache_trace(format, path, o, *writer);
  writer->finish();
  if (result) *result = r;
  return text;
}

std::string import_error(const std::string& format, const std::string& name, const std::string& bytes,
                         const CacheTraceOptions& o = {}) {
  const std::string path = write_file(name, bytes);
  try {
    import_text(format, path, o);
  } catch (const trace::TraceError& e) {
    const std::string m = e.what();
    const auto at = m.find(name);  // strip the temporary directory
    return at == std::string::npos ? m : m.substr(at);
  }
  return "no error";
}

// The trace body after the comment line: alloc, kernel, one read per request.
std::string body(const std::string& text) {
  const auto alloc = text.find("alloc ");
  return alloc == std::string::npos ? text : text.substr(alloc);
}

TEST(CacheTraceImport, OracleGeneralObjectsBecomePagesInFirstRequestOrder) {
  const std::string path = write_file("og.bin", oracle_general({{1, 7, 100, 2},
                                                                {2, 9, 5000, 4},
                                                                {3, 7, 100, -1},
                                                                {4, std::uint64_t{1} << 40, 1, -1},
                                                                {5, 9, 5000, -1}}));
  CacheTraceResult r;
  const std::string text = import_text("oraclegeneral", path, {}, &r);
  EXPECT_EQ(r.requests, 5u);
  EXPECT_EQ(r.objects, 3u);
  EXPECT_EQ(r.pages, 3u);
  EXPECT_EQ(body(text),
            "alloc objects 12KiB managed\n"
            "kernel requests gpu=0\n"
            "  r objects len=4KiB\n"
            "  r objects+4KiB len=4KiB\n"
            "  r objects len=4KiB\n"
            "  r objects+8KiB len=4KiB\n"
            "  r objects+4KiB len=4KiB\n"
            "end\n"
            "free objects\n"
            "end-of-trace\n");
}

TEST(CacheTraceImport, SizeAwareObjectsSpanTheirPages) {
  // Object 9 is requested at 5000 then 9000 bytes: it takes its largest size, 3 pages.
  const std::string path = write_file("og_sized.bin", oracle_general({{1, 7, 4096, 0},
                                                                      {2, 9, 5000, 0},
                                                                      {3, 5, 1, 0},
                                                                      {4, 9, 9000, 0}}));
  CacheTraceOptions o;
  o.size_aware = true;
  o.gpu = 1;
  CacheTraceResult r;
  EXPECT_EQ(body(import_text("oraclegeneral", path, o, &r)),
            "alloc objects 20KiB managed\n"
            "kernel requests gpu=1\n"
            "  r objects len=4KiB\n"
            "  r objects+4KiB len=12KiB\n"
            "  r objects+16KiB len=4KiB\n"
            "  r objects+4KiB len=12KiB\n"
            "end\n"
            "free objects\n"
            "end-of-trace\n");
  EXPECT_EQ(r.pages, 5u);
}

TEST(CacheTraceImport, TxtAndCsvRequests) {
  const std::string txt = write_file("req.txt", "# ids\n42\n\n18446744073709551615\n42\n");
  EXPECT_EQ(body(import_text("cachesim-txt", txt)),
            "alloc objects 8KiB managed\n"
            "kernel requests gpu=0\n"
            "  r objects len=4KiB\n"
            "  r objects+4KiB len=4KiB\n"
            "  r objects len=4KiB\n"
            "end\n"
            "free objects\n"
            "end-of-trace\n");
  const std::string csv = write_file("req.csv", "time;id;size\n10; 5 ;8192\n11;6;1\n12;5;8192\n");
  CacheTraceOptions o;
  o.columns = "time=0,obj=1,size=2";
  o.delimiter = ';';
  o.header = true;
  o.size_aware = true;
  EXPECT_EQ(body(import_text("cachesim-csv", csv, o)),
            "alloc objects 12KiB managed\n"
            "kernel requests gpu=0\n"
            "  r objects len=8KiB\n"
            "  r objects+8KiB len=4KiB\n"
            "  r objects len=8KiB\n"
            "end\n"
            "free objects\n"
            "end-of-trace\n");
}

TEST(CacheTraceImport, BadRecordsNameTheirByteOffsetOrLine) {
  std::string truncated = oracle_general({{1, 1, 1, 0}, {2, 2, 1, 0}});
  truncated += std::string(5, '\0');
  EXPECT_EQ(import_error("oraclegeneral", "trunc.bin", truncated),
            "trunc.bin: byte offset 48: truncated record (5 of 24 bytes; oracleGeneral records are 24 bytes: "
            "uint32 time, uint64 id, uint32 size, int64 next)");
  CacheTraceOptions sized;
  sized.size_aware = true;
  EXPECT_EQ(import_error("oraclegeneral", "zero.bin", oracle_general({{1, 1, 10, 0}, {2, 9, 0, 0}}), sized),
            "zero.bin: record at byte offset 24: object 9 has size 0, which maps to no page (size-aware mapping "
            "needs a size)");
  EXPECT_EQ(import_error("oraclegeneral", "empty.bin", ""), "empty.bin: no requests found in the input");
  EXPECT_EQ(import_error("cachesim-txt", "bad.txt", "1\n2\nabc\n"),
            "bad.txt:3: expected an object id (an unsigned decimal integer), got 'abc'");
  EXPECT_EQ(import_error("cachesim-txt", "big.txt", "18446744073709551616\n"),
            "big.txt:1: expected an object id (an unsigned decimal integer), got '18446744073709551616'");
  EXPECT_EQ(import_error("cachesim-txt", "neg.txt", "-3\n"),
            "neg.txt:1: expected an object id (an unsigned decimal integer), got '-3'");
  CacheTraceOptions csv;
  csv.columns = "obj=1,size=2";
  EXPECT_EQ(import_error("cachesim-csv", "short.csv", "0,1,2\n0,1\n", csv), "short.csv:2: expected at least 3 columns, got 2");
  EXPECT_EQ(import_error("cachesim-csv", "size.csv", "0,1,x\n", csv),
            "size.csv:1: bad object size 'x' (expected bytes, an unsigned decimal integer)");
  CacheTraceOptions no_obj;
  no_obj.columns = "size=1";
  EXPECT_EQ(import_error("cachesim-csv", "noobj.csv", "1,2\n", no_obj),
            "cachesim-csv: --columns must map obj (the object id column)");
  CacheTraceOptions dup;
  dup.columns = "obj=0,obj=1";
  EXPECT_EQ(import_error("cachesim-csv", "dup.csv", "1,2\n", dup),
            "cachesim-csv: --columns: 'obj' is unknown or given twice (known: obj, size, time)");
  CacheTraceOptions bad_gpu;
  bad_gpu.gpu = -1;
  EXPECT_EQ(import_error("cachesim-txt", "gpu.txt", "1\n", bad_gpu), "--gpu -1: expected a GPU index from 0 to 14");
}

TEST(CacheTraceImport, MissingFileIsNamed) {
  try {
    std::string text;
    auto writer = trace::create_trace_writer_to_string(&text, trace::Encoding::kText);
    import_cache_trace("oraclegeneral", temp_path("does-not-exist.bin"), {}, *writer);
    FAIL() << "no error";
  } catch (const trace::TraceError& e) {
    EXPECT_NE(std::string(e.what()).find("does-not-exist.bin: cannot open input"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace umsim::import
