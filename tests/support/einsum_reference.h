#pragma once
// Einsum by its definition: every assignment of values to the equation's labels, the product of the operands'
// elements at it added into the output's element at it (doubles). The reference the GPU's Einsum is checked with where
// the CPU executor is not carried (tests/gpu), and the forms both are held to.
#include <cstdint>
#include <string>
#include <vector>

namespace ridge::test {

struct EinsumForm {
  std::string equation;
  std::vector<std::vector<int64_t>> dims;
};

// Attention's products, diagonals, broadcast ellipses, outer and inner products, sums, an operand passed through.
std::vector<EinsumForm> einsum_forms();

// Row-major over the output's dims (shape::parse_einsum's labels).
std::vector<double> einsum_by_definition(const std::string& equation, const std::vector<std::vector<int64_t>>& dims,
                                         const std::vector<std::vector<float>>& operands);

// Fixed values for operand i of `count` elements.
std::vector<float> einsum_operand(int64_t count, int i);

}  // namespace ridge::test
