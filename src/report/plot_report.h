#pragma once
// What `ridge plot` prints once a figure is written: the file, the kind, what it was drawn from, its points (the rows
// of its "points" data set) and series, and the figure's notes.
#include <iostream>
#include <string>

#include "report/command_output.h"
#include "report/document.h"
#include "report/figure/figure.h"

namespace ridge::report {

Document plot_document(const figure::Figure& figure, const std::string& path, int series, const std::string& source);

// `ridge plot`'s output: `figure` written to `path` (by its extension; `width_px`: a PNG's width, 0: twice the
// figure's), then its plot_document printed on `out` in `format`. Throws ridge::Error (one line) when it cannot write.
void write_plot(const figure::Figure& figure, const std::string& path, int width_px, const std::string& format,
                int series, const std::string& source, std::ostream& out = std::cout);

}  // namespace ridge::report
