#include "analysis/request_builder.h"

#include <fmt/format.h>

#include <charconv>

#include "graph/dtype.h"
#include "graph/shape.h"
#include "util/error.h"

namespace ridge::analysis {
namespace {

std::pair<std::string, std::string> split_assignment(const std::string& text, const char* flag) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw Error(fmt::format("{} expects NAME=VALUE, got '{}'", flag, text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

graph::DType dtype_flag(const std::string& text, const char* flag) {
  auto type = graph::parse_dtype(text);
  if (!type ||
      (*type != graph::DType::kFloat32 && *type != graph::DType::kFloat16 && *type != graph::DType::kBFloat16 &&
       *type != graph::DType::kInt8 && *type != graph::DType::kFloat64 && *type != graph::DType::kFloat8E4M3FN))
    throw Error(fmt::format("{}: unknown dtype '{}' (expected fp32, fp16, bf16, int8, fp8 or fp64)", flag, text));
  return *type;
}

}  // namespace

Request make_request(const ModelOptions& o) {
  Request request;
  request.model_path = o.model;
  if (o.batch > 0) request.bindings.batch = o.batch;
  for (const auto& d : o.dims) {
    auto [name, value] = split_assignment(d, "--dim");
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    // A dimension of 0 would cost an empty tensor: refused like --batch 0.
    if (ec != std::errc() || ptr != value.data() + value.size() || v <= 0)
      throw Error(fmt::format("--dim {}: '{}' is not a positive integer", name, value));
    request.bindings.dims[name] = v;
  }
  for (const auto& in : o.inputs) {
    auto [name, shape] = split_assignment(in, "--input");
    request.bindings.inputs[name] = graph::parse_dims(shape);
  }
  if (!o.dtype.empty()) request.options.activation_dtype = dtype_flag(o.dtype, "--dtype");
  if (!o.weight_dtype.empty()) request.options.weight_dtype = dtype_flag(o.weight_dtype, "--weight-dtype");
  request.options.training = o.training;
  request.options.optimizer = cost::parse_optimizer(o.optimizer);
  request.strict = o.strict;
  return request;
}

std::pair<std::string, std::vector<int64_t>> parse_sweep(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw Error("--sweep expects KEY=v1,v2,... (e.g. batch=1,2,4,8)");
  std::string key = text.substr(0, eq);
  auto values = graph::parse_integer_list(text.substr(eq + 1), ",", "--sweep " + key);
  for (auto v : values)
    if (v <= 0) throw Error(fmt::format("--sweep {}: {} is not a positive integer", key, v));
  return {key, values};
}

void check_sweep_conflicts(const Request& request, const std::string& key) {
  if (key == "batch" && request.bindings.batch)
    throw Error(fmt::format("--sweep batch=... and --batch {} both set the batch: give one", *request.bindings.batch));
  if (request.bindings.dims.count(key))
    throw Error(fmt::format("--sweep {}=... and --dim {}={} both set '{}': give one", key, key,
                            request.bindings.dims.at(key), key));
}

}  // namespace ridge::analysis
