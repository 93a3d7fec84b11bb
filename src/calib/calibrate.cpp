#include "calib/calibrate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "calib/bench_evidence.h"
#include "calib/energy_runs.h"
#include "calib/model.h"
#include "calib/shape_prediction.h"
#include "calib/torch_timings.h"
#include "exec/engine.h"
#include "hw/device_db.h"
#include "profile/ncu_export.h"
#include "profile/ncu_layer_times.h"
#include "roofline/energy_fit.h"
#include "roofline/family_calibration.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/file.h"

namespace ridge::calib {
namespace {

// The CPU executor's two modes; a GPU device's layer sample takes the GPU's (eager, cuda-graph).
constexpr const char* kCpuModes = "eager,optimized";

// OUT.yaml -> OUT (the stem every file of a calibration shares).
std::string stem_of(const std::string& output) {
  auto ext = std::filesystem::path(output).extension().string();
  return ext == ".yaml" || ext == ".yml" ? output.substr(0, output.size() - ext.size()) : output;
}

std::string overhead_file_of(const std::string& samples_file) {
  const std::string suffix = ".samples.csv";
  if (samples_file.size() > suffix.size() && samples_file.ends_with(suffix))
    return samples_file.substr(0, samples_file.size() - suffix.size()) + ".overhead.csv";
  return "";
}

std::vector<exec::Mode> parse_modes(const std::string& text) {
  std::vector<exec::Mode> modes;
  for (const auto& item : split_csv_line(text)) modes.push_back(exec::parse_mode(item));
  return modes;
}

// --ncu MODEL:BATCH=EXPORT.csv: the export's layer times as the GPU fit's device-time samples.
std::vector<Sample> ncu_device_samples(const std::string& spec, const std::string& exclude_model,
                                       std::vector<std::string>& notes) {
  auto eq = spec.find('=');
  auto colon = spec.rfind(':', eq);
  if (eq == std::string::npos || colon == std::string::npos || colon == 0 || eq + 1 >= spec.size())
    throw Error(fmt::format("--ncu {}: expected MODEL:BATCH=EXPORT.csv", spec));
  auto model = spec.substr(0, colon), file = spec.substr(eq + 1);
  int64_t batch = 0;
  auto batch_text = spec.substr(colon + 1, eq - colon - 1);
  auto [end, ec] = std::from_chars(batch_text.data(), batch_text.data() + batch_text.size(), batch);
  if (ec != std::errc() || end != batch_text.data() + batch_text.size() || batch < 1)
    throw Error(fmt::format("--ncu {}: batch '{}' is not a positive integer", spec, batch_text));
  if (excluded_model(model, exclude_model)) {
    notes.push_back(fmt::format("--ncu {}: left out with its model (--exclude-model)", spec));
    return {};
  }
  analysis::Request request;
  request.model_path = model;
  request.bindings.batch = batch;
  auto analysis = analysis::run(request);
  auto text = read_file(file);
  if (!profile::is_ncu_export(text)) throw Error(fmt::format("--ncu: '{}' is not an Nsight Compute CSV export", file));
  auto layers = profile::ncu_layer_seconds(profile::parse_ncu_export(text, file), analysis.cost, 0, notes);
  return kernel_time_samples(analysis, model, batch, layers, "--ncu " + spec, notes);
}

// The per-family fit of one model's measured node times (the calibration before the shape-aware one).
FamilyCalibration family_fit(const CalibrateRequest& r) {
  if (r.measured.size() != 1) throw Error("the per-family fit reads exactly one file of node times");
  const auto& measured_path = r.measured.front();
  auto [device_id, mode_text] = hw::split_device_and_mode(r.device);
  auto device = hw::find_device(device_id);
  if (device.file == "(detected)")
    throw Error("calibrate needs a device file: the detected host has no measured bandwidth yet");
  device.calibration.reset();  // fit against the raw roofline
  auto analysis = analysis::run(r.model);
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, mode_text));
  auto prediction = roofline::predict(analysis.cost, roofline, prediction_options(r.choices, r.model).roofline);
  roofline::RunSelection run;
  std::vector<std::string> ncu_notes;
  std::vector<roofline::MeasuredNode> measured;
  auto text = read_file(measured_path);
  if (profile::is_ncu_export(text)) {
    for (const auto& [layer, seconds] : profile::ncu_layer_seconds(profile::parse_ncu_export(text, measured_path),
                                                                   analysis.cost, r.repetitions, ncu_notes))
      measured.push_back({layer, seconds});
  } else {
    if (r.repetitions > 0) throw Error("--repetitions applies to an Nsight Compute export given to --measured");
    measured = roofline::read_node_times(measured_path, &run);
  }
  auto fit = roofline::fit_calibration(prediction, measured, measured_path);
  auto output = r.output.empty() ? device.id + ".calibrated.yaml" : r.output;
  write_file(output, roofline::calibrated_device_yaml(device.file, fit.calibration));
  FamilyCalibration c;
  c.device = device.id;
  c.measured = measured_path;
  c.run = run.chosen;
  c.runs_in_file = run.runs;
  c.fit = std::move(fit);
  c.notes = std::move(ncu_notes);
  c.output = output;
  return c;
}

// The evidence of a shape-aware fit, gathered from every source the request names.
struct Evidence {
  std::vector<Sample> samples;
  std::vector<OverheadSample> overheads;
  std::vector<std::string> sources, notes;
  // Whose times they are: "cpu" (ATen), "cuda" (ridge's GPU executor) or "pytorch"; PyTorch's version.
  std::string executor = "cpu", framework;
};

void read_kept(const CalibrateRequest& r, Evidence& e) {
  for (const auto& file : r.sample_files) {
    std::ifstream in(file);
    if (!in) throw Error(fmt::format("cannot read '{}'", file));
    auto read = read_samples_csv(in, file);
    e.samples.insert(e.samples.end(), read.begin(), read.end());
    e.sources.push_back(fmt::format("{} ({} samples)", file, read.size()));
    auto overhead_file = overhead_file_of(file);
    if (!overhead_file.empty() && std::filesystem::exists(overhead_file)) {
      std::ifstream oin(overhead_file);
      auto runs = read_overhead_csv(oin, overhead_file);
      e.overheads.insert(e.overheads.end(), runs.begin(), runs.end());
    }
  }
  // Kept evidence tells its executor: the GPU executor's layers have no thread count; PyTorch's name it.
  if (e.samples.empty()) return;
  e.executor = executor_of(e.samples.front());
  for (const auto& s : e.samples)
    if (executor_of(s) != e.executor)
      throw Error(fmt::format("--samples mixes layers of {} and of {}: refit each on its own",
                              executor_name(e.executor), executor_name(executor_of(s))));
  if (auto it = e.samples.front().environment.find("framework"); it != e.samples.front().environment.end())
    e.framework = it->second;
}

void read_measured(const CalibrateRequest& r, const hw::Device& device, Evidence& e) {
  if (r.measured.empty()) return;
  auto evidence = read_bench_evidence(r.measured, r.exclude_model, r.model.bindings.dims);
  if (!e.samples.empty() && !evidence.executor.empty() && evidence.executor != e.executor)
    throw Error(fmt::format("--samples holds layers of {} and --measured runs of {}: a calibration predicts one",
                            executor_name(e.executor), executor_name(evidence.executor)));
  if (!evidence.executor.empty()) e.executor = evidence.executor;
  if (!evidence.framework.empty()) e.framework = evidence.framework;
  if (evidence.executor == "pytorch" && device.kind != "gpu")
    throw Error(fmt::format("--measured holds PyTorch's GPU timings, but '{}' is not a GPU: give the GPU's device file",
                            device.id));
  if (evidence.executor == "cuda" && device.kind == "cpu")
    throw Error(fmt::format("--measured holds GPU runs ({}), but '{}' is a CPU: give the GPU's device file",
                            evidence.gpu, device.id));
  if (evidence.executor == "cpu" && device.kind == "gpu")
    throw Error(fmt::format("--measured holds CPU runs, but '{}' is a GPU: give the CPU's device file", device.id));
  e.samples.insert(e.samples.end(), evidence.samples.begin(), evidence.samples.end());
  e.overheads.insert(e.overheads.end(), evidence.overheads.begin(), evidence.overheads.end());
  e.sources.push_back(fmt::format("{} {} run(s) of {} model(s) ({} {}){}", evidence.runs,
                                  evidence.executor == "pytorch" ? evidence.framework : "bench", evidence.models.size(),
                                  evidence.samples.size(),
                                  evidence.executor == "pytorch" ? "layers, each run timed whole" : "nodes",
                                  r.exclude_model.empty() ? "" : ", excluding " + r.exclude_model));
  e.notes.insert(e.notes.end(), evidence.notes.begin(), evidence.notes.end());
  // Nothing to fit and nothing else coming: say why each run went unused, not only that nothing is left.
  if (evidence.samples.empty() && !r.sample && !evidence.notes.empty())
    throw Error(fmt::format(
        "no bench run could be fitted: {}{}", evidence.notes.front(),
        evidence.notes.size() > 1 ? fmt::format(" (and {} more notes)", evidence.notes.size() - 1) : std::string()));
}

void read_ncu(const CalibrateRequest& r, Evidence& e) {
  if (r.ncu.empty()) return;
  if (e.executor != "cuda")
    throw Error("--ncu gives kernel times of ridge's GPU executor: give its bench runs in --measured too");
  auto before = e.samples.size();
  for (const auto& spec : r.ncu) {
    auto kernel_timed = ncu_device_samples(spec, r.exclude_model, e.notes);
    e.samples.insert(e.samples.end(), kernel_timed.begin(), kernel_timed.end());
  }
  e.sources.push_back(
      fmt::format("{} Nsight Compute export(s): {} layers' kernel times", r.ncu.size(), e.samples.size() - before));
}

// The layer sample runs on the device's executor: the GPU's for a GPU device file (modes eager and cuda-graph),
// the CPU's (ATen) otherwise.
void time_sample(const CalibrateRequest& r, const hw::Device& device, const Ceilings& ceilings,
                 const SampleProgressFn& progress, Evidence& e) {
  const bool gpu = device.kind == "gpu";
  if (gpu) {
    if (!r.threads.empty())
      throw Error("--threads: the layer sample on a GPU runs the GPU executor, which has no thread count");
    if (e.executor == "pytorch")
      throw Error(
          "--sample times ridge's GPU executor, and PyTorch's timings calibrate PyTorch: calibrate each on its own");
    e.executor = "cuda";
  } else if (e.executor != "cpu") {
    throw Error(fmt::format(
        "--sample with GPU runs in --measured: '{}' is not a GPU device file, so the sample would time the CPU",
        device.id));
  }
  SampleOptions options;
  options.quick = r.quick;
  options.gpu = gpu;
  options.threads = gpu ? std::vector<int>{0}
                    : r.threads.empty()
                        ? std::vector<int>{static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))}
                        : r.threads;
  auto modes = r.modes.empty() ? (gpu ? "eager,cuda-graph" : kCpuModes) : r.modes;
  options.modes = parse_modes(modes);
  for (auto mode : options.modes) {
    if (mode == exec::Mode::kCudaGraph && !gpu)
      throw Error("--modes cuda-graph: the layer sample of a CPU runs eager and optimized");
    if (mode == exec::Mode::kOptimized && gpu)
      throw Error("--modes optimized: the GPU layer sample runs eager and cuda-graph (optimized mode is not fitted)");
  }
  options.seed = r.seed.value_or(0);
  options.ceilings = ceilings;
  options.per_template = r.sample_size;
  if (r.visits > 0) options.visits = r.visits;
  auto& engine = exec::load_engine(gpu ? exec::Backend::kCuda : exec::Backend::kCpu);
  // No usable GPU (no driver, none visible) is one line before the sample starts, not a failure per layer.
  if (gpu) engine.environment(exec::ExecOptions{});
  auto sampled = run_layer_sample(engine, options, progress);
  e.samples.insert(e.samples.end(), sampled.samples.begin(), sampled.samples.end());
  e.overheads.insert(e.overheads.end(), sampled.overheads.begin(), sampled.overheads.end());
  e.sources.push_back(gpu ? fmt::format("layer sample on the GPU: {} configurations, {} layers timed ({})",
                                        sampled.configurations, sampled.samples.size(), modes)
                          : fmt::format("layer sample: {} configurations, {} layers timed ({} thread(s); {})",
                                        sampled.configurations, sampled.samples.size(), fmt::join(options.threads, ","),
                                        modes));
  if (sampled.anchored_runs > 0)
    e.notes.push_back(
        fmt::format("layer sample: {} of {} runs' nodes summed to more than the run's median (timers, or "
                    "a stall in the profiled passes): their node times scaled to it",
                    sampled.anchored_runs, sampled.runs));
  for (const auto& f : sampled.failures) e.notes.push_back("not measured: " + f);
}

// The shape-aware calibration: evidence from the layer sample, bench runs and earlier sample files,
// kept beside the output, then fitted and cross-validated per layer kind and mode.
ShapeCalibration shape_fit(const CalibrateRequest& r, const SampleProgressFn& progress) {
  if (!r.model.bindings.dims.empty() && std::none_of(r.measured.begin(), r.measured.end(), is_torch_timings))
    throw Error("--dim applies to the per-family fit of a MODEL and to PyTorch timings (.jsonl) in --measured");
  auto [device_id, mode_text] = hw::split_device_and_mode(r.device);
  auto device = hw::find_device(device_id);
  if (device.file == "(detected)")
    throw Error("calibrate needs a device file: measure this machine with `ridge ert --profile host.yaml` first");
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, mode_text));
  auto ceilings = ceilings_of(device, roofline, "fp32");
  auto output = r.output.empty() ? device.id + ".calibrated.yaml" : r.output;
  auto stem = stem_of(output);

  Evidence e;
  read_kept(r, e);
  read_measured(r, device, e);
  read_ncu(r, e);
  if (r.sample) time_sample(r, device, ceilings, progress, e);
  // The evidence is kept before fitting, so a fit that fails can be redone from the files.
  auto samples_file = stem + ".samples.csv";
  auto overhead_file = stem + ".overhead.csv";
  std::ostringstream samples_csv, overhead_csv;
  write_samples_csv(samples_csv, e.samples);
  write_overhead_csv(overhead_csv, e.overheads);
  write_file(samples_file, samples_csv.str());
  write_file(overhead_file, overhead_csv.str());

  FitOptions fit_options;
  if (r.folds) fit_options.folds = *r.folds;
  fit_options.seed = r.seed.value_or(0);
  fit_options.executor = e.executor;
  auto model = ShapeModel::fit(e.samples, e.overheads, ceilings, fit_options);
  model.set_framework(e.framework);
  auto model_file = stem + ".model.json";
  model.save(model_file);

  hw::Calibration calibration;
  calibration.model_file = std::filesystem::path(model_file).filename().string();
  calibration.fitted_from = fmt::format("{}", fmt::join(e.sources, "; "));
  calibration.nodes = static_cast<int>(e.samples.size());
  calibration.overhead_s = device.overhead_s;
  if (auto all = model.validation().find("all"); all != model.validation().end())
    calibration.validation = hw::Calibration::Validation{all->second.points, all->second.median_abs,
                                                         all->second.p90_abs, all->second.within_10};
  // The model file is named relative to the device file: both are written in the same directory.
  write_file(output, roofline::calibrated_device_yaml(device.file, calibration));

  ShapeCalibration c;
  c.device = device.id;
  c.evidence = e.sources;
  c.samples = static_cast<int64_t>(e.samples.size());
  c.folds = fit_options.folds;
  c.held_out = model.held_out();
  auto described = model.describe();
  if (e.executor != "cpu") {
    described.emplace("all", "every run");
    described.emplace("run/eager", "eager runs");
    described.emplace("run/cuda-graph", "CUDA-graph runs");
  } else {
    described.emplace("all", "every layer");
  }
  for (const auto& [key, fit] : described) {
    auto stats = model.validation().find(key);
    c.models.push_back({key, fit, stats == model.validation().end() ? std::nullopt : std::optional(stats->second)});
  }
  c.notes = e.notes;
  c.samples_file = samples_file;
  c.overhead_file = overhead_file;
  c.model_file = model_file;
  c.output = output;
  return c;
}

// The energy roofline of one power mode, fitted to measured runs' energies.
EnergyCalibration energy_fit(const CalibrateRequest& r) {
  auto [device_id, mode_text] = hw::split_device_and_mode(r.device);
  auto device = hw::find_device(device_id);
  if (device.file == "(detected)")
    throw Error(
        "calibrate --energy writes a copy of a device file: give one (`ridge ert --profile host.yaml` makes it)");
  auto mode = hw::resolve_mode(device, mode_text);
  if (std::none_of(device.modes.begin(), device.modes.end(),
                   [&](const hw::PowerMode& p) { return p.name == mode.name; }))
    throw Error(
        fmt::format("energy coefficients are kept per named power mode, and '{}' is none of {}'s: add it to "
                    "the device file's modes first",
                    mode.name, device.id));
  auto roofline = hw::roofline_for(device, mode);
  auto traffic = r.choices.traffic == "fused" ? roofline::Traffic::kFused : roofline::Traffic::kUnfused;
  auto read = read_energy_runs(r.measured, roofline, traffic);
  if (read.runs.empty())
    throw Error(fmt::format("no run with an energy figure in {}{}", fmt::join(r.measured, ", "),
                            read.skipped.empty()
                                ? ""
                                : fmt::format(" ({} skipped, first: {})", read.skipped.size(), read.skipped.front())));
  auto fit = roofline::fit_energy(read.runs);
  // No device draws nothing per FLOP or per byte: a fit that holds either at 0 says the runs cannot
  // tell it from the others (static power may be 0: a board measured without its idle draw).
  for (int j = 0; j < 2; ++j)
    if (fit.at_bound[j])
      throw Error(fmt::format(
          "energy fit: the runs want {} negative (held at 0, median |error| {:.1f}%): they cannot tell it from the "
          "other coefficients; measure runs of more different batch sizes or models with different intensities",
          roofline::kEnergyCoefficientNames[j], fit.median_rel * 100));

  hw::EnergyCoefficients coefficients;
  coefficients.mode = mode.name;
  coefficients.e_flop_j["*"] = fit.e_flop_j;
  coefficients.e_byte_j = fit.e_byte_j;
  coefficients.p_static_w = fit.p_static_w;
  coefficients.label = hw::kMeasured;
  coefficients.source = fmt::format(
      "fitted by `ridge calibrate --energy` to {} run(s) in {} (W, Q as `ridge predict --traffic {}` counts them; "
      "T the measured mean latency): median |error| {:.1f}%, max {:.1f}%, R^2 {:.4f}",
      read.runs.size(), fmt::join(r.measured, ", "), r.choices.traffic, fit.median_rel * 100, fit.max_rel * 100,
      fit.r2);
  auto output = r.output.empty() ? device.id + ".energy.yaml" : r.output;
  write_file(output, roofline::energy_device_yaml(device.file, coefficients, output));

  EnergyCalibration c;
  c.device = device.id;
  c.mode = mode.name;
  c.measured = r.measured;
  c.traffic = r.choices.traffic;
  c.runs = std::move(read.runs);
  c.fit = std::move(fit);
  c.skipped = std::move(read.skipped);
  c.notes = std::move(read.notes);
  c.output = output;
  return c;
}

// Options a fit would drop, refused before any work (named as `ridge calibrate` spells them).
void check_request(const CalibrateRequest& r) {
  const auto& m = r.model;
  const auto& b = m.bindings;
  const auto& c = r.choices;
  const bool bound =
      b.batch.has_value() || !b.inputs.empty() || m.options.activation_dtype || m.options.weight_dtype || m.strict;
  const bool shape_options = r.sample || r.quick || r.sample_size > 0 || r.visits > 0 || !r.sample_files.empty() ||
                             !r.exclude_model.empty() || r.repetitions > 0 || !r.ncu.empty() || !r.threads.empty() ||
                             !r.modes.empty() || r.folds || r.seed;
  switch (r.fit) {
    case Fit::kEnergy:
      if (!m.model_path.empty())
        throw Error(
            "--energy fits a device's energy coefficients from --measured runs: give no MODEL (the runs name "
            "theirs)");
      if (shape_options)
        throw Error(
            "--sample, --quick, --sample-size, --visits, --samples, --exclude-model, --repetitions, --ncu, --threads, "
            "--modes, "
            "--folds and --seed fit time calibrations, not --energy (a layer sample under a power source is not "
            "supported yet: measure it and "
            "give an energy CSV)");
      if (bound || !b.dims.empty() || !c.precision.empty() || c.allow_tf32)
        throw Error(
            "--batch, --dim, --input, --dtype, --weight-dtype, --strict, --precision and --allow-tf32 do not apply "
            "to --energy: each run is analysed at the batch, input size and precision it recorded");
      if (r.measured.empty())
        throw Error(
            "--energy needs --measured: bench results with energy (`ridge bench --power ... --csv DIR` or -f json) "
            "or an energy CSV (flops, bytes, time_s, energy_j)");
      return;
    case Fit::kFamily:
      if (r.sample || !r.sample_files.empty())
        throw Error("--sample and --samples fit the shape-aware calibration: give them without a MODEL");
      if (r.measured.size() != 1)
        throw Error(
            "with a MODEL, calibrate fits its node times: give exactly one --measured CSV (or drop MODEL to fit "
            "the shape-aware model from bench directories)");
      if (!r.ncu.empty())
        throw Error("--ncu adds kernel times to the shape-aware GPU fit; with a MODEL, give its export to --measured");
      // The per-family fit solves one small least-squares problem from the given node times: nothing is sampled,
      // threaded, moded, left out or cross-validated, so these options would be dropped.
      if (r.quick || r.sample_size > 0 || r.visits > 0 || !r.threads.empty() || !r.modes.empty() ||
          !r.exclude_model.empty() || r.folds || r.seed)
        throw Error(
            "--quick, --sample-size, --visits, --threads, --modes, --exclude-model, --folds and --seed apply to the "
            "shape-aware calibration (no MODEL); the per-family fit of a MODEL takes its node times as measured");
      return;
    case Fit::kShape:
      break;
  }
  if (!m.model_path.empty()) throw Error("the shape-aware calibration takes no MODEL (give it for the per-family fit)");
  if (!r.sample && r.measured.empty() && r.sample_files.empty())
    throw Error(
        "nothing to calibrate from: give --sample (time a layer sample here), --measured DIR (bench runs) "
        "or --samples FILE");
  if ((r.quick || r.sample_size > 0 || r.visits > 0) && !r.sample)
    throw Error("--quick, --sample-size and --visits apply to --sample");
  // The shape-aware fit binds and costs each layer itself, in fp32: the model options would change
  // nothing, so they are refused rather than dropped.
  if (bound || c.allow_tf32 || c.traffic != "unfused")
    throw Error(
        "--batch, --input, --dtype, --weight-dtype, --strict, --allow-tf32 and --traffic apply to the per-family fit "
        "of a MODEL, not to the shape-aware calibration");
  if (!c.precision.empty() && c.precision != "fp32")
    throw Error(
        fmt::format("the shape-aware calibration is fitted in fp32 (the executor's precision), not {}", c.precision));
  if (!r.exclude_model.empty() && r.measured.empty()) throw Error("--exclude-model applies to --measured");
  if (r.repetitions > 0) throw Error("--repetitions applies to an Nsight Compute export given to a MODEL's --measured");
}

}  // namespace

SampleProgressFn progress_lines(const std::function<void(const std::string& line)>& line, double every_s) {
  auto last = std::make_shared<double>(-1.0);
  return [line, every_s, last](const SampleProgress& p) {
    if (p.elapsed_s - *last < every_s && p.done > 0) return;
    *last = p.elapsed_s;
    line(fmt::format("calibrate: [{}/{}] {}: {}", p.done + 1, p.total, p.stage, p.label));
  };
}

std::vector<int> parse_threads(const std::string& text) {
  std::vector<int> threads;
  if (text.empty()) return threads;  // every logical CPU
  for (const auto& item : split_csv_line(text)) {
    size_t used = 0;
    int value = 0;
    try {
      value = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || value < 1 || value > 4096)
      throw Error(fmt::format("--threads: '{}' is not a thread count (give N or N1,N2,...)", item));
    threads.push_back(value);
  }
  return threads;
}

Calibration calibrate(const CalibrateRequest& request, const SampleProgressFn& progress) {
  check_request(request);
  switch (request.fit) {
    case Fit::kFamily:
      return family_fit(request);
    case Fit::kEnergy:
      return energy_fit(request);
    case Fit::kShape:
      break;
  }
  return shape_fit(request, progress);
}

}  // namespace ridge::calib
