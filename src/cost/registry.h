#pragma once
// Table of cost rules, one row per op type, with the traits the memory views need.
#include <string_view>

#include "cost/context.h"
#include "util/registry.h"

namespace ridge::cost {

using CostRule = void (*)(CostContext&);

enum Trait : unsigned {
  kNone = 0,
  kFusible = 1u << 0,            // elementwise/activation/normalization: fused into its producer
  kNotDifferentiable = 1u << 1,  // integer/boolean/shape ops: no backward
  kControlFlow = 1u << 2,        // If, Loop, Scan: no rule of their own, costed through their subgraphs
};

struct CostRuleRow {
  std::string_view op_type;
  CostRule rule;  // null for control flow
  unsigned traits = kNone;
  std::string_view family = {};  // set by CostRegistry::add: conv, matmul, elementwise, ...
};

using CostRegistry = Registry<CostRuleRow>;

}  // namespace ridge::cost

namespace ridge {
template <>
const cost::CostRegistry& cost::CostRegistry::instance();  // cost/registry.cpp: the families
}  // namespace ridge

namespace ridge::cost {

void register_elementwise_costs(CostRegistry& registry);
void register_conv_costs(CostRegistry& registry);
void register_matmul_costs(CostRegistry& registry);
void register_normalization_costs(CostRegistry& registry);
void register_pooling_costs(CostRegistry& registry);
void register_reduction_costs(CostRegistry& registry);
void register_manipulation_costs(CostRegistry& registry);
void register_recurrent_costs(CostRegistry& registry);
void register_loss_costs(CostRegistry& registry);
void register_attention_costs(CostRegistry& registry);
void register_control_costs(CostRegistry& registry);
void register_sequence_costs(CostRegistry& registry);
void register_signal_costs(CostRegistry& registry);

}  // namespace ridge::cost
