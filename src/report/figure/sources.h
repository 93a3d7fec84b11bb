#pragma once
// Figure inputs read from documents in their JSON form: what `ridge predict|bench|analyze -f json`
// print, what the results store keeps (report/document_codec), and what a command builds in process
// (report::to_json). One reading serves `--from FILE.json`, stored results and live runs, so a figure
// always plots the numbers the command printed.
#include <string>
#include <vector>

#include "report/figure/energy_roofline_figure.h"
#include "report/figure/roofline_figure.h"

namespace ridge::report::figure {

// What kind of document a JSON output is: "predict", "predict-sweep", "bench", "analyze", "kernels",
// or "" when ridge does not recognise it.
std::string document_kind(const Json& doc);

// One point per predicted node of a `ridge predict -f json` document (nodes[].flops, bytes, time_s).
// Nodes without work or not predicted are passed on with zeros so the figure names them in its notes.
std::vector<RooflinePoint> prediction_points(const Json& doc, const std::string& series);

// The energy roofline's points of a `ridge predict -f json` document: nodes[].flops, bytes, energy_j,
// time_s and ceiling. A node without energy (none predicted, or no work) is passed on with zeros so
// the figure names it in its notes.
std::vector<EnergyPoint> energy_points(const Json& doc);

// One point per node of a measured bench run (`ridge bench -f json`: runs[i].nodes[].mean_ms), with
// FLOPs and bytes from an analysis of the same model and input (`ridge analyze -f json` nodes), matched
// by node name. Names the analysis lacks are appended to `unmatched`.
std::vector<RooflinePoint> measured_points(const Json& run, const Json& analysis, const std::string& series,
                                           std::vector<std::string>& unmatched);

// The measured points of every inference run at `batch` in a bench document, one series per run
// ("measured cpu eager fp32"); how many runs matched is returned in `runs`.
std::vector<RooflinePoint> bench_points(const Json& bench, const Json& analysis, int64_t batch, int& runs,
                                        std::vector<std::string>& unmatched);

// Profiler kernels (`kernels[]`: name, time_s, flops, bytes.{l1,l2,dram}, optional op) as one point per
// memory level with bytes, for the hierarchical roofline.
std::vector<RooflinePoint> kernel_points(const Json& doc, const std::string& series);

}  // namespace ridge::report::figure
