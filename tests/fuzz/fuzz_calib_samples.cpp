// libFuzzer target: arbitrary text through the calibration evidence readers (layer samples and
// framework overhead, CSV, `ridge calibrate`), PyTorch's timings (JSON Lines) and the GPU block of a calibration model
// file (JSON; the rest of that file holds XGBoost's own trees, which XGBoost parses). Any input must end in a value or
// a ridge::Error.
// fuzz-max-len: 8192 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "calib/gpu_model.h"
#include "calib/sample.h"
#include "calib/torch_timings.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    std::istringstream in(text);
    ridge::calib::read_samples_csv(in, "fuzz_samples.csv");
  } catch (const ridge::Error&) {
  }
  try {
    std::istringstream in(text);
    ridge::calib::read_overhead_csv(in, "fuzz_overhead.csv");
  } catch (const ridge::Error&) {
  }
  try {
    std::istringstream in(text);
    std::vector<std::string> notes;
    ridge::calib::read_torch_timings(in, "fuzz_timings.jsonl", notes);
  } catch (const ridge::Error&) {
  }
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_discarded()) {
    try {
      ridge::calib::GpuTimeModel::from_json(json);
    } catch (const ridge::Error&) {
    }
  }
  return 0;
}
