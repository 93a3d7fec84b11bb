// The elementwise ops the executor runs (their kernels: src/exec/aten/kernels/elementwise.cpp), with their
// traits: known without loading libtorch.
#include "exec/op_table.h"

namespace ridge::exec {

void register_elementwise_ops(OpRegistry& registry) {
  // clang-format off
  registry.add("elementwise", {
      {"Abs"}, {"Acos"}, {"Acosh"}, {"Asin"}, {"Asinh"}, {"Atan"}, {"Atanh"}, {"Ceil"}, {"Cos"},
      {"Cosh"}, {"Erf"}, {"Exp"}, {"Floor"}, {"Log"}, {"Neg"}, {"Reciprocal"}, {"Round"},
      {"Sigmoid"}, {"Sign"}, {"Sin"}, {"Sinh"}, {"Sqrt"}, {"Tan"}, {"Tanh"}, {"Relu"}, {"Not"},
      {"BitwiseNot"}, {"IsNaN"}, {"IsInf"}, {"Softplus"}, {"Softsign"}, {"Elu"}, {"Selu"}, {"Celu"},
      {"LeakyRelu"}, {"ThresholdedRelu"}, {"HardSigmoid"}, {"HardSwish"}, {"Mish"}, {"Swish"}, {"Gelu"},
      {"Shrink"}, {"Identity"}, {"Dropout"}, {"Clip"}, {"PRelu"}, {"Add"}, {"Sub"}, {"Mul"},
      {"Div"}, {"Pow"}, {"Mod"}, {"And"}, {"Or"}, {"Xor"}, {"BitwiseAnd"}, {"BitwiseOr"},
      {"BitwiseXor"}, {"BitShift"}, {"Equal"}, {"Greater"}, {"GreaterOrEqual"}, {"Less"},
      {"LessOrEqual"}, {"Max"}, {"Min"}, {"Sum"}, {"Mean"}, {"Where"}, {"Cast"}, {"CastLike"},
  });
  // clang-format on
}

}  // namespace ridge::exec
