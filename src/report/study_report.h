#pragma once
// `ridge report`: one study put together from a model's analysis, its predictions on devices (every
// power mode a series of that device's roofline) and the stored results a filter selected. The same
// content is written as one self-contained HTML page (Vega inlined, sortable tables) or as a Markdown
// write-up with PNG figures beside it, laid out as a roofline study with places for the author's words.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_codec.h"
#include "hw/roofline.h"
#include "report/document.h"
#include "report/figure/figure.h"
#include "roofline/predict.h"
#include "store/record.h"

namespace ridge::report {

// One device of the study: its rooflines (one per power mode) and, with a model, the model's
// predictions, one per roofline in the same order.
struct StudyDevice {
  std::string id, name;
  std::vector<hw::Roofline> rooflines;
  std::vector<roofline::Prediction> predictions;
};

struct Study {
  std::string model;                           // the MODEL analysed; empty without one
  int64_t batch = 0;                           // the batch the analysis and predictions bound (0: none)
  std::optional<analysis::Analysis> analysis;  // the model's analysis, with its nodes
  std::vector<StudyDevice> devices;
  std::vector<store::Record> records;  // the stored results selected (with their documents)
  std::string store_path;              // where they came from; empty: no store was read
  store::Environment host;             // this machine, now (store::collect_environment)
  int logical_cpus = 0;                // this machine's
  std::string title;                   // empty: from the model
};

// Every figure of the study, in the report's order: one roofline per device (its modes as series,
// the model's predicted layers as points), then figure::result_figures of the stored documents and
// the predictions made here (their Figure::kind says which section shows them).
std::vector<figure::Figure> study_figures(const Study& study);

// What a reader must know before trusting a number: random weights, uncalibrated predictions,
// estimated figures, ops without a cost rule, failed results, and every note of every document.
std::vector<std::string> study_warnings(const Study& study, const std::vector<figure::Figure>& figures);

// The tables the report shows, built from the documents (rendered by the generic printers).
Table environment_table(const Study& study);
Table run_matrix_table(const Study& study);
Table predictions_table(const Study& study);
Table measurements_table(const Study& study);
Table predicted_vs_measured_table(const Study& study);

// The whole page: self-contained (Vega inlined; works offline). Throws ridge::Error when Vega's
// browser bundle is missing.
std::string study_html(const Study& study);

struct MarkdownOutput {
  std::string path;                   // DIR/report.md
  std::vector<std::string> figures;   // the PNGs written
  std::vector<std::string> failures;  // one line per figure that could not be rendered (its spec was kept)
};
// Called before each figure is rendered: its number (from 1), the count and its title.
using FigureProgress = std::function<void(size_t, size_t, const std::string&)>;

// DIR/report.md and DIR/fig-N.png. A figure that cannot be rendered keeps its Vega spec beside
// (DIR/fig-N.vg.json) and is listed in `failures`; the rest of the report is still written.
MarkdownOutput write_study_markdown(const Study& study, const std::string& directory,
                                    const FigureProgress& progress = {});

}  // namespace ridge::report
