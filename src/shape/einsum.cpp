#include "shape/einsum.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "util/error.h"

namespace ridge::shape {

std::vector<int64_t> EinsumSpec::output_dims() const {
  std::vector<int64_t> dims;
  for (char c : output) dims.push_back(sizes.at(c));
  return dims;
}

EinsumSpec parse_einsum(const std::string& equation, const std::vector<std::vector<int64_t>>& input_dims,
                        const std::string& where) {
  auto bad = [&](const std::string& why) { return Error(fmt::format("{}: einsum '{}': {}", where, equation, why)); };
  std::string eq;
  for (char c : equation)
    if (!std::isspace(static_cast<unsigned char>(c))) eq += c;
  auto arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  size_t start = 0;
  while (true) {
    auto comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != input_dims.size())
    throw bad(fmt::format("{} operands in the equation, {} inputs", terms.size(), input_dims.size()));
  EinsumSpec spec;
  size_t ellipsis_rank = 0;
  auto expand = [&](const std::string& term, size_t rank) {
    std::string labels;
    auto dots = term.find("...");
    size_t explicit_labels = term.size() - (dots == std::string::npos ? 0 : 3);
    if (dots == std::string::npos) {
      if (explicit_labels != rank)
        throw bad(fmt::format("term '{}' has {} labels for rank {}", term, explicit_labels, rank));
      return term;
    }
    if (explicit_labels > rank) throw bad(fmt::format("term '{}' has more labels than rank {}", term, rank));
    size_t broadcast = rank - explicit_labels;
    ellipsis_rank = std::max(ellipsis_rank, broadcast);
    labels = term.substr(0, dots);
    for (size_t i = 0; i < broadcast; ++i) labels += static_cast<char>('0' + (ellipsis_rank - broadcast + i));
    labels += term.substr(dots + 3);
    return labels;
  };
  for (size_t t = 0; t < terms.size(); ++t) {
    if (input_dims[t].size() > 10 + terms[t].size()) throw bad("rank too large");
    std::string labels = expand(terms[t], input_dims[t].size());
    for (size_t i = 0; i < labels.size(); ++i) {
      char c = labels[i];
      if (!std::isalnum(static_cast<unsigned char>(c))) throw bad(fmt::format("bad label '{}'", c));
      int64_t d = input_dims[t][i];
      auto [it, inserted] = spec.sizes.emplace(c, d);
      if (!inserted && it->second != d) {
        if (it->second == 1)
          it->second = d;  // broadcasting within ellipsis dims
        else if (d != 1)
          throw bad(fmt::format("label '{}' is {} in one operand and {} in another", c, it->second, d));
      }
    }
    spec.operands.push_back(labels);
  }
  std::string ellipsis_labels;
  for (size_t i = 0; i < ellipsis_rank; ++i) ellipsis_labels += static_cast<char>('0' + i);
  if (arrow != std::string::npos) {
    std::string rhs = eq.substr(arrow + 2);
    auto dots = rhs.find("...");
    spec.output = dots == std::string::npos ? rhs : rhs.substr(0, dots) + ellipsis_labels + rhs.substr(dots + 3);
    for (char c : spec.output)
      if (!spec.sizes.count(c)) throw bad(fmt::format("output label '{}' is in no operand", c));
  } else {
    // Implicit output: ellipsis dims, then labels appearing exactly once, alphabetically.
    std::map<char, int> count;
    for (const auto& op : spec.operands)
      for (char c : op)
        if (!std::isdigit(static_cast<unsigned char>(c))) ++count[c];
    spec.output = ellipsis_labels;
    for (const auto& [c, n] : count)
      if (n == 1) spec.output += c;
  }
  return spec;
}

}  // namespace ridge::shape
