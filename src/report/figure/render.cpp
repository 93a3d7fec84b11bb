#include "report/figure/render.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/build_tree.h"
#include "util/error.h"
#include "util/file.h"
#include "util/module.h"
#include "util/program.h"

namespace ridge::report::figure {
namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path.string());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void write_text(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
  }
  write_file(path.string(), text);
}

// A private scratch directory for the renderer's files, removed when done.
class ScratchDir {
 public:
  ScratchDir() {
    auto pattern = (fs::temp_directory_path() / "ridge-figure-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw Error("cannot create a temporary directory in " + fs::temp_directory_path().string());
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

std::string spec_path_for(const std::string& path) {
  auto p = fs::path(path);
  return (p.parent_path() / (p.stem().string() + ".vg.json")).string();
}

std::string program_failure(const std::string& what, const ProgramOutput& run) {
  if (!run.started) return what + " could not start: " + run.error;
  if (run.timed_out) return what + " timed out";
  auto text = run.output;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  // The renderer's own one-line message when it gave one, else the last line.
  if (auto at = text.find("vega-render: "); at != std::string::npos)
    text = text.substr(at + 13, text.find('\n', at) - at - 13);
  else if (auto nl = text.rfind('\n'); nl != std::string::npos)
    text = text.substr(nl + 1);
  return what + " failed (exit " + std::to_string(run.exit_code) + ")" + (text.empty() ? "" : ": " + text);
}

}  // namespace

FileType file_type(const std::string& path) {
  if (ends_with(path, ".html") || ends_with(path, ".htm")) return FileType::kHtml;
  if (ends_with(path, ".svg")) return FileType::kSvg;
  if (ends_with(path, ".png")) return FileType::kPng;
  if (ends_with(path, ".pdf")) return FileType::kPdf;
  if (ends_with(path, ".json")) return FileType::kSpec;
  throw Error("cannot tell the figure format of '" + path + "': name it .html, .svg, .png, .pdf or .vg.json");
}

std::optional<std::string> share_file(const std::string& name) {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("RIDGE_SHARE_DIR")) dirs.emplace_back(env);
  if (auto exe = executable_dir(); !exe.empty()) {
    dirs.push_back(exe / "../share/ridge");
    dirs.push_back(exe / "share/ridge");
  }
  dirs.emplace_back(build_tree::share_dir());
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (fs::is_regular_file(dir / name, ec)) return (dir / name).lexically_normal().string();
  }
  return std::nullopt;
}

std::string render_svg(const Json& spec) {
  auto node = find_on_path("node");
  if (!node) node = find_on_path("nodejs");
  if (!node) throw Error("SVG, PNG and PDF figures need Node.js and Vega: apt-get install nodejs node-vega");
  auto script = share_file("vega-render.js");
  if (!script) throw Error("vega-render.js is missing from ridge's share directory (reinstall ridge)");
  ScratchDir scratch;
  write_text(scratch / "spec.json", spec.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  auto run = run_program(*node, {*script, (scratch / "spec.json").string(), (scratch / "figure.svg").string()}, 120);
  if (!run.started || run.timed_out || run.exit_code != 0) throw Error(program_failure("Vega's SVG renderer", run));
  return read_text(scratch / "figure.svg");
}

void convert_svg(const std::string& svg, const std::string& out_path, FileType type, int width_px) {
  auto rsvg = find_on_path("rsvg-convert");
  if (!rsvg) throw Error("PNG and PDF figures need rsvg-convert: apt-get install librsvg2-bin");
  ScratchDir scratch;
  write_text(scratch / "figure.svg", svg);
  std::vector<std::string> args{"-f", type == FileType::kPng ? "png" : "pdf"};
  if (type == FileType::kPng) {
    args.insert(args.end(), {"-b", "white"});
    if (width_px > 0)
      args.insert(args.end(), {"-w", std::to_string(width_px), "-a"});
    else
      args.insert(args.end(), {"-z", "2"});
  }
  auto out = scratch / "figure.out";
  args.insert(args.end(), {"-o", out.string(), (scratch / "figure.svg").string()});
  auto run = run_program(*rsvg, args, 120);
  if (!run.started || run.timed_out || run.exit_code != 0) throw Error(program_failure("rsvg-convert", run));
  write_text(out_path, read_text(out));
}

std::string vega_script() {
  auto bundle = share_file("vega.js");
  if (!bundle)
    throw Error(
        "HTML figures need ridge's Vega bundle (share/ridge/vega.js), built when esbuild and node-vega are present: "
        "apt-get install esbuild node-vega, then rebuild");
  return read_text(*bundle);
}

std::string escape_html(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {
// JSON inside <script>: "</" would end the element early; "<\/" is the same JSON string.
std::string script_safe_json(const Json& json) {
  auto text = json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += '\\';
  }
  return out;
}
}  // namespace

std::string figure_html(const Figure& figure, const std::string& id) {
  std::string html = "<figure class=\"ridge-figure\" data-kind=\"" + escape_html(figure.kind) +
                     "\">\n<div class=\"vega\" id=\"" + id +
                     "\"></div>\n<script type=\"application/json\" class=\"ridge-spec\" data-target=\"" + id + "\">" +
                     script_safe_json(figure.spec) + "</script>\n";
  if (!figure.notes.empty()) {
    html += "<figcaption>";
    for (const auto& note : figure.notes) html += "<div class=\"note\">" + escape_html(note) + "</div>";
    html += "</figcaption>\n";
  }
  return html + "</figure>\n";
}

std::string page_script() {
  // Renders each figure as SVG (crisp when printed, countable in tests); Vega's own tooltip handler
  // shows the hovered point's fields. Errors are listed on the page and counted on <body>.
  return R"JS(<script>
(function () {
  var body = document.body, errors = [];
  function fail(message) {
    errors.push(String(message));
    body.setAttribute('data-errors', String(errors.length));
    var box = document.getElementById('ridge-errors');
    if (box) { box.hidden = false; box.textContent = errors.join('\n'); }
  }
  window.addEventListener('error', function (e) { fail(e.message); });
  var consoleError = console.error;  // Vega reports bad specs and data there
  console.error = function () { fail(Array.prototype.join.call(arguments, ' ')); consoleError.apply(console, arguments); };
  var specs = document.querySelectorAll('script.ridge-spec');
  body.setAttribute('data-figures', String(specs.length));
  body.setAttribute('data-errors', '0');
  var rendered = 0, jobs = [];
  specs.forEach(function (element) {
    try {
      var spec = JSON.parse(element.textContent);
      var view = new vega.View(vega.parse(spec), {renderer: 'svg', container: '#' + element.dataset.target, hover: true});
      jobs.push(view.runAsync().then(function () { rendered += 1; body.setAttribute('data-rendered', String(rendered)); },
                                     function (e) { fail(element.dataset.target + ': ' + e); }));
    } catch (e) { fail(element.dataset.target + ': ' + e); }
  });
  Promise.all(jobs).then(function () { body.setAttribute('data-done', 'true'); });
})();
</script>
)JS";
}

std::string page_style() {
  return R"CSS(<style>
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ddd; }
figure.ridge-figure { margin: 1.5em 0; } figcaption .note, .warning { color: #8a5300; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 3px 8px; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f4f4f4; cursor: pointer; user-select: none; } th.sorted-asc::after { content: " \25B2"; } th.sorted-desc::after { content: " \25BC"; }
#ridge-errors { color: #b00; white-space: pre-wrap; border: 1px solid #b00; padding: 0.5em; }
code, pre { background: #f6f6f6; padding: 1px 4px; }
</style>
)CSS";
}

void write_figure(const Figure& figure, const std::string& path, const RenderOptions& options) {
  auto type = file_type(path);
  if (type == FileType::kSpec)
    return write_text(path, figure.spec.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  if (type == FileType::kHtml) {
    std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                       escape_html(figure.title) + "</title>\n" + page_style() + "<script>" + vega_script() +
                       "</script>\n</head>\n<body>\n<div id=\"ridge-errors\" hidden></div>\n" +
                       figure_html(figure, "figure-1") + page_script() + "</body>\n</html>\n";
    return write_text(path, page);
  }
  std::string svg;
  try {
    svg = render_svg(figure.spec);
    if (type == FileType::kSvg) return write_text(path, svg);
    convert_svg(svg, path, type, options.width_px);
  } catch (const Error& e) {
    auto spec_path = spec_path_for(path);
    write_text(spec_path, figure.spec.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    throw Error(std::string(e.what()) + "; the Vega specification is in " + spec_path +
                " (render it later with `ridge plot render " + spec_path + " -o " + path + "`)");
  }
}

}  // namespace ridge::report::figure
