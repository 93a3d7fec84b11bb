#include "profile/ncu_runs.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <ctime>
#include <filesystem>

#include "profile/ncu_metrics.h"
#include "util/error.h"
#include "util/program.h"

namespace ridge::profile {
namespace {

constexpr const char* kCudaNcu = "/usr/local/cuda/bin/ncu";

// The given path or name, else `ncu` on PATH, else the CUDA toolkit's; a one-line error with the fix when none is.
std::string find_ncu(const std::string& flag) {
  if (!flag.empty()) {
    if (flag.find('/') == std::string::npos) {
      if (auto found = find_on_path(flag)) return *found;
    } else if (::access(flag.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(flag)) {
      return flag;
    }
    throw Error(fmt::format("ncu not found at {}: give --ncu the path of Nsight Compute's ncu", flag));
  }
  if (auto found = find_on_path("ncu")) return *found;
  if (::access(kCudaNcu, X_OK) == 0) return kCudaNcu;
  throw Error(
      "ncu not found: install Nsight Compute (with the CUDA toolkit, or NVIDIA's nsight-compute package; "
      "https://developer.nvidia.com/nsight-compute) or give --ncu PATH");
}

std::string default_output_dir() {
  std::time_t now = std::time(nullptr);
  std::tm local{};
  ::localtime_r(&now, &local);
  char name[64];
  std::strftime(name, sizeof name, "ncu-%Y%m%d-%H%M%S", &local);
  return name;
}

int64_t batch_of(const NcuPoint& point) {
  auto text = point.value("batch");
  int64_t batch = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), batch);
  return error == std::errc() && end == text.data() + text.size() && batch > 0 ? batch : 0;
}

std::string shown_label(const NcuPoint& point) { return point.label.empty() ? "ncu" : point.label; }

// The compute capability nvidia-smi gives, where ridge has its counter table; else the note why it is not asked for.
void resolve_cc(NcuOptions& options, const NcuProgressFn& progress) {
  auto cc = gpu_compute_capability();
  auto tables = ncu_cc_tables();
  if (std::find(tables.begin(), tables.end(), cc) != tables.end()) {
    options.cc = cc;
    progress(fmt::format("GPU compute capability {} (nvidia-smi): asking for its tensor-core ops counters too", cc));
  } else {
    progress(without_cc_note(cc.empty() ? "no compute capability from nvidia-smi"
                                        : fmt::format("compute capability {} has no counter table in ridge", cc)));
  }
}

}  // namespace

std::vector<NcuPoint> ncu_points(const NcuRunRequest& request) {
  std::vector<SweepAxis> axes;
  for (const auto& text : request.sweeps) axes.push_back(parse_sweep(text));
  return ncu_points(request.ncu, axes);
}

std::string without_cc_note(const std::string& why) {
  return fmt::format(
      "note: {}: the tensor-core ops counters are not asked for, so tensor-core work is counted only where "
      "instruction counts fix it (Volta); --cc {} asks for them",
      why, fmt::join(ncu_cc_tables(), "|"));
}

NcuRuns run_ncu(const NcuRunRequest& request, const NcuProgressFn& progress) {
  auto r = request;
  r.ncu.ncu = find_ncu(request.ncu.ncu);
  ncu_points(r);  // a bad sweep is refused before anything is said or run
  if (r.ncu.cc.empty()) resolve_cc(r.ncu, progress);
  if (r.ncu.output_dir.empty()) r.ncu.output_dir = default_output_dir();
  NcuRuns out;
  out.points = ncu_points(r);
  out.output_dir = r.ncu.output_dir;
  std::error_code ec;
  std::filesystem::create_directories(out.output_dir, ec);
  if (ec) throw Error(fmt::format("cannot create {}: {}", out.output_dir, ec.message()));

  const auto n = out.points.size();
  for (size_t i = 0; i < n; ++i) {
    const auto& point = out.points[i];
    progress(fmt::format("[{}/{}] {}: running ncu (the program's output goes to {})", i + 1, n, shown_label(point),
                         point.log_path));
    auto run = run_ncu_point(point);
    out.runs.push_back(run);
    const auto& d = run.diagnosis;
    // No permission, no profiling on this GPU, no ncu: every later point would fail alike.
    if (d.stops_all()) throw Error(d.message);
    if (d.failure == NcuFailure::kNone) {
      progress(
          fmt::format("[{}/{}] {}: done in {:.1f} s: {}", i + 1, n, shown_label(point), run.elapsed_s, point.csv_path));
      out.written.push_back(i);
    } else {
      progress(
          fmt::format("[{}/{}] {}: failed after {:.1f} s: {}", i + 1, n, shown_label(point), run.elapsed_s, d.message));
      out.failed.push_back(shown_label(point));
    }
  }
  return out;
}

void add_written(const NcuRuns& runs, NcuImportRequest& request) {
  for (auto i : runs.written) {
    const auto& point = runs.points[i];
    request.files.push_back(point.csv_path);
    request.run_labels.push_back(point.label);
    request.batches.push_back(batch_of(point));
  }
}

std::string failure_message(const NcuRuns& runs, bool imported) {
  std::string names;
  for (const auto& name : runs.failed) names += (names.empty() ? "" : ", ") + name;
  return fmt::format("{} of {} ncu runs failed: {}{}", runs.failed.size(), runs.points.size(), names,
                     runs.written.empty() ? ""
                                          : fmt::format(" (the CSVs of the others are in {}{})", runs.output_dir,
                                                        imported ? " and were imported" : ""));
}

}  // namespace ridge::profile
