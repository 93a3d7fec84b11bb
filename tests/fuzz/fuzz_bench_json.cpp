// libFuzzer target: arbitrary bytes as a `ridge bench -f json` file, through the bench codec
// (exec::read_bench_file, re-encoded) and the readers built on it: `ridge compare --measured`
// (report::select_bench_run) and `ridge calibrate --measured` (calib::read_bench_evidence); and as both files of a
// `ridge bench --csv` directory (exec::read_bench_csv: the same bytes as overall.csv and nodes.csv). Any input must
// end in a result or a ridge::Error. The readers take a path, so each input is written to a file first (under
// /dev/shm when it exists: no disk I/O).
// fuzz-max-len: 65536 (the longest input scripts/test.sh gives it, in bytes)
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "calib/bench_evidence.h"
#include "exec/bench_codec.h"
#include "exec/bench_csv.h"
#include "report/compare_report.h"
#include "util/error.h"

namespace {

std::filesystem::path scratch_dir() {
  return std::filesystem::exists("/dev/shm") ? std::filesystem::path("/dev/shm")
                                             : std::filesystem::temp_directory_path();
}

std::string scratch_file() {
  return (scratch_dir() / ("ridge-fuzz-bench-" + std::to_string(getpid()) + ".json")).string();
}

std::filesystem::path scratch_csv_dir() {
  auto dir = scratch_dir() / ("ridge-fuzz-bench-csv-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

void write(const std::filesystem::path& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = scratch_file();
  static const std::filesystem::path csv_dir = scratch_csv_dir();
  write(path, data, size);
  write(csv_dir / "overall.csv", data, size);
  write(csv_dir / "nodes.csv", data, size);
  try {
    ridge::exec::encode_bench(ridge::exec::read_bench_file(path).runs);
  } catch (const ridge::Error&) {
  }
  try {
    ridge::report::select_bench_run(path, {});
  } catch (const ridge::Error&) {
  }
  try {
    ridge::calib::read_bench_evidence({path});
  } catch (const ridge::Error&) {
  }
  try {
    ridge::exec::read_bench_csv(csv_dir, "fuzz");
  } catch (const ridge::Error&) {
  }
  return 0;
}
