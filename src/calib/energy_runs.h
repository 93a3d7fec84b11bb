#pragma once
// Measured runs with energy, as `ridge calibrate --energy` fits them (roofline/energy_fit.h), from
// the files that hold them, each format told by its content:
//   - `ridge bench -f json` output and `ridge bench --csv DIR` results (DIR or DIR/overall.csv) whose
//     runs carry energy_per_inference_j: W and Q from ridge's own analysis of the run's model at its
//     batch, input size and precision, counted as `ridge predict --traffic T` counts them (T: the
//     traffic given), over the nodes predict gives an energy; T is the run's mean latency;
//   - a plain energy CSV (flops, bytes, time_s, energy_j, optional label), for runs measured outside
//     ridge (a layer timed under a power meter).
// A run without an energy figure is named and skipped, never read as zero.
#include <istream>
#include <string>
#include <vector>

#include "hw/roofline.h"
#include "roofline/energy_fit.h"
#include "roofline/predict.h"

namespace ridge::calib {

struct EnergyRuns {
  std::vector<roofline::EnergyRun> runs;
  std::vector<std::string> skipped;  // "SOURCE: LABEL: why", one per run not used
  std::vector<std::string> notes;    // what the figures leave out (uncosted nodes), once per model point
};

// The plain energy CSV: a header naming flops, bytes, time_s and energy_j (any order; label optional,
// other columns ignored), then one run per line. An empty energy_j skips the run (named in
// `skipped`); any other field that is not a finite number >= 0 (time and energy > 0) is refused.
// Throws ridge::Error (one line, naming `source` and the line) on malformed input.
std::vector<roofline::EnergyRun> parse_energy_csv(std::istream& in, const std::string& source,
                                                  std::vector<std::string>* skipped = nullptr);

// Every path given to --measured, each read by its content (a directory: a bench --csv directory).
// Bench runs are predicted on `roofline` (the device and mode fitted) to count their W and Q exactly
// as `ridge predict` does; training runs, and runs whose model cannot be found or analysed, are
// skipped and named. Throws ridge::Error (one line) on unreadable or malformed files.
EnergyRuns read_energy_runs(const std::vector<std::string>& paths, const hw::Roofline& roofline,
                            roofline::Traffic traffic);

}  // namespace ridge::calib
