#pragma once
// Table of cost rules, one row per op type, with the traits the memory views need.
#include <string_view>
#include <unordered_map>

#include "cost/context.h"

namespace ridge::cost {

using CostRule = void (*)(CostContext&);

enum Trait : unsigned {
  kNone = 0,
  kFusible = 1u << 0,            // elementwise/activation/normalization: fused into its producer
  kNotDifferentiable = 1u << 1,  // integer/boolean/shape ops: no backward
};

struct CostRuleRow {
  std::string_view op_type;
  CostRule rule;
  unsigned traits = kNone;
  std::string_view family = {};  // set by CostRegistry::add: conv, matmul, elementwise, ...
};

class CostRegistry {
 public:
  static const CostRegistry& instance();
  const CostRuleRow* find(std::string_view op_type) const;
  std::vector<std::string_view> op_types() const;
  // Adds an op family's rows; the family groups ops for calibration and summaries.
  void add(std::string_view family, std::initializer_list<CostRuleRow> rows);

 private:
  std::unordered_map<std::string_view, CostRuleRow> rows_;
};

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

}  // namespace ridge::cost
