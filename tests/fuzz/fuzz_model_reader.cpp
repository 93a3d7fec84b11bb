// libFuzzer target: arbitrary bytes through the loader, shape inference and the cost model.
// Any input must end in a model or a ridge::Error, never a crash, hang or sanitizer report.
// fuzz-max-len: 262144 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>

#include "cost/analysis.h"
#include "onnx/model_reader.h"
#include "shape/infer.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto model = ridge::onnx::load_model_from_bytes(data, static_cast<int64_t>(size), "fuzz-input");
    ridge::shape::Bindings bindings;
    bindings.batch = 2;
    ridge::shape::bind_inputs(model, bindings);
    ridge::shape::infer_shapes(model);
    ridge::cost::CostOptions options;
    options.training = true;
    ridge::cost::analyze(model, options);
  } catch (const ridge::Error&) {
  }
  return 0;
}
