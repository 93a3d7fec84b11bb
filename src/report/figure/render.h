#pragma once
// Writing figures to files. The file name's extension picks the format:
//   .html      a self-contained interactive page (Vega inlined; works offline; tooltips on hover)
//   .svg       Vega's own headless renderer (Node with Debian's node-vega)
//   .png .pdf  that SVG converted by rsvg-convert (librsvg2-bin)
//   .json      the Vega specification itself (.vg.json by convention)
// Where a renderer is missing, the specification is still written next to the requested file and the
// error says what to install and how to render it later.
#include <optional>
#include <string>
#include <vector>

#include "report/figure/figure.h"

namespace ridge::report::figure {

enum class FileType { kHtml, kSvg, kPng, kPdf, kSpec };

// By extension; throws ridge::Error naming the ones supported.
FileType file_type(const std::string& path);

struct RenderOptions {
  int width_px = 0;  // PNG: the image's width in pixels (height keeps the aspect); 0: twice the SVG's
};

// Writes `figure` to `path`; throws ridge::Error with one line when it cannot.
void write_figure(const Figure& figure, const std::string& path, const RenderOptions& options = {});

// The SVG of a spec; throws ridge::Error (what is missing and how to install it) when it cannot.
std::string render_svg(const Json& spec);
// PNG or PDF bytes converted from an SVG by rsvg-convert.
void convert_svg(const std::string& svg, const std::string& out_path, FileType type, int width_px);

// The files the renderers need, found beside the executable (installed: ../share/ridge; build tree:
// share/ridge) or at RIDGE_SHARE_DIR; nullopt when absent.
std::optional<std::string> share_file(const std::string& name);

// Pieces of the HTML pages (the report uses them too).
// The Vega browser script, inlined; throws ridge::Error when it was not built.
std::string vega_script();
// A figure's container and its spec for the page's script; `id` must be unique in the page.
std::string figure_html(const Figure& figure, const std::string& id);
// The script that renders every figure of a page and records the result on <body> (data-figures,
// data-rendered, data-errors) so a headless browser can check it.
std::string page_script();
// The page's style sheet.
std::string page_style();
// Text for HTML: & < > " escaped.
std::string escape_html(const std::string& text);

}  // namespace ridge::report::figure
