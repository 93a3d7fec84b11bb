#include "roofline/calibrate.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "analysis/run.h"
#include "calib/bench_evidence.h"
#include "calib/energy_runs.h"
#include "calib/layer_sample.h"
#include "calib/model.h"
#include "calib/predict.h"
#include "calib/torch_timings.h"
#include "cli/command.h"
#include "cli/device_options.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "exec/engine.h"
#include "hw/device_db.h"
#include "profile/export_fit.h"
#include "profile/layer_map.h"
#include "profile/ncu_export.h"
#include "profile/ncu_kernel.h"
#include "profile/ncu_layer_times.h"
#include "report/calibration_report.h"
#include "report/format.h"
#include "report/result_codec.h"
#include "roofline/energy_fit.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/file.h"

namespace ridge::cli {
namespace {

// --modes' default: the CPU executor's two; a GPU device's layer sample takes the GPU's (eager, cuda-graph).
constexpr const char* kCpuModes = "eager,optimized";

struct CalibrateOptions {
  DeviceOptions predict;
  std::vector<std::string> measured, sample_files;
  std::string output, format = "table";
  // Shape-aware calibration
  bool sample = false, quick = false;
  bool energy = false;  // fit the energy roofline of the mode (E = e_flop W + e_byte Q + p_static T)
  std::string threads, modes = kCpuModes, exclude_model;
  std::vector<std::string> ncu;  // MODEL:BATCH=EXPORT.csv: kernel times of the GPU executor as device times
  int folds = 5, sample_size = 0;
  int64_t repetitions = 0;  // model passes in an ncu export given to --measured (0: what the export shows)
  uint64_t seed = 0;
  StoreOptions store;
};

// The fit as people and scripts read it, then kept in the store as the typed value.
int print_and_keep(const CalibrateOptions& o, calib::Calibration calibration) {
  auto doc = report::calibration_document(calibration);
  emit(doc, o.format);
  auto params = params_of(o.predict.model);
  params.device = o.predict.device;
  report::TypedResult value;
  value.kind = "calibrate";
  value.calibration = std::move(calibration);
  keep_result(o.store, doc, params, value);
  return 0;
}

// --ncu MODEL:BATCH=EXPORT.csv: the export's layer times as the GPU fit's device-time samples.
std::vector<calib::Sample> ncu_device_samples(const std::string& spec, const std::string& exclude_model,
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
  if (calib::excluded_model(model, exclude_model)) {
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
  return calib::kernel_time_samples(analysis, model, batch, layers, "--ncu " + spec, notes);
}

// The per-family fit of one model's measured node times (the calibration before the shape-aware one).
int run_family_calibration(const CalibrateOptions& o) {
  if (o.measured.size() != 1)
    throw Error(
        "with a MODEL, calibrate fits its node times: give exactly one --measured CSV (or drop MODEL to fit "
        "the shape-aware model from bench directories)");
  if (!o.ncu.empty())
    throw Error("--ncu adds kernel times to the shape-aware GPU fit; with a MODEL, give its export to --measured");
  const auto& measured_path = o.measured.front();
  auto request = make_request(o.predict.model);
  auto [device_id, mode_text] = hw::split_device_and_mode(o.predict.device);
  auto device = hw::find_device(device_id);
  if (device.file == "(detected)")
    throw Error("calibrate needs a device file: the detected host has no measured bandwidth yet");
  device.calibration.reset();  // fit against the raw roofline
  auto analysis = analysis::run(request);
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, mode_text));
  auto prediction = roofline::predict(analysis.cost, roofline, predict_options(o.predict, request));
  roofline::RunSelection run;
  std::vector<std::string> ncu_notes;
  std::vector<roofline::MeasuredNode> measured;
  auto text = read_file(measured_path);
  if (profile::is_ncu_export(text)) {
    for (const auto& [layer, seconds] : profile::ncu_layer_seconds(profile::parse_ncu_export(text, measured_path),
                                                                   analysis.cost, o.repetitions, ncu_notes))
      measured.push_back({layer, seconds});
  } else {
    if (o.repetitions > 0) throw Error("--repetitions applies to an Nsight Compute export given to --measured");
    measured = roofline::read_node_times(measured_path, &run);
  }
  auto fit = roofline::fit_calibration(prediction, measured, measured_path);
  auto output = o.output.empty() ? device.id + ".calibrated.yaml" : o.output;
  {
    std::ofstream file(output);
    file << roofline::calibrated_device_yaml(device.file, fit.calibration);
    if (!file.flush()) throw Error(fmt::format("cannot write '{}'", output));
  }
  calib::FamilyCalibration c;
  c.device = device.id;
  c.measured = measured_path;
  c.run = run.chosen;
  c.runs_in_file = run.runs;
  c.fit = std::move(fit);
  c.notes = std::move(ncu_notes);
  c.output = output;
  return print_and_keep(o, std::move(c));
}

std::vector<int> parse_threads(const std::string& text) {
  std::vector<int> threads;
  if (text.empty()) {
    threads.push_back(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    return threads;
  }
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

std::vector<exec::Mode> parse_modes(const std::string& text) {
  std::vector<exec::Mode> modes;
  for (const auto& item : split_csv_line(text)) modes.push_back(exec::parse_mode(item));
  return modes;
}

// OUT.yaml -> OUT (the stem every file of a calibration shares).
std::string stem_of(const std::string& output) {
  auto ext = std::filesystem::path(output).extension().string();
  return ext == ".yaml" || ext == ".yml" ? output.substr(0, output.size() - ext.size()) : output;
}

void write_text(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream file(path);
  if (!file) throw Error(fmt::format("cannot write '{}'", path));
  write(file);
  if (!file.flush()) throw Error(fmt::format("cannot write '{}'", path));
}

std::string overhead_file_of(const std::string& samples_file) {
  const std::string suffix = ".samples.csv";
  if (samples_file.size() > suffix.size() && samples_file.ends_with(suffix))
    return samples_file.substr(0, samples_file.size() - suffix.size()) + ".overhead.csv";
  return "";
}

// The shape-aware calibration: evidence from the layer sample, bench runs and earlier sample files,
// kept beside the output, then fitted and cross-validated per layer kind and mode.
int run_shape_calibration(const CalibrateOptions& o) {
  if (!o.sample && o.measured.empty() && o.sample_files.empty())
    throw Error(
        "nothing to calibrate from: give --sample (time a layer sample here), --measured DIR (bench runs) "
        "or --samples FILE");
  if ((o.quick || o.sample_size > 0) && !o.sample) throw Error("--quick and --sample-size apply to --sample");
  // The shape-aware fit binds and costs each layer itself, in fp32: the model options would change
  // nothing, so they are refused rather than dropped.
  const auto& m = o.predict.model;
  if (m.batch > 0 || !m.inputs.empty() || !m.dtype.empty() || !m.weight_dtype.empty() || m.strict ||
      o.predict.allow_tf32 || o.predict.traffic != "unfused")
    throw Error(
        "--batch, --input, --dtype, --weight-dtype, --strict, --allow-tf32 and --traffic apply to the per-family fit "
        "of a MODEL, not to the shape-aware calibration");
  // --dim binds what PyTorch's timings do not record (a sequence length); every other run records its shapes.
  const bool torch_timings = std::any_of(o.measured.begin(), o.measured.end(), calib::is_torch_timings);
  if (!m.dims.empty() && !torch_timings)
    throw Error("--dim applies to the per-family fit of a MODEL and to PyTorch timings (.jsonl) in --measured");
  if (!o.predict.precision.empty() && o.predict.precision != "fp32")
    throw Error(fmt::format("the shape-aware calibration is fitted in fp32 (the executor's precision), not {}",
                            o.predict.precision));
  if (!o.exclude_model.empty() && o.measured.empty()) throw Error("--exclude-model applies to --measured");
  auto [device_id, mode_text] = hw::split_device_and_mode(o.predict.device);
  auto device = hw::find_device(device_id);
  if (device.file == "(detected)")
    throw Error("calibrate needs a device file: measure this machine with `ridge ert --profile host.yaml` first");
  auto roofline = hw::roofline_for(device, hw::resolve_mode(device, mode_text));
  auto ceilings = calib::ceilings_of(roofline, "fp32");
  auto output = o.output.empty() ? device.id + ".calibrated.yaml" : o.output;
  auto stem = stem_of(output);

  std::vector<calib::Sample> samples;
  std::vector<calib::OverheadSample> overheads;
  std::vector<std::string> sources, notes;
  for (const auto& file : o.sample_files) {
    std::ifstream in(file);
    if (!in) throw Error(fmt::format("cannot read '{}'", file));
    auto read = calib::read_samples_csv(in, file);
    samples.insert(samples.end(), read.begin(), read.end());
    sources.push_back(fmt::format("{} ({} samples)", file, read.size()));
    auto overhead_file = overhead_file_of(file);
    if (!overhead_file.empty() && std::filesystem::exists(overhead_file)) {
      std::ifstream oin(overhead_file);
      auto runs = calib::read_overhead_csv(oin, overhead_file);
      overheads.insert(overheads.end(), runs.begin(), runs.end());
    }
  }
  // Kept evidence tells its executor: the GPU executor's layers have no thread count; PyTorch's name it.
  std::string executor = "cpu", framework;
  using calib::executor_name;
  using calib::executor_of;
  if (!samples.empty()) {
    executor = executor_of(samples.front());
    for (const auto& s : samples)
      if (executor_of(s) != executor)
        throw Error(fmt::format("--samples mixes layers of {} and of {}: refit each on its own",
                                executor_name(executor), executor_name(executor_of(s))));
    if (auto it = samples.front().environment.find("framework"); it != samples.front().environment.end())
      framework = it->second;
  }
  if (!o.measured.empty()) {
    std::map<std::string, int64_t> dims;
    for (const auto& [name, value] : cli::make_request(m).bindings.dims) dims[name] = value;
    auto evidence = calib::read_bench_evidence(o.measured, o.exclude_model, dims);
    if (!samples.empty() && !evidence.executor.empty() && evidence.executor != executor)
      throw Error(fmt::format("--samples holds layers of {} and --measured runs of {}: a calibration predicts one",
                              executor_name(executor), executor_name(evidence.executor)));
    if (!evidence.executor.empty()) executor = evidence.executor;
    if (!evidence.framework.empty()) framework = evidence.framework;
    if (evidence.executor == "pytorch" && device.kind != "gpu")
      throw Error(
          fmt::format("--measured holds PyTorch's GPU timings, but '{}' is not a GPU: give the GPU's device "
                      "file",
                      device.id));
    if (evidence.executor == "cuda" && device.kind == "cpu")
      throw Error(fmt::format("--measured holds GPU runs ({}), but '{}' is a CPU: give the GPU's device file",
                              evidence.gpu, device.id));
    if (evidence.executor == "cpu" && device.kind == "gpu")
      throw Error(fmt::format("--measured holds CPU runs, but '{}' is a GPU: give the CPU's device file", device.id));
    samples.insert(samples.end(), evidence.samples.begin(), evidence.samples.end());
    overheads.insert(overheads.end(), evidence.overheads.begin(), evidence.overheads.end());
    sources.push_back(fmt::format("{} {} run(s) of {} model(s) ({} {}){}", evidence.runs,
                                  evidence.executor == "pytorch" ? evidence.framework : "bench", evidence.models.size(),
                                  evidence.samples.size(),
                                  evidence.executor == "pytorch" ? "layers, each run timed whole" : "nodes",
                                  o.exclude_model.empty() ? "" : ", excluding " + o.exclude_model));
    notes.insert(notes.end(), evidence.notes.begin(), evidence.notes.end());
    // Nothing to fit and nothing else coming: say why each run went unused, not only that nothing is left.
    if (evidence.samples.empty() && !o.sample && !evidence.notes.empty())
      throw Error(fmt::format(
          "no bench run could be fitted: {}{}", evidence.notes.front(),
          evidence.notes.size() > 1 ? fmt::format(" (and {} more notes)", evidence.notes.size() - 1) : std::string()));
  }
  // The layer sample runs on the device's executor: the GPU's for a GPU device file (modes eager and cuda-graph),
  // the CPU's (ATen) otherwise.
  if (!o.ncu.empty()) {
    if (executor != "cuda")
      throw Error("--ncu gives kernel times of ridge's GPU executor: give its bench runs in --measured too");
    auto before = samples.size();
    for (const auto& spec : o.ncu) {
      auto kernel_timed = ncu_device_samples(spec, o.exclude_model, notes);
      samples.insert(samples.end(), kernel_timed.begin(), kernel_timed.end());
    }
    sources.push_back(
        fmt::format("{} Nsight Compute export(s): {} layers' kernel times", o.ncu.size(), samples.size() - before));
  }
  const bool gpu_sample = o.sample && device.kind == "gpu";
  if (gpu_sample) {
    if (!o.threads.empty())
      throw Error("--threads: the layer sample on a GPU runs the GPU executor, which has no thread count");
    if (executor == "pytorch")
      throw Error(
          "--sample times ridge's GPU executor, and PyTorch's timings calibrate PyTorch: calibrate each on its own");
    executor = "cuda";
  } else if (o.sample && executor != "cpu") {
    throw Error(fmt::format(
        "--sample with GPU runs in --measured: '{}' is not a GPU device file, so the sample would time the CPU",
        device.id));
  }
  calib::SampleRun sampled;
  if (o.sample) {
    calib::SampleOptions options;
    options.quick = o.quick;
    options.gpu = gpu_sample;
    options.threads = gpu_sample ? std::vector<int>{0} : parse_threads(o.threads);
    options.modes = gpu_sample && o.modes == kCpuModes
                        ? std::vector<exec::Mode>{exec::Mode::kEager, exec::Mode::kCudaGraph}
                        : parse_modes(o.modes);
    for (auto mode : options.modes) {
      if (mode == exec::Mode::kCudaGraph && !gpu_sample)
        throw Error("--modes cuda-graph: the layer sample of a CPU runs eager and optimized");
      if (mode == exec::Mode::kOptimized && gpu_sample)
        throw Error("--modes optimized: the GPU executor runs eager and cuda-graph");
    }
    options.seed = o.seed;
    options.ceilings = ceilings;
    options.per_template = o.sample_size;
    auto& engine = exec::load_engine(gpu_sample ? exec::Device::kCuda : exec::Device::kCpu);
    // No usable GPU (no driver, none visible) is one line before the sample starts, not a failure per layer.
    if (gpu_sample) engine.environment(exec::ExecOptions{});
    // Progress on stderr (stdout holds only the document): a line every few seconds.
    auto last = -1.0;
    sampled = calib::run_layer_sample(engine, options, [&](const calib::SampleProgress& p) {
      if (p.elapsed_s - last < 5 && p.done > 0) return;
      last = p.elapsed_s;
      fmt::print(std::cerr, "calibrate: [{}/{}] {}: {}\n", p.done + 1, p.total, p.stage, p.label);
    });
    samples.insert(samples.end(), sampled.samples.begin(), sampled.samples.end());
    overheads.insert(overheads.end(), sampled.overheads.begin(), sampled.overheads.end());
    sources.push_back(
        gpu_sample
            ? fmt::format("layer sample on the GPU: {} configurations, {} layers timed ({})", sampled.configurations,
                          sampled.samples.size(), o.modes == kCpuModes ? "eager,cuda-graph" : o.modes)
            : fmt::format("layer sample: {} configurations, {} layers timed ({} thread(s); {})", sampled.configurations,
                          sampled.samples.size(), fmt::join(options.threads, ","), o.modes));
    for (const auto& f : sampled.failures) notes.push_back("not measured: " + f);
  }
  // The evidence is kept before fitting, so a fit that fails can be redone from the files.
  auto samples_file = stem + ".samples.csv";
  auto overhead_file = stem + ".overhead.csv";
  write_text(samples_file, [&](std::ostream& out) { calib::write_samples_csv(out, samples); });
  write_text(overhead_file, [&](std::ostream& out) { calib::write_overhead_csv(out, overheads); });

  calib::FitOptions fit_options;
  fit_options.folds = o.folds;
  fit_options.seed = o.seed;
  fit_options.executor = executor;
  auto model = calib::ShapeModel::fit(samples, overheads, ceilings, fit_options);
  model.set_framework(framework);
  auto model_file = stem + ".model.json";
  model.save(model_file);

  hw::Calibration calibration;
  calibration.model_file = std::filesystem::path(model_file).filename().string();
  calibration.fitted_from = fmt::format("{}", fmt::join(sources, "; "));
  calibration.nodes = static_cast<int>(samples.size());
  calibration.overhead_s = device.overhead_s;
  if (auto all = model.validation().find("all"); all != model.validation().end())
    calibration.validation = hw::Calibration::Validation{all->second.points, all->second.median_abs,
                                                         all->second.p90_abs, all->second.within_10};
  // The model file is named relative to the device file: both are written in the same directory.
  write_text(output, [&](std::ostream& out) { out << roofline::calibrated_device_yaml(device.file, calibration); });

  calib::ShapeCalibration c;
  c.device = device.id;
  c.evidence = sources;
  c.samples = static_cast<int64_t>(samples.size());
  c.folds = o.folds;
  c.held_out = model.held_out();
  auto described = model.describe();
  if (executor != "cpu") {
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
  c.notes = notes;
  c.samples_file = samples_file;
  c.overhead_file = overhead_file;
  c.model_file = model_file;
  c.output = output;
  return print_and_keep(o, std::move(c));
}

// The energy roofline of one power mode, fitted to measured runs' energies.
int run_energy_calibration(const CalibrateOptions& o) {
  const auto& m = o.predict.model;
  if (!m.model.empty())
    throw Error(
        "--energy fits a device's energy coefficients from --measured runs: give no MODEL (the runs name theirs)");
  if (o.sample || o.quick || o.sample_size > 0 || !o.sample_files.empty() || !o.exclude_model.empty() ||
      o.repetitions > 0 || !o.ncu.empty())
    throw Error(
        "--sample, --quick, --sample-size, --samples, --exclude-model, --repetitions and --ncu fit time calibrations, "
        "not --energy (a layer sample under a power source is not supported yet: measure it and give an energy CSV)");
  if (m.batch > 0 || !m.dims.empty() || !m.inputs.empty() || !m.dtype.empty() || !m.weight_dtype.empty() || m.strict ||
      !o.predict.precision.empty() || o.predict.allow_tf32)
    throw Error(
        "--batch, --dim, --input, --dtype, --weight-dtype, --strict, --precision and --allow-tf32 do not apply to "
        "--energy: each run is analysed at the batch, input size and precision it recorded");
  if (o.measured.empty())
    throw Error(
        "--energy needs --measured: bench results with energy (`ridge bench --power ... --csv DIR` or -f json) or an "
        "energy CSV (flops, bytes, time_s, energy_j)");
  auto [device_id, mode_text] = hw::split_device_and_mode(o.predict.device);
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
  auto traffic = o.predict.traffic == "fused" ? roofline::Traffic::kFused : roofline::Traffic::kUnfused;
  auto read = calib::read_energy_runs(o.measured, roofline, traffic);
  if (read.runs.empty())
    throw Error(fmt::format("no run with an energy figure in {}{}", fmt::join(o.measured, ", "),
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
      read.runs.size(), fmt::join(o.measured, ", "), o.predict.traffic, fit.median_rel * 100, fit.max_rel * 100,
      fit.r2);
  auto output = o.output.empty() ? device.id + ".energy.yaml" : o.output;
  write_text(output,
             [&](std::ostream& out) { out << roofline::energy_device_yaml(device.file, coefficients, output); });

  calib::EnergyCalibration c;
  c.device = device.id;
  c.mode = mode.name;
  c.measured = o.measured;
  c.traffic = o.predict.traffic;
  c.runs = std::move(read.runs);
  c.fit = std::move(fit);
  c.skipped = std::move(read.skipped);
  c.notes = std::move(read.notes);
  c.output = output;
  return print_and_keep(o, std::move(c));
}

int run_calibrate(const CalibrateOptions& o) {
  if (o.energy) return run_energy_calibration(o);
  if (!o.predict.model.model.empty()) {
    if (o.sample || !o.sample_files.empty())
      throw Error("--sample and --samples fit the shape-aware calibration: give them without a MODEL");
    return run_family_calibration(o);
  }
  return run_shape_calibration(o);
}

}  // namespace

Command add_calibrate_command(CLI::App& parent) {
  auto o = std::make_shared<CalibrateOptions>();
  auto* app = parent.add_subcommand(
      "calibrate",
      "fit how this device's executor falls below its roofline, from a layer sample or measured runs; with "
      "--energy, the energy coefficients of a power mode");
  app->footer(
      "Shape-aware (no MODEL): times single-layer graphs here (--sample) and/or reads `ridge bench --csv DIR`\n"
      "directories (--measured DIR...), fits per layer kind and mode log(time / roofline floor) from the layers'\n"
      "features (Eigen least squares + XGBoost trees), cross-validates it, and writes OUT.yaml (a copy of the\n"
      "device file naming the model), OUT.model.json, OUT.samples.csv and OUT.overhead.csv (the evidence).\n"
      "A CPU bench run's node times are scaled to its median where they sum to more. GPU runs (`ridge bench\n"
      "--device cuda --mode both -f json`) fit the GPU executor instead: per layer kind a device time (latency,\n"
      "FLOPs, bytes, reduction length, outputs) and a host launch time, set against each run's own time (eager:\n"
      "the longer of the two per node; CUDA graph: device time alone) and validated by leaving each model out;\n"
      "predict with --exec-mode eager|cuda-graph. CPU and GPU runs in one call are refused. With a GPU device\n"
      "file, --sample times the layer sample on the GPU executor (eager and cuda-graph). PyTorch's whole-model\n"
      "timings (a .jsonl file; --dim binds what they do not record, e.g. --dim seq=128) fit the same model to\n"
      "PyTorch instead, and predictions name it (\"calibrated estimate for cuda-graph mode, PyTorch 2.11\").\n"
      "Per family (with MODEL): fits one efficiency per op family and a per-op overhead to that model's\n"
      "measured node times (a CSV with node and time columns, a bench nodes.csv, or an Nsight Compute CSV\n"
      "export whose kernels map to the model's layers, as `ridge import ncu -m MODEL` maps them).\n"
      "Energy (--energy): fits E = e_flop W + e_byte Q + p_static T of the mode (--device ID:MODE) by\n"
      "non-negative least squares on relative errors to --measured runs: `ridge bench --power` results\n"
      "(--csv DIR or -f json; W and Q from ridge's analysis of each run's model, counted as predict --traffic\n"
      "counts them; T the mean latency) or an energy CSV (flops, bytes, time_s, energy_j, optional label);\n"
      "writes OUT.yaml (default ID.energy.yaml) with an energy: entry for the mode.\n"
      "Examples:\n"
      "  ridge ert --quick --profile host.yaml\n"
      "  ridge calibrate --device host.yaml --sample --quick -o host-cal.yaml\n"
      "  ridge calibrate --device host.yaml --sample --threads 1,2 --measured runs/ -o host-cal.yaml\n"
      "  ridge calibrate models/resnet50.onnx --device t4 --measured node_times.csv -o t4-calibrated.yaml\n"
      "  ridge calibrate --device h200 --measured ridge-bench-*.json -o h200-cal.yaml\n"
      "  ridge calibrate --device h200 --measured torch-peer.jsonl -o h200-torch.yaml   (predicts PyTorch)\n"
      "  ridge calibrate --energy --device h200-cal.yaml --measured power-runs/ -o h200-cal.yaml   (time and energy)\n"
      "  ridge calibrate --energy --device jetson-orin-nano-8gb:MAXN --measured runs/ -o orin-energy.yaml\n"
      "See docs/calibration.md and docs/calibrate-energy.md.");
  add_model_options(*app, o->predict.model, false);
  // MODEL selects the per-family fit; the shape-aware calibration needs none.
  app->get_option("model")->required(false)->description(
      "ONNX model whose node times --measured holds (per-family fit)");
  add_device_options(*app, o->predict);
  app->add_option("--measured", o->measured,
                  "measured times: with MODEL, one CSV of node times or one Nsight Compute CSV export; without, "
                  "`ridge bench --csv` directories or `ridge bench -f json` files (several models at once), or "
                  "PyTorch's own timings (.jsonl, as bench/torch_gpu_peer.py writes them: the fit then predicts "
                  "PyTorch); with --energy, those with energy figures or energy CSVs");
  app->add_option("--repetitions", o->repetitions,
                  "with an Nsight Compute export: times the program ran the model under ncu (layer times are "
                  "divided by it; default: the passes the export shows by its NVTX ranges or kernel counts, else 1)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app->add_flag(
      "--energy", o->energy,
      "fit the energy roofline of the device's mode (e_flop, e_byte, p_static) to --measured runs with energy");
  app->add_flag("--sample", o->sample, "time a sample of single-layer graphs on this machine's executor");
  app->add_flag("--quick", o->quick, "a smaller layer sample (under two minutes on 2 cores)");
  app->add_option("--sample-size", o->sample_size,
                  "configurations per template and unit of weight (default 8 with --quick, else 24; conv weighs 6)")
      ->check(CLI::Range(1, 1000));
  app->add_option("--threads", o->threads, "thread counts the layer sample runs with, N or N1,N2 (default: all CPUs)");
  app->add_option("--modes", o->modes,
                  "executor modes the layer sample runs: eager,optimized (default both); on a GPU device file "
                  "eager,cuda-graph (default both)");
  app->add_option("--samples", o->sample_files,
                  "refit from kept evidence: OUT.samples.csv files of earlier calibrations (their .overhead.csv too)");
  app->add_option("--ncu", o->ncu,
                  "MODEL:BATCH=EXPORT.csv (repeatable): an Nsight Compute export of the GPU executor running MODEL at "
                  "BATCH (`ridge ncu run -m MODEL -- ridge run MODEL --device cuda --batch BATCH`); each layer's "
                  "kernel time is fitted as its device time, beside --measured GPU runs");
  app->add_option("--exclude-model", o->exclude_model,
                  "leave this model's bench runs out of --measured (leave-one-model-out validation)");
  app->add_option("--folds", o->folds, "cross-validation folds (default 5)")->check(CLI::Range(2, 100));
  app->add_option("--seed", o->seed, "seed of the sample draw and the fit (default 0)");
  app->add_option("-o,--output", o->output,
                  "device file to write (default ID.calibrated.yaml; with --energy ID.energy.yaml)");
  add_format_option(*app, o->format);
  add_store_options(*app, o->store);
  return {app, [o] { return run_calibrate(*o); }};
}

}  // namespace ridge::cli
