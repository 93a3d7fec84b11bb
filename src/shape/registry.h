#pragma once
// Table of shape rules, one row per op type of the default domain.
#include <string_view>

#include "shape/context.h"
#include "util/registry.h"

namespace ridge::shape {

using ShapeRule = void (*)(InferenceContext&);

struct ShapeRuleRow {
  std::string_view op_type;
  ShapeRule rule;
  std::string_view family = {};  // set by ShapeRegistry::add: conv, matmul, elementwise, ...
};

using ShapeRegistry = Registry<ShapeRuleRow>;

}  // namespace ridge::shape

namespace ridge {
template <>
const shape::ShapeRegistry& shape::ShapeRegistry::instance();  // shape/registry.cpp: the families
}  // namespace ridge

namespace ridge::shape {

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
void register_sequence_shapes(ShapeRegistry& registry);
void register_signal_shapes(ShapeRegistry& registry);

}  // namespace ridge::shape
