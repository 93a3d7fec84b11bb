#pragma once
// Choosing a power mode: the device's named modes and the custom modes its clock tables allow, each
// predicted (time and energy rooflines), filtered by constraints, the Pareto front of time against
// energy, and the best mode for an objective (energy, latency, or energy x delay).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hw/device.h"
#include "hw/mode_control.h"
#include "hw/roofline.h"
#include "roofline/predict.h"

namespace ridge::roofline {

enum class Objective { kEnergy, kLatency, kEdp };
Objective parse_objective(const std::string& text);  // energy | latency | edp; ridge::Error otherwise
std::string objective_name(Objective objective);

// A domain with neither a frequency table (steps_mhz) nor a min_mhz below max_mhz is not enumerated;
// one with min_mhz but no table gets this many evenly spaced frequencies, min and max included.
inline constexpr int kEvenSteps = 8;

// One clock domain's values in the search.
struct DomainAxis {
  std::string domain;
  std::vector<double> mhz;  // the frequencies tried (one: held)
  std::vector<int> cores;   // online cores tried (CPU domains whose cores change the prediction); empty: held
  std::string values_from;  // "steps_mhz table", "8 evenly spaced", "held at MODE's value: why"
  bool held = false;
};

struct TuneOptions {
  Objective objective = Objective::kEnergy;
  std::optional<double> latency_max_s, power_max_w;
  bool all_domains = false;  // enumerate domains that change neither time nor energy too
  bool named_only = false;   // the device file's modes only, no custom ones
};

struct ModeResult {
  hw::PowerMode mode;  // a custom mode's name is its spec: `ridge predict --device D:NAME` reproduces it
  bool named = false;
  int64_t batch = 1;
  double time_s = 0, energy_j = 0, power_w = 0;
  double energy_per_sample_j = 0;
  std::string energy_label, energy_source;
  double power_limited_s = 0;  // time the board's power limit added (Prediction::power_limited_s)
  bool feasible = true;
  std::string rejected;  // why a constraint rejects it
  bool pareto = false;
  bool tied = false;  // same time and energy as an earlier mode (kept out of the Pareto front)
};

struct TuneResult {
  std::vector<DomainAxis> axes;
  std::vector<ModeResult> modes;  // named modes first, then custom ones; per batch in the order given
  std::vector<size_t> pareto;     // indices into modes, by increasing time
  std::optional<size_t> best;
  size_t reference = 0;  // the device's first (default) mode at the first batch: what savings compare to
  bool energy_predicted = true;
  std::string energy_missing;
};

// The values each domain takes: all of them with `all_domains`, else only the domains whose clock
// (or online cores) changes the prediction `at_default` (the units whose ceilings it uses, the DRAM
// clock); the others are held at the default mode's value.
std::vector<DomainAxis> mode_axes(const hw::Device& device, const Prediction& at_default, const TuneOptions& options);

// The named modes, then every combination of the axes' values as a custom mode named by its spec
// ("cpu=8x1728MHz,emc=3200MHz,gpu=612MHz", held domains left out: they keep the default's value).
std::vector<hw::PowerMode> enumerate_modes(const hw::Device& device, const std::vector<DomainAxis>& axes,
                                           const TuneOptions& options);

// A custom mode's spec from its clocks and cores in `domains`.
std::string mode_spec(const hw::PowerMode& mode, const std::vector<DomainAxis>& axes);

// Predicts every mode (for each batch) with `predict` and chooses. Energy per sample (energy_j / batch)
// is what the energy and EDP objectives and the Pareto front compare, so batches compare fairly.
// Throws ridge::Error when the device has no energy ceilings (for the energy and EDP objectives) or
// no mode meets the constraints.
using PredictFn = std::function<Prediction(const hw::Roofline& roofline, int64_t batch)>;
TuneResult tune(const hw::Device& device, const std::vector<int64_t>& batches, const PredictFn& predict,
                const TuneOptions& options);

// Savings of `mode` against the reference, in the units of the Jetson power-mode study: energy saved
// (% of the reference's energy per sample; positive = less) and latency change (%; positive = slower).
double energy_saved_percent(const ModeResult& mode, const ModeResult& reference);
double latency_change_percent(const ModeResult& mode, const ModeResult& reference);

// How to set the chosen mode on the device: the steps (nvpmodel, jetson_clocks, or sysfs clock writes, over the
// clock domains the search varied), their command lines, and what people should know about them. Only Jetson
// modules get commands; other devices get a note saying so.
struct ModeCommands {
  hw::ModeSteps steps;
  std::vector<std::string> commands, notes;
};
ModeCommands mode_commands(const hw::Device& device, const TuneResult& result, const ModeResult& best);

}  // namespace ridge::roofline
