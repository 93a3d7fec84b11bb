// Elementwise kernels: unary math and activations, broadcasting binary and variadic ops,
// comparisons and logic, casts.
#include <cmath>

#include "exec/aten/interpreter.h"
#include "exec/aten/kernels/kernel.h"

namespace ridge::exec::aten {

namespace {

using C = KernelContext;

double attr(const C& c, const char* name, double fallback) { return c.node.get_float(name, fallback); }

// ONNX integer division truncates toward zero (C semantics); floats divide exactly.
at::Tensor onnx_divide(const at::Tensor& a, const at::Tensor& b) {
  if (at::isIntegralType(a.scalar_type(), true)) return at::div(a, b, "trunc");
  return at::div(a, b);
}

void variadic(C& c, at::Tensor (*combine)(const at::Tensor&, const at::Tensor&)) {
  at::Tensor acc = c.in(0);
  for (size_t i = 1; i < c.inputs.size(); ++i) acc = combine(acc, c.in(i));
  c.set(0, c.inputs.size() == 1 ? acc.clone() : acc);
}

void clip(C& c) {
  const at::Tensor& x = c.in(0);
  if (c.opset < 11) {
    c.set(0, at::clamp(x, attr(c, "min", -INFINITY), attr(c, "max", INFINITY)));
    return;
  }
  // Scalar bounds (the usual case, e.g. ReLU6) clamp in one pass.
  auto bound = [&](size_t i) -> c10::optional<at::Scalar> {
    if (!c.has(i)) return c10::nullopt;
    return c.in(i).to(x.scalar_type()).item();
  };
  auto lo = bound(1), hi = bound(2);
  c.set(0, lo || hi ? at::clamp(x, lo, hi) : x);
}

void cast(C& c, graph::DType to) {
  auto type = scalar_type(to);
  c.set(0, c.in(0).to(type));
}

void gelu(C& c) {
  auto approximate = c.node.get_string("approximate", "none");
  c.set(0, at::gelu(c.in(0), approximate == "tanh" ? "tanh" : "none"));
}

void is_inf(C& c) {
  const auto& x = c.in(0);
  bool negative = c.node.get_int("detect_negative", 1) != 0, positive = c.node.get_int("detect_positive", 1) != 0;
  auto out = at::zeros_like(x, at::kBool);
  if (positive) out = out | at::isposinf(x);
  if (negative) out = out | at::isneginf(x);
  c.set(0, out);
}

void shrink(C& c) {
  const auto& x = c.in(0);
  double bias = attr(c, "bias", 0), lambd = attr(c, "lambd", 0.5);
  auto y = at::where(x < -lambd, x + bias, at::where(x > lambd, x - bias, at::zeros_like(x)));
  c.set(0, y.to(x.scalar_type()));
}

void bit_shift(C& c) {
  bool left = c.node.get_string("direction", "") == "LEFT";
  const auto& x = c.in(0);
  auto y = c.in(1);
  c.set(0, left ? at::bitwise_left_shift(x, y) : at::bitwise_right_shift(x, y));
}

void mod(C& c) {
  const auto& a = c.in(0);
  const auto& b = c.in(1);
  // fmod=1: the result takes the dividend's sign (C fmod); fmod=0: the divisor's (Python %).
  c.set(0, c.node.get_int("fmod", 0) ? at::fmod(a, b) : at::remainder(a, b));
}

void prelu(C& c) {
  const auto& x = c.in(0);
  c.set(0, at::where(x < 0, x * c.in(1), x));
}

void pow_kernel(C& c) {
  const auto& x = c.in(0);
  auto y = c.in(1);
  // The result has the base's type; integer exponents of float bases stay exact.
  if (at::isIntegralType(x.scalar_type(), true))
    c.set(0, at::pow(x.to(at::kDouble), y.to(at::kDouble)).to(x.scalar_type()));
  else
    c.set(0, at::pow(x, y.to(x.scalar_type())));
}

void dropout(C& c) {
  const auto& x = c.in(0);
  bool training = c.has(2) && c.in(2).to(at::kBool).item<bool>();
  double ratio = c.has(1) ? c.in(1).to(at::kDouble).item<double>() : c.node.get_float("ratio", 0.5);
  if (!training || ratio == 0) {  // inference: identity, and an all-true mask
    c.set(0, x);
    if (c.wants_output(1)) c.set(1, at::ones_like(x, at::kBool));
    return;
  }
  auto keep = at::bernoulli(at::full(x.sizes(), 1 - ratio, at::kDouble), c.interpreter.generator()).to(at::kBool);
  c.set(0, at::where(keep, x / (1 - ratio), at::zeros_like(x)));
  c.set(1, keep);
}

void where(C& c) { c.set(0, at::where(c.in(0).to(at::kBool), c.in(1), c.in(2))); }

}  // namespace

void register_elementwise_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("elementwise", {
    {"Abs", [](C& c) { c.set(0, at::abs(c.in(0))); }},
    {"Acos", [](C& c) { c.set(0, at::acos(c.in(0))); }},
    {"Acosh", [](C& c) { c.set(0, at::acosh(c.in(0))); }},
    {"Asin", [](C& c) { c.set(0, at::asin(c.in(0))); }},
    {"Asinh", [](C& c) { c.set(0, at::asinh(c.in(0))); }},
    {"Atan", [](C& c) { c.set(0, at::atan(c.in(0))); }},
    {"Atanh", [](C& c) { c.set(0, at::atanh(c.in(0))); }},
    {"Ceil", [](C& c) { c.set(0, at::ceil(c.in(0))); }},
    {"Cos", [](C& c) { c.set(0, at::cos(c.in(0))); }},
    {"Cosh", [](C& c) { c.set(0, at::cosh(c.in(0))); }},
    {"Erf", [](C& c) { c.set(0, at::erf(c.in(0))); }},
    {"Exp", [](C& c) { c.set(0, at::exp(c.in(0))); }},
    {"Floor", [](C& c) { c.set(0, at::floor(c.in(0))); }},
    {"Log", [](C& c) { c.set(0, at::log(c.in(0))); }},
    {"Neg", [](C& c) { c.set(0, at::neg(c.in(0))); }},
    {"Reciprocal", [](C& c) { c.set(0, at::reciprocal(c.in(0))); }},
    {"Round", [](C& c) { c.set(0, at::round(c.in(0))); }},  // halves to even, as ONNX says
    {"Sigmoid", [](C& c) { c.set(0, at::sigmoid(c.in(0))); }},
    {"Sign", [](C& c) { c.set(0, at::sign(c.in(0))); }},
    {"Sin", [](C& c) { c.set(0, at::sin(c.in(0))); }},
    {"Sinh", [](C& c) { c.set(0, at::sinh(c.in(0))); }},
    {"Sqrt", [](C& c) { c.set(0, at::sqrt(c.in(0))); }},
    {"Tan", [](C& c) { c.set(0, at::tan(c.in(0))); }},
    {"Tanh", [](C& c) { c.set(0, at::tanh(c.in(0))); }},
    {"Relu", [](C& c) { c.set(0, at::relu(c.in(0))); }},
    {"Not", [](C& c) { c.set(0, at::logical_not(c.in(0))); }},
    {"BitwiseNot", [](C& c) { c.set(0, at::bitwise_not(c.in(0))); }},
    {"IsNaN", [](C& c) { c.set(0, at::isnan(c.in(0))); }},
    {"IsInf", is_inf},
    {"Softplus", [](C& c) { c.set(0, at::log1p(at::exp(c.in(0)))); }},
    {"Softsign", [](C& c) { c.set(0, c.in(0) / (at::abs(c.in(0)) + 1)); }},
    {"Elu", [](C& c) { c.set(0, at::elu(c.in(0), attr(c, "alpha", 1.0))); }},
    {"Selu", [](C& c) {
       double alpha = attr(c, "alpha", 1.67326319217681884765625), gamma = attr(c, "gamma", 1.05070102214813232421875);
       const auto& x = c.in(0);
       c.set(0, at::where(x > 0, x * gamma, (at::exp(x) - 1) * (alpha * gamma)));
     }},
    {"Celu", [](C& c) { c.set(0, at::celu(c.in(0), attr(c, "alpha", 1.0))); }},
    {"LeakyRelu", [](C& c) { c.set(0, at::leaky_relu(c.in(0), attr(c, "alpha", 0.01))); }},
    {"ThresholdedRelu", [](C& c) {
       const auto& x = c.in(0);
       c.set(0, at::where(x > attr(c, "alpha", 1.0), x, at::zeros_like(x)));
     }},
    {"HardSigmoid", [](C& c) {
       c.set(0, at::clamp(c.in(0) * attr(c, "alpha", 0.2) + attr(c, "beta", 0.5), 0, 1));
     }},
    {"HardSwish", [](C& c) { c.set(0, at::hardswish(c.in(0))); }},
    {"Mish", [](C& c) { c.set(0, at::mish(c.in(0))); }},
    {"Swish", [](C& c) {  // opset 24: x * sigmoid(alpha x); SiLU where alpha is 1
       double alpha = attr(c, "alpha", 1.0);
       c.set(0, alpha == 1.0 ? at::silu(c.in(0)) : c.in(0) * at::sigmoid(c.in(0) * alpha));
     }},
    {"Gelu", gelu},
    {"Shrink", shrink},
    {"Identity", [](C& c) { c.set(0, c.in(0)); }},
    {"Dropout", dropout},
    {"Clip", clip},
    {"PRelu", prelu},
    {"Add", [](C& c) { c.set(0, at::add(c.in(0), c.in(1))); }},
    {"Sub", [](C& c) { c.set(0, at::sub(c.in(0), c.in(1))); }},
    {"Mul", [](C& c) { c.set(0, at::mul(c.in(0), c.in(1))); }},
    {"Div", [](C& c) { c.set(0, onnx_divide(c.in(0), c.in(1))); }},
    {"Pow", pow_kernel},
    {"Mod", mod},
    {"And", [](C& c) { c.set(0, at::logical_and(c.in(0), c.in(1))); }},
    {"Or", [](C& c) { c.set(0, at::logical_or(c.in(0), c.in(1))); }},
    {"Xor", [](C& c) { c.set(0, at::logical_xor(c.in(0), c.in(1))); }},
    {"BitwiseAnd", [](C& c) { c.set(0, at::bitwise_and(c.in(0), c.in(1))); }},
    {"BitwiseOr", [](C& c) { c.set(0, at::bitwise_or(c.in(0), c.in(1))); }},
    {"BitwiseXor", [](C& c) { c.set(0, at::bitwise_xor(c.in(0), c.in(1))); }},
    {"BitShift", bit_shift},
    {"Equal", [](C& c) { c.set(0, at::eq(c.in(0), c.in(1))); }},
    {"Greater", [](C& c) { c.set(0, at::gt(c.in(0), c.in(1))); }},
    {"GreaterOrEqual", [](C& c) { c.set(0, at::ge(c.in(0), c.in(1))); }},
    {"Less", [](C& c) { c.set(0, at::lt(c.in(0), c.in(1))); }},
    {"LessOrEqual", [](C& c) { c.set(0, at::le(c.in(0), c.in(1))); }},
    {"Max", [](C& c) { variadic(c, [](const at::Tensor& a, const at::Tensor& b) { return at::maximum(a, b); }); }},
    {"Min", [](C& c) { variadic(c, [](const at::Tensor& a, const at::Tensor& b) { return at::minimum(a, b); }); }},
    {"Sum", [](C& c) { variadic(c, [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); }); }},
    {"Mean", [](C& c) {
       variadic(c, [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); });
       c.outputs[0] = c.outputs[0] / static_cast<double>(c.inputs.size());
     }},
    {"Where", where},
    {"Cast", [](C& c) { cast(c, static_cast<graph::DType>(c.node.get_int("to", 1))); }},
    {"CastLike", [](C& c) { c.set(0, c.in(0).to(c.in(1).scalar_type())); }},
  });
  // clang-format on
}

}  // namespace ridge::exec::aten
