#pragma once
// The accuracy figure: each layer's predicted time against its measured time (log-log), with the
// y = x line and the +-10% band; the title states the fraction of layers within 10%.
#include <string>

#include "report/figure/result_sources.h"

namespace ridge::report::figure {

struct AccuracyOptions {
  double tolerance = 0.10;  // the band: |predicted - measured| <= tolerance x measured
  std::string title;
};

// Uses the first prediction with layers and the inference bench run at its batch (else the first),
// matched by node name. Data sets: "points" (one per layer with both times: measured_s, predicted_s,
// error = predicted / measured - 1, within), "diagonal" (the y = x line and the band's edges).
// Throws ridge::Error naming what is missing when there is no such pair, or no layer in common.
Figure accuracy_figure(const ResultSet& results, const AccuracyOptions& options = {});

}  // namespace ridge::report::figure
