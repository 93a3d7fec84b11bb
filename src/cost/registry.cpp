#include "cost/registry.h"

namespace ridge {

using namespace cost;

template <>
const CostRegistry& CostRegistry::instance() {
  static const CostRegistry registry = [] {
    CostRegistry r;
    register_elementwise_costs(r);
    register_conv_costs(r);
    register_matmul_costs(r);
    register_normalization_costs(r);
    register_pooling_costs(r);
    register_reduction_costs(r);
    register_manipulation_costs(r);
    register_recurrent_costs(r);
    register_attention_costs(r);
    register_loss_costs(r);
    register_control_costs(r);
    register_sequence_costs(r);
    register_signal_costs(r);
    return r;
  }();
  return registry;
}

}  // namespace ridge
