#include "shape/context.h"

#include <fmt/format.h>

#include "onnx/tensor_decode.h"
#include "shape/scope.h"
#include "util/error.h"

namespace ridge::shape {

const graph::Value& InferenceContext::input(size_t i) const {
  auto id = node_.input(i);
  if (id == graph::kNoValue) fail(fmt::format("input {} is missing", i));
  return graph_.value(id);
}

std::vector<int64_t> InferenceContext::in_dims(size_t i) const {
  const auto& v = input(i);
  if (v.is_sequence) fail(fmt::format("input {} ('{}') is a sequence, not a tensor", i, v.name));
  if (!v.has_shape) throw Unresolved{fmt::format("input '{}' has no known shape", v.name)};
  for (const auto& d : v.shape)
    if (!d.is_known()) throw Unresolved{fmt::format("input '{}' has an unbound dimension", v.name)};
  return graph::known_dims(v.shape);
}

const graph::ConstantData* InferenceContext::in_const(size_t i) {
  auto id = node_.input(i);
  if (id == graph::kNoValue) return nullptr;
  auto& v = graph_.value(id);
  if (!v.constant && v.initializer)
    v.constant = onnx::decode_constant(*v.initializer, scope_.directory(), kMaxPropagatedElements);
  return v.constant.get();
}

std::vector<int64_t> InferenceContext::in_ints(size_t i, const char* what) {
  auto values = in_ints_if_known(i);
  if (!values)
    throw Unresolved{fmt::format("{} ('{}') is computed from data, not known before running", what, input(i).name)};
  return *values;
}

std::optional<std::vector<int64_t>> InferenceContext::in_ints_if_known(size_t i) {
  const auto* c = in_const(i);
  if (!c) return std::nullopt;
  std::vector<int64_t> values;
  values.reserve(static_cast<size_t>(c->size()));
  for (size_t k = 0; k < static_cast<size_t>(c->size()); ++k) values.push_back(c->as_int(k));
  return values;
}

void InferenceContext::set_output(size_t i, graph::DType dtype, const std::vector<int64_t>& dims) {
  if (!has_output(i)) return;
  auto& v = graph_.value(node_.outputs[i]);
  for (auto d : dims)
    if (d < 0) fail(fmt::format("output '{}' would have a negative dimension {}", v.name, d));
  int64_t count = 1;
  for (auto d : dims) count = graph::checked_mul(count, d, "output element count");
  v.dtype = dtype;
  v.shape = graph::make_shape(dims);
  v.has_shape = true;
  v.constant.reset();
  v.is_sequence = false;
  v.elements.reset();
  v.element_shape = {};
}

const graph::Value& InferenceContext::in_sequence(size_t i) const {
  const auto& v = input(i);
  if (!v.is_sequence) fail(fmt::format("input {} ('{}') must be a sequence, not a tensor", i, v.name));
  return v;
}

void InferenceContext::set_sequence_output(size_t i, graph::DType dtype,
                                           std::optional<std::vector<std::vector<int64_t>>> elements,
                                           graph::SharedShape common) {
  if (!has_output(i)) return;
  auto& v = graph_.value(node_.outputs[i]);
  v.dtype = dtype;
  v.shape.clear();
  v.has_shape = true;
  v.constant.reset();
  v.is_sequence = true;
  v.elements.reset();
  if (elements) {
    v.elements.emplace();
    for (const auto& dims : *elements) {
      for (auto d : dims)
        if (d < 0) fail(fmt::format("element of '{}' would have a negative dimension {}", v.name, d));
      v.elements->push_back(graph::make_shape(dims));
    }
    common = graph::shared_by(*v.elements);
  }
  v.element_shape = std::move(common);
}

void InferenceContext::set_like(size_t out, const graph::Value& v) {
  if (!v.has_shape) throw Unresolved{fmt::format("'{}' has no known shape", v.name)};
  if (v.is_sequence) {
    std::optional<std::vector<std::vector<int64_t>>> elements;
    if (v.elements) {
      elements.emplace();
      for (const auto& e : *v.elements) {
        if (!graph::is_fully_known(e)) throw Unresolved{fmt::format("an element of '{}' has an unbound dim", v.name)};
        elements->push_back(graph::known_dims(e));
      }
    }
    return set_sequence_output(out, v.dtype, std::move(elements), v.element_shape);
  }
  if (!graph::is_fully_known(v.shape)) throw Unresolved{fmt::format("'{}' has an unbound dimension", v.name)};
  if (v.constant)
    set_output_const(out, *v.constant);
  else
    set_output(out, v.dtype, graph::known_dims(v.shape));
}

void InferenceContext::set_output_const(size_t i, graph::ConstantData data) {
  set_output(i, data.dtype, data.dims);
  if (!has_output(i)) return;
  graph_.value(node_.outputs[i]).constant = std::make_shared<graph::ConstantData>(std::move(data));
}

void InferenceContext::pass_through(size_t out, size_t from) {
  if (in_is_sequence(from)) return set_like(out, input(from));
  set_output(out, in_dtype(from), in_dims(from));
}

void InferenceContext::fail(const std::string& message) const {
  throw Error(fmt::format("node '{}' ({}): {}", node_.name, node_.op_type, message));
}

int64_t InferenceContext::axis(int64_t value, int64_t rank, const char* what) const {
  int64_t normalized = value < 0 ? value + rank : value;
  if (normalized < 0 || normalized >= rank) fail(fmt::format("{} {} is out of range for rank {}", what, value, rank));
  return normalized;
}

void InferenceContext::require_inputs(size_t count) const {
  for (size_t i = 0; i < count; ++i)
    if (!has_input(i)) fail(fmt::format("needs {} inputs, input {} is missing", count, i));
}

std::vector<int64_t> broadcast_dims(const InferenceContext& ctx, const std::vector<std::vector<int64_t>>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  std::vector<int64_t> result(rank, 1);
  for (const auto& s : shapes) {
    size_t offset = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& r = result[offset + i];
      if (s[i] == r || s[i] == 1) continue;
      if (r == 1)
        r = s[i];
      else
        ctx.fail(fmt::format("cannot broadcast dimension {} against {}", s[i], r));
    }
  }
  return result;
}

}  // namespace ridge::shape
