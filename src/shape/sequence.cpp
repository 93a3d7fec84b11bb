// Shape rules of ONNX's sequence ops: a sequence's elements are known one by one where every position that built it
// is (graph::Value::elements), which is what ConcatFromSequence needs for its output; otherwise only what the elements
// share (element_shape), which is what SequenceAt at a run-time position gives.
#include <fmt/format.h>

#include <numeric>

#include "shape/registry.h"

namespace ridge::shape {
namespace {

using Dims = std::vector<int64_t>;
using Elements = std::vector<Dims>;

// The input sequence's elements, or none where its length is not known before the run.
std::optional<Elements> elements_of(InferenceContext& ctx, size_t i) {
  const auto& v = ctx.in_sequence(i);
  if (!v.elements) return std::nullopt;
  Elements out;
  for (const auto& e : *v.elements) {
    if (!graph::is_fully_known(e))
      throw Unresolved{fmt::format("an element of sequence '{}' has an unbound dimension", v.name)};
    out.push_back(graph::known_dims(e));
  }
  return out;
}

// A position input (scalar int32/int64), where known; `absent` where the input is omitted.
std::optional<int64_t> position(InferenceContext& ctx, size_t i, std::optional<int64_t> absent) {
  if (!ctx.has_input(i)) return absent;
  // A scalar by the spec; ONNX's own tests give a one-element 1-D tensor, which ONNX Runtime takes too.
  const auto& v = ctx.input(i);
  if (!v.has_shape || !graph::is_fully_known(v.shape) || graph::element_count(v.shape) != 1)
    ctx.fail("position must be a scalar");
  auto values = ctx.in_ints_if_known(i);
  if (!values) return std::nullopt;
  return values->at(0);
}

// `pos` as an index into a sequence of `length` elements: [-length, length - 1] for a read or an erase, [-length,
// length] for an insert (length appends).
size_t normalized(const InferenceContext& ctx, int64_t pos, size_t length, bool insert) {
  auto n = static_cast<int64_t>(length);
  int64_t p = pos < 0 ? pos + n : pos;
  if (p < 0 || p > n || (!insert && p == n))
    ctx.fail(fmt::format("position {} is out of range for a sequence of {} elements", pos, length));
  return static_cast<size_t>(p);
}

void sequence_empty(InferenceContext& ctx) {
  auto dtype = static_cast<graph::DType>(ctx.node().get_int("dtype", static_cast<int64_t>(graph::DType::kFloat32)));
  if (!graph::is_known_dtype(static_cast<int32_t>(dtype))) ctx.fail("unknown dtype");
  ctx.set_sequence_output(0, dtype, Elements{});
}

void sequence_construct(InferenceContext& ctx) {
  if (ctx.input_count() == 0) ctx.fail("needs at least one tensor");
  Elements elements;
  for (size_t i = 0; i < ctx.input_count(); ++i) {
    if (ctx.in_is_sequence(i)) ctx.fail(fmt::format("input {} is a sequence, not a tensor", i));
    if (ctx.in_dtype(i) != ctx.in_dtype(0)) ctx.fail("its tensors have different types");
    elements.push_back(ctx.in_dims(i));
  }
  ctx.set_sequence_output(0, ctx.in_dtype(0), std::move(elements));
}

void check_element_type(InferenceContext& ctx, size_t tensor) {
  const auto& seq = ctx.in_sequence(0);
  if (ctx.in_is_sequence(tensor)) ctx.fail("the value inserted must be a tensor");
  if (seq.dtype != graph::DType::kUndefined && ctx.in_dtype(tensor) != seq.dtype)
    ctx.fail(fmt::format("inserts a {} tensor into a sequence of {}", graph::dtype_name(ctx.in_dtype(tensor)),
                         graph::dtype_name(seq.dtype)));
}

void sequence_insert(InferenceContext& ctx) {
  ctx.require_inputs(2);
  check_element_type(ctx, 1);
  auto dims = ctx.in_dims(1);
  auto elements = elements_of(ctx, 0);
  // Omitted, the position is the back: known wherever the length is.
  auto pos = position(ctx, 2, static_cast<int64_t>(elements ? elements->size() : 0));
  if (elements && pos) {
    auto at = normalized(ctx, *pos, elements->size(), true);
    elements->insert(elements->begin() + static_cast<long>(at), dims);
    return ctx.set_sequence_output(0, ctx.in_dtype(1), std::move(elements));
  }
  auto common = graph::share(ctx.in_sequence(0).element_shape, {graph::make_shape(dims)});
  ctx.set_sequence_output(0, ctx.in_dtype(1), std::nullopt, std::move(common));
}

void sequence_erase(InferenceContext& ctx) {
  auto elements = elements_of(ctx, 0);
  auto pos = position(ctx, 1, -1);
  const auto& seq = ctx.in_sequence(0);
  if (elements && pos) {
    elements->erase(elements->begin() + static_cast<long>(normalized(ctx, *pos, elements->size(), false)));
    return ctx.set_sequence_output(0, seq.dtype, std::move(elements));
  }
  ctx.set_sequence_output(0, seq.dtype, std::nullopt, seq.element_shape);
}

void sequence_at(InferenceContext& ctx) {
  ctx.require_inputs(2);
  auto elements = elements_of(ctx, 0);
  auto pos = position(ctx, 1, std::nullopt);
  const auto& seq = ctx.in_sequence(0);
  if (elements && pos)
    return ctx.set_output(0, seq.dtype, elements->at(normalized(ctx, *pos, elements->size(), false)));
  const auto& shared = seq.element_shape.shape;
  if (!shared || !graph::is_fully_known(*shared))
    throw Unresolved{fmt::format("the element SequenceAt reads of '{}' is known only at run time", seq.name)};
  ctx.set_output(0, seq.dtype, graph::known_dims(*shared));
}

void sequence_length(InferenceContext& ctx) {
  const auto& seq = ctx.in_sequence(0);
  if (!seq.elements) return ctx.set_output(0, graph::DType::kInt64, {});
  graph::ConstantData c;
  c.dtype = graph::DType::kInt64;
  c.ints = {static_cast<int64_t>(seq.elements->size())};
  ctx.set_output_const(0, std::move(c));
}

// ConcatFromSequence(axis, new_axis): the elements concatenated along axis, or stacked on a new one.
void concat_from_sequence(InferenceContext& ctx) {
  auto elements = elements_of(ctx, 0);
  const auto& seq = ctx.in_sequence(0);
  if (!elements) throw Unresolved{fmt::format("the length of sequence '{}' is known only at run time", seq.name)};
  if (elements->empty()) ctx.fail("concatenates an empty sequence");
  bool new_axis = ctx.node().get_int("new_axis", 0) != 0;
  auto rank = static_cast<int64_t>(elements->front().size());
  int64_t axis = ctx.axis(ctx.node().get_int("axis", 0), new_axis ? rank + 1 : rank);
  Dims out = elements->front();
  if (new_axis)
    out.insert(out.begin() + axis, static_cast<int64_t>(elements->size()));
  else
    out[static_cast<size_t>(axis)] = 0;
  for (const auto& e : *elements) {
    if (static_cast<int64_t>(e.size()) != rank) ctx.fail("its elements have different ranks");
    for (int64_t d = 0; d < rank; ++d) {
      if (!new_axis && d == axis) continue;
      if (e[static_cast<size_t>(d)] != elements->front()[static_cast<size_t>(d)])
        ctx.fail(fmt::format("its elements differ in dim {} ({} and {})", d, elements->front()[static_cast<size_t>(d)],
                             e[static_cast<size_t>(d)]));
    }
    if (!new_axis) out[static_cast<size_t>(axis)] += e[static_cast<size_t>(axis)];
  }
  ctx.set_output(0, seq.dtype, out);
}

// SplitToSequence(input, split?, axis, keepdims): pieces of the given sizes, of one size (the last the remainder), or
// of 1 along the axis (then squeezed unless keepdims).
void split_to_sequence(InferenceContext& ctx) {
  auto dims = ctx.in_dims(0);
  int64_t axis = ctx.axis(ctx.node().get_int("axis", 0), static_cast<int64_t>(dims.size()));
  int64_t length = dims[static_cast<size_t>(axis)];
  Dims sizes;
  bool squeeze = false;
  if (!ctx.has_input(1)) {
    sizes.assign(static_cast<size_t>(length), 1);
    squeeze = ctx.node().get_int("keepdims", 1) == 0;
  } else {
    sizes = ctx.in_ints(1, "split");
    const auto& split = ctx.input(1);
    if (split.has_shape && split.shape.empty()) {
      int64_t chunk = sizes.at(0);
      if (chunk <= 0) ctx.fail(fmt::format("split {} must be positive", chunk));
      sizes.clear();
      for (int64_t left = length; left > 0; left -= chunk) sizes.push_back(std::min(chunk, left));
    } else {
      for (auto s : sizes)
        if (s < 0) ctx.fail(fmt::format("split {} is negative", s));
      if (std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != length)
        ctx.fail(fmt::format("split sizes sum to {}, dim {} is {}",
                             std::accumulate(sizes.begin(), sizes.end(), int64_t{0}), axis, length));
    }
  }
  Elements elements;
  for (auto s : sizes) {
    Dims piece = dims;
    piece[static_cast<size_t>(axis)] = s;
    if (squeeze) piece.erase(piece.begin() + axis);
    elements.push_back(std::move(piece));
  }
  ctx.set_sequence_output(0, ctx.in_dtype(0), std::move(elements));
}

}  // namespace

void register_sequence_shapes(ShapeRegistry& registry) {
  // clang-format off
  registry.add("sequence", {
      {"SequenceEmpty", sequence_empty}, {"SequenceConstruct", sequence_construct},
      {"SequenceInsert", sequence_insert}, {"SequenceErase", sequence_erase}, {"SequenceAt", sequence_at},
      {"SequenceLength", sequence_length}, {"ConcatFromSequence", concat_from_sequence},
      {"SplitToSequence", split_to_sequence}});
  // clang-format on
}

}  // namespace ridge::shape
