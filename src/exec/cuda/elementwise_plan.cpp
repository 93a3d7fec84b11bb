#include "exec/cuda/elementwise_plan.h"

#include <utility>

#include "util/error.h"

namespace ridge::exec::cuda {

namespace {

// Ops without parameters.
constexpr std::pair<std::string_view, UnaryOp> kPlainUnary[] = {
    {"Relu", UnaryOp::kRelu},
    {"Sigmoid", UnaryOp::kSigmoid},
    {"Tanh", UnaryOp::kTanh},
    {"Erf", UnaryOp::kErf},
    {"Exp", UnaryOp::kExp},
    {"Log", UnaryOp::kLog},
    {"Sqrt", UnaryOp::kSqrt},
    {"Neg", UnaryOp::kNeg},
    {"Abs", UnaryOp::kAbs},
    {"Reciprocal", UnaryOp::kReciprocal},
    {"Floor", UnaryOp::kFloor},
    {"Ceil", UnaryOp::kCeil},
    {"Sin", UnaryOp::kSin},
    {"Cos", UnaryOp::kCos},
    {"HardSwish", UnaryOp::kHardSwish},
    {"Softplus", UnaryOp::kSoftplus},
    {"Not", UnaryOp::kNot},
    {"Mish", UnaryOp::kMish},
    {"Softsign", UnaryOp::kSoftsign},
    {"Sign", UnaryOp::kSign},
    {"Round", UnaryOp::kRound},
    {"Tan", UnaryOp::kTan},
    {"Asin", UnaryOp::kAsin},
    {"Acos", UnaryOp::kAcos},
    {"Atan", UnaryOp::kAtan},
    {"Sinh", UnaryOp::kSinh},
    {"Cosh", UnaryOp::kCosh},
    {"Asinh", UnaryOp::kAsinh},
    {"Acosh", UnaryOp::kAcosh},
    {"Atanh", UnaryOp::kAtanh},
};

// Ops whose parameters are attributes, with ONNX's defaults.
constexpr std::string_view kParameterUnary[] = {"LeakyRelu", "Elu",    "HardSigmoid",     "Selu", "Celu",
                                                "Gelu",      "Shrink", "ThresholdedRelu", "Swish"};

constexpr std::pair<std::string_view, BinaryOp> kBinary[] = {
    {"Add", BinaryOp::kAdd},
    {"Sub", BinaryOp::kSub},
    {"Mul", BinaryOp::kMul},
    {"Div", BinaryOp::kDiv},
    {"Pow", BinaryOp::kPow},
    {"PRelu", BinaryOp::kPRelu},
    {"Equal", BinaryOp::kEqual},
    {"Less", BinaryOp::kLess},
    {"Greater", BinaryOp::kGreater},
    {"GreaterOrEqual", BinaryOp::kGreaterEqual},
    {"LessOrEqual", BinaryOp::kLessEqual},
    {"And", BinaryOp::kAnd},
    {"Or", BinaryOp::kOr},
    {"Xor", BinaryOp::kXor},
    {"Mod", BinaryOp::kMod},
};

float attr(const graph::Node& node, std::string_view name, double fallback) {
  return static_cast<float>(node.get_float(name, fallback));
}

}  // namespace

std::optional<UnaryCall> unary_call(const graph::Node& node) {
  const auto& op = node.op_type;
  for (const auto& [name, value] : kPlainUnary)
    if (op == name) return UnaryCall{value};
  if (op == "LeakyRelu") return UnaryCall{UnaryOp::kLeakyRelu, attr(node, "alpha", 0.01)};
  if (op == "Elu") return UnaryCall{UnaryOp::kElu, attr(node, "alpha", 1.0)};
  if (op == "HardSigmoid") return UnaryCall{UnaryOp::kHardSigmoid, attr(node, "alpha", 0.2), attr(node, "beta", 0.5)};
  if (op == "Selu")
    return UnaryCall{UnaryOp::kSelu, attr(node, "alpha", 1.67326319217681884765625),
                     attr(node, "gamma", 1.05070102214813232421875)};
  if (op == "Celu") return UnaryCall{UnaryOp::kCelu, attr(node, "alpha", 1.0)};
  if (op == "ThresholdedRelu") return UnaryCall{UnaryOp::kThresholdedRelu, attr(node, "alpha", 1.0)};
  if (op == "Shrink") return UnaryCall{UnaryOp::kShrink, attr(node, "lambd", 0.5), attr(node, "bias", 0.0)};
  if (op == "Swish") return UnaryCall{UnaryOp::kSwish, attr(node, "alpha", 1.0)};
  if (op == "Gelu") {
    auto approximate = node.get_string("approximate", "none");
    if (approximate != "none" && approximate != "tanh")
      throw Error("Gelu's approximate is none or tanh, not " + approximate);
    return UnaryCall{approximate == "tanh" ? UnaryOp::kGeluTanh : UnaryOp::kGeluErf};
  }
  return std::nullopt;
}

std::vector<std::string_view> unary_op_types() {
  std::vector<std::string_view> out;
  for (const auto& [name, value] : kPlainUnary) out.push_back(name);
  for (auto name : kParameterUnary) out.push_back(name);
  return out;
}

std::optional<BinaryOp> binary_call(const graph::Node& node) {
  for (const auto& [name, value] : kBinary)
    if (node.op_type == name) return value == BinaryOp::kMod && node.get_int("fmod", 0) != 0 ? BinaryOp::kFmod : value;
  return std::nullopt;
}

std::vector<std::string_view> binary_op_types() {
  std::vector<std::string_view> out;
  for (const auto& [name, value] : kBinary) out.push_back(name);
  return out;
}

}  // namespace ridge::exec::cuda
