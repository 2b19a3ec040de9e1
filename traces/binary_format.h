// Constants and primitives of the binary encoding (specified in FORMAT.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace umsim::trace::binary {

// 8-byte magic, PNG style: a high byte first and CR LF / ^Z to catch text-mode damage.
inline constexpr unsigned char kMagic[8] = {0x89, 'U', 'M', 'T', 'B', '\r', '\n', 0x1a};
inline constexpr std::uint16_t kVersion = 1;   // the version this writer writes unless told otherwise
inline constexpr std::uint16_t kVersion2 = 2;  // adds copy, memset, peer enable and rmw accesses
inline constexpr std::uint16_t kFlagZstd = 1;      // the record stream is a sequence of zstd frames
inline constexpr std::size_t kFixedHeaderBytes = 16;  // magic, version, flags, layout length
inline constexpr std::uint32_t kMaxLayoutBytes = 1 << 16;

// Record tags: low 4 bits the record type, high 4 bits the event's op.
// Event record types are the EventKind values 0..11.
inline constexpr std::uint8_t kTagNameDef = 12;
inline constexpr std::uint8_t kTagComment = 13;
// Version 2: an event of kind kVersion1EventKinds + subkind; the subkind is the first varint.
inline constexpr std::uint8_t kTagVersion2Event = 14;
inline constexpr std::uint8_t kTagEndOfTrace = 15;

// The longest event record: a tag and eight 10-byte varints (a version-2 copy
// between allocations: subkind, name, offset, length, gpu, stream, source, source offset).
inline constexpr std::size_t kMaxEventRecordBytes = 1 + 8 * 10;

// The record layout, stored in every header so a file says how it is laid out.
// A reader accepts only the layout it was built for (one per format version).
#define UMSIM_RECORDS_0_TO_13                    \
  "tag: u8 = type | op << 4; fields: LEB128 varints\n" \
  "0 alloc: name processor size\n"               \
  "1 free: name\n"                               \
  "2 kernel: name gpu stream compute_ns\n"       \
  "3 end:\n"                                     \
  "4 gpu_access: name offset_delta length stride count\n" \
  "5 cpu_access: name offset_delta length stride count\n" \
  "6 prefetch: name processor stream offset length\n"     \
  "7 advise: name processor offset length\n"     \
  "8 sync: value\n"                              \
  "9 record: name stream\n"                      \
  "10 wait: name stream\n"                       \
  "11 phase: name\n"                             \
  "12 name_def: length bytes\n"                  \
  "13 comment: length bytes\n"
#define UMSIM_RECORD_FIELDS \
  "processor: 0 none, 1 cpu, 2 + g gpu g; offset_delta: zigzag(offset - end of the previous access to name)\n"

inline constexpr std::string_view kRecordLayout =
    "umsim-trace-records 1\n" UMSIM_RECORDS_0_TO_13 "15 end_of_trace: event_count\n" UMSIM_RECORD_FIELDS;

// Version 2's layout: version 1's plus the version-2 events and the rmw access type.
inline constexpr std::string_view kRecordLayoutV2 =
    "umsim-trace-records 2\n" UMSIM_RECORDS_0_TO_13
    "14 v2_event: subkind, then by subkind:\n"
    "  0 copy: name offset length gpu stream [source_name source_offset if op kind 4]\n"
    "  1 memset: name offset length gpu stream\n"
    "  2 peer_enable: gpu peer_gpu\n"
    "15 end_of_trace: event_count\n"
    "access op: 0 r, 1 w, 2 a, 3 rmw; copy op: kind (0 from pinned host, 1 from pageable host, 2 to pinned host, "
    "3 to pageable host, 4 between allocations) | 8 async; memset op: 8 async\n" UMSIM_RECORD_FIELDS;

#undef UMSIM_RECORD_FIELDS
#undef UMSIM_RECORDS_0_TO_13

inline std::string_view record_layout(std::uint16_t version) { return version == kVersion2 ? kRecordLayoutV2 : kRecordLayout; }

inline std::uint64_t zigzag(std::uint64_t delta) {
  const auto s = static_cast<std::int64_t>(delta);
  return (static_cast<std::uint64_t>(s) << 1) ^ static_cast<std::uint64_t>(s >> 63);
}
inline std::uint64_t unzigzag(std::uint64_t z) { return (z >> 1) ^ (~(z & 1) + 1); }

// Appends v as LEB128; returns the new end. dst needs 10 bytes.
inline std::uint8_t* put_varint(std::uint8_t* dst, std::uint64_t v) {
  while (v >= 0x80) {
    *dst++ = static_cast<std::uint8_t>(v) | 0x80;
    v >>= 7;
  }
  *dst++ = static_cast<std::uint8_t>(v);
  return dst;
}

}  // namespace umsim::trace::binary
