// Standard output is an output like any file: a full disk or a closed pipe
// behind it (`umsim trace stat > /dev/full`) must fail the command, not vanish
// with the stdio buffer at exit.
#pragma once

#include <string>

namespace umsim::io {

// Flushes std::cout and C stdout; returns "" on success, otherwise the reason
// ("No space left on device").
std::string flush_standard_output();

}  // namespace umsim::io
