#pragma once
// A tensor's values on the host, in its dtype's little-endian layout: what crosses between
// ridge and the executor module (inputs, outputs, test data), free of any tensor library type.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/dtype.h"

namespace ridge::exec {

struct HostTensor {
  std::string name;
  graph::DType dtype = graph::DType::kUndefined;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
};

}  // namespace ridge::exec
