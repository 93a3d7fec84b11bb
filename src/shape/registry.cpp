#include "shape/registry.h"

#include <algorithm>

namespace ridge::shape {

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
    register_loss_shapes(r);
    return r;
  }();
  return registry;
}

ShapeRule ShapeRegistry::find(std::string_view op_type) const {
  auto it = rules_.find(op_type);
  return it == rules_.end() ? nullptr : it->second;
}

std::vector<std::string_view> ShapeRegistry::op_types() const {
  std::vector<std::string_view> types;
  for (const auto& [name, rule] : rules_) types.push_back(name);
  std::sort(types.begin(), types.end());
  return types;
}

void ShapeRegistry::add(std::initializer_list<ShapeRuleRow> rows) {
  for (const auto& row : rows) rules_[row.op_type] = row.rule;
}

}  // namespace ridge::shape
