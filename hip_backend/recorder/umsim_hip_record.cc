// umsim-hip-record: the recorder as a stand-alone program (same as `umsim-hip record`).
#include "hip_backend/recorder/record_main.h"

int main(int argc, char** argv) { return umsim::recorder::record_main(argc, argv); }
