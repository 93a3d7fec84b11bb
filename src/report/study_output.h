#pragma once
// Writing the study `ridge report` gathered: the HTML page or the Markdown write-up with its figures (one of the two),
// a progress line per figure rendered, and the lines that say what was written and which figures failed.
#include <functional>
#include <string>
#include <vector>

#include "report/study_report.h"

namespace ridge::report {

struct StudyOutput {
  std::string html;            // the HTML page
  std::string markdown_dir;    // DIR/report.md and DIR/fig-N.png instead
  bool figure_titles = false;  // progress lines name each figure (someone watches a terminal)
};

// Refuses none or both outputs, before anything is gathered.
void check_study_output(const StudyOutput& output);

struct StudyWritten {
  std::string summary;              // "wrote report.html (3 stored results, 2 device(s), analysis of MODEL)"
  std::vector<std::string> errors;  // each figure not rendered, then how many; empty: everything was written
};

// Throws ridge::Error (one line) when the page cannot be written. `progress` hears a line before each figure of the
// Markdown write-up is rendered ("figure 2/5", or "rendering figure 2/5: TITLE").
StudyWritten write_study(const Study& study, const StudyOutput& output,
                         const std::function<void(const std::string&)>& progress);

}  // namespace ridge::report
