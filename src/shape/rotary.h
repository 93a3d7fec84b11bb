#pragma once
// The geometry of ONNX's RotaryEmbedding (opset 23), which shape inference, the cost model and the executor share: X's
// batch, heads, tokens and head size, whether X is 4-D [batch, heads, tokens, head] or 3-D [batch, tokens, hidden] of
// num_heads heads, and the channels of each head that rotate.
#include <cstdint>
#include <vector>

namespace ridge::shape {

struct RotaryGeometry {
  int64_t batch = 0, heads = 0, tokens = 0, head = 0;
  int64_t dim = 0;  // rotary_embedding_dim, the head's size where the attribute is 0: even, at most the head
};

// Throws ridge::Error naming what is wrong: a rank other than 3 or 4, a 3-D X without num_heads or whose hidden size
// does not split into them, a rotary dim that is odd, negative or larger than the head.
RotaryGeometry rotary_geometry(const std::vector<int64_t>& x, int64_t num_heads, int64_t rotary_embedding_dim);

}  // namespace ridge::shape
