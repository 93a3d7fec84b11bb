// Shape rules of elementwise ops: unary activations and math, broadcasting binary and variadic
// ops, Where, Cast and quantization. Small constant inputs are evaluated (value propagation).
#include <cmath>

#include "graph/shape.h"
#include "shape/constant_eval.h"
#include "shape/registry.h"
#include "util/error.h"

namespace ridge::shape {
namespace {

using graph::DType;

// Same shape and type as input 0; no value propagation.
void same_as_input(InferenceContext& ctx) {
  ctx.require_inputs(1);
  ctx.pass_through(0, 0);
}

template <double (*RealFn)(double), int64_t (*IntFn)(int64_t)>
void propagating_unary(InferenceContext& ctx) {
  ctx.require_inputs(1);
  if (auto value = eval_unary(ctx, 0, IntFn, RealFn)) return ctx.set_output_const(0, std::move(*value));
  ctx.pass_through(0, 0);
}

double real_neg(double x) { return -x; }
int64_t int_neg(int64_t x) { return graph::checked_mul(x, -1, "shape arithmetic"); }
double real_abs(double x) { return std::fabs(x); }
int64_t int_abs(int64_t x) { return x < 0 ? int_neg(x) : x; }
double real_floor(double x) { return std::floor(x); }
double real_ceil(double x) { return std::ceil(x); }
double real_round(double x) { return std::nearbyint(x); }
int64_t int_identity(int64_t x) { return x; }
double real_identity(double x) { return x; }
double real_sqrt(double x) { return std::sqrt(x); }
double real_relu(double x) { return x > 0 ? x : 0; }
int64_t int_relu(int64_t x) { return x > 0 ? x : 0; }
double real_sign(double x) { return (x > 0) - (x < 0); }
int64_t int_sign(int64_t x) { return (x > 0) - (x < 0); }
double real_reciprocal(double x) { return 1.0 / x; }
double real_exp(double x) { return std::exp(x); }
double real_log(double x) { return std::log(x); }

void bool_unary(InferenceContext& ctx) {
  ctx.require_inputs(1);
  ctx.set_output(0, DType::kBool, ctx.in_dims(0));
}

void not_rule(InferenceContext& ctx) {
  ctx.require_inputs(1);
  if (auto v = eval_unary(
          ctx, 0, [](int64_t x) -> int64_t { return !x; }, [](double x) -> double { return x == 0; }))
    return ctx.set_output_const(0, std::move(*v));
  ctx.set_output(0, DType::kBool, ctx.in_dims(0));
}

void bernoulli(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto type = ctx.node().has("dtype") ? static_cast<DType>(ctx.node().get_int("dtype", 1)) : ctx.in_dtype(0);
  ctx.set_output(0, type, ctx.in_dims(0));
}

void dropout(InferenceContext& ctx) {
  ctx.require_inputs(1);
  ctx.pass_through(0, 0);
  if (ctx.has_output(1)) ctx.set_output(1, DType::kBool, ctx.in_dims(0));
}

void cast(InferenceContext& ctx) {
  ctx.require_inputs(1);
  auto to = static_cast<DType>(ctx.node().get_int("to", 0));
  if (!graph::is_known_dtype(static_cast<int32_t>(to)) || to == DType::kUndefined)
    ctx.fail("Cast has no valid 'to' type");
  if (const auto* c = ctx.in_const(0)) return ctx.set_output_const(0, cast_constant(*c, to));
  ctx.set_output(0, to, ctx.in_dims(0));
}

void cast_like(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto to = ctx.in_dtype(1);
  if (const auto* c = ctx.in_const(0)) return ctx.set_output_const(0, cast_constant(*c, to));
  ctx.set_output(0, to, ctx.in_dims(0));
}

// Shape arithmetic in int64 is checked: a fuzzed or absurd model must not overflow silently.
int64_t int_add(int64_t a, int64_t b) { return graph::checked_add(a, b, "shape arithmetic"); }
int64_t int_sub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) throw Error("shape arithmetic overflows 64 bits");
  return r;
}
int64_t int_mul(int64_t a, int64_t b) { return graph::checked_mul(a, b, "shape arithmetic"); }
int64_t int_pow(int64_t a, int64_t b) {
  if (b < 0) return 0;
  int64_t r = 1;
  for (int64_t i = 0; i < b && r != 0; ++i) r = int_mul(r, a);
  return r;
}

int64_t int_floor_div(int64_t a, int64_t b) {
  if (b == 0) throw Unresolved{"integer division by zero in a shape computation"};
  if (b == -1) return int_sub(0, a);
  return a / b;
}

int64_t int_mod(int64_t a, int64_t b) {
  if (b == 0) throw Unresolved{"modulo by zero in a shape computation"};
  if (b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

template <int Op>
void binary(InferenceContext& ctx) {
  ctx.require_inputs(2);
  std::optional<DType> result;
  IntFn int_fn;
  RealFn real_fn;
  switch (Op) {
    case 0:
      int_fn = int_add;
      real_fn = std::plus<double>();
      break;
    case 1:
      int_fn = int_sub;
      real_fn = std::minus<double>();
      break;
    case 2:
      int_fn = int_mul;
      real_fn = std::multiplies<double>();
      break;
    case 3:
      int_fn = int_floor_div;
      real_fn = std::divides<double>();
      break;
    case 4:
      int_fn = int_pow;
      real_fn = [](double a, double b) { return std::pow(a, b); };
      break;
    case 5:
      int_fn = int_mod;
      real_fn = [](double a, double b) { return std::fmod(a, b); };
      break;
    case 6:
      result = DType::kBool;
      int_fn = std::equal_to<int64_t>();
      real_fn = std::equal_to<double>();
      break;
    case 7:
      result = DType::kBool;
      int_fn = std::less<int64_t>();
      real_fn = std::less<double>();
      break;
    case 8:
      result = DType::kBool;
      int_fn = std::greater<int64_t>();
      real_fn = std::greater<double>();
      break;
    case 9:
      result = DType::kBool;
      int_fn = std::less_equal<int64_t>();
      real_fn = std::less_equal<double>();
      break;
    case 10:
      result = DType::kBool;
      int_fn = std::greater_equal<int64_t>();
      real_fn = std::greater_equal<double>();
      break;
    case 11:
      result = DType::kBool;
      int_fn = [](int64_t a, int64_t b) -> int64_t { return a && b; };
      real_fn = [](double a, double b) -> double { return a != 0 && b != 0; };
      break;
    case 12:
      result = DType::kBool;
      int_fn = [](int64_t a, int64_t b) -> int64_t { return a || b; };
      real_fn = [](double a, double b) -> double { return a != 0 || b != 0; };
      break;
    case 13:
      result = DType::kBool;
      int_fn = [](int64_t a, int64_t b) -> int64_t { return (a != 0) != (b != 0); };
      real_fn = [](double a, double b) -> double { return (a != 0) != (b != 0); };
      break;
    default:
      break;
  }
  if (Op != 99)  // bitwise ops are not evaluated: they never compute shapes
    if (auto v = eval_binary(ctx, 0, 1, int_fn, real_fn, result)) return ctx.set_output_const(0, std::move(*v));
  auto dims = broadcast_dims(ctx, {ctx.in_dims(0), ctx.in_dims(1)});
  ctx.set_output(0, result.value_or(ctx.in_dtype(0)), dims);
}

// Max, Min, Sum, Mean: any number of broadcasting inputs.
template <int Op>
void variadic(InferenceContext& ctx) {
  ctx.require_inputs(1);
  if (ctx.input_count() == 2 && Op < 2) {
    IntFn int_fn = Op == 0 ? IntFn([](int64_t a, int64_t b) { return std::max(a, b); })
                           : IntFn([](int64_t a, int64_t b) { return std::min(a, b); });
    RealFn real_fn = Op == 0 ? RealFn([](double a, double b) { return std::max(a, b); })
                             : RealFn([](double a, double b) { return std::min(a, b); });
    if (auto v = eval_binary(ctx, 0, 1, int_fn, real_fn, std::nullopt)) return ctx.set_output_const(0, std::move(*v));
  }
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < ctx.input_count(); ++i)
    if (ctx.has_input(i)) shapes.push_back(ctx.in_dims(i));
  ctx.set_output(0, ctx.in_dtype(0), broadcast_dims(ctx, shapes));
}

void where(InferenceContext& ctx) {
  ctx.require_inputs(3);
  const auto* cond = ctx.in_const(0);
  const auto* x = ctx.in_const(1);
  const auto* y = ctx.in_const(2);
  auto dims = broadcast_dims(ctx, {ctx.in_dims(0), ctx.in_dims(1), ctx.in_dims(2)});
  if (cond && x && y && product(dims) <= kMaxPropagatedElements && x->dims == dims && y->dims == dims &&
      cond->dims == dims) {
    graph::ConstantData out;
    out.dtype = x->dtype;
    out.dims = dims;
    for (size_t i = 0; i < static_cast<size_t>(product(dims)); ++i) {
      const auto* pick = cond->ints[i] ? x : y;
      if (out.is_integral())
        out.ints.push_back(pick->as_int(i));
      else
        out.reals.push_back(pick->as_real(i));
    }
    return ctx.set_output_const(0, std::move(out));
  }
  if (cond && x && y && product(dims) <= kMaxPropagatedElements) {
    // Broadcast case: evaluate via two binary passes (x where cond else y).
    auto chosen_x = eval_binary(
        ctx, 0, 1, [](int64_t c, int64_t v) { return c ? v : 0; }, [](double c, double v) { return c != 0 ? v : 0; },
        x->dtype);
    auto chosen_y = eval_binary(
        ctx, 0, 2, [](int64_t c, int64_t v) { return c ? 0 : v; }, [](double c, double v) { return c != 0 ? 0 : v; },
        y->dtype);
    if (chosen_x && chosen_y && chosen_x->dims == dims && chosen_y->dims == dims) {
      graph::ConstantData out = *chosen_x;
      for (size_t i = 0; i < static_cast<size_t>(out.size()); ++i) {
        if (out.is_integral())
          out.ints[i] += chosen_y->as_int(i);
        else
          out.reals[i] += chosen_y->as_real(i);
      }
      return ctx.set_output_const(0, std::move(out));
    }
  }
  ctx.set_output(0, ctx.in_dtype(1), dims);
}

void prelu(InferenceContext& ctx) {
  ctx.require_inputs(2);
  ctx.set_output(0, ctx.in_dtype(0), broadcast_dims(ctx, {ctx.in_dims(0), ctx.in_dims(1)}));
}

void quantize_linear(InferenceContext& ctx) {
  ctx.require_inputs(2);
  DType out = ctx.has_input(2) ? ctx.in_dtype(2) : DType::kUInt8;
  if (ctx.node().has("output_dtype") && ctx.node().get_int("output_dtype", 0) != 0)
    out = static_cast<DType>(ctx.node().get_int("output_dtype", 0));
  ctx.set_output(0, out, ctx.in_dims(0));
}

void dequantize_linear(InferenceContext& ctx) {
  ctx.require_inputs(2);
  ctx.set_output(0, ctx.in_dtype(1), ctx.in_dims(0));
}

void dynamic_quantize_linear(InferenceContext& ctx) {
  ctx.require_inputs(1);
  ctx.set_output(0, DType::kUInt8, ctx.in_dims(0));
  ctx.set_output(1, DType::kFloat32, {});
  ctx.set_output(2, DType::kUInt8, {});
}

}  // namespace

void register_elementwise_shapes(ShapeRegistry& registry) {
  // One table row per op.
  // clang-format off
  registry.add("elementwise", {
      // unary, same shape and type
      {"Relu", propagating_unary<real_relu, int_relu>}, {"Neg", propagating_unary<real_neg, int_neg>},
      {"Abs", propagating_unary<real_abs, int_abs>}, {"Floor", propagating_unary<real_floor, int_identity>},
      {"Ceil", propagating_unary<real_ceil, int_identity>}, {"Round", propagating_unary<real_round, int_identity>},
      {"Sqrt", propagating_unary<real_sqrt, nullptr>}, {"Sign", propagating_unary<real_sign, int_sign>},
      {"Reciprocal", propagating_unary<real_reciprocal, nullptr>}, {"Exp", propagating_unary<real_exp, nullptr>},
      {"Log", propagating_unary<real_log, nullptr>}, {"Identity", propagating_unary<real_identity, int_identity>},
      {"Sigmoid", same_as_input}, {"Tanh", same_as_input}, {"Erf", same_as_input}, {"Gelu", same_as_input},
      {"Clip", same_as_input}, {"LeakyRelu", same_as_input}, {"Elu", same_as_input}, {"Selu", same_as_input},
      {"Celu", same_as_input}, {"HardSigmoid", same_as_input}, {"HardSwish", same_as_input},
      {"Softplus", same_as_input}, {"Softsign", same_as_input}, {"Mish", same_as_input}, {"Swish", same_as_input},
      {"ThresholdedRelu", same_as_input}, {"Shrink", same_as_input}, {"Sin", same_as_input},
      {"Cos", same_as_input}, {"Tan", same_as_input}, {"Asin", same_as_input}, {"Acos", same_as_input},
      {"Atan", same_as_input}, {"Sinh", same_as_input}, {"Cosh", same_as_input}, {"Asinh", same_as_input},
      {"Acosh", same_as_input}, {"Atanh", same_as_input}, {"BitwiseNot", same_as_input},
      {"Not", not_rule}, {"IsNaN", bool_unary}, {"IsInf", bool_unary},
      {"Dropout", dropout}, {"Bernoulli", bernoulli}, {"Cast", cast}, {"CastLike", cast_like},
      // binary, broadcasting
      {"Add", binary<0>}, {"Sub", binary<1>}, {"Mul", binary<2>}, {"Div", binary<3>}, {"Pow", binary<4>},
      {"Mod", binary<5>}, {"Equal", binary<6>}, {"Less", binary<7>}, {"Greater", binary<8>},
      {"LessOrEqual", binary<9>}, {"GreaterOrEqual", binary<10>}, {"And", binary<11>}, {"Or", binary<12>},
      {"Xor", binary<13>}, {"BitShift", binary<99>}, {"BitwiseAnd", binary<99>}, {"BitwiseOr", binary<99>},
      {"BitwiseXor", binary<99>}, {"PRelu", prelu},
      // variadic
      {"Max", variadic<0>}, {"Min", variadic<1>}, {"Sum", variadic<2>}, {"Mean", variadic<3>},
      {"Where", where},
      // quantization
      {"QuantizeLinear", quantize_linear}, {"DequantizeLinear", dequantize_linear},
      {"DynamicQuantizeLinear", dynamic_quantize_linear},
  });
  // clang-format on
}

}  // namespace ridge::shape
