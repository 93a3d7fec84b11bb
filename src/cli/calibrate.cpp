#include "calib/calibrate.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <iostream>
#include <optional>

#include "cli/command.h"
#include "cli/device_options.h"
#include "cli/output_options.h"
#include "cli/store_options.h"
#include "report/calibrate_command.h"
#include "report/result_record.h"

namespace ridge::cli {
namespace {

struct CalibrateOptions {
  DeviceOptions predict;
  std::vector<std::string> measured, sample_files;
  std::string output, format = "table";
  // Shape-aware calibration
  bool sample = false, quick = false;
  bool energy = false;  // fit the energy roofline of the mode (E = e_flop W + e_byte Q + p_static T)
  std::string threads, modes, exclude_model;  // modes "": the device executor's
  std::vector<std::string> ncu;  // MODEL:BATCH=EXPORT.csv: kernel times of the GPU executor as device times
  int folds = 0, sample_size = 0, visits = 0;  // folds 0: the fit's default (5); given, it must be honoured
  int64_t repetitions = 0;  // model passes in an ncu export given to --measured (0: what the export shows)
  std::optional<uint64_t> seed;
  StoreOptions store;
};

// The options as given; calib::calibrate refuses those its fit would drop.
calib::CalibrateRequest request_of(const CalibrateOptions& o) {
  calib::CalibrateRequest r;
  r.fit = o.energy ? calib::Fit::kEnergy : !o.predict.model.model.empty() ? calib::Fit::kFamily : calib::Fit::kShape;
  r.device = o.predict.device;
  r.output = o.output;
  r.measured = o.measured;
  r.model = make_request(o.predict.model);
  r.choices = o.predict.choices();
  r.repetitions = o.repetitions;
  r.sample = o.sample;
  r.quick = o.quick;
  r.sample_size = o.sample_size;
  r.visits = o.visits;
  r.threads = calib::parse_threads(o.threads);
  r.modes = o.modes;
  r.sample_files = o.sample_files;
  r.ncu = o.ncu;
  r.exclude_model = o.exclude_model;
  if (o.folds > 0) r.folds = o.folds;
  r.seed = o.seed;
  return r;
}

int run_calibrate(const CalibrateOptions& o) {
  // Progress of the layer sample on stderr (stdout holds only the document).
  auto line = [](const std::string& text) { fmt::print(std::cerr, "{}\n", text); };
  auto params = report::prediction_params(o.predict.model, o.predict.device, o.predict.choices());
  report::calibrate_and_keep(request_of(o), params, o.format, o.store, calib::progress_lines(line));
  return 0;
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
      "the host launching while the device works, a pipeline; CUDA graph: device time alone) and validated by\n"
      "leaving each model out; predict with --exec-mode eager|cuda-graph. CPU and GPU runs in one call are\n"
      "refused. With a GPU device file, --sample times the layer sample on the GPU executor (eager and\n"
      "cuda-graph). PyTorch's whole-model timings (a .jsonl file; --dim binds what they do not record, e.g.\n"
      "--dim seq=128) fit the same model to PyTorch instead, and predictions name it (\"calibrated estimate\n"
      "for cuda-graph mode, PyTorch 2.11\").\n"
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
  app->add_flag("--quick", o->quick, "a smaller layer sample (5 to 15 minutes on 2 cores)");
  app->add_option("--sample-size", o->sample_size,
                  "configurations per template and unit of weight (default 8 with --quick, else 24; conv weighs 6)")
      ->check(CLI::Range(1, 1000));
  app->add_option(
         "--visits", o->visits,
         "passes the layer sample makes over its configurations, each keeping its fastest visit: a shared "
         "machine's other tenants only add time, for minutes at once (default 2 on the CPU, 1 on a GPU; 1 on a "
         "quiet machine halves the warm-ups)")
      ->check(CLI::Range(1, 10));
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
  app->add_option("--folds", o->folds, "cross-validation folds of the shape-aware fit (default 5)")
      ->check(CLI::Range(2, 100));
  app->add_option("--seed", o->seed, "seed of the shape-aware sample draw and fit (default 0)");
  app->add_option("-o,--output", o->output,
                  "device file to write (default ID.calibrated.yaml; with --energy ID.energy.yaml)");
  add_output_options(*app, o->format, o->store);
  return {app, [o] { return run_calibrate(*o); }};
}

}  // namespace ridge::cli
