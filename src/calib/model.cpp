#include "calib/model.h"

#include <fmt/format.h>
#include <xgboost/c_api.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>

#include "calib/gpu_model.h"
#include "sys/statistics.h"
#include "util/error.h"

namespace ridge::calib {
namespace {

constexpr double kShortRunS = 2e-3;
// 2: the trees also read the op code; 3: rank-free features of reductions and elementwise ops, Cast as data
// movement; 4: whether an elementwise op is transcendental; 5: a product by a matrix folds the first operand's
// leading dims into its rows (m).
constexpr int kFormatVersion = 5;

void check_xgb(int status, const char* what) {
  if (status != 0) throw Error(fmt::format("calibration: XGBoost {} failed: {}", what, XGBGetLastError()));
}

// Owns an XGBoost handle.
struct Booster {
  BoosterHandle handle = nullptr;
  Booster() = default;
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  ~Booster() {
    if (handle) XGBoosterFree(handle);
  }
};
struct Matrix {
  DMatrixHandle handle = nullptr;
  Matrix(const std::vector<float>& values, size_t rows, size_t cols) {
    check_xgb(XGDMatrixCreateFromMat(values.data(), rows, cols, std::nanf(""), &handle), "matrix");
  }
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  ~Matrix() {
    if (handle) XGDMatrixFree(handle);
  }
};

std::vector<float> to_floats(const std::vector<std::vector<double>>& rows) {
  std::vector<float> out;
  for (const auto& r : rows)
    for (double v : r) out.push_back(static_cast<float>(v));
  return out;
}

// The features, then the op as a code the trees can split on (a kind holds several ops: Gemm and
// MatMul, MaxPool and GlobalAveragePool run different kernels). FNV-1a: stable across versions.
double op_code(const std::string& op) {
  uint32_t h = 2166136261u;
  for (unsigned char c : op) h = (h ^ c) * 16777619u;
  return static_cast<double>(h % 997);
}
std::vector<double> model_inputs(const LayerFeatures& f) {
  auto x = feature_vector(f);
  x.push_back(op_code(f.op));
  return x;
}

}  // namespace

// One (kind, mode): y = log(measured / floor) = constant, or linear(x) clamped to the range it
// was fitted on (so a size far outside the sample does not extrapolate a line into nonsense),
// plus the trees' correction of the linear stage's residual.
class KindModel {
 public:
  int samples = 0;
  double constant = 0;              // used when there are too few samples for a line
  std::vector<double> mean, scale;  // standardization of the features (scale 0: constant feature)
  std::vector<double> beta;         // intercept first
  double low = 0, high = 0;         // range of the measured values fitted (y)
  std::unique_ptr<Booster> booster;
  std::string booster_json;  // as saved, for to_json()

  bool linear() const { return !beta.empty(); }

  double linear_part(const std::vector<double>& x) const {
    if (!linear()) return constant;
    double y = beta[0];
    for (size_t i = 0; i < mean.size(); ++i)
      if (scale[i] > 0) y += beta[i + 1] * (x[i] - mean[i]) / scale[i];
    return std::clamp(y, low, high);
  }

  double predict(const std::vector<double>& x) const {
    double y = linear_part(x);
    if (booster) {
      std::vector<float> row(x.begin(), x.end());
      Matrix m(row, 1, x.size());
      bst_ulong length = 0;
      const float* out = nullptr;
      check_xgb(XGBoosterPredict(booster->handle, m.handle, 0, 0, 0, &length, &out), "prediction");
      if (length == 1) y += out[0];
    }
    // The trees correct the line within the sample, not beyond it: no layer is predicted faster (or slower) against
    // its floor than any layer of its kind the fit measured.
    return linear() ? std::clamp(y, low, high) : y;
  }

  static std::unique_ptr<KindModel> fit(const std::vector<std::vector<double>>& x, const std::vector<double>& y,
                                        const FitOptions& o) {
    auto model = std::make_unique<KindModel>();
    // The last column is the op code: for the trees only (a category is no quantity for a line).
    size_t n = y.size(), columns = x.empty() ? 0 : x[0].size(), d = columns > 0 ? columns - 1 : 0;
    model->samples = static_cast<int>(n);
    model->constant = sys::median(y);
    if (static_cast<int>(n) < o.min_samples_for_linear) return model;
    // Ridge regression on standardized features (Eigen's LDLT on the normal equations): the
    // penalty keeps the solution defined when a feature is constant or features are collinear.
    model->mean.assign(d, 0);
    model->scale.assign(d, 0);
    for (size_t j = 0; j < d; ++j) {
      double s = 0, s2 = 0;
      for (size_t i = 0; i < n; ++i) s += x[i][j];
      double m = s / static_cast<double>(n);
      for (size_t i = 0; i < n; ++i) s2 += (x[i][j] - m) * (x[i][j] - m);
      model->mean[j] = m;
      double sd = std::sqrt(s2 / static_cast<double>(n));
      model->scale[j] = sd > 1e-9 ? sd : 0;
    }
    Eigen::MatrixXd a(n, d + 1);
    Eigen::VectorXd b(n);
    for (size_t i = 0; i < n; ++i) {
      a(static_cast<Eigen::Index>(i), 0) = 1;
      for (size_t j = 0; j < d; ++j)
        a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j + 1)) =
            model->scale[j] > 0 ? (x[i][j] - model->mean[j]) / model->scale[j] : 0;
      b(static_cast<Eigen::Index>(i)) = y[i];
    }
    // The penalty is chosen by leave-one-out error (closed form for ridge: residual / (1 - leverage)),
    // so a kind with few samples gets a strong one (close to its mean) and a well-sampled kind a
    // weak one (its trends).
    Eigen::MatrixXd gram = a.transpose() * a;
    Eigen::VectorXd moment = a.transpose() * b;
    double best_loo = std::numeric_limits<double>::infinity();
    Eigen::VectorXd solution;
    for (double penalty : {0.01, 0.1, 1.0, 10.0, 100.0, 1000.0}) {
      Eigen::MatrixXd normal = gram;
      for (Eigen::Index j = 1; j < normal.rows(); ++j) normal(j, j) += penalty;
      normal(0, 0) += 1e-9;
      auto ldlt = normal.ldlt();
      Eigen::VectorXd beta = ldlt.solve(moment);
      Eigen::MatrixXd solved = ldlt.solve(a.transpose());  // (d+1) x n
      Eigen::VectorXd residual = b - a * beta;
      double loo = 0;
      for (Eigen::Index i = 0; i < a.rows(); ++i) {
        double leverage = a.row(i).dot(solved.col(i));
        double r = residual(i) / std::max(1e-6, 1 - leverage);
        loo += r * r;
      }
      if (loo < best_loo) best_loo = loo, solution = beta;
    }
    model->beta.assign(solution.data(), solution.data() + solution.size());
    model->low = y[0], model->high = y[0];
    for (double v : y) model->low = std::min(model->low, v), model->high = std::max(model->high, v);
    if (static_cast<int>(n) < o.min_samples_for_trees) return model;

    std::vector<float> labels(n);
    for (size_t i = 0; i < n; ++i) labels[i] = static_cast<float>(y[i] - model->linear_part(x[i]));
    Matrix train(to_floats(x), n, columns);
    check_xgb(XGDMatrixSetFloatInfo(train.handle, "label", labels.data(), n), "labels");
    model->booster = std::make_unique<Booster>();
    check_xgb(XGBoosterCreate(&train.handle, 1, &model->booster->handle), "booster");
    auto set = [&](const char* key, const std::string& value) {
      check_xgb(XGBoosterSetParam(model->booster->handle, key, value.c_str()), key);
    };
    set("objective", "reg:squarederror");
    set("max_depth", std::to_string(o.max_depth));
    set("eta", fmt::format("{}", o.learning_rate));
    set("subsample", "0.8");
    set("min_child_weight", "2");
    set("lambda", "1");
    set("seed", std::to_string(o.seed));
    set("verbosity", "0");
    if (o.threads > 0) set("nthread", std::to_string(o.threads));
    for (int round = 0; round < o.rounds; ++round)
      check_xgb(XGBoosterUpdateOneIter(model->booster->handle, round, train.handle), "training");
    model->save_booster();
    return model;
  }

  void save_booster() {
    bst_ulong length = 0;
    const char* bytes = nullptr;
    check_xgb(XGBoosterSaveModelToBuffer(booster->handle, R"({"format": "json"})", &length, &bytes), "save");
    booster_json.assign(bytes, length);
  }

  nlohmann::json to_json() const {
    nlohmann::json j{{"samples", samples}, {"constant", constant}};
    if (linear()) j["linear"] = {{"mean", mean}, {"scale", scale}, {"beta", beta}, {"range", {low, high}}};
    if (booster) j["trees"] = nlohmann::json::parse(booster_json);
    return j;
  }

  static std::unique_ptr<KindModel> from_json(const nlohmann::json& j) {
    auto m = std::make_unique<KindModel>();
    m->samples = j.at("samples").get<int>();
    m->constant = j.at("constant").get<double>();
    if (j.contains("linear")) {
      const auto& l = j.at("linear");
      m->mean = l.at("mean").get<std::vector<double>>();
      m->scale = l.at("scale").get<std::vector<double>>();
      m->beta = l.at("beta").get<std::vector<double>>();
      m->low = l.at("range").at(0).get<double>();
      m->high = l.at("range").at(1).get<double>();
      if (m->mean.size() != feature_names().size() || m->scale.size() != m->mean.size() ||
          m->beta.size() != m->mean.size() + 1)
        throw Error("calibration model: the linear stage has the wrong number of features");
    }
    if (j.contains("trees")) {
      m->booster_json = j.at("trees").dump();
      m->booster = std::make_unique<Booster>();
      check_xgb(XGBoosterCreate(nullptr, 0, &m->booster->handle), "booster");
      check_xgb(XGBoosterLoadModelFromBuffer(m->booster->handle, m->booster_json.data(), m->booster_json.size()),
                "load");
    }
    return m;
  }
};

ErrorStats error_stats(const std::vector<double>& errors) {
  ErrorStats s;
  s.points = static_cast<int>(errors.size());
  if (errors.empty()) return s;
  std::vector<double> abs;
  for (double e : errors) abs.push_back(std::fabs(e));
  std::sort(abs.begin(), abs.end());
  s.median_abs = sys::median(abs);
  // p90 by the nearest-rank method: the smallest error at least 90% of points do not exceed.
  size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(abs.size())));
  s.p90_abs = abs[std::max<size_t>(rank, 1) - 1];
  s.within_10 = static_cast<double>(std::count_if(abs.begin(), abs.end(), [](double e) { return e <= 0.1; })) /
                static_cast<double>(abs.size());
  return s;
}

double floor_s(const LayerFeatures& f, const Ceilings& c) {
  bool matrix = f.kind == Kind::kConv || f.kind == Kind::kGroupedConv || f.kind == Kind::kMatMul;
  // A grouped convolution is not a matrix product BLAS can run at its GEMM rate.
  double peak = matrix && f.kind != Kind::kGroupedConv && c.matrix_flops > 0 ? c.matrix_flops : c.vector_flops;
  if (c.threads > 0 && f.threads >= 1 && f.threads < c.threads) peak *= f.threads / c.threads;
  double compute = peak > 0 ? f.flops / peak : 0;
  double memory = c.dram_bytes_per_s > 0 ? f.bytes / c.dram_bytes_per_s : 0;
  return std::max({compute, memory, 1e-9});
}

ShapeModel::ShapeModel() = default;
ShapeModel::~ShapeModel() = default;
ShapeModel::ShapeModel(ShapeModel&&) noexcept = default;
ShapeModel& ShapeModel::operator=(ShapeModel&&) noexcept = default;

namespace {
std::string key_name(Kind kind, const std::string& mode) { return fmt::format("{}/{}", name(kind), mode); }
}  // namespace

ShapeModel ShapeModel::fit(const std::vector<Sample>& samples, const std::vector<OverheadSample>& overheads,
                           const Ceilings& ceilings, const FitOptions& options) {
  if (samples.empty()) throw Error("calibration: no measured layers to fit");
  ShapeModel model;
  model.ceilings_ = ceilings;
  if (options.executor == "cuda" || options.executor == "pytorch") {
    model.executor_ = options.executor;
    model.gpu_ = std::make_unique<GpuTimeModel>(GpuTimeModel::fit(samples, overheads, ceilings));
    model.validation_ =
        GpuTimeModel::validate(samples, overheads, ceilings, options.folds, options.seed, &model.held_out_);
    return model;
  }
  std::map<std::pair<Kind, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < samples.size(); ++i)
    if (samples[i].measured_s > 0)  // a layer timed only with its whole run has no time of its own
      groups[{samples[i].features.kind, samples[i].mode}].push_back(i);
  if (groups.empty()) throw Error("calibration: no measured layers to fit");
  std::vector<double> all_errors;
  std::mt19937_64 rng(options.seed);
  for (auto& [key, indices] : groups) {
    std::vector<std::vector<double>> x;
    std::vector<double> y;
    for (auto i : indices) {
      x.push_back(model_inputs(samples[i].features));
      y.push_back(std::log(samples[i].measured_s / floor_s(samples[i].features, ceilings)));
    }
    model.models_[key] = KindModel::fit(x, y, options);
    // k-fold cross-validation: each sample predicted by a model that never saw it.
    size_t n = y.size();
    size_t folds = std::min<size_t>(static_cast<size_t>(std::max(options.folds, 2)), n);
    if (n < 2) continue;
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<double> errors;
    for (size_t fold = 0; fold < folds; ++fold) {
      std::vector<std::vector<double>> train_x;
      std::vector<double> train_y;
      std::vector<size_t> held;
      for (size_t r = 0; r < n; ++r) {
        if (r % folds == fold)
          held.push_back(order[r]);
        else
          train_x.push_back(x[order[r]]), train_y.push_back(y[order[r]]);
      }
      auto part = KindModel::fit(train_x, train_y, options);
      for (auto h : held) errors.push_back(std::exp(part->predict(x[h]) - y[h]) - 1);
    }
    model.validation_[key_name(key.first, key.second)] = error_stats(errors);
    all_errors.insert(all_errors.end(), errors.begin(), errors.end());
  }
  model.validation_["all"] = error_stats(all_errors);

  // Framework time outside the node timers: run - node sum = per_run + per_node x nodes.
  // Short runs only, where there are enough: in a long run, run - node sum is mostly the noise of
  // the node timings (milliseconds), not the framework's time (microseconds a node).
  std::map<std::pair<std::string, int>, std::vector<const OverheadSample*>> by_condition, short_runs;
  for (const auto& o : overheads) {
    by_condition[{o.mode, o.threads}].push_back(&o);
    if (o.run_s <= kShortRunS) short_runs[{o.mode, o.threads}].push_back(&o);
  }
  for (const auto& [key, shorts] : short_runs)
    if (shorts.size() >= 3) by_condition[key] = shorts;
  for (const auto& [key, rows] : by_condition) {
    Overhead fitted;
    fitted.runs = static_cast<int>(rows.size());
    Eigen::MatrixXd a(static_cast<Eigen::Index>(rows.size()), 2);
    Eigen::VectorXd b(static_cast<Eigen::Index>(rows.size()));
    bool distinct = false;
    for (size_t i = 0; i < rows.size(); ++i) {
      a(static_cast<Eigen::Index>(i), 0) = 1;
      a(static_cast<Eigen::Index>(i), 1) = rows[i]->nodes;
      b(static_cast<Eigen::Index>(i)) = std::max(0.0, rows[i]->run_s - rows[i]->node_sum_s);
      distinct = distinct || rows[i]->nodes != rows[0]->nodes;
    }
    if (distinct) {
      Eigen::VectorXd s = a.colPivHouseholderQr().solve(b);
      fitted.per_run_s = std::max(0.0, s(0));
      fitted.per_node_s = std::max(0.0, s(1));
    } else {  // one graph size: the time cannot be split between run and node
      double total = 0;
      for (const auto* r : rows) total += std::max(0.0, r->run_s - r->node_sum_s) / r->nodes;
      fitted.per_node_s = total / static_cast<double>(rows.size());
    }
    model.overheads_[key] = fitted;
  }
  return model;
}

std::optional<double> ShapeModel::predict_s(const LayerFeatures& f, const std::string& mode) const {
  if (gpu_) return gpu_->node_s(f, mode);
  auto it = models_.find({f.kind, mode});
  if (it == models_.end()) return std::nullopt;
  return floor_s(f, ceilings_) * std::exp(it->second->predict(model_inputs(f)));
}

double ShapeModel::framework_overhead_s(const std::string& mode, int threads, int nodes) const {
  if (gpu_) return gpu_->run_overhead_s(mode, nodes);
  const Overhead* best = nullptr;
  int distance = 0;
  for (const auto& [key, o] : overheads_) {
    if (key.first != mode) continue;
    int d = std::abs(key.second - threads);
    if (!best || d < distance) best = &o, distance = d;
  }
  return best ? best->per_run_s + best->per_node_s * nodes : 0;
}

bool ShapeModel::host_bound(const LayerFeatures& f, const std::string& mode) const {
  return gpu_ && gpu_->host_bound(f, mode);
}

bool ShapeModel::covers(Kind kind, const std::string& mode) const {
  if (gpu_) return (mode == "eager" || mode == "cuda-graph") && gpu_->covers(kind);
  return models_.count({kind, mode}) > 0;
}

std::map<std::string, std::string> ShapeModel::describe() const {
  if (gpu_) return gpu_->describe();
  std::map<std::string, std::string> out;
  for (const auto& [key, m] : models_)
    out[key_name(key.first, key.second)] = fmt::format("{} samples, {}", m->samples,
                                                       m->booster    ? "linear + trees"
                                                       : m->linear() ? "linear"
                                                                     : "constant ratio");
  return out;
}

nlohmann::json ShapeModel::to_json() const {
  nlohmann::json j;
  j["format"] = "ridge-calibration-model";
  j["version"] = kFormatVersion;
  j["features"] = feature_names();
  j["executor"] = executor_;
  if (!framework_.empty()) j["framework"] = framework_;
  j["ceilings"] = {{"vector_flops", ceilings_.vector_flops},
                   {"matrix_flops", ceilings_.matrix_flops},
                   {"dram_bytes_per_s", ceilings_.dram_bytes_per_s},
                   {"precision", ceilings_.precision},
                   {"threads", ceilings_.threads}};
  auto& models = j["models"] = nlohmann::json::array();
  for (const auto& [key, m] : models_) {
    auto entry = m->to_json();
    entry["kind"] = std::string(name(key.first));
    entry["mode"] = key.second;
    models.push_back(std::move(entry));
  }
  auto& overheads = j["overheads"] = nlohmann::json::array();
  for (const auto& [key, o] : overheads_)
    overheads.push_back({{"mode", key.first},
                         {"threads", key.second},
                         {"per_run_s", o.per_run_s},
                         {"per_node_s", o.per_node_s},
                         {"runs", o.runs}});
  if (gpu_) j["gpu"] = gpu_->to_json();
  auto& validation = j["validation"] = nlohmann::json::object();
  for (const auto& [key, e] : validation_)
    validation[key] = {
        {"points", e.points}, {"median_abs", e.median_abs}, {"p90_abs", e.p90_abs}, {"within_10", e.within_10}};
  return j;
}

ShapeModel ShapeModel::from_json(const nlohmann::json& j) {
  try {
    if (j.value("format", "") != "ridge-calibration-model")
      throw Error("calibration model: not a ridge calibration model file");
    if (j.at("version").get<int>() != kFormatVersion)
      throw Error(fmt::format("calibration model: version {} (this ridge reads version {}): refit it",
                              j.at("version").get<int>(), kFormatVersion));
    if (j.at("features").get<std::vector<std::string>>() != feature_names())
      throw Error("calibration model: fitted on other features than this ridge computes: refit it");
    ShapeModel model;
    model.executor_ = j.value("executor", "cpu");  // files of CPU calibrations written before GPU ones existed
    if (model.executor_ != "cpu" && model.executor_ != "cuda" && model.executor_ != "pytorch")
      throw Error(fmt::format("calibration model: unknown executor '{}' (cpu, cuda or pytorch)", model.executor_));
    model.framework_ = j.value("framework", "");
    const auto& c = j.at("ceilings");
    model.ceilings_ = {c.at("vector_flops").get<double>(), c.at("matrix_flops").get<double>(),
                       c.at("dram_bytes_per_s").get<double>(), c.at("precision").get<std::string>(),
                       c.value("threads", 0.0)};  // files fitted before floors had a thread count: unscaled
    for (const auto& m : j.at("models"))
      model.models_[{parse_kind(m.at("kind").get<std::string>()), m.at("mode").get<std::string>()}] =
          KindModel::from_json(m);
    for (const auto& o : j.at("overheads"))
      model.overheads_[{o.at("mode").get<std::string>(), o.at("threads").get<int>()}] = {
          o.at("per_run_s").get<double>(), o.at("per_node_s").get<double>(), o.at("runs").get<int>()};
    if (j.contains("gpu")) {
      if (model.executor_ == "cpu") throw Error("calibration model: a GPU block in a CPU calibration");
      model.gpu_ = std::make_unique<GpuTimeModel>(GpuTimeModel::from_json(j.at("gpu")));
    }
    for (const auto& [key, e] : j.at("validation").items())
      model.validation_[key] = {e.at("points").get<int>(), e.at("median_abs").get<double>(),
                                e.at("p90_abs").get<double>(), e.at("within_10").get<double>()};
    return model;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("calibration model: malformed ({})", e.what()));
  }
}

void ShapeModel::save(const std::string& path) const {
  std::ofstream out(path);
  out << to_json().dump() << '\n';
  if (!out.flush()) throw Error(fmt::format("cannot write calibration model '{}'", path));
}

ShapeModel ShapeModel::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("cannot read calibration model '{}'", path));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw Error(fmt::format("calibration model '{}' is not JSON", path));
  }
  try {
    return from_json(j);
  } catch (const Error& e) {
    throw Error(fmt::format("'{}': {}", path, e.what()));
  }
}

}  // namespace ridge::calib
