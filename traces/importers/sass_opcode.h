// Classifies NVIDIA SASS memory opcodes ("LDG.E.64", "STG.E", "ATOM.E.ADD"...)
// by what they do to global (unified) memory and how many bytes a lane moves.
#pragma once

#include <string_view>

#include "traces/event.h"

namespace umsim::import {

enum class MemOpKind {
  kNotMemory,  // unknown or not a memory instruction
  kOtherSpace, // shared, local or constant memory: not unified memory
  kRead,
  kWrite,
  kAtomic,
};

struct MemOp {
  MemOpKind kind = MemOpKind::kNotMemory;
  unsigned width = 4;  // bytes per lane
  trace::AccessType access() const {
    return kind == MemOpKind::kWrite ? trace::AccessType::kWrite
           : kind == MemOpKind::kAtomic ? trace::AccessType::kAtomic
                                        : trace::AccessType::kRead;
  }
};

inline MemOp classify_sass(std::string_view opcode) {
  const std::string_view base = opcode.substr(0, opcode.find('.'));
  MemOp op;
  auto is = [&](std::initializer_list<std::string_view> names) {
    for (auto n : names)
      if (base == n) return true;
    return false;
  };
  if (is({"LDS", "STS", "LDL", "STL", "ATOMS", "LDSM", "STSM", "LDC"})) op.kind = MemOpKind::kOtherSpace;
  else if (is({"LD", "LDG", "LDU", "LDGSTS", "SULD", "TEX", "TLD", "TLD4", "TXD"})) op.kind = MemOpKind::kRead;
  else if (is({"ST", "STG", "SUST"})) op.kind = MemOpKind::kWrite;
  else if (is({"ATOM", "ATOMG", "RED", "REDG", "SUATOM", "SURED"})) op.kind = MemOpKind::kAtomic;
  // Width modifiers anywhere after the mnemonic.
  std::string_view rest = opcode.substr(base.size());
  while (!rest.empty()) {
    rest.remove_prefix(1);  // the '.'
    const std::string_view mod = rest.substr(0, rest.find('.'));
    if (mod == "8" || mod == "U8" || mod == "S8") op.width = 1;
    else if (mod == "16" || mod == "U16" || mod == "S16") op.width = 2;
    else if (mod == "64" || mod == "U64" || mod == "S64" || mod == "F64") op.width = 8;
    else if (mod == "128") op.width = 16;
    rest.remove_prefix(mod.size());
  }
  return op;
}

}  // namespace umsim::import
