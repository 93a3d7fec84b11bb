#pragma once
// `ridge plot sweep|breakdown|accuracy|algorithms|modes` as one call: the results read from `--from` files and the
// store, the runs the filter selects kept, the figure built from them, and the summary's series and source.
#include <functional>
#include <string>
#include <vector>

#include "report/figure/figure.h"
#include "report/figure/result_sources.h"
#include "store/store.h"

namespace ridge::report::figure {

struct ResultPlotRequest {
  std::vector<std::string> from;  // `ridge bench|predict -f json` outputs
  bool read_store = false;        // also the stored results (the CLI: without --from, or with --store)
  std::string store_path;
  store::Filter filter;  // selects stored results; its model, batch, mode, precision and device also the files' runs
  std::string series_field;  // the field of the "points" data set that tells series apart
};

struct ResultPlot {
  Figure figure;       // with the notes of what was read but cannot be drawn
  int series = 0;      // distinct values of the series field
  std::string source;  // "a.json, ridge-results.db (3 results)"
};

using BuildFigureFn = std::function<Figure(const ResultSet&)>;

// Throws ridge::Error (one line): a file that cannot be read or drawn from, a store that cannot be opened, no stored
// result matching when no file is given, and what the builder throws.
ResultPlot result_plot(const ResultPlotRequest& request, const BuildFigureFn& build);

}  // namespace ridge::report::figure
