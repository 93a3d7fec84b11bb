#include "doctor/checks.h"

namespace ridge::doctor {

std::vector<Check> all_checks(const StorePath& store) {
  std::vector<Check> checks;
  for (auto&& area : {cpu_checks(), executor_checks(), cuda_checks(), profiler_checks(), jetson_checks(), rapl_checks(),
                      slurm_checks()})
    checks.insert(checks.end(), area.begin(), area.end());
  checks.push_back(store_check(store));
  checks.push_back(device_file_check());
  return checks;
}

}  // namespace ridge::doctor
