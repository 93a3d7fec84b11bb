#pragma once
// Writers for `ridge bench` results: a table for people, JSON, and the CSV files existing
// layer-wise tooling reads (overall.csv, layers.csv) plus the per-node CSV `ridge calibrate` reads.
#include <ostream>
#include <string>
#include <vector>

#include "exec/measurement.h"

namespace ridge::report {

void write_bench_table(std::ostream& out, const std::vector<exec::BenchResult>& runs, int top_nodes);
void write_bench_json(std::ostream& out, const std::vector<exec::BenchResult>& runs);
// overall.csv: one row per run; power and energy columns stay empty until power is measured.
void write_overall_csv(std::ostream& out, const std::vector<exec::BenchResult>& runs);
// layers.csv: one row per node of each run (with the run's columns first when there are several).
void write_layers_csv(std::ostream& out, const std::vector<exec::BenchResult>& runs);
// nodes.csv: node,op,mean_ms,seconds for `ridge calibrate --measured` (first run).
void write_node_times_csv(std::ostream& out, const exec::BenchResult& run);
// Writes overall.csv, layers.csv and nodes.csv into `directory` (created).
void write_bench_csv_dir(const std::string& directory, const std::vector<exec::BenchResult>& runs);

}  // namespace ridge::report
