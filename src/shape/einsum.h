#pragma once
// Einsum equations: labels per operand, ellipsis expanded, and the size of every label.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ridge::shape {

struct EinsumSpec {
  std::vector<std::string> operands;  // one label string per input, ellipsis expanded to '0'..'9'
  std::string output;
  std::map<char, int64_t> sizes;
  std::vector<int64_t> output_dims() const;
};

// Throws ridge::Error (with `where` prefixed) on a malformed equation or inconsistent sizes.
EinsumSpec parse_einsum(const std::string& equation, const std::vector<std::vector<int64_t>>& input_dims,
                        const std::string& where);

}  // namespace ridge::shape
