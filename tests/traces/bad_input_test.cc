// Malformed traces: every decoder error names the source and the line or byte
// offset, and says what was expected. Each case pins the exact message.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/traces/trace_test_util.h"
#include "traces/binary_format.h"
#include "traces/binary_writer.h"
#include "traces/byte_io.h"

namespace umsim::trace {
namespace {

// The TraceError message from decoding `data` completely, or "" if it decodes.
std::string decode_error(const std::string& data) {
  try {
    testing::decode(data, 64);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "";
}

struct TextCase {
  const char* name;
  const char* text;
  const char* message;  // the whole message, exactly
};

const TextCase kTextCases[] = {
    {"empty_file", "", "<memory>: empty file (not a umsim trace)"},
    {"missing_header", "alloc A 4KiB managed\n",
     "<memory>: file byte 0: not a umsim trace (expected the text header 'umsim-trace 1' or the binary magic "
     "\\x89UMTB\\r\\n\\x1a)"},
    {"wrong_text_version", "umsim-trace 3\n",
     "<memory>:1: unsupported text trace version 3 (this reader supports versions 1 and 2)"},
    {"unknown_keyword", "umsim-trace 1\nallocate A 4KiB managed\n",
     "<memory>:2: unknown keyword 'allocate' (expected alloc, free, kernel, end, r, w, a, rmw, cpu, prefetch, advise, "
     "sync, record, wait, phase, copy, memset, peer or end-of-trace)"},
    {"bad_unit", "umsim-trace 1\nalloc A 64MB managed\n",
     "<memory>:2: bad allocation size: unknown unit 'MB' in '64MB' (expected B, KiB, MiB, GiB or TiB)"},
    {"negative_size", "umsim-trace 1\nalloc A -4KiB managed\n",
     "<memory>:2: bad allocation size: negative size '-4KiB'"},
    {"bad_number", "umsim-trace 1\nalloc A 4KiB managed\ncpu r A count=many\n",
     "<memory>:3: bad count=: expected a number, got 'many'"},
    {"bad_duration_unit", "umsim-trace 1\nkernel k gpu=0 compute=5min\n",
     "<memory>:2: bad compute=: unknown unit 'min' in '5min' (expected ns, us, ms or s)"},
    {"missing_field", "umsim-trace 1\nkernel k stream=1\n", "<memory>:2: kernel needs gpu=N"},
    {"missing_alloc_kind", "umsim-trace 1\nalloc A 4KiB\n",
     "<memory>:2: alloc needs a name, a size and a kind: alloc NAME SIZE managed|device|pinned|mapped|system "
     "[on=PROC]"},
    {"unknown_alloc_kind", "umsim-trace 1\nalloc A 4KiB shared\n",
     "<memory>:2: unknown allocation kind 'shared' (expected managed, device, pinned, mapped or system)"},
    {"unknown_field", "umsim-trace 1\nalloc A 4KiB managed\ncpu r A size=4KiB\n",
     "<memory>:3: unexpected 'size=4KiB' in access line (expected len=, stride=, count=)"},
    {"field_twice", "umsim-trace 1\nalloc A 4KiB managed\ncpu r A len=4 len=8\n",
     "<memory>:3: field 'len=' given twice"},
    {"bad_processor", "umsim-trace 1\nalloc A 4KiB managed\nprefetch A to=gpu\n",
     "<memory>:3: bad to=gpu (expected cpu or gpuN, e.g. gpu0)"},
    {"unknown_advice", "umsim-trace 1\nalloc A 4KiB managed\nadvise A read_mostly\n",
     "<memory>:3: unknown advice 'read_mostly' (expected advise ALLOCATION[+OFFSET] [len=SIZE] "
     "readmostly|unset_readmostly|preferred=PROC|unset_preferred|accessed_by=PROC|unset_accessed_by=PROC)"},
    {"count_zero", "umsim-trace 1\nalloc A 4KiB managed\ncpu r A count=0\n",
     "<memory>:3: count=0: an access makes at least one pass"},
    {"unterminated_quote", "umsim-trace 1\nphase \"warm up\n", "<memory>:2: unterminated quoted name \"warm up"},
    {"bad_offset", "umsim-trace 1\nalloc A 4KiB managed\ncpu r A+0xZZ\n",
     "<memory>:3: bad offset in 'A+0xZZ': expected a number, got '0xZZ'"},
    {"prefetch_whole_unknown", "umsim-trace 1\nprefetch X to=gpu0\n",
     "<memory>:2: prefetch without len= of 'X', which has not been allocated (give len=)"},
    {"access_type_missing", "umsim-trace 1\ncpu A\n",
     "<memory>:2: expected an access type r, w, a or rmw after 'cpu', got 'A'"},
    {"sync_scope", "umsim-trace 1\nsync device\n",
     "<memory>:2: unknown sync scope 'device' (expected all, gpu=N or stream=N)"},
    {"gpu_out_of_range", "umsim-trace 1\nkernel k gpu=40000\n",
     "<memory>:2: gpu=40000 is out of range (at most 32766)"},
    {"end_with_fields", "umsim-trace 1\nend k0\n",
     "<memory>:2: unexpected 'k0' ('end' closes a kernel and takes no fields)"},
    {"size_too_large", "umsim-trace 1\nalloc A 99999999999TiB managed\n",
     "<memory>:2: bad allocation size: size '99999999999TiB' is too large"},
};

class TextBadInput : public ::testing::TestWithParam<TextCase> {};

TEST_P(TextBadInput, GivesThePreciseMessage) { EXPECT_EQ(decode_error(GetParam().text), GetParam().message); }

INSTANTIATE_TEST_SUITE_P(Cases, TextBadInput, ::testing::ValuesIn(kTextCases),
                         [](const auto& info) { return std::string(info.param.name); });

// --- binary -------------------------------------------------------------------------------

std::string header(std::uint16_t version = binary::kVersion, std::uint16_t flags = 0,
                   std::string_view layout = binary::kRecordLayout) {
  std::string h(reinterpret_cast<const char*>(binary::kMagic), 8);
  h += static_cast<char>(version & 0xff);
  h += static_cast<char>(version >> 8);
  h += static_cast<char>(flags & 0xff);
  h += static_cast<char>(flags >> 8);
  const auto n = static_cast<std::uint32_t>(layout.size());
  for (int i = 0; i < 4; ++i) h += static_cast<char>((n >> (8 * i)) & 0xff);
  h += layout;
  return h;
}

std::string records(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s += static_cast<char>(b);
  return s;
}

std::string compressed_example() {
  return testing::encode(testing::decode(testing::file_contents("traces/examples/training_step.umt")),
                         Encoding::kBinary);
}

const std::size_t kHeaderBytes = header().size();
const std::string kRecordPos = "<memory>:byte ";

TEST(BinaryBadInput, TruncatedHeader) {
  EXPECT_EQ(decode_error(header().substr(0, 11)),
            "<memory>: file byte 11: truncated header: the file ends inside the fixed header");
  EXPECT_EQ(decode_error(header().substr(0, 40)),
            "<memory>: file byte 40: truncated header: the file ends inside the record layout description");
}

TEST(BinaryBadInput, BadMagic) {
  std::string h = header();
  h[4] = 'X';
  EXPECT_EQ(decode_error(h), "<memory>: file byte 0: bad magic number (not a umsim binary trace)");
}

TEST(BinaryBadInput, WrongVersion) {
  EXPECT_EQ(decode_error(header(7)),
            "<memory>: file byte 8: unsupported binary trace version 7 (this reader supports versions 1 and 2)");
}

TEST(BinaryBadInput, UnknownFlags) {
  EXPECT_EQ(decode_error(header(1, 6)), "<memory>: file byte 10: unknown header flags 6 (known: 1 = zstd)");
}

TEST(BinaryBadInput, ForeignRecordLayout) {
  EXPECT_EQ(decode_error(header(1, 0, "umsim-trace-records 2\n")),
            "<memory>: file byte 16: the record layout description differs from this reader's (written by an "
            "incompatible version of umsim?)");
}

TEST(BinaryBadInput, BareZstdStream) {
  EXPECT_EQ(decode_error(records({0x28, 0xb5, 0x2f, 0xfd, 0, 0})),
            "<memory>: file byte 0: a bare zstd stream, not a umsim trace (binary traces start with the umsim "
            "header; decompress it or convert it with 'umsim trace convert')");
}

TEST(BinaryBadInput, TruncatedCompressedStream) {
  const std::string full = compressed_example();
  const std::string cut = full.substr(0, full.size() - 7);
  EXPECT_EQ(decode_error(cut), "<memory>: file byte " + std::to_string(cut.size()) +
                                   ": truncated zstd stream: the file ends inside a compressed frame");
}

TEST(BinaryBadInput, CorruptZstdFrame) {
  std::string data = compressed_example();
  // Flip bits in the middle of the compressed block: the frame checksum (or the block decoder) catches it.
  for (std::size_t i = kHeaderBytes + 40; i < kHeaderBytes + 48; ++i) data[i] = static_cast<char>(data[i] ^ 0x5a);
  const std::string err = decode_error(data);
  EXPECT_EQ(err.rfind("<memory>: file byte ", 0), 0u) << err;
  EXPECT_NE(err.find(": corrupt zstd data: "), std::string::npos) << err;
}

TEST(BinaryBadInput, TruncatedRecordStream) {
  // A name definition, then the stream stops with no end-of-trace record.
  EXPECT_EQ(decode_error(header() + records({binary::kTagNameDef, 1, 'A'})),
            kRecordPos + "3: truncated: the record stream ends without an end-of-trace record");
  // An alloc record cut inside its size varint.
  EXPECT_EQ(decode_error(header() + records({binary::kTagNameDef, 1, 'A', 0, 0, 0, 0x80})),
            kRecordPos + "3: truncated record at the end of the stream");
}

TEST(BinaryBadInput, RecordCutBeforeItsLastField) {
  // An access whose count field is missing: the truncation is reported, not "count 0".
  EXPECT_EQ(decode_error(header() + records({binary::kTagNameDef, 1, 'A', 4, 0, 0, 4, 0})),
            kRecordPos + "3: truncated record at the end of the stream");
}

TEST(BinaryBadInput, VarintOverflow) {
  EXPECT_EQ(decode_error(header() + records({binary::kTagNameDef, 1, 'A', 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                             0xff, 0xff, 0xff, 0x02, 15, 1})),
            kRecordPos + "3: varint overflow (a value longer than 64 bits)");
}

TEST(BinaryBadInput, NameIdOutOfRange) {
  EXPECT_EQ(decode_error(header() + records({binary::kTagNameDef, 1, 'A', 4, 5, 0, 4, 0, 1, 15, 1})),
            kRecordPos + "3: name id 5 out of range (1 names defined so far)");
}

TEST(BinaryBadInput, UnknownRecordTag) {
  EXPECT_EQ(decode_error(header() + records({0x0e, 15, 0})),
            kRecordPos + "0: record tag 0x0e is a version-2 statement (copy, memset or peer) in a version 1 trace");
}

TEST(BinaryBadInput, OpOutOfRange) {
  EXPECT_EQ(decode_error(header() + records({binary::kTagNameDef, 1, 'A', 0x70, 0, 0, 16, 15, 1})),
            kRecordPos + "3: allocation kind 7 out of range");
}

TEST(BinaryBadInput, EventCountMismatch) {
  EXPECT_EQ(decode_error(header() + records({3, 15, 2})),
            kRecordPos + "1: the end-of-trace record counts 2 events but the stream holds 1");
}

TEST(BinaryBadInput, DataAfterTheEnd) {
  EXPECT_EQ(decode_error(header() + records({3, 15, 1, 3})),
            kRecordPos + "3: unexpected data after the end-of-trace record");
}

TEST(BinaryBadInput, NameDefinedTwice) {
  EXPECT_EQ(decode_error(header() + records({binary::kTagNameDef, 1, 'A', binary::kTagNameDef, 1, 'A', 15, 0})),
            kRecordPos + "3: name 'A' is defined twice");
}

TEST(BinaryBadInput, ControlCharacterInName) {
  EXPECT_EQ(decode_error(header() + records({binary::kTagNameDef, 2, 'A', '\n', 15, 0})),
            kRecordPos + "0: bad name definition: name contains control character 10");
}

TEST(BinaryBadInput, KernelNeedsAGpuAndPrefetchADestination) {
  EXPECT_EQ(decode_error(header() + records({binary::kTagNameDef, 1, 'k', 2, 0, 0x80, 0x80, 0x02, 0, 0, 15, 1})),
            kRecordPos + "3: gpu index 32768 out of range");
  EXPECT_EQ(decode_error(header() + records({binary::kTagNameDef, 1, 'A', 6, 0, 0, 0, 0, 0, 15, 1})),
            kRecordPos + "3: a prefetch needs a destination processor");
}

TEST(BinaryBadInput, WellFormedHandMadeStreamDecodes) {
  // The same bytes as the failing cases, made valid: name A, alloc A 4KiB managed, free A.
  const auto items = testing::decode(header() + records({binary::kTagNameDef, 1, 'A', 0, 0, 0, 0x80, 0x20, 1, 0, 15, 2}));
  const auto ev = testing::events_of(items);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].event.length, 4096u);
  EXPECT_EQ(ev[0].name, "A");
  EXPECT_EQ(ev[1].event.kind, EventKind::kFree);
  EXPECT_EQ(ev[1].position, "<memory>:byte 8");
}

}  // namespace
}  // namespace umsim::trace
