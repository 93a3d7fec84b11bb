#pragma once
// Figure inputs from typed results: predictions and bench runs as their codecs decode them (from `--from FILE.json`,
// the results store, or computed in process), so a figure always plots the values the command computed. Profiler
// kernels are still read from the JSON of `ridge import`.
#include <string>
#include <vector>

#include "cost/cost.h"
#include "exec/measurement.h"
#include "report/figure/energy_roofline_figure.h"
#include "report/figure/roofline_figure.h"
#include "report/ncu_report.h"
#include "roofline/predict.h"

namespace ridge::report::figure {

// What kind of document a JSON output is: "predict" (one prediction or a sweep), "bench", "kernels", or "" when
// ridge draws nothing from it.
std::string document_kind(const Json& doc);

// One point per predicted node (flops, bytes, time_s). Nodes without work or not predicted are passed on with zeros
// so the figure names them in its notes.
std::vector<RooflinePoint> prediction_points(const roofline::Prediction& prediction, const std::string& series);

// The energy roofline's points of a prediction: each node's flops, bytes, energy_j, time_s and ceiling. A node
// without energy (none predicted, or no work) is passed on with zeros so the figure names it in its notes.
std::vector<EnergyPoint> energy_points(const roofline::Prediction& prediction);

// One point per node of a measured bench run (its nodes' mean_ms), with FLOPs and bytes from the cost of the same
// model and input, matched by node name. Names the cost lacks are appended to `unmatched`.
std::vector<RooflinePoint> measured_points(const exec::BenchResult& run, const cost::ModelCost& cost,
                                           const std::string& series, std::vector<std::string>& unmatched);

// The measured points of every inference run at `batch`, one series per run ("measured cpu eager fp32"); how many
// runs matched is returned in `runs`.
std::vector<RooflinePoint> bench_points(const std::vector<exec::BenchResult>& bench, const cost::ModelCost& cost,
                                        int64_t batch, int& runs, std::vector<std::string>& unmatched);

// The kernels of an Nsight Compute import, one point per memory level with bytes (the hierarchical roofline): a
// kernel launched several times is one point per launch, named by its launch ID; with several runs, the run's
// label leads the name. A kernel without bytes at any level is passed on alone, so the figure names it.
std::vector<RooflinePoint> kernel_points(const profile::NcuImport& import, const std::string& series);

// Profiler kernels (`kernels[]`: name, time_s, flops, bytes.{l1,l2,dram}, optional op) as one point per
// memory level with bytes, for the hierarchical roofline.
std::vector<RooflinePoint> kernel_points(const Json& doc, const std::string& series);

}  // namespace ridge::report::figure
