#pragma once
// A node attribute: one of ONNX's attribute kinds, decoded from the file.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/tensor.h"

namespace ridge::graph {

struct Graph;

struct Attribute {
  enum class Kind {
    kUndefined,
    kFloat,
    kInt,
    kString,
    kTensor,
    kGraph,
    kFloats,
    kInts,
    kStrings,
    kTensors,
    kGraphs,
    kOther
  };
  std::string name;
  Kind kind = Kind::kUndefined;
  double f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<double> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::shared_ptr<TensorRef> tensor;
  std::vector<std::shared_ptr<Graph>> graphs;  // g (one) or graphs (many)
};

}  // namespace ridge::graph
