#include "support/browser.h"

#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "util/program.h"

namespace ridge::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string chromium_command(const std::string& scratch_dir) {
  std::string command = shell_quote(*chromium());
  for (const char* arg : {"--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000"})
    command += std::string(" ") + arg;
  // A fresh profile per run: a Chromium still closing would otherwise own the profile and take the next
  // run's request over, exiting 0 without doing it.
  static int runs = 0;
  return command + " " + shell_quote("--user-data-dir=" + scratch_dir + "/chromium-profile-" + std::to_string(++runs));
}

}  // namespace

std::optional<std::string> chromium() { return find_on_path("chromium"); }

RenderedPage render_page(const std::string& html_path, const std::string& scratch_dir) {
  RenderedPage page;
  // The DOM goes to a file: with Vega inlined it is larger than run_program keeps.
  auto dom_path = scratch_dir + "/dom.html";
  auto command = chromium_command(scratch_dir) + " --dump-dom " + shell_quote("file://" + html_path) + " > " +
                 shell_quote(dom_path);
  auto run = run_program("/bin/sh", {"-c", command}, 120);
  page.log = run.output.substr(0, 4000);
  if (run.exit_code != 0) return page;
  page.dom = slurp(dom_path);
  std::smatch body;
  if (!std::regex_search(page.dom, body, std::regex("<body[^>]*>"))) return page;
  page.body = body.str();
  page.ok = true;
  return page;
}

bool screenshot(const std::string& html_path, const std::string& png_path, int width, int height,
                const std::string& scratch_dir) {
  auto command = chromium_command(scratch_dir) + " --window-size=" + std::to_string(width) + "," +
                 std::to_string(height) + " " + shell_quote("--screenshot=" + png_path) + " " +
                 shell_quote("file://" + html_path);
  return run_program("/bin/sh", {"-c", command}, 120).exit_code == 0;
}

std::pair<uint32_t, uint32_t> png_size(const std::string& png_path) {
  auto bytes = slurp(png_path);
  if (bytes.size() < 24 || bytes.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) != 0) return {0, 0};
  auto be32 = [&](size_t at) {
    return (uint32_t(uint8_t(bytes[at])) << 24) | (uint32_t(uint8_t(bytes[at + 1])) << 16) |
           (uint32_t(uint8_t(bytes[at + 2])) << 8) | uint32_t(uint8_t(bytes[at + 3]));
  };
  return {be32(16), be32(20)};  // IHDR, the first chunk
}

int distinct_colours(const std::string& png_path) {
  auto run = run_program("/usr/bin/python3",
                         {"-c",
                          "import sys; from PIL import Image; im = Image.open(sys.argv[1]).convert('RGB'); "
                          "print(len(im.getcolors(1 << 24)))",
                          png_path},
                         60);
  return run.exit_code == 0 ? std::atoi(run.output.c_str()) : -1;
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

}  // namespace ridge::test
