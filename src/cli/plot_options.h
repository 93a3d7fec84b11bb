#pragma once
// What every `ridge plot KIND` shares: the output file and its size, the title, the format of the
// summary printed, and writing the figure.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "report/figure/figure.h"

namespace ridge::cli {

struct PlotOutput {
  std::string path, title, format = "table";
  int width_px = 0;
};

void add_plot_output_options(CLI::App& app, PlotOutput& options);
// Writes the figure and prints what was written (file, kind, points, series, notes) in --format.
int finish_plot(const report::figure::Figure& figure, const PlotOutput& options, int series, const std::string& source);

// The figure kinds beyond roofline and render (cli/plot_kinds.cpp): each a subcommand of `plot`.
std::vector<std::pair<CLI::App*, std::function<int()>>> add_plot_kinds(CLI::App& plot);
// `plot energy-roofline` (cli/plot_energy_roofline.cpp).
std::pair<CLI::App*, std::function<int()>> add_energy_roofline_kind(CLI::App& plot);

}  // namespace ridge::cli
