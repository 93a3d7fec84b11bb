#include "report/study_output.h"

#include <fmt/format.h>

#include <fstream>

#include "util/error.h"

namespace ridge::report {

void check_study_output(const StudyOutput& output) {
  if (output.html.empty() == output.markdown_dir.empty())
    throw Error("give one output: -o report.html, or --markdown DIR");
}

StudyWritten write_study(const Study& study, const StudyOutput& output,
                         const std::function<void(const std::string&)>& progress) {
  check_study_output(output);
  if (!output.html.empty()) {
    auto html = study_html(study);
    std::ofstream out(output.html, std::ios::binary | std::ios::trunc);
    out << html;
    out.close();
    if (!out) throw Error("cannot write " + output.html);
    return {fmt::format("wrote {} ({} stored results, {} device(s){})", output.html, study.records.size(),
                        study.devices.size(), study.analysis ? ", analysis of " + study.model : "")};
  }
  auto written = write_study_markdown(study, output.markdown_dir, [&](size_t i, size_t n, const std::string& title) {
    if (progress)
      progress(output.figure_titles ? fmt::format("rendering figure {}/{}: {}", i, n, title)
                                    : fmt::format("figure {}/{}", i, n));
  });
  StudyWritten out{
      fmt::format("wrote {} and {} figure(s) in {}", written.path, written.figures.size(), output.markdown_dir),
      written.failures};
  if (!written.failures.empty())
    out.errors.push_back(fmt::format("{} figure(s) not rendered (their Vega specifications are beside the report)",
                                     written.failures.size()));
  return out;
}

}  // namespace ridge::report
