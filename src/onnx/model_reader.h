#pragma once
// Loads an ONNX model (ModelProto) into ridge's Graph without copying weight bytes.
#include <string>

#include "graph/graph.h"

namespace ridge::onnx {

struct LoadOptions {
  int max_subgraph_depth = 64;  // guards against maliciously deep nesting
};

// Throws ridge::Error with a one-line message for unreadable, truncated or invalid files.
graph::Model load_model(const std::string& path, const LoadOptions& options = {});
// Same, from bytes already in memory (used by the fuzz target). `bytes` must outlive the model.
graph::Model load_model_from_bytes(const uint8_t* bytes, int64_t size, const std::string& name,
                                   const LoadOptions& options = {});

}  // namespace ridge::onnx
