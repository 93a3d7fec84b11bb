#pragma once
// A tensor shape whose dimensions are either known sizes or named symbols (e.g. "batch").
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ridge::graph {

struct Dim {
  int64_t value = -1;  // >= 0 when known
  std::string symbol;  // set when the size is a named, still unbound dimension

  static Dim known(int64_t v) { return Dim{v, {}}; }
  static Dim named(std::string name) { return Dim{-1, std::move(name)}; }
  bool is_known() const { return value >= 0; }
  bool operator==(const Dim&) const = default;
};

using Shape = std::vector<Dim>;

bool is_fully_known(const Shape& shape);
// Product of the dims; throws ridge::Error when it overflows 64 bits. Requires known dims.
int64_t element_count(const Shape& shape);
std::vector<int64_t> known_dims(const Shape& shape);
Shape make_shape(const std::vector<int64_t>& dims);
// "1x3x224x224", with symbols by name ("batchx3x224x224"); "scalar" for rank 0.
std::string to_string(const Shape& shape);
// Parses "1x3x224x224" (also "1,3,224,224"); throws ridge::Error on bad text or negative dims.
std::vector<int64_t> parse_dims(const std::string& text);
// Parses integers separated by any of `separators`; `what` names the text in errors.
std::vector<int64_t> parse_integer_list(const std::string& text, const char* separators, const std::string& what);

// What every shape of `shapes` shares: their dims where all agree, unknown dims where they differ; none where the list
// is empty or their ranks differ.
std::optional<Shape> common_shape(const std::vector<Shape>& shapes);

// What the tensors of an ONNX sequence share: nothing known yet (no tensor: `shape` none, `ranks_differ` false), one
// shape (a dim on which they differ, or that none binds, unknown), or not even a rank (`ranks_differ`).
struct SharedShape {
  std::optional<Shape> shape;
  bool ranks_differ = false;
  bool operator==(const SharedShape&) const = default;
};
SharedShape shared_by(const std::vector<Shape>& shapes);
// What the tensors of two sequences (or a sequence and a tensor inserted into it) share together.
SharedShape share(const SharedShape& a, const SharedShape& b);

// a*b with a 64-bit overflow check; throws ridge::Error naming `what`.
int64_t checked_mul(int64_t a, int64_t b, const char* what = "tensor size");
int64_t checked_add(int64_t a, int64_t b, const char* what = "sum");

}  // namespace ridge::graph
