// Standard output is an output like any file: a full disk or a closed pipe
// behind it (`umsim trace stat > /dev/full`) must fail the command with the
// reason, not vanish with the stream's buffer at exit.
#pragma once

#include <string>

namespace umsim::io {

// Makes std::cout write to file descriptor 1 through a buffer that keeps the
// first write error's reason: a stream keeps only its failed state, and errno
// is long overwritten when a command that printed much reports the failure.
// Called first thing in main. C stdio (printf) is then not ordered with
// std::cout: a program that calls this prints through std::cout only.
void keep_standard_output_errors();

// Flushes std::cout and C stdout; returns "" on success, otherwise the reason
// ("No space left on device").
std::string flush_standard_output();

// Flushes as above; throws OutputError("cannot write the standard output: REASON") on failure.
void check_standard_output();

}  // namespace umsim::io
