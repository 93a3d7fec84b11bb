#include "profile/tensor_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <compare>
#include <set>

namespace ridge::profile {
namespace {

// What one source precision's operations split into on a compute capability: one row per instruction, with
// the destinations and whether the counters split 2:4 sparsity. "*": the counters do not split that field.
// Read off `ncu --query-metrics` on an H200 (../shared/data/gpu-h200/ncu/query-metrics-h200.txt.gz).
struct InstructionRow {
  const char* source;
  const char* instruction;
  std::vector<const char*> destinations;
  bool sparsity;
};
struct CcTable {
  const char* cc;
  std::vector<InstructionRow> rows;
};

const std::vector<CcTable>& cc_tables() {
  static const std::vector<CcTable> tables = {
      {"9.0",
       {
           {"fp16", "hmma", {"fp16", "fp32"}, true},
           {"fp16", "hgmma", {"*"}, true},
           {"bf16", "hmma", {"fp32"}, true},
           {"bf16", "hgmma", {"fp32"}, true},
           {"tf32", "hmma", {"fp32"}, true},
           {"tf32", "hgmma", {"fp32"}, true},
           {"int8", "imma", {"*"}, true},
           {"int8", "igmma", {"*"}, true},
           {"fp8", "*", {"*"}, true},  // counted only in total, split by sparsity
           {"fp64", "*", {"*"}, false},
           {"int1", "bmma", {"*"}, false},
           {"int1", "bgmma", {"*"}, false},
       }},
  };
  return tables;
}

const CcTable* table_of(const std::string& cc) {
  for (const auto& t : cc_tables())
    if (cc == t.cc) return &t;
  return nullptr;
}

// The smallest pieces a source's operations split into on a CC: (instruction, destination, sparsity).
struct Atom {
  std::string instruction, destination, sparsity;
  auto operator<=>(const Atom&) const = default;
};

std::vector<Atom> atoms_of(const CcTable& table, const std::string& source) {
  std::vector<Atom> atoms;
  for (const auto& row : table.rows) {
    if (source != row.source) continue;
    for (const char* destination : row.destinations)
      for (const char* sparsity : row.sparsity ? std::vector<const char*>{"off", "on"} : std::vector<const char*>{"*"})
        atoms.push_back({row.instruction, destination, sparsity});
  }
  return atoms;
}

bool field_covers(const std::string& counter, const std::string& atom) { return counter.empty() || counter == atom; }
bool covers(const TensorOpsCounter& c, const Atom& a) {
  return field_covers(c.instruction, a.instruction) && field_covers(c.destination, a.destination) &&
         field_covers(c.sparsity, a.sparsity);
}
// Two counters may count the same operation: no field tells them apart.
bool fields_meet(const std::string& a, const std::string& b) { return a.empty() || b.empty() || a == b; }
bool overlap(const TensorOpsCounter& a, const TensorOpsCounter& b) {
  return fields_meet(a.instruction, b.instruction) && fields_meet(a.destination, b.destination) &&
         fields_meet(a.sparsity, b.sparsity);
}
// `outer` counts every operation `inner` counts.
bool contains(const TensorOpsCounter& outer, const TensorOpsCounter& inner) {
  return field_covers(outer.instruction, inner.instruction) && field_covers(outer.destination, inner.destination) &&
         field_covers(outer.sparsity, inner.sparsity);
}
int open_fields(const TensorOpsCounter& c) {
  return int(c.instruction.empty()) + int(c.destination.empty()) + int(c.sparsity.empty());
}

struct Present {
  TensorOpsCounter counter;
  std::string name;
  double value = 0;
};

// Coarsest first (a total before its parts), then by name: the choice never depends on the file's order.
void coarse_first(std::vector<Present>& counters) {
  std::sort(counters.begin(), counters.end(), [](const Present& a, const Present& b) {
    if (open_fields(a.counter) != open_fields(b.counter)) return open_fields(a.counter) > open_fields(b.counter);
    return a.name < b.name;
  });
}

// Counters from `candidates` that count no operation twice, coarsest first.
std::vector<const Present*> disjoint(const std::vector<Present>& candidates) {
  std::vector<const Present*> chosen;
  for (const auto& c : candidates)
    if (std::none_of(chosen.begin(), chosen.end(), [&](const Present* p) { return overlap(p->counter, c.counter); }))
      chosen.push_back(&c);
  return chosen;
}

// The counter of every operation of `source` on Hopper: the one to ask for.
std::string total_counter(const std::string& source) {
  return "sm__ops_path_tensor_src_" + source + (source == "bf16" || source == "tf32" ? "_dst_fp32" : "") + ".sum";
}

// "hmma, hgmma (2:4-sparse)": the instructions whose operations no chosen counter covers, and of which part.
std::string describe_missing(const std::vector<Atom>& missing) {
  std::map<std::string, std::set<std::string>> sparsities;  // instruction -> the sparsities missing
  for (const auto& a : missing) sparsities[a.instruction].insert(a.sparsity);
  std::vector<std::string> parts;
  for (const auto& [instruction, which] : sparsities) {
    std::string name = instruction == "*" ? "every instruction" : instruction;
    if (which.size() == 1 && *which.begin() == "on") name += " (2:4-sparse)";
    if (which.size() == 1 && *which.begin() == "off") name += " (dense)";
    parts.push_back(name);
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::optional<TensorOpsCounter> parse_tensor_ops_counter(std::string_view name) {
  constexpr std::string_view kPrefix = "sm__ops_path_tensor";
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  if (name.size() >= 4 && name.substr(name.size() - 4) == ".sum") name.remove_suffix(4);
  auto take = [&](std::string_view tag, std::string& out) {
    if (name.substr(0, tag.size()) != tag) return false;
    name.remove_prefix(tag.size());
    auto end = name.find('_');
    out = std::string(name.substr(0, end));
    name.remove_prefix(end == std::string_view::npos ? name.size() : end);
    return !out.empty();
  };
  TensorOpsCounter c;
  if (name.substr(0, 4) == "_op_" && !take("_op_", c.instruction)) return std::nullopt;
  if (!take("_src_", c.source)) return std::nullopt;
  if (name.substr(0, 5) == "_dst_" && !take("_dst_", c.destination)) return std::nullopt;
  if (name.substr(0, 10) == "_sparsity_" && !take("_sparsity_", c.sparsity)) return std::nullopt;
  if (!name.empty() || (!c.sparsity.empty() && c.sparsity != "on" && c.sparsity != "off")) return std::nullopt;
  return c;
}

std::string tensor_ops_key(const std::string& source, bool sparse) {
  return source + "_tensor" + (sparse ? "_sparse" : "");
}

TensorWork tensor_work(const std::map<std::string, MetricValue>& metrics, const std::string& cc) {
  std::map<std::string, std::vector<Present>> by_source;
  for (const auto& [name, value] : metrics) {
    auto counter = parse_tensor_ops_counter(name);
    if (!counter || !value.value) continue;  // "n/a": a name this GPU does not have
    by_source[counter->source].push_back({*counter, name, *value.value});
  }
  TensorWork work;
  work.has_counters = !by_source.empty();
  if (!work.has_counters) return work;
  const CcTable* table = table_of(cc);
  for (auto& [source, present] : by_source) {
    coarse_first(present);
    auto chosen = disjoint(present);
    std::vector<Atom> universe = table ? atoms_of(*table, source) : std::vector<Atom>{};
    double dense = 0, sparse = 0;
    bool split_known = true;
    std::set<Atom> covered;
    for (const Present* c : chosen) {
      for (const auto& a : universe)
        if (covers(c->counter, a)) covered.insert(a);
      if (c->counter.sparsity == "on") {
        sparse += c->value;
        continue;
      }
      if (c->counter.sparsity == "off") {
        dense += c->value;
        continue;
      }
      // Both sparsities: the sparse part comes from the finer counters inside it, where they cover all of it.
      std::vector<Present> inside;
      for (const auto& p : present)
        if (p.counter.sparsity == "on" && contains(c->counter, p.counter)) inside.push_back(p);
      auto parts = disjoint(inside);
      std::set<Atom> sparse_atoms, sparse_covered;
      for (const auto& a : universe)
        if (covers(c->counter, a) && a.sparsity == "on") sparse_atoms.insert(a);
      for (const Present* p : parts)
        for (const auto& a : universe)
          if (covers(p->counter, a)) sparse_covered.insert(a);
      bool whole = table ? sparse_covered == sparse_atoms
                         : parts.size() == 1 && parts[0]->counter.instruction == c->counter.instruction &&
                               parts[0]->counter.destination == c->counter.destination;
      double part = 0;
      for (const Present* p : parts) part += p->value;
      if (whole && (!parts.empty() || table)) {
        sparse += part;
        dense += c->value - part;
      } else {
        dense += c->value;  // dense and sparse together: no counter here tells them apart
        split_known = false;
      }
    }
    work.ops[tensor_ops_key(source)] = dense;
    if (split_known && sparse > 0) work.ops[tensor_ops_key(source, true)] = sparse;
    if (table) {
      std::vector<Atom> missing;
      for (const auto& a : universe)
        if (!covered.count(a)) missing.push_back(a);
      if (!missing.empty())
        work.not_counted.push_back(fmt::format("{}: no ops counter for {} ({} counts them all)", tensor_ops_key(source),
                                               describe_missing(missing), total_counter(source)));
    } else if (std::none_of(chosen.begin(), chosen.end(), [](const Present* c) {
                 return c->counter.instruction.empty() && c->counter.sparsity.empty();
               })) {
      work.not_counted.push_back(fmt::format(
          "{}: only per-instruction or per-sparsity ops counters, which may not cover every instruction on CC {}",
          tensor_ops_key(source), cc.empty() ? "(not exported)" : cc));
    }
  }
  if (table) {
    std::set<std::string> sources;
    for (const auto& row : table->rows) sources.insert(row.source);
    for (const auto& source : sources)
      if (!by_source.count(source) && source != "int1")
        work.not_counted.push_back(
            fmt::format("{}: no ops counter in the export ({})", tensor_ops_key(source), total_counter(source)));
  }
  return work;
}

}  // namespace ridge::profile
