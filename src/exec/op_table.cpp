#include "exec/op_table.h"

namespace ridge {

using namespace exec;

template <>
const OpRegistry& OpRegistry::instance() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_elementwise_ops(r);
    register_conv_ops(r);
    register_matmul_ops(r);
    register_normalization_ops(r);
    register_pooling_ops(r);
    register_reduction_ops(r);
    register_manipulation_ops(r);
    register_generator_ops(r);
    register_quantization_ops(r);
    register_resize_ops(r);
    register_attention_ops(r);
    register_detection_ops(r);
    register_recurrent_ops(r);
    register_loss_ops(r);
    register_control_ops(r);
    register_sequence_ops(r);
    register_signal_ops(r);
    return r;
  }();
  return registry;
}

}  // namespace ridge
