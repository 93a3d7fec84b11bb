#include "report/figure/result_plot.h"

#include "util/error.h"

namespace ridge::report::figure {
namespace {

void add_source(std::string& sources, const std::string& source) { sources += (sources.empty() ? "" : ", ") + source; }

}  // namespace

ResultPlot result_plot(const ResultPlotRequest& r, const BuildFigureFn& build) {
  ResultPlot out;
  ResultSet results;
  for (const auto& path : r.from) {
    add_document(results, read_json_file(path), "'" + path + "'");
    add_source(out.source, path);
  }
  if (r.read_store) {
    store::Store store(r.store_path, true);
    auto records = store.query(r.filter);
    if (records.empty() && r.from.empty())
      throw Error("no stored result matches in " + r.store_path + ": give --from FILE.json or other filters");
    add_records(results, records);
    add_source(out.source, r.store_path + " (" + std::to_string(records.size()) + " results)");
  }
  keep_selected(results, r.filter);
  out.figure = build(results);
  for (const auto& note : results.notes) out.figure.notes.push_back(note);
  out.series = series_count(out.figure, r.series_field);
  return out;
}

}  // namespace ridge::report::figure
