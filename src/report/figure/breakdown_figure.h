#pragma once
// The breakdown figure: where a model's time goes, per layer (or per op type), measured and
// predicted side by side as grouped horizontal bars.
#include <string>

#include "report/figure/result_sources.h"

namespace ridge::report::figure {

struct BreakdownOptions {
  int top = 15;              // the slowest layers (or op types) drawn; the rest is one "other" bar
  std::string by = "layer";  // layer or op
  std::string title;
};

// Uses the first inference bench run with per-node times and the first prediction with layers (the
// run at the prediction's batch when there is one). Rows are ranked by measured time (predicted when
// there is no measurement); the top N are drawn and the rest summed into one bar "other (K layers)".
// Data set "points": one row per bar (label, op, source measured/predicted, time_s, share of its
// source's total, rank). Throws ridge::Error when neither input has per-layer times.
Figure breakdown_figure(const ResultSet& results, const BreakdownOptions& options = {});

}  // namespace ridge::report::figure
