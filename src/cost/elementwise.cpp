// Cost rules of elementwise ops. Convention: every arithmetic operation, comparison and
// evaluation of an elementary function (exp, log, tanh, erf, sqrt, ...) is one FLOP; costs are
// per output element. docs/cost-model.md lists the per-op counts used here.
#include "cost/registry.h"

namespace ridge::cost {
namespace {

// Unary op: `Fwd` FLOPs per element forward, `Bwd` per element for the input gradient.
template <int Fwd, int Bwd, bool SavesOutput>
void unary(CostContext& ctx) {
  int64_t n = ctx.out_elements();
  ctx.flops = Fwd * n;
  ctx.backward_flops_data = Bwd * n;
  ctx.saves_output = SavesOutput;
  ctx.saves_inputs = !SavesOutput && Bwd > 0;
}

// Binary broadcasting op: `Fwd` FLOPs per output element; backward `Bwd` per output element.
// Gradients of a broadcast input are summed over the broadcast dims (one add per element).
template <int Fwd, int Bwd, bool SavesInputs>
void binary(CostContext& ctx) {
  int64_t n = ctx.out_elements();
  ctx.flops = Fwd * n;
  int64_t reduce = 0;
  for (size_t i = 0; i < ctx.input_count(); ++i)
    if (ctx.has_input(i) && ctx.in_elements(i) != n) reduce += n;
  ctx.backward_flops_data = Bwd * n + reduce;
  ctx.saves_inputs = SavesInputs;
}

// Sum/Max/Min/Mean of k inputs: k-1 operations per element (+1 divide for Mean).
template <bool Mean>
void variadic(CostContext& ctx) {
  int64_t inputs = 0;
  for (size_t i = 0; i < ctx.input_count(); ++i) inputs += ctx.has_input(i) ? 1 : 0;
  int64_t n = ctx.out_elements();
  ctx.flops = (inputs - 1 + (Mean ? 1 : 0)) * n;
  ctx.backward_flops_data = inputs * n;
  ctx.saves_inputs = !Mean;
}

void data_only(CostContext& ctx) { ctx.flops = 0; }

}  // namespace

void register_elementwise_costs(CostRegistry& r) {
  constexpr unsigned F = kFusible;
  constexpr unsigned FN = kFusible | kNotDifferentiable;
  // One table row per op.
  // clang-format off
  r.add("elementwise", {
      // activations: {forward, backward} FLOPs per element
      {"Relu", unary<1, 1, true>, F},            // max(x, 0); grad: mask
      {"LeakyRelu", unary<2, 2, false>, F},      // compare, multiply
      {"PRelu", binary<2, 3, true>, F},
      {"Sigmoid", unary<4, 3, true>, F},         // 1 / (1 + exp(-x)); grad: g*y*(1-y)
      {"Tanh", unary<1, 3, true>, F},            // grad: g*(1-y*y)
      {"HardSigmoid", unary<4, 2, false>, F},    // max(0, min(1, a*x+b))
      {"HardSwish", unary<5, 4, false>, F},      // x * hardsigmoid(x)
      {"Gelu", unary<5, 8, false>, F},           // 0.5*x*(1+erf(x/sqrt2)); the tanh form is 9
      {"Erf", unary<1, 4, false>, F},
      {"Elu", unary<4, 2, true>, F},
      {"Selu", unary<5, 3, true>, F},
      {"Celu", unary<5, 3, true>, F},
      {"Softplus", unary<3, 4, false>, F},       // log(1 + exp(x))
      {"Softsign", unary<3, 4, false>, F},
      {"Mish", unary<5, 8, false>, F},
      {"Swish", unary<6, 6, false>, F},          // x * sigmoid(a*x); grad: g*(s + a*x*s*(1-s))
      {"ThresholdedRelu", unary<1, 1, false>, F},
      {"Shrink", unary<2, 1, false>, F},
      {"Clip", unary<2, 2, false>, F},           // min, max
      // math
      {"Exp", unary<1, 1, true>, F}, {"Log", unary<1, 1, false>, F}, {"Sqrt", unary<1, 2, true>, F},
      {"Reciprocal", unary<1, 2, true>, F}, {"Neg", unary<1, 1, false>, F}, {"Abs", unary<1, 2, false>, F},
      {"Sin", unary<1, 2, false>, F}, {"Cos", unary<1, 2, false>, F}, {"Tan", unary<1, 3, true>, F},
      {"Asin", unary<1, 4, false>, F}, {"Acos", unary<1, 4, false>, F}, {"Atan", unary<1, 3, false>, F},
      {"Sinh", unary<1, 2, false>, F}, {"Cosh", unary<1, 2, false>, F}, {"Asinh", unary<1, 4, false>, F},
      {"Acosh", unary<1, 4, false>, F}, {"Atanh", unary<1, 3, false>, F},
      {"Floor", unary<1, 0, false>, FN}, {"Ceil", unary<1, 0, false>, FN}, {"Round", unary<1, 0, false>, FN},
      {"Sign", unary<1, 0, false>, FN}, {"Not", unary<1, 0, false>, FN}, {"IsNaN", unary<1, 0, false>, FN},
      {"IsInf", unary<1, 0, false>, FN}, {"BitwiseNot", unary<1, 0, false>, FN},
      // conversions: move data, no arithmetic
      {"Cast", data_only, F}, {"CastLike", data_only, F},
      {"Bernoulli", unary<1, 0, false>, FN},  // one comparison with a random draw
      {"QuantizeLinear", unary<4, 0, false>, FN},    // divide, round, add zero point, saturate
      {"DequantizeLinear", unary<2, 0, false>, FN},  // subtract zero point, multiply
      {"DynamicQuantizeLinear", unary<6, 0, false>, FN},
      // binary
      {"Add", binary<1, 0, false>, F}, {"Sub", binary<1, 1, false>, F}, {"Mul", binary<1, 2, true>, F},
      {"Div", binary<1, 4, true>, F}, {"Pow", binary<1, 5, true>, F}, {"Mod", binary<1, 0, false>, FN},
      {"Equal", binary<1, 0, false>, FN}, {"Less", binary<1, 0, false>, FN}, {"Greater", binary<1, 0, false>, FN},
      {"LessOrEqual", binary<1, 0, false>, FN}, {"GreaterOrEqual", binary<1, 0, false>, FN},
      {"And", binary<1, 0, false>, FN}, {"Or", binary<1, 0, false>, FN}, {"Xor", binary<1, 0, false>, FN},
      {"BitShift", binary<1, 0, false>, FN}, {"BitwiseAnd", binary<1, 0, false>, FN},
      {"BitwiseOr", binary<1, 0, false>, FN}, {"BitwiseXor", binary<1, 0, false>, FN},
      {"Where", binary<1, 1, true>, F},  // one select per element; grad: masked copy
      {"Max", variadic<false>, F}, {"Min", variadic<false>, F}, {"Sum", variadic<false>, F},
      {"Mean", variadic<true>, F},
  });
  // clang-format on
}

}  // namespace ridge::cost
