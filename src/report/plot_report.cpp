#include "report/plot_report.h"

#include "report/figure/render.h"

namespace ridge::report {

Document plot_document(const figure::Figure& figure, const std::string& path, int series, const std::string& source) {
  Document doc;
  doc.command = "plot";
  doc.subject = figure.title;
  doc.field("output", "wrote", path, path);
  doc.field("kind", "figure", figure.kind, figure.kind);
  doc.field("source", "from", source, source);
  int points = 0;
  for (const auto& data : figure.spec.at("data"))
    if (data.value("name", "") == "points") points = static_cast<int>(data.at("values").size());
  doc.field("points", "points", std::to_string(points), points);
  doc.field("series", "series", std::to_string(series), series);
  doc.notes = figure.notes;
  return doc;
}

void write_plot(const figure::Figure& figure, const std::string& path, int width_px, const std::string& format,
                int series, const std::string& source, std::ostream& out) {
  figure::write_figure(figure, path, {.width_px = width_px});
  emit(plot_document(figure, path, series, source), format, out);
}

}  // namespace ridge::report
