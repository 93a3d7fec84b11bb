// The `ridge plot` kinds drawn from measured and stored results (sweeps, breakdowns, accuracy,
// algorithms, execution modes).
#include "cli/plot_options.h"

namespace ridge::cli {

std::vector<std::pair<CLI::App*, std::function<int()>>> add_plot_kinds(CLI::App&) { return {}; }

}  // namespace ridge::cli
