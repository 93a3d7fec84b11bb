#pragma once
// What each feature of ridge needs from the platform (`ridge doctor --for FEATURE`): groups of checks,
// each group satisfied when one of its checks is ok (power needs NVML, RAPL or tegrastats).
#include <string>
#include <string_view>
#include <vector>

#include "doctor/check.h"

namespace ridge::doctor {

struct Feature {
  std::string_view name;
  std::string_view description;
  std::vector<std::vector<std::string_view>> groups;  // check names; all groups needed, one check of each
};

const std::vector<Feature>& features();
std::vector<std::string> feature_names();
// Throws ridge::Error naming the known features.
const Feature& find_feature(std::string_view name);

// Whether `check` is in one of `feature`'s groups, and whether it is one of several alternatives.
bool required_by(const Feature& feature, const Check& check);
bool one_of_several(const Feature& feature, const Check& check);

struct Verdict {
  bool ready = true;
  // One line naming each unmet group with its fixes ("CUDA driver missing (install ...); GPUs missing
  // (...)"); empty when ready.
  std::string unmet;
};
Verdict verdict(const Feature& feature, const std::vector<Check>& checks);

}  // namespace ridge::doctor
