#pragma once
// `ridge calibrate` behind one entry point. Three fits, each writing its device file (and, for the shape-aware
// one, the evidence and the model beside it) and returning the typed result:
//   - per family: one model's measured node times (a CSV or an Nsight Compute export), one efficiency per op
//     family and a per-op overhead (roofline/family_calibration.h);
//   - shape-aware: the layer sample timed here, bench runs, PyTorch's whole-model timings, kernel times from
//     Nsight Compute exports and kept evidence, fitted per layer kind and mode (calib/model.h, gpu_model.h);
//   - energy: a power mode's e_flop, e_byte and p_static from runs with energy figures (roofline/energy_fit.h).
// The command line checks which options go together; this checks what only the inputs can say (a CPU device file
// given GPU runs, a mode the device does not have, evidence of two executors) and throws ridge::Error.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analysis/run.h"
#include "calib/calibration_result.h"
#include "calib/layer_sample.h"
#include "roofline/predict.h"

namespace ridge::calib {

enum class Fit { kFamily, kShape, kEnergy };

struct CalibrateRequest {
  Fit fit = Fit::kShape;
  std::string device;  // ID[:MODE] or path/to/device.yaml[:MODE]
  std::string output;  // the device file to write ("": ID.calibrated.yaml, or ID.energy.yaml for energy)
  std::vector<std::string> measured;

  // Per family: the model whose node times `measured` (exactly one file) holds, and how it is predicted.
  analysis::Request model;
  roofline::PredictOptions predict;
  int64_t repetitions = 0;  // model passes in an Nsight Compute export (0: what the export shows)

  // Shape-aware.
  bool sample = false, quick = false;     // time the layer sample here (smaller with quick)
  int sample_size = 0;                    // configurations per template and unit of weight (0: the default)
  std::vector<int> threads;               // the sample's thread counts (empty: every logical CPU)
  std::string modes;                      // the sample's modes, "eager,optimized" ("": the device's executor's)
  std::vector<std::string> sample_files;  // kept evidence: OUT.samples.csv of earlier fits
  std::vector<std::string> ncu;           // MODEL:BATCH=EXPORT.csv, kernel times of the GPU executor
  std::string exclude_model;              // leave this model's runs (and exports) out
  std::map<std::string, int64_t> dims;    // what PyTorch's timings do not record (seq=128)
  int folds = 5;
  uint64_t seed = 0;

  // Energy: how W and Q are counted ("unfused" or "fused", as `ridge predict --traffic`).
  std::string traffic = "unfused";
};

// Progress of a long layer sample (called between layers).
using SampleProgressFn = std::function<void(const SampleProgress&)>;

Calibration calibrate(const CalibrateRequest& request, const SampleProgressFn& progress = {});

}  // namespace ridge::calib
