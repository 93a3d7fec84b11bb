// libFuzzer target: arbitrary text through the PyTorch profiler trace reader (`ridge import torch`),
// its layer mapping and its summary. Any input must end in a summary or a ridge::Error.
// fuzz-max-len: 65536 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>
#include <string>

#include "profile/torch_trace.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto trace = ridge::profile::parse_torch_trace(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    ridge::profile::map_layers(trace, nullptr);
    ridge::profile::summarize(trace);
  } catch (const ridge::Error&) {
  }
  return 0;
}
