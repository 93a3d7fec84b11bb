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
Document bench_document(const std::vector<exec::BenchResult>& runs, int top_nodes);

// The tables of the CSV files; every row carries what distinguishes its run (batch, input, mode,
// precision, memory format, threads, conv algorithm, training and optimizer, revision, time).
Table overall_table(const std::vector<exec::BenchResult>& runs);
Table layers_table(const std::vector<exec::BenchResult>& runs);
Table node_times_table(const std::vector<exec::BenchResult>& runs);

// Appends `runs` to DIR/overall.csv, layers.csv and nodes.csv (created with their header; a file
// whose header differs is refused, never mixed). Throws ridge::Error naming the file.
void append_bench_csv(const std::string& directory, const std::vector<exec::BenchResult>& runs);

}  // namespace ridge::report
