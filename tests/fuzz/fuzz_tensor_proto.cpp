// libFuzzer target: arbitrary bytes through the TensorProto reader (`ridge run --inputs DIR`,
// input_N.pb), then its bytes and values decoded. Any input must end in a tensor or a ridge::Error.
// fuzz-max-len: 65536 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>

#include "onnx/model_reader.h"
#include "onnx/tensor_decode.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto tensor = ridge::onnx::load_tensor_from_bytes(data, static_cast<int64_t>(size), "fuzz.pb");
    // External data names a file: a fuzzer must not read the file system, so only the in-file forms.
    if (tensor->location.kind == ridge::graph::TensorLocation::Kind::kExternal) return 0;
    auto bytes = ridge::onnx::read_tensor_bytes(*tensor, "");
    ridge::onnx::decode_values(*tensor, bytes);
  } catch (const ridge::Error&) {
  }
  return 0;
}
