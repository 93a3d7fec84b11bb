#pragma once
// `ridge bench` results as documents, and the CSV files layer-wise tooling reads: overall.csv (one
// row per run), layers.csv (one row per node of each run) and nodes.csv (`ridge calibrate --measured`).
#include <string>
#include <vector>

#include "exec/measurement.h"
#include "report/document.h"

namespace ridge::report {

// The summary of every run, per op type and the `top_nodes` slowest nodes for people; every node,
// the profile and the environment for JSON; `-f csv` prints the overall table.
// "batch 1, eager, fp32, input 1x3x224x224" (then memory format, convolution algorithm, training where not the
// default): how a run is named in titles and messages.
std::string bench_run_label(const exec::BenchResult& run);

Document bench_document(const std::vector<exec::BenchResult>& runs, int top_nodes);

// One run as the results store keeps it (its document alone).
Document bench_run_document(const exec::BenchResult& run, int top_nodes);

// The tables of the CSV files; every row carries what distinguishes its run (batch, input, mode,
// precision, memory format, threads, conv algorithm, training and optimizer, revision, time).
Table overall_table(const std::vector<exec::BenchResult>& runs);
Table layers_table(const std::vector<exec::BenchResult>& runs);
// The layers of one run from its overall row and its nodes table (a stored document's `nodes`).
Table layers_table(const Table& overall, const Table& nodes);
Table node_times_table(const std::vector<exec::BenchResult>& runs);

// Derived from overall tables (of this run or stored ones), in the layouts other tooling reads:
// metrics.csv (label, model, batch, precision, memory_format, images_per_s, measured_s, iterations)
// and benchmark_results.csv (model, mode, batch, latency_ms). `label` names the rows
// (a sweep cell); empty: each row is named by its run ("MODEL batch 8 eager fp32").
Table metrics_table(const Table& overall, const std::string& label);
Table benchmark_results_table(const Table& overall);

// Appends `runs` to DIR/overall.csv, layers.csv, nodes.csv, metrics.csv and benchmark_results.csv (created with their
// header; a file whose header differs is refused, never mixed). Throws ridge::Error naming the file.
void append_bench_csv(const std::string& directory, const std::vector<exec::BenchResult>& runs);

}  // namespace ridge::report
