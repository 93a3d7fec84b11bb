// ONNX's sequence ops on the CPU: a sequence holds its tensors by reference (exec/aten/sequence_value.h), so building
// one and reading an element copy nothing; ConcatFromSequence and SplitToSequence copy as Concat and Split do.
#include <fmt/format.h>

#include "exec/aten/kernels/kernel.h"
#include "exec/aten/sequence_value.h"

namespace ridge::exec::aten {
namespace {

using C = KernelContext;

const TensorList& seq(const C& c, size_t i) {
  if (!is_sequence(c.in(i))) c.fail(fmt::format("input {} must be a sequence, not a tensor", i));
  return sequence_elements(c.in(i));
}

// A position input as an index into `length` elements: [-length, length - 1] to read or erase, [-length, length] to
// insert; `absent` where the input is omitted.
size_t position(const C& c, size_t i, size_t length, bool insert, int64_t absent) {
  int64_t pos = absent;
  if (c.has(i)) {
    if (c.in(i).numel() != 1) c.fail("position must be a scalar");
    pos = c.ints(i).at(0);
  }
  auto n = static_cast<int64_t>(length);
  int64_t p = pos < 0 ? pos + n : pos;
  if (p < 0 || p > n || (!insert && p == n))
    c.fail(fmt::format("position {} is out of range for a sequence of {} tensors", pos, length));
  return static_cast<size_t>(p);
}

void check_type(const C& c, const at::Tensor& sequence, const at::Tensor& t) {
  if (is_sequence(t)) c.fail("a sequence's elements must be tensors");
  if (t.scalar_type() != sequence.scalar_type())
    c.fail(fmt::format("inserts a {} tensor into a sequence of {}", c10::toString(t.scalar_type()),
                       c10::toString(sequence.scalar_type())));
}

void sequence_empty(C& c) {
  auto dtype = static_cast<graph::DType>(c.node.get_int("dtype", static_cast<int64_t>(graph::DType::kFloat32)));
  c.set(0, make_sequence({}, scalar_type(dtype)));
}

void sequence_construct(C& c) {
  TensorList elements;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const auto& t = c.in(i);
    if (is_sequence(t)) c.fail(fmt::format("input {} is a sequence, not a tensor", i));
    if (t.scalar_type() != c.in(0).scalar_type()) c.fail("its tensors have different types");
    elements.push_back(t);
  }
  if (elements.empty()) c.fail("needs at least one tensor");
  auto type = elements.front().scalar_type();
  c.set(0, make_sequence(std::move(elements), type));
}

void sequence_insert(C& c) {
  TensorList elements = seq(c, 0);
  check_type(c, c.in(0), c.in(1));
  auto at = position(c, 2, elements.size(), true, static_cast<int64_t>(elements.size()));
  elements.insert(elements.begin() + static_cast<long>(at), c.in(1));
  c.set(0, make_sequence(std::move(elements), c.in(0).scalar_type()));
}

void sequence_erase(C& c) {
  TensorList elements = seq(c, 0);
  auto at = position(c, 1, elements.size(), false, -1);
  elements.erase(elements.begin() + static_cast<long>(at));
  c.set(0, make_sequence(std::move(elements), c.in(0).scalar_type()));
}

void sequence_at(C& c) {
  const auto& elements = seq(c, 0);
  if (!c.has(1)) c.fail("needs a position");
  c.set(0, elements[position(c, 1, elements.size(), false, 0)]);
}

void sequence_length(C& c) { c.set(0, at::scalar_tensor(static_cast<int64_t>(seq(c, 0).size()), at::kLong)); }

void concat_from_sequence(C& c) {
  const auto& elements = seq(c, 0);
  if (elements.empty()) c.fail("concatenates an empty sequence");
  bool new_axis = c.node.get_int("new_axis", 0) != 0;
  int64_t rank = elements.front().dim();
  int64_t axis = normalize_axis(c.node.get_int("axis", 0), new_axis ? rank + 1 : rank, c);
  c.set(0, new_axis ? at::stack(elements, axis) : at::cat(elements, axis));
}

void split_to_sequence(C& c) {
  const auto& x = c.in(0);
  int64_t axis = normalize_axis(c.node.get_int("axis", 0), x.dim(), c);
  std::vector<at::Tensor> pieces;
  if (x.size(axis) == 0 && (!c.has(1) || c.in(1).dim() == 0)) {
    // No pieces of an empty axis (ONNX's chunking and shape inference; ATen's split would give one empty piece).
  } else if (!c.has(1)) {
    pieces = x.split(1, axis);
    if (c.node.get_int("keepdims", 1) == 0)
      for (auto& p : pieces) p = p.squeeze(axis);
  } else if (c.in(1).dim() == 0) {
    int64_t chunk = c.ints(1).at(0);
    if (chunk <= 0) c.fail(fmt::format("split {} must be positive", chunk));
    pieces = x.split(chunk, axis);
  } else {
    auto sizes = c.ints(1);
    int64_t total = 0;
    for (auto s : sizes) {
      if (s < 0) c.fail(fmt::format("split {} is negative", s));
      total += s;
    }
    if (total != x.size(axis)) c.fail(fmt::format("split sizes sum to {}, dim {} is {}", total, axis, x.size(axis)));
    pieces = x.split_with_sizes(sizes, axis);
  }
  // Each piece written out (split's are views of x), as Split's are: the work the cost model counts
  // (cost/sequence.cpp).
  for (auto& p : pieces) p = p.contiguous();
  c.set(0, make_sequence(std::move(pieces), x.scalar_type()));
}

}  // namespace

void register_sequence_kernels(KernelRegistry& r) {
  // clang-format off
  r.add("sequence", {
      {"SequenceEmpty", sequence_empty}, {"SequenceConstruct", sequence_construct},
      {"SequenceInsert", sequence_insert}, {"SequenceErase", sequence_erase}, {"SequenceAt", sequence_at},
      {"SequenceLength", sequence_length}, {"ConcatFromSequence", concat_from_sequence},
      {"SplitToSequence", split_to_sequence}});
  // clang-format on
}

}  // namespace ridge::exec::aten
