#pragma once
// A page as a person sees it: opened from disk by a real headless Chromium (Debian's chromium), and
// image checks for the PNGs ridge and Chromium write.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace ridge::test {

// Chromium's path, or nullopt when it is not installed (tests then skip, saying so).
std::optional<std::string> chromium();

struct RenderedPage {
  bool ok = false;   // Chromium ran and the page has a <body>
  std::string dom;   // the DOM after the page's scripts ran (Vega's SVG included)
  std::string body;  // the <body ...> tag: data-figures, data-rendered, data-errors, set by ridge's page script
  std::string log;   // Chromium's own output, for failure messages
};
// Loads `html_path` and returns the DOM once scripts have run (virtual time lets Vega finish).
RenderedPage render_page(const std::string& html_path, const std::string& scratch_dir);
// A screenshot of the page at `width` x `height`; true when Chromium wrote it.
bool screenshot(const std::string& html_path, const std::string& png_path, int width, int height,
                const std::string& scratch_dir);

// Width and height from a PNG's header (after checking its signature); {0, 0} when it is no PNG.
std::pair<uint32_t, uint32_t> png_size(const std::string& png_path);
// How many distinct colours an image has, counted by Pillow (Debian's python3-pil); a blank image has
// one or two.
int distinct_colours(const std::string& png_path);

// How many times `needle` occurs in `text`.
size_t count_of(const std::string& text, const std::string& needle);

}  // namespace ridge::test
