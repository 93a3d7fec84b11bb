#pragma once
// Where a model's bytes can be read back from, on demand: tensors remember an offset into it
// instead of holding their bytes, so weights are never copied unless a value is needed.
#include <cstdint>

namespace ridge::graph {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads `size` bytes at `offset` into `out`; false when they are not all there.
  virtual bool read(int64_t offset, int64_t size, uint8_t* out) const = 0;
};

}  // namespace ridge::graph
