// Text and binary readers/writers: hand-computed decoding of the issue's
// example, canonical text, and text -> binary -> text round trips on every example.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "tests/traces/trace_test_util.h"
#include "traces/binary_writer.h"
#include "traces/byte_io.h"
#include "traces/event_factory.h"
#include "traces/event_validation.h"
#include "traces/text_writer.h"
#include "traces/trace_copy.h"
#include "traces/trace_names.h"

namespace umsim::trace {
namespace {

using testing::decode;
using testing::encode;
using testing::events_of;
using testing::file_contents;
using testing::Item;

constexpr Bytes MiB = 1 << 20;

std::vector<std::string> example_paths() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator("traces/examples"))
    if (entry.path().extension() == ".umt") paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(TextReader, DecodesTheIssueExample) {
  auto reader = open_trace("traces/examples/cpu_gpu_cpu.umt");
  const auto items = testing::read_items(*reader);
  const auto ev = events_of(items);
  ASSERT_EQ(ev.size(), 13u);
  // alloc A 64MiB managed
  EXPECT_EQ(ev[0].event.kind, EventKind::kAlloc);
  EXPECT_EQ(ev[0].name, "A");
  EXPECT_EQ(ev[0].event.length, 64 * MiB);
  EXPECT_EQ(ev[0].event.alloc_kind(), AllocKind::kManaged);
  EXPECT_TRUE(ev[0].event.processor.is_none());
  EXPECT_EQ(ev[0].position, "traces/examples/cpu_gpu_cpu.umt:3");
  // cpu w A len=64MiB
  EXPECT_EQ(ev[2].event.kind, EventKind::kCpuAccess);
  EXPECT_EQ(ev[2].event.access(), AccessType::kWrite);
  EXPECT_EQ(ev[2].event.length, 64 * MiB);
  EXPECT_EQ(ev[2].event.count, 1u);
  // advise B preferred=gpu0 (whole allocation)
  EXPECT_EQ(ev[3].event.kind, EventKind::kAdvise);
  EXPECT_EQ(ev[3].name, "B");
  EXPECT_EQ(ev[3].event.advice(), Advice::kSetPreferredLocation);
  EXPECT_EQ(ev[3].event.processor, Processor::gpu(0));
  EXPECT_EQ(ev[3].event.length, 64 * MiB);
  // prefetch A to=gpu0 stream=1 (whole allocation)
  EXPECT_EQ(ev[4].event.kind, EventKind::kPrefetch);
  EXPECT_EQ(ev[4].event.processor, Processor::gpu(0));
  EXPECT_EQ(ev[4].event.stream, 1u);
  EXPECT_EQ(ev[4].event.offset, 0u);
  EXPECT_EQ(ev[4].event.length, 64 * MiB);
  // kernel k0 gpu=0 stream=1 compute=200us
  EXPECT_EQ(ev[5].event.kind, EventKind::kKernelBegin);
  EXPECT_EQ(ev[5].name, "k0");
  EXPECT_EQ(ev[5].event.processor, Processor::gpu(0));
  EXPECT_EQ(ev[5].event.stream, 1u);
  EXPECT_EQ(ev[5].event.duration, 200000u);
  // r A len=64MiB stride=4KiB
  EXPECT_EQ(ev[6].event.kind, EventKind::kGpuAccess);
  EXPECT_EQ(ev[6].event.access(), AccessType::kRead);
  EXPECT_EQ(ev[6].event.stride, 4096u);
  // w B+0 len=32MiB
  EXPECT_EQ(ev[7].event.access(), AccessType::kWrite);
  EXPECT_EQ(ev[7].name, "B");
  EXPECT_EQ(ev[7].event.offset, 0u);
  EXPECT_EQ(ev[7].event.length, 32 * MiB);
  EXPECT_EQ(ev[8].event.kind, EventKind::kKernelEnd);
  EXPECT_EQ(ev[9].event.kind, EventKind::kSync);
  EXPECT_EQ(ev[9].event.sync_scope(), SyncScope::kAll);
  EXPECT_EQ(ev[10].event.kind, EventKind::kCpuAccess);
  EXPECT_EQ(ev[11].event.kind, EventKind::kFree);
  EXPECT_EQ(ev[12].name, "B");
  // Names interned in order of first appearance.
  EXPECT_EQ(reader->names().name(0), "A");
  EXPECT_EQ(reader->names().name(1), "B");
  EXPECT_EQ(reader->names().name(2), "k0");
  // The comment line is kept, before the first event.
  ASSERT_TRUE(items[0].is_comment);
  EXPECT_EQ(items[0].comment, "a CPU writes a buffer, a GPU kernel reads it, the CPU reads the result back");
}

TEST(TextReader, DefaultsOffsetsUnitsAndHex) {
  const auto items = decode(
      "umsim-trace 1\n"
      "alloc \"my buf\" 1GiB device on=gpu3\n"
      "kernel k gpu=3\n"
      "  r \"my buf\"+0x1000\n"
      "  a \"my buf\"+1.5KiB len=512B stride=0 count=7   # trailing comment\n"
      "end\n"
      "prefetch \"my buf\"+512MiB to=cpu\n"
      "advise \"my buf\"+1GiB readmostly\n"
      "sync gpu=3\n"
      "sync stream=9\n"
      "record e stream=4\n"
      "wait e\n"
      "phase p\n");
  const auto ev = events_of(items);
  ASSERT_EQ(ev.size(), 12u);
  EXPECT_EQ(ev[0].name, "my buf");
  EXPECT_EQ(ev[0].event.length, 1ull << 30);
  EXPECT_EQ(ev[0].event.alloc_kind(), AllocKind::kDevice);
  EXPECT_EQ(ev[0].event.processor, Processor::gpu(3));
  EXPECT_EQ(ev[1].event.duration, 0u);
  EXPECT_EQ(ev[1].event.stream, 0u);
  EXPECT_EQ(ev[2].event.offset, 4096u);
  EXPECT_EQ(ev[2].event.length, 4u);  // default access length
  EXPECT_EQ(ev[3].event.offset, 1536u);
  EXPECT_EQ(ev[3].event.length, 512u);
  EXPECT_EQ(ev[3].event.count, 7u);
  EXPECT_EQ(ev[3].event.access(), AccessType::kAtomic);
  EXPECT_EQ(ev[5].event.offset, 512 * MiB);
  EXPECT_EQ(ev[5].event.length, 512 * MiB);  // rest of the allocation
  EXPECT_EQ(ev[5].event.processor, Processor::cpu());
  EXPECT_EQ(ev[6].event.length, 0u);  // offset at the very end: empty rest
  EXPECT_EQ(ev[7].event.processor, Processor::gpu(3));
  EXPECT_EQ(ev[8].event.sync_scope(), SyncScope::kStream);
  EXPECT_EQ(ev[8].event.stream, 9u);
  EXPECT_EQ(ev[9].event.stream, 4u);
  EXPECT_EQ(ev[10].event.kind, EventKind::kEventWait);
  EXPECT_EQ(ev[10].event.stream, 0u);
  EXPECT_EQ(ev[11].event.kind, EventKind::kPhase);
  // The trailing comment precedes its event.
  ASSERT_TRUE(items[3].is_comment);
  EXPECT_EQ(items[3].comment, "trailing comment");
}

TEST(TextReader, AcceptsCrLfAndNoFinalNewline) {
  const auto ev = events_of(decode("umsim-trace 1\r\nalloc A 4KiB managed\r\nfree A"));
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1].event.kind, EventKind::kFree);
}

TEST(TextWriter, WritesTheCanonicalFormOfTheIssueExample) {
  const auto items = testing::read_items(*open_trace("traces/examples/cpu_gpu_cpu.umt"));
  EXPECT_EQ(encode(items, Encoding::kText), file_contents("tests/traces/golden/cpu_gpu_cpu.canonical.umt"));
}

TEST(TextWriter, QuotesNamesThatAreNotPlainTokens) {
  Event e;
  e.kind = EventKind::kPhase;
  EXPECT_EQ(TextWriter::format_event(e, "a b"), "phase \"a b\"");
  EXPECT_EQ(TextWriter::format_event(e, "x\"y\\z"), "phase \"x\\\"y\\\\z\"");
  EXPECT_EQ(TextWriter::format_event(e, "c=d"), "phase \"c=d\"");
  EXPECT_THROW(TextWriter::format_event(e, ""), TraceError);
  EXPECT_THROW(TextWriter::format_event(e, "new\nline"), TraceError);
}

class ExampleRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleRoundTrip, TextBinaryTextIsIdentical) {
  const std::string path = GetParam();
  const int version = open_trace(path)->version();
  const auto original = testing::read_items(*open_trace(path));
  const std::string canonical = encode(original, Encoding::kText, version);
  // The examples are written in canonical form, except the issue's own example (golden above).
  if (path.find("cpu_gpu_cpu") == std::string::npos) EXPECT_EQ(canonical, file_contents(path));

  const std::string binary = encode(original, Encoding::kBinary, version);
  const auto from_binary = decode(binary);
  EXPECT_EQ(events_of(from_binary), events_of(original));
  EXPECT_EQ(encode(from_binary, Encoding::kText, version), canonical);
  // The canonical text reads back to the same events and re-encodes to the same bytes.
  const auto from_canonical = decode(canonical);
  EXPECT_EQ(events_of(from_canonical), events_of(original));
  EXPECT_EQ(encode(from_canonical, Encoding::kBinary, version), binary);
}

TEST_P(ExampleRoundTrip, BatchSizeDoesNotChangeTheResult) {
  const std::string text = file_contents(GetParam());
  const std::string binary = encode(decode(text), Encoding::kBinary, open_trace(GetParam())->version());
  const auto reference = decode(text, 4096);
  for (std::size_t batch : {1, 2, 3, 7}) {
    const auto t = decode(text, batch);
    const auto b = decode(binary, batch);
    ASSERT_EQ(t.size(), reference.size());
    ASSERT_EQ(b.size(), reference.size());
    for (std::size_t i = 0; i < t.size(); ++i) {
      EXPECT_EQ(t[i].is_comment, reference[i].is_comment) << i;
      EXPECT_EQ(b[i].is_comment, reference[i].is_comment) << i;
      if (reference[i].is_comment) {
        EXPECT_EQ(t[i].comment, reference[i].comment);
        EXPECT_EQ(b[i].comment, reference[i].comment);
      } else {
        EXPECT_EQ(t[i].event, reference[i].event) << i;
        EXPECT_EQ(t[i].event.position, reference[i].event.position) << i;
        EXPECT_EQ(b[i].event, reference[i].event) << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleRoundTrip, ::testing::ValuesIn(example_paths()),
                         [](const auto& info) {
                           return std::filesystem::path(info.param).stem().string();
                         });

TEST(ExampleRoundTrip, CoversEveryEventKindAndOp) {
  bool kinds[kEventKindCount] = {};
  bool advice[6] = {}, alloc[4] = {}, access[4] = {}, sync[3] = {}, copy[5] = {}, async_copy = false;
  for (const auto& path : example_paths())
    for (const auto& ne : events_of(testing::read_items(*open_trace(path)))) {
      const Event& e = ne.event;
      kinds[static_cast<int>(e.kind)] = true;
      if (e.kind == EventKind::kAdvise) advice[e.op] = true;
      if (e.kind == EventKind::kAlloc) alloc[e.op] = true;
      if (e.kind == EventKind::kGpuAccess) access[e.op] = true;
      if (e.kind == EventKind::kSync) sync[e.op] = true;
      if (e.kind == EventKind::kCopy) copy[static_cast<int>(e.copy_kind())] = true;
      if (e.kind == EventKind::kCopy) async_copy |= e.is_async();
    }
  for (int k = 0; k < kEventKindCount; ++k) EXPECT_TRUE(kinds[k]) << to_string(static_cast<EventKind>(k));
  for (bool b : advice) EXPECT_TRUE(b);
  for (bool b : alloc) EXPECT_TRUE(b);
  for (bool b : access) EXPECT_TRUE(b);
  for (bool b : sync) EXPECT_TRUE(b);
  for (bool b : copy) EXPECT_TRUE(b);
  EXPECT_TRUE(async_copy);
}

TEST(BinaryWriter, UncompressedRecordsReadBack) {
  const auto items = decode(file_contents("traces/examples/stream_pipeline.umt"));
  std::string raw;
  {
    BinaryWriter writer(string_output(&raw), "<memory>", BinaryWriterOptions{.compress = false});
    for (const auto& it : items) {
      if (it.is_comment) writer.comment(it.comment);
      else writer.write(it.event.event, it.event.name);
    }
    writer.finish();
  }
  EXPECT_EQ(events_of(decode(raw)), events_of(items));
}

TEST(BinaryWriter, CompressesLargeSequentialTraces) {
  std::string out;
  auto writer = create_trace_writer_to_string(&out, Encoding::kBinary);
  Event alloc;
  alloc.kind = EventKind::kAlloc;
  alloc.length = 1ull << 40;
  writer->write(alloc, "big");
  Event e;
  e.kind = EventKind::kGpuAccess;
  e.length = 4096;
  for (int i = 0; i < 100000; ++i) {
    e.offset = static_cast<Bytes>(i) * 4096;
    writer->write(e, "big");
  }
  writer->finish();
  // Delta-coded offsets make each record a handful of identical bytes.
  EXPECT_LT(out.size(), 20000u);
  const auto ev = events_of(decode(out));
  ASSERT_EQ(ev.size(), 100001u);
  EXPECT_EQ(ev[12345].event.offset, 12344ull * 4096);
}

// Random well-formed events (every kind, extreme values, awkward names) survive
// both encodings unchanged.
std::vector<Item> random_items(std::uint64_t seed, int count, int version = 1) {
  std::mt19937_64 rng(seed);
  const std::vector<std::string> names = {"A", "buf_0", "my buffer", "q\"uote", "back\\slash", "x+y=z", "#hash",
                                          "k<int>(float*)", "\xc3\xa9t\xc3\xa9", std::string(300, 'n')};
  auto pick = [&](std::uint64_t n) { return rng() % n; };
  auto big = [&]() -> std::uint64_t {
    switch (pick(4)) {
      case 0: return pick(16);
      case 1: return pick(1 << 20);
      case 2: return rng();
      default: return pick(1024) * 4096;
    }
  };
  auto processor = [&]() { return pick(3) == 0 ? Processor::cpu() : Processor::gpu(static_cast<int>(pick(32767))); };
  std::vector<Item> items;
  for (int i = 0; i < count; ++i) {
    Item it;
    if (pick(20) == 0) {
      it.is_comment = true;
      it.comment = pick(2) ? "note " + std::to_string(i) : "  indented # with hash";
      items.push_back(it);
      continue;
    }
    Event& e = it.event.event;
    e.kind = static_cast<EventKind>(pick(version >= 2 ? kEventKindCount : kVersion1EventKinds));
    const bool named = e.kind != EventKind::kKernelEnd && e.kind != EventKind::kSync && e.kind != EventKind::kPeerEnable;
    it.event.name = named ? names[pick(names.size())] : "";
    switch (e.kind) {
      case EventKind::kAlloc:
        e.op = static_cast<std::uint8_t>(pick(4));
        e.length = big();
        if (pick(2)) e.processor = processor();
        break;
      case EventKind::kKernelBegin:
        e.processor = Processor::gpu(static_cast<int>(pick(32767)));
        e.stream = static_cast<StreamId>(rng());
        e.duration = big();
        break;
      case EventKind::kGpuAccess:
      case EventKind::kCpuAccess:
        e.op = static_cast<std::uint8_t>(pick(version >= 2 ? 4 : 3));
        e.offset = big();
        e.length = big();
        e.stride = pick(2) ? 0 : big();
        e.count = 1 + static_cast<std::uint32_t>(pick(2) ? 0 : rng() % 0xfffffffe);
        break;
      case EventKind::kPrefetch:
        e.offset = big();
        e.length = big();
        e.processor = processor();
        e.stream = static_cast<StreamId>(pick(5));
        break;
      case EventKind::kAdvise:
        e.op = static_cast<std::uint8_t>(pick(6));
        e.offset = big();
        e.length = big();
        if (takes_processor(e)) e.processor = processor();
        break;
      case EventKind::kSync:
        e.op = static_cast<std::uint8_t>(pick(3));
        if (e.sync_scope() == SyncScope::kGpu) e.processor = Processor::gpu(static_cast<int>(pick(8)));
        if (e.sync_scope() == SyncScope::kStream) e.stream = static_cast<StreamId>(rng());
        break;
      case EventKind::kEventRecord:
      case EventKind::kEventWait:
        e.stream = static_cast<StreamId>(rng());
        break;
      case EventKind::kCopy: {
        const auto kind = static_cast<CopyKind>(pick(5));
        const int gpu = static_cast<int>(pick(32767));
        if (kind == CopyKind::kBetweenAllocations) {
          e = events::copy_between(big(), 0, big(), big(), gpu, static_cast<StreamId>(rng()), pick(2));
          it.event.source_name = names[pick(names.size())];
        } else {
          e = events::copy_host(kind, big(), big(), gpu, static_cast<StreamId>(pick(5)), pick(2));
        }
        break;
      }
      case EventKind::kMemset:
        e = events::memset(big(), big(), static_cast<int>(pick(8)), static_cast<StreamId>(rng()), pick(2));
        break;
      case EventKind::kPeerEnable: {
        const int a = static_cast<int>(pick(32767));
        e = events::peer_enable(a, (a + 1 + static_cast<int>(pick(100))) % 32767);
        break;
      }
      default:
        break;
    }
    items.push_back(it);
  }
  return items;
}

class RoundTripVersions : public ::testing::TestWithParam<int> {};

TEST_P(RoundTripVersions, RandomEventsSurviveBothEncodings) {
  const int version = GetParam();
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const auto items = random_items(seed, 4000, version);
    const auto expected = events_of(items);
    const std::string text = encode(items, Encoding::kText, version);
    const std::string binary = encode(items, Encoding::kBinary, version);
    EXPECT_EQ(text.substr(0, 14), "umsim-trace " + std::to_string(version) + "\n");
    EXPECT_EQ(events_of(decode(text)), expected) << seed;
    EXPECT_EQ(events_of(decode(binary)), expected) << seed;
    std::string raw;
    {
      BinaryWriter writer(string_output(&raw), "<memory>", BinaryWriterOptions{.compress = false, .version = version});
      for (const auto& it : items) {
        if (it.is_comment) writer.comment(it.comment);
        else writer.write(it.event.event, it.event.name, it.event.source_name);
      }
      writer.finish();
    }
    EXPECT_EQ(events_of(decode(raw, 33)), expected) << seed;
    // Comments come back in place, from either encoding.
    const auto back = decode(binary);
    ASSERT_EQ(back.size(), items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      ASSERT_EQ(back[i].is_comment, items[i].is_comment) << i;
      if (items[i].is_comment) EXPECT_EQ(back[i].comment, items[i].comment);
    }
    EXPECT_EQ(encode(decode(text), Encoding::kText, version), text);
  }
}

INSTANTIATE_TEST_SUITE_P(FormatVersions, RoundTripVersions, ::testing::Values(1, 2));

// Traces far larger than the decoders' buffers (1 MiB text chunks, 4 MiB of
// decompressed records): records, long comments and late name definitions
// straddle every refill boundary.
TEST(RoundTripProperty, LargeTracesCrossBufferBoundaries) {
  std::vector<Item> items;
  std::mt19937_64 rng(99);
  Event alloc;
  alloc.kind = EventKind::kAlloc;
  alloc.length = 1ull << 40;
  for (int i = 0; i < 600000; ++i) {
    Item it;
    if (i % 100000 == 50000) {
      it.is_comment = true;
      it.comment = std::string(kMaxCommentBytes - (i % 7), static_cast<char>('a' + i % 26));
    } else if (i % 1000 == 0) {
      it.event.event = alloc;
      it.event.name = "buffer_" + std::to_string(i / 1000);  // a new name definition every 1000 events
    } else {
      Event& e = it.event.event;
      e.kind = EventKind::kGpuAccess;
      e.op = static_cast<std::uint8_t>(rng() % 3);
      e.offset = rng() % 8 == 0 ? rng() : static_cast<Bytes>(i) * 4096;
      e.length = 1 + rng() % 100000;
      e.stride = rng() % 4 == 0 ? rng() % 1000000 : 0;
      e.count = 1 + static_cast<std::uint32_t>(rng() % 3);
      it.event.name = "buffer_" + std::to_string(rng() % (1 + i / 1000));
    }
    items.push_back(std::move(it));
  }
  const std::string binary = encode(items, Encoding::kBinary);
  const std::string text = encode(items, Encoding::kText);
  ASSERT_GT(text.size(), 8u << 20);
  for (const std::string* data : {&binary, &text}) {
    const auto back = decode(*data, 4093);
    ASSERT_EQ(back.size(), items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
      ASSERT_EQ(back[i].is_comment, items[i].is_comment) << i;
      if (items[i].is_comment) {
        ASSERT_EQ(back[i].comment, items[i].comment) << i;
      } else {
        ASSERT_EQ(back[i].event, items[i].event) << i;
      }
    }
  }
}

TEST(TextReader, RejectsLinesLongerThanOneMiB) {
  const std::string text = "umsim-trace 1\nphase a\n# " + std::string(1 << 20, 'x') + "\nphase b\n";
  try {
    decode(text);
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "<memory>:3: line is longer than 1 MiB");
  }
}

TEST(Writers, RefuseCommentsLongerThanTheLineLimit) {
  std::string out;
  auto binary = create_trace_writer_to_string(&out, Encoding::kBinary);
  EXPECT_THROW(binary->comment(std::string(kMaxCommentBytes + 1, 'c')), TraceError);
  auto text = create_trace_writer_to_string(&out, Encoding::kText);
  EXPECT_THROW(text->comment(std::string(kMaxCommentBytes + 1, 'c')), TraceError);
}

// The text reader takes comment lines up to its 1 MiB line limit, a little
// longer than a trace may hold: a conversion names the input line it came from.
TEST(CopyTrace, NamesTheInputLineOfACommentTooLongToWrite) {
  const std::string text = "umsim-trace 1\nphase a\n# " + std::string(kMaxCommentBytes + 1, 'x') + "\nend-of-trace\n";
  for (const Encoding encoding : {Encoding::kText, Encoding::kBinary}) {
    auto reader = open_trace_from_memory(text, "long.umt");
    std::string out;
    auto writer = create_trace_writer_to_string(&out, encoding);
    try {
      copy_trace(*reader, *writer);
      FAIL() << "no error";
    } catch (const TraceError& e) {
      EXPECT_EQ(std::string(e.what()), "long.umt:3: comment line of 1048513 bytes is longer than the 1048512 bytes a "
                                       "trace holds in one comment line (writing <memory>)");
    }
  }
}

TEST(Writers, RefuseEventsTheyCannotStore) {
  std::string out;
  auto binary = create_trace_writer_to_string(&out, Encoding::kBinary);
  auto text = create_trace_writer_to_string(&out, Encoding::kText);
  Event kernel;
  kernel.kind = EventKind::kKernelBegin;
  kernel.processor = Processor::cpu();
  EXPECT_THROW(binary->write(kernel, "k"), TraceError);
  EXPECT_THROW(text->write(kernel, "k"), TraceError);
  Event access;
  access.kind = EventKind::kGpuAccess;
  access.count = 0;
  EXPECT_THROW(binary->write(access, "A"), TraceError);
  access.count = 1;
  EXPECT_THROW(binary->write(access, "bad\nname"), TraceError);
  EXPECT_THROW(binary->write(access, ""), TraceError);
}

}  // namespace
}  // namespace umsim::trace
