#pragma once
// One platform check of `ridge doctor`: what was looked for, what was found, and what to do when it
// is missing. Plain data: report/doctor_report.h turns a list of them into a document.
#include <string>
#include <string_view>
#include <vector>

namespace ridge::doctor {

enum class Status {
  kOk,             // present and working
  kMissing,        // absent or broken; `fix` says what to do
  kNotApplicable,  // cannot apply to this machine (Jetson tools on a PC, RAPL where there is none)
};

std::string_view name(Status status);

struct Check {
  std::string area;  // cpu, executor, cuda, profilers, power, jetson, slurm, store, devices
  std::string name;  // "CUDA driver", "ncu", ...
  Status status = Status::kMissing;
  std::string detail;  // the version or value found, or why it is missing
  std::string fix;     // what to install or do (missing checks); empty otherwise

  bool ok() const { return status == Status::kOk; }
};

inline Check ok(std::string area, std::string name, std::string detail) {
  return {std::move(area), std::move(name), Status::kOk, std::move(detail), ""};
}
inline Check missing(std::string area, std::string name, std::string detail, std::string fix) {
  return {std::move(area), std::move(name), Status::kMissing, std::move(detail), std::move(fix)};
}
inline Check not_applicable(std::string area, std::string name, std::string detail) {
  return {std::move(area), std::move(name), Status::kNotApplicable, std::move(detail), ""};
}

}  // namespace ridge::doctor
