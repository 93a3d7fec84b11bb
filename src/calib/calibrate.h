#pragma once
// `ridge calibrate` behind one entry point. Three fits, each writing its device file (and, for the shape-aware
// one, the evidence and the model beside it) and returning the typed result:
//   - per family: one model's measured node times (a CSV or an Nsight Compute export), one efficiency per op
//     family and a per-op overhead (roofline/family_calibration.h);
//   - shape-aware: the layer sample timed here, bench runs, PyTorch's whole-model timings, kernel times from
//     Nsight Compute exports and kept evidence, fitted per layer kind and mode (calib/model.h, gpu_model.h);
//   - energy: a power mode's e_flop, e_byte and p_static from runs with energy figures (roofline/energy_fit.h).
// calibrate() first refuses what a fit would drop (a model binding, a fold count or a sample option given to a fit
// that takes none), naming the options as `ridge calibrate` spells them, then what only the inputs can say (a CPU
// device file given GPU runs, a mode the device does not have, evidence of two executors); ridge::Error either way.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run.h"
#include "calib/calibration_result.h"
#include "calib/device_prediction.h"
#include "calib/layer_sample.h"

namespace ridge::calib {

enum class Fit { kFamily, kShape, kEnergy };

struct CalibrateRequest {
  Fit fit = Fit::kShape;
  std::string device;  // ID[:MODE] or path/to/device.yaml[:MODE]
  std::string output;  // the device file to write ("": ID.calibrated.yaml, or ID.energy.yaml for energy)
  std::vector<std::string> measured;

  // What the command line bound, as given. Per family: the model whose node times `measured` (exactly one file)
  // holds. Shape-aware: only named dims (bindings.dims), what PyTorch's timings do not record (seq=128); the fit
  // binds and costs each layer itself. Energy: none (each run is analysed as it recorded).
  analysis::Request model;
  // Per family: how the model is predicted (precision, traffic, TF32). Energy: how W and Q are counted (traffic,
  // as `ridge predict --traffic`). The executor's mode and threads are not calibrate's to choose.
  PredictionChoices choices;
  int64_t repetitions = 0;  // model passes in an Nsight Compute export (0: what the export shows)

  // Shape-aware.
  bool sample = false, quick = false;     // time the layer sample here (smaller with quick)
  int sample_size = 0;                    // configurations per template and unit of weight (0: the default)
  int visits = 0;                         // passes over the sample's configurations, fastest kept (0: the default)
  std::vector<int> threads;               // the sample's thread counts (empty: every logical CPU)
  std::string modes;                      // the sample's modes, "eager,optimized" ("": the device's executor's)
  std::vector<std::string> sample_files;  // kept evidence: OUT.samples.csv of earlier fits
  std::vector<std::string> ncu;           // MODEL:BATCH=EXPORT.csv, kernel times of the GPU executor
  std::string exclude_model;              // leave this model's runs (and exports) out
  std::optional<int> folds;               // cross-validation folds (not given: 5)
  std::optional<uint64_t> seed;           // of the sample draw and the fit (not given: 0)
};

// Progress of a long layer sample (called between layers).
using SampleProgressFn = std::function<void(const SampleProgress&)>;

Calibration calibrate(const CalibrateRequest& request, const SampleProgressFn& progress = {});
// The progress people read of a long layer sample: "calibrate: [N/TOTAL] STAGE: LABEL" (N counts from 1) handed to
// `line` for the first measurement, then at most one every `every_s` seconds of the sample.
SampleProgressFn progress_lines(const std::function<void(const std::string& line)>& line, double every_s = 5);

// The layer sample's thread counts as `--threads` gives them: N or N1,N2,... each in [1, 4096]; "" is none (every
// logical CPU). Throws ridge::Error naming the item that is not a thread count.
std::vector<int> parse_threads(const std::string& text);

}  // namespace ridge::calib
