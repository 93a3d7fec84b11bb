#pragma once
// Loads an ONNX model (ModelProto) into ridge's Graph without copying weight bytes.
#include <string>

#include "graph/graph.h"

namespace ridge::onnx {

struct LoadOptions {
  int max_subgraph_depth = 64;  // guards against maliciously deep nesting
  // Values in TensorProto's typed fields (float_data, ...) are decoded up to this many elements;
  // larger tensors stored that way are weights, which analysis never needs (the executor does).
  int64_t max_typed_elements = 1 << 16;
};

// Throws ridge::Error with a one-line message for unreadable, truncated or invalid files.
graph::Model load_model(const std::string& path, const LoadOptions& options = {});
// Same, from bytes already in memory (used by the fuzz target). `bytes` must outlive the model.
// Reads a file holding one TensorProto (ONNX test data: input_0.pb, output_0.pb); its raw data
// stays in the file until read with read_tensor_bytes.
std::shared_ptr<graph::TensorRef> load_tensor_file(const std::string& path);
// Same, from bytes already in memory (used by the fuzz target). `bytes` must outlive the tensor.
std::shared_ptr<graph::TensorRef> load_tensor_from_bytes(const uint8_t* bytes, int64_t size, const std::string& name);
graph::Model load_model_from_bytes(const uint8_t* bytes, int64_t size, const std::string& name,
                                   const LoadOptions& options = {});

}  // namespace ridge::onnx
