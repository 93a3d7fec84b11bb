#pragma once
// Table of shape rules, one row per op type of the default domain.
#include <string_view>
#include <unordered_map>

#include "shape/context.h"

namespace ridge::shape {

using ShapeRule = void (*)(InferenceContext&);

struct ShapeRuleRow {
  std::string_view op_type;
  ShapeRule rule;
};

class ShapeRegistry {
 public:
  static const ShapeRegistry& instance();
  ShapeRule find(std::string_view op_type) const;
  std::vector<std::string_view> op_types() const;
  void add(std::initializer_list<ShapeRuleRow> rows);

 private:
  std::unordered_map<std::string_view, ShapeRule> rules_;
};

// One per op family file; each adds its table's rows.
void register_elementwise_shapes(ShapeRegistry& registry);
void register_conv_shapes(ShapeRegistry& registry);
void register_matmul_shapes(ShapeRegistry& registry);
void register_normalization_shapes(ShapeRegistry& registry);
void register_pooling_shapes(ShapeRegistry& registry);
void register_reduction_shapes(ShapeRegistry& registry);
void register_manipulation_shapes(ShapeRegistry& registry);
void register_recurrent_shapes(ShapeRegistry& registry);
void register_loss_shapes(ShapeRegistry& registry);
void register_attention_shapes(ShapeRegistry& registry);
void register_control_shapes(ShapeRegistry& registry);

}  // namespace ridge::shape
