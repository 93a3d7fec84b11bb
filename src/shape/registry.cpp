#include "shape/registry.h"

namespace ridge {

using namespace shape;

template <>
const ShapeRegistry& ShapeRegistry::instance() {
  static const ShapeRegistry registry = [] {
    ShapeRegistry r;
    register_elementwise_shapes(r);
    register_conv_shapes(r);
    register_matmul_shapes(r);
    register_normalization_shapes(r);
    register_pooling_shapes(r);
    register_reduction_shapes(r);
    register_manipulation_shapes(r);
    register_recurrent_shapes(r);
    register_attention_shapes(r);
    register_control_shapes(r);
    register_sequence_shapes(r);
    register_signal_shapes(r);
    register_loss_shapes(r);
    return r;
  }();
  return registry;
}

}  // namespace ridge
