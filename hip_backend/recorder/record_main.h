// `umsim-hip record -o OUT [--log LOG] [--recorder SO] -- PROGRAM ARGS...`:
// runs PROGRAM with the recorder library preloaded, then converts its log to a
// umsim trace. Exposed as a function so umsim-hip can dispatch `record` to it;
// umsim-hip-record is the same as a stand-alone program.
#pragma once

namespace umsim::recorder {

// argv[0] is the command name; returns the process exit status.
int record_main(int argc, char** argv);

}  // namespace umsim::recorder
