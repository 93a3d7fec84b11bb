#include "graph/shape.h"

#include <fmt/format.h>

#include <charconv>

#include "util/error.h"

namespace ridge::graph {

int64_t checked_mul(int64_t a, int64_t b, const char* what) {
  int64_t result = 0;
  if (__builtin_mul_overflow(a, b, &result)) throw Error(fmt::format("{} overflows 64 bits ({} x {})", what, a, b));
  return result;
}

int64_t checked_add(int64_t a, int64_t b, const char* what) {
  int64_t result = 0;
  if (__builtin_add_overflow(a, b, &result)) throw Error(fmt::format("{} overflows 64 bits ({} + {})", what, a, b));
  return result;
}

bool is_fully_known(const Shape& shape) {
  for (const auto& d : shape)
    if (!d.is_known()) return false;
  return true;
}

int64_t element_count(const Shape& shape) {
  int64_t n = 1;
  for (const auto& d : shape) {
    if (!d.is_known()) throw Error("element count of a shape with an unbound dimension '" + d.symbol + "'");
    n = checked_mul(n, d.value, "tensor element count");
  }
  return n;
}

std::vector<int64_t> known_dims(const Shape& shape) {
  std::vector<int64_t> dims;
  dims.reserve(shape.size());
  for (const auto& d : shape) dims.push_back(d.value);
  return dims;
}

Shape make_shape(const std::vector<int64_t>& dims) {
  Shape shape;
  shape.reserve(dims.size());
  for (auto d : dims) shape.push_back(Dim::known(d));
  return shape;
}

std::optional<Shape> common_shape(const std::vector<Shape>& shapes) {
  if (shapes.empty()) return std::nullopt;
  Shape common = shapes.front();
  for (const auto& s : shapes) {
    if (s.size() != common.size()) return std::nullopt;
    for (size_t d = 0; d < s.size(); ++d)
      if (!(s[d] == common[d])) common[d] = Dim{};
  }
  return common;
}

SharedShape shared_by(const std::vector<Shape>& shapes) {
  if (shapes.empty()) return {};
  auto common = common_shape(shapes);
  return {common, !common.has_value()};
}

SharedShape share(const SharedShape& a, const SharedShape& b) {
  if (a.ranks_differ || b.ranks_differ) return {std::nullopt, true};
  if (!a.shape) return b;
  if (!b.shape) return a;
  return shared_by({*a.shape, *b.shape});
}

std::string to_string(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) text += 'x';
    text += shape[i].is_known() ? std::to_string(shape[i].value) : (shape[i].symbol.empty() ? "?" : shape[i].symbol);
  }
  return text;
}

std::vector<int64_t> parse_integer_list(const std::string& text, const char* separators, const std::string& what) {
  std::vector<int64_t> values;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find_first_of(separators, pos);
    if (end == std::string::npos) end = text.size();
    std::string part = text.substr(pos, end - pos);
    int64_t value = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size())
      throw Error(fmt::format("{}: '{}' is not an integer", what, part));
    values.push_back(value);
    pos = end + 1;
  }
  return values;
}

std::vector<int64_t> parse_dims(const std::string& text) {
  auto dims = parse_integer_list(text, "x,", fmt::format("bad shape '{}'", text));
  for (auto d : dims)
    if (d < 0) throw Error(fmt::format("bad shape '{}': negative dimension {}", text, d));
  return dims;
}

}  // namespace ridge::graph
