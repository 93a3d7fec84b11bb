#include "cost/registry.h"

#include <algorithm>

namespace ridge::cost {

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
    return r;
  }();
  return registry;
}

const CostRuleRow* CostRegistry::find(std::string_view op_type) const {
  auto it = rows_.find(op_type);
  return it == rows_.end() ? nullptr : &it->second;
}

std::vector<std::string_view> CostRegistry::op_types() const {
  std::vector<std::string_view> types;
  for (const auto& [name, row] : rows_) types.push_back(name);
  std::sort(types.begin(), types.end());
  return types;
}

void CostRegistry::add(std::string_view family, std::initializer_list<CostRuleRow> rows) {
  for (auto row : rows) {
    row.family = family;
    rows_[row.op_type] = row;
  }
}

}  // namespace ridge::cost
