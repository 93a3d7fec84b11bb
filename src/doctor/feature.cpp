#include "doctor/feature.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/error.h"

namespace ridge::doctor {

const std::vector<Feature>& features() {
  static const std::vector<Feature> table{
      {"bench", "ridge run / ridge bench on this CPU", {{"executor module"}}},
      {"bench-cuda",
       "running and measuring on an NVIDIA GPU",
       {{"CUDA driver"}, {"CUDA runtime"}, {"cuDNN"}, {"cuBLAS"}, {"GPUs"}, {"GPU module"}}},
      {"ncu", "profiling kernels with Nsight Compute", {{"ncu"}, {"GPUs"}}},
      {"power", "measuring power and energy", {{"NVML", "RAPL", "tegrastats"}}},
      {"slurm", "running sweeps as SLURM jobs", {{"sbatch"}}},
  };
  return table;
}

std::vector<std::string> feature_names() {
  std::vector<std::string> names;
  for (const auto& f : features()) names.emplace_back(f.name);
  return names;
}

const Feature& find_feature(std::string_view name) {
  for (const auto& f : features())
    if (f.name == name) return f;
  throw Error(fmt::format("unknown feature '{}' ({})", name, fmt::join(feature_names(), ", ")));
}

namespace {

const std::vector<std::string_view>* group_of(const Feature& feature, const Check& check) {
  for (const auto& group : feature.groups)
    if (std::find(group.begin(), group.end(), check.name) != group.end()) return &group;
  return nullptr;
}

std::string describe(const Check& check) {
  std::string text = fmt::format("{} {}", check.name, name(check.status));
  if (!check.fix.empty()) text += fmt::format(" [{}]", check.fix);
  return text;
}

}  // namespace

bool required_by(const Feature& feature, const Check& check) { return group_of(feature, check) != nullptr; }

bool one_of_several(const Feature& feature, const Check& check) {
  const auto* group = group_of(feature, check);
  return group != nullptr && group->size() > 1;
}

Verdict verdict(const Feature& feature, const std::vector<Check>& checks) {
  Verdict v;
  std::vector<std::string> unmet;
  for (const auto& group : feature.groups) {
    std::vector<const Check*> members;
    for (const auto& check : checks)
      if (std::find(group.begin(), group.end(), check.name) != group.end()) members.push_back(&check);
    if (std::any_of(members.begin(), members.end(), [](const Check* c) { return c->ok(); })) continue;
    std::vector<std::string> parts;
    for (const auto* c : members) parts.push_back(describe(*c));
    if (members.empty()) parts.push_back(fmt::format("{} not checked", fmt::join(group, ", ")));
    unmet.push_back(group.size() > 1
                        ? fmt::format("one of {} is needed: {}", fmt::join(group, ", "), fmt::join(parts, ", "))
                        : fmt::format("{}", fmt::join(parts, ", ")));
  }
  if (unmet.empty()) return v;
  v.ready = false;
  v.unmet = fmt::format("{}", fmt::join(unmet, "; "));
  return v;
}

}  // namespace ridge::doctor
