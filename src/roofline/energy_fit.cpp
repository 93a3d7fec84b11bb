#include "roofline/energy_fit.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "roofline/family_calibration.h"
#include "sys/statistics.h"
#include "util/error.h"

namespace ridge::roofline {
namespace {

constexpr const char* kWhatToMeasure =
    "measure runs of different batch sizes, or of models with different intensities (FLOP per byte)";

std::string names_of(const std::vector<int>& columns) {
  std::string out;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) out += i + 1 == columns.size() ? " and " : ", ";
    out += kEnergyCoefficientNames[columns[i]];
  }
  return out;
}

bool same(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b)); }

// Refuses runs that cannot determine the three coefficients, naming those that cannot be told apart.
void check_determined(const std::vector<EnergyRun>& runs, const Eigen::MatrixXd& scaled) {
  const auto n = runs.size();
  if (n < 3)
    throw Error(fmt::format("energy fit: {} run(s) with energy cannot determine e_flop_j, e_byte_j and p_static_w: {}",
                            n, kWhatToMeasure));
  // Within one power mode a run's time follows from its work: runs doing the same work (W, Q) are
  // repetitions, and three coefficients need three distinct amounts of work.
  std::vector<std::pair<double, double>> points;
  for (const auto& r : runs)
    if (std::none_of(points.begin(), points.end(),
                     [&](const auto& p) { return same(p.first, r.flops) && same(p.second, r.bytes); }))
      points.emplace_back(r.flops, r.bytes);
  if (points.size() == 1)
    throw Error(fmt::format(
        "energy fit: all {} runs do the same work (W = {:.4g} FLOP, Q = {:.4g} B: one model at one batch), so "
        "e_flop_j, e_byte_j and p_static_w cannot be separated: {}",
        n, points[0].first, points[0].second, kWhatToMeasure));
  if (points.size() == 2)
    throw Error(fmt::format(
        "energy fit: the {} runs do only 2 distinct amounts of work (W, Q), so e_flop_j, e_byte_j and p_static_w "
        "cannot all be determined (3 coefficients need 3): {}",
        n, kWhatToMeasure));
  bool any_flops = false, any_bytes = false;
  for (const auto& r : runs) {
    any_flops = any_flops || r.flops > 0;
    any_bytes = any_bytes || r.bytes > 0;
  }
  if (!any_flops)
    throw Error("energy fit: no run does any FLOP, so e_flop_j cannot be determined: " + std::string(kWhatToMeasure));
  if (!any_bytes)
    throw Error("energy fit: no run moves any DRAM byte, so e_byte_j cannot be determined: " +
                std::string(kWhatToMeasure));
  // Linearly dependent columns (every run at one intensity W/Q; times proportional to the work): the
  // right singular vectors of the vanishing singular values say which coefficients trade off.
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(scaled, Eigen::ComputeFullV);
  const auto& s = svd.singularValues();
  std::vector<int> undetermined;
  for (Eigen::Index k = 0; k < s.size(); ++k) {
    if (s(k) > 1e-9 * s(0)) continue;
    for (int j = 0; j < 3; ++j)
      if (std::fabs(svd.matrixV()(j, k)) > 0.1 &&
          std::find(undetermined.begin(), undetermined.end(), j) == undetermined.end())
        undetermined.push_back(j);
  }
  if (!undetermined.empty()) {
    std::sort(undetermined.begin(), undetermined.end());
    std::string why = undetermined == std::vector<int>{0, 1}
                          ? "every run has the same intensity W/Q"
                          : "the runs' W, Q and T are linearly dependent (their times follow from their work alone)";
    throw Error(
        fmt::format("energy fit: the runs cannot separate {}: {}; {}", names_of(undetermined), why, kWhatToMeasure));
  }
}

}  // namespace

EnergyFit fit_energy(const std::vector<EnergyRun>& runs) {
  for (const auto& r : runs)
    if (!(r.flops >= 0) || !(r.bytes >= 0) || !(r.time_s > 0) || !(r.energy_j > 0) || !std::isfinite(r.flops) ||
        !std::isfinite(r.bytes) || !std::isfinite(r.time_s) || !std::isfinite(r.energy_j))
      throw Error(
          fmt::format("energy fit: run {} ({}) needs W, Q >= 0 and a positive time and energy", r.label, r.source));
  // Relative errors: each row divided by its measured energy, so a run of 10 mJ weighs as much as one
  // of 10 J; the target is then 1 for every run.
  const auto n = static_cast<Eigen::Index>(runs.size());
  Eigen::MatrixXd a(n, 3);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto& r = runs[static_cast<size_t>(i)];
    a(i, 0) = r.flops / r.energy_j;
    a(i, 1) = r.bytes / r.energy_j;
    a(i, 2) = r.time_s / r.energy_j;
  }
  Eigen::Vector3d norm;
  for (int j = 0; j < 3; ++j) norm(j) = a.col(j).norm();
  Eigen::MatrixXd scaled = a;
  for (int j = 0; j < 3; ++j)
    if (norm(j) > 0) scaled.col(j) /= norm(j);
  check_determined(runs, scaled);

  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(n);
  double best_rss = ones.squaredNorm();  // every coefficient 0
  int best_mask = 0;
  Eigen::Vector3d best = Eigen::Vector3d::Zero();
  for (int mask = 1; mask < 8; ++mask) {
    std::vector<int> cols;
    for (int j = 0; j < 3; ++j)
      if (mask & (1 << j)) cols.push_back(j);
    Eigen::MatrixXd sub(n, static_cast<Eigen::Index>(cols.size()));
    for (size_t k = 0; k < cols.size(); ++k) sub.col(static_cast<Eigen::Index>(k)) = scaled.col(cols[k]);
    Eigen::VectorXd x = sub.colPivHouseholderQr().solve(ones);
    if ((x.array() < 0).any() || !x.allFinite()) continue;
    double rss = (sub * x - ones).squaredNorm();
    if (rss < best_rss) {
      best_rss = rss;
      best_mask = mask;
      best.setZero();
      for (size_t k = 0; k < cols.size(); ++k) best(cols[k]) = x(static_cast<Eigen::Index>(k));
    }
  }
  EnergyFit fit;
  double* coefficient[3] = {&fit.e_flop_j, &fit.e_byte_j, &fit.p_static_w};
  for (int j = 0; j < 3; ++j) *coefficient[j] = best(j) / norm(j);
  std::vector<int> free;
  for (int j = 0; j < 3; ++j) {
    if (best_mask & (1 << j))
      free.push_back(j);
    else
      fit.at_bound[j] = true;
  }
  fit.degrees_of_freedom = static_cast<int>(n) - static_cast<int>(free.size());
  // Standard errors from the residual variance of the relative errors and the free columns' covariance.
  if (fit.degrees_of_freedom > 0 && !free.empty()) {
    Eigen::MatrixXd sub(n, static_cast<Eigen::Index>(free.size()));
    for (size_t k = 0; k < free.size(); ++k) sub.col(static_cast<Eigen::Index>(k)) = scaled.col(free[k]);
    Eigen::MatrixXd covariance = (sub.transpose() * sub).inverse() * (best_rss / fit.degrees_of_freedom);
    for (size_t k = 0; k < free.size(); ++k) {
      double v = covariance(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(k));
      if (v >= 0 && std::isfinite(v)) fit.standard_error[free[k]] = std::sqrt(v) / norm(free[k]);
    }
  }
  double mean_e = 0;
  for (const auto& r : runs) mean_e += r.energy_j / static_cast<double>(runs.size());
  double ss_res = 0, ss_tot = 0;
  std::vector<double> abs_rel;
  for (const auto& r : runs) {
    double e = fit.e_flop_j * r.flops + fit.e_byte_j * r.bytes + fit.p_static_w * r.time_s;
    double rel = (e - r.energy_j) / r.energy_j;
    fit.fitted_j.push_back(e);
    fit.relative_error.push_back(rel);
    abs_rel.push_back(std::fabs(rel));
    ss_res += (e - r.energy_j) * (e - r.energy_j);
    ss_tot += (r.energy_j - mean_e) * (r.energy_j - mean_e);
  }
  fit.median_rel = sys::median(abs_rel);
  fit.max_rel = *std::max_element(abs_rel.begin(), abs_rel.end());
  fit.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : (ss_res == 0 ? 1 : 0);
  return fit;
}

std::string energy_device_yaml(const std::string& device_file, const hw::EnergyCoefficients& c,
                               const std::string& output) {
  auto root = device_yaml_root(device_file);
  if (auto model = root["calibration"]["model"]; !output.empty() && model && model.IsScalar()) {
    namespace fs = std::filesystem;
    auto from = fs::absolute(fs::path(device_file).parent_path() / model.as<std::string>()).lexically_normal();
    auto to_dir = fs::absolute(fs::path(output)).parent_path();
    auto relative = from.lexically_relative(to_dir);
    root["calibration"]["model"] = relative.empty() ? from.string() : relative.string();
  }
  auto number = [](double v) { return fmt::format("{:.17g}", v); };
  YAML::Node entry(YAML::NodeType::Map);
  entry["mode"] = c.mode;
  if (c.e_flop_j.size() == 1 && c.e_flop_j.count("*")) {
    entry["e_flop_j"] = number(c.e_flop_j.at("*"));
  } else {
    YAML::Node flop(YAML::NodeType::Map);
    for (const auto& [key, value] : c.e_flop_j) flop[key] = number(value);
    entry["e_flop_j"] = flop;
  }
  entry["e_byte_j"] = number(c.e_byte_j);
  entry["p_static_w"] = number(c.p_static_w);
  entry["label"] = c.label;
  entry["source"] = c.source;
  // Other modes' entries are kept in their order; this mode's is replaced.
  YAML::Node energy(YAML::NodeType::Sequence);
  if (auto old = root["energy"]; old && old.IsSequence())
    for (const auto& e : old)
      if (!(e.IsMap() && e["mode"] && e["mode"].IsScalar() && e["mode"].as<std::string>() == c.mode))
        energy.push_back(e);
  energy.push_back(entry);
  root.remove("energy");
  root["energy"] = energy;
  YAML::Emitter e;
  e << YAML::Comment(fmt::format("{} with the energy coefficients of mode {} fitted by `ridge calibrate --energy`.\n"
                                 "Every figure and source of the original is kept; its comments are in that file.",
                                 device_file, c.mode))
    << YAML::Newline << root;
  if (!e.good()) throw Error("calibrate: cannot write the device file: " + e.GetLastError());
  return std::string(e.c_str()) + "\n";
}

}  // namespace ridge::roofline
