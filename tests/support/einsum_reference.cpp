#include "support/einsum_reference.h"

#include <cmath>
#include <map>

#include "shape/einsum.h"

namespace ridge::test {

std::vector<EinsumForm> einsum_forms() {
  return {
      {"bhqd,bhkd->bhqk", {{2, 3, 5, 4}, {2, 3, 6, 4}}},  // attention's scores
      {"bhqk,bhkd->bhqd", {{2, 3, 5, 6}, {2, 3, 6, 4}}},  // and context
      {"bqhd,bkhd->bhqk", {{2, 5, 3, 4}, {2, 6, 3, 4}}},  // batch-first heads, read through the copies
      {"ij,jk->ik", {{4, 5}, {5, 3}}},
      {"ij,jk", {{4, 5}, {5, 3}}},  // implicit output
      {"i,j->ij", {{4}, {3}}},      // outer product: no contraction
      {"i,i->", {{7}, {7}}},        // inner product
      {"ij,ij->ij", {{3, 4}, {3, 4}}},
      {"ij->ji", {{3, 4}}},
      {"ij->ij", {{3, 4}}},  // the operand itself
      {"ij->", {{3, 4}}},
      {"ijk->ki", {{2, 3, 4}}},
      {"ii->i", {{4, 4}}},
      {"iij,jk->ik", {{3, 3, 4}, {4, 2}}},                // a diagonal, then a product
      {"...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 2}}},  // the ellipsis broadcast
      {"bn,anm->bam", {{2, 3}, {4, 3, 5}}},
      {"abc,cd->abd", {{2, 3, 4}, {4, 5}}},  // two free labels merge into the product's rows
      {"ab,cd->", {{2, 3}, {4, 5}}},         // both operands summed, then multiplied
  };
}

std::vector<float> einsum_operand(int64_t count, int i) {
  std::vector<float> v(static_cast<size_t>(count));
  for (int64_t e = 0; e < count; ++e) v[static_cast<size_t>(e)] = std::sin(0.7f * static_cast<float>(e) + i + 1);
  return v;
}

std::vector<double> einsum_by_definition(const std::string& equation, const std::vector<std::vector<int64_t>>& dims,
                                         const std::vector<std::vector<float>>& operands) {
  auto spec = shape::parse_einsum(equation, dims, "reference");
  std::vector<char> labels;
  for (const auto& [c, size] : spec.sizes) labels.push_back(c);
  std::map<char, int64_t> at;
  for (char c : labels) at[c] = 0;
  int64_t out_count = 1;
  for (auto d : spec.output_dims()) out_count *= d;
  std::vector<double> out(static_cast<size_t>(out_count), 0.0);
  // An element's offset in a dense tensor of `dims` under `term` (a dim of 1 under a larger label broadcasts).
  auto offset = [&](const std::string& term, const std::vector<int64_t>& d) {
    int64_t o = 0;
    for (size_t i = 0; i < term.size(); ++i) o = o * d[i] + (d[i] == 1 ? 0 : at[term[i]]);
    return o;
  };
  while (true) {
    double product = 1;
    for (size_t t = 0; t < operands.size(); ++t)
      product *= operands[t][static_cast<size_t>(offset(spec.operands[t], dims[t]))];
    out[static_cast<size_t>(offset(spec.output, spec.output_dims()))] += product;
    size_t l = labels.size();
    while (l-- > 0) {
      if (++at[labels[l]] < spec.sizes[labels[l]]) break;
      at[labels[l]] = 0;
    }
    if (l == static_cast<size_t>(-1)) break;
  }
  return out;
}

}  // namespace ridge::test
