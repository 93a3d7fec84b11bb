// libFuzzer target: arbitrary bytes as a `ridge bench -f json` file, through the bench codec
// (exec::read_bench_file, re-encoded) and the readers built on it: `ridge compare --measured`
// (report::read_bench_json) and `ridge calibrate --measured` (calib::read_bench_evidence). Any input must end in a
// result or a ridge::Error. The readers take a path, so each input is written to a file first (under /dev/shm when it
// exists: no disk I/O).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "calib/bench_evidence.h"
#include "exec/bench_codec.h"
#include "report/compare_report.h"
#include "util/error.h"

namespace {

std::string scratch_file() {
  auto dir =
      std::filesystem::exists("/dev/shm") ? std::filesystem::path("/dev/shm") : std::filesystem::temp_directory_path();
  return (dir / ("ridge-fuzz-bench-" + std::to_string(getpid()) + ".json")).string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = scratch_file();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    ridge::exec::encode_bench(ridge::exec::read_bench_file(path).runs);
  } catch (const ridge::Error&) {
  }
  try {
    ridge::report::read_bench_json(path, {});
  } catch (const ridge::Error&) {
  }
  try {
    ridge::calib::read_bench_evidence({path});
  } catch (const ridge::Error&) {
  }
  return 0;
}
