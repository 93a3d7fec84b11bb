// libFuzzer target: arbitrary Einsum equations and operand shapes through the equation parser.
// Input layout: one byte, the number of operands (mod 4); per operand one byte, its rank (mod 12),
// then that many bytes, its dimensions (mod 8); the rest is the equation. Any input must end in a
// spec (whose output dims are then taken) or a ridge::Error.
// fuzz-max-len: 256 (the longest input scripts/test.sh gives it, in bytes)
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "shape/einsum.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t pos = 0;
  auto next = [&]() -> int { return pos < size ? data[pos++] : 0; };
  std::vector<std::vector<int64_t>> dims(static_cast<size_t>(next() % 4));
  for (auto& shape : dims) {
    int rank = next() % 12;
    for (int i = 0; i < rank; ++i) shape.push_back(next() % 8);
  }
  std::string equation(reinterpret_cast<const char*>(data) + pos, size - pos);
  try {
    auto spec = ridge::shape::parse_einsum(equation, dims, "fuzz");
    spec.output_dims();
  } catch (const ridge::Error&) {
  }
  return 0;
}
