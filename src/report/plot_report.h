#pragma once
// What `ridge plot` prints once a figure is written: the file, the kind, what it was drawn from, its points (the rows
// of its "points" data set) and series, and the figure's notes.
#include <string>

#include "report/document.h"
#include "report/figure/figure.h"

namespace ridge::report {

Document plot_document(const figure::Figure& figure, const std::string& path, int series, const std::string& source);

}  // namespace ridge::report
