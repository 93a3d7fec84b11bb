#include "report/torch_import_codec.h"

#include <fmt/format.h>

#include "report/printer.h"
#include "util/error.h"
#include "util/json_reader.h"

namespace ridge::report {
namespace {

using ordered = nlohmann::ordered_json;
using json = nlohmann::json;
using From = profile::TorchPasses::From;
using Verdict = profile::ModelFit::Verdict;

ordered optional(const std::optional<double>& v) { return v ? ordered(*v) : ordered(); }
std::optional<double> read_optional(const JsonReader& r, const char* key) {
  return r.has(key) ? std::optional<double>(r.number(key)) : std::nullopt;
}

// Each element of the list at `key` through `read`, its reader naming its index.
template <class Read>
auto each(const JsonReader& r, const char* key, Read read) {
  std::vector<decltype(read(r))> out;
  const auto& list = r.list(key);
  for (size_t i = 0; i < list.size(); ++i)
    out.push_back(read(JsonReader(list[i], fmt::format("{}.{}[{}]", r.where(), key, i))));
  return out;
}

From parse_from(const std::string& text, const std::string& where) {
  for (auto from : {From::kNone, From::kSteps, From::kOpSequence, From::kModel})
    if (text == profile::passes_from_name(from)) return from;
  throw Error(fmt::format("{} '{}' is none of steps, op_sequence, model, none", where, text));
}

Verdict parse_verdict(const std::string& text, const std::string& where) {
  try {
    return profile::parse_verdict(text);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", where, e.what()));
  }
}

ordered encode_step(const profile::TorchStep& s) {
  return {{"name", s.name}, {"number", s.number}, {"start_s", s.start_s}, {"duration_s", s.duration_s}};
}
profile::TorchStep decode_step(const JsonReader& r) {
  return {r.text("name", ""), r.count("number", 0), r.number("start_s", 0.0), r.number("duration_s", 0.0)};
}

ordered encode_summary(const profile::TorchSummary& s) {
  ordered out{{"passes", s.passes},
              {"passes_from", profile::passes_from_name(s.passes_from)},
              {"has_gpu", s.has_gpu},
              {"cpu_s", s.cpu_s},
              {"kernel_s", s.kernel_s},
              {"cpu_per_pass_s", s.cpu_per_pass_s},
              {"kernel_per_pass_s", optional(s.kernel_per_pass_s)},
              {"outside_passes", s.outside_passes}};
  out["ops"] = ordered::array();
  for (const auto& o : s.ops)
    out["ops"].push_back({{"name", o.name},
                          {"kind", o.kind},
                          {"layer", o.layer},
                          {"calls", o.calls},
                          {"self_s", o.self_s},
                          {"total_s", o.total_s},
                          {"cuda_s", optional(o.cuda_s)}});
  out["kernels"] = ordered::array();
  for (const auto& k : s.kernels)
    out["kernels"].push_back({{"name", k.name},
                              {"category", k.category},
                              {"device", k.device},
                              {"op", k.op},
                              {"layer", k.layer},
                              {"calls", k.calls},
                              {"total_s", k.total_s}});
  out["layers"] = ordered::array();
  for (const auto& l : s.layers)
    out["layers"].push_back(
        {{"layer", l.layer}, {"ops", l.ops}, {"kernels", l.kernels}, {"cpu_s", l.cpu_s}, {"gpu_s", optional(l.gpu_s)}});
  out["windows"] = ordered::array();
  for (const auto& w : s.windows)
    out["windows"].push_back({{"name", w.name},
                              {"number", w.number},
                              {"duration_s", w.duration_s},
                              {"cpu_op_s", w.cpu_op_s},
                              {"kernel_s", optional(w.kernel_s)}});
  out["unmapped"] = ordered::array();
  for (const auto& u : s.unmapped)
    out["unmapped"].push_back({{"what", u.what}, {"name", u.name}, {"calls", u.calls}, {"time_s", u.time_s}});
  return out;
}

profile::TorchSummary decode_summary(const JsonReader& r) {
  profile::TorchSummary s;
  s.passes = r.count("passes", 1);
  s.passes_from = parse_from(r.text("passes_from", "none"), r.where() + ".passes_from");
  s.has_gpu = r.flag("has_gpu", false);
  s.cpu_s = r.number("cpu_s", 0.0);
  s.kernel_s = r.number("kernel_s", 0.0);
  s.cpu_per_pass_s = r.number("cpu_per_pass_s", 0.0);
  s.kernel_per_pass_s = read_optional(r, "kernel_per_pass_s");
  s.outside_passes = r.count("outside_passes", 0);
  s.ops = each(r, "ops", [](const JsonReader& o) {
    return profile::TorchSummary::Op{o.text("name", ""),        o.text("kind", ""),      o.text("layer", ""),
                                     o.count("calls", 0),       o.number("self_s", 0.0), o.number("total_s", 0.0),
                                     read_optional(o, "cuda_s")};
  });
  s.kernels = each(r, "kernels", [](const JsonReader& k) {
    return profile::TorchSummary::Kernel{k.text("name", ""),      k.text("category", ""), k.text("device", ""),
                                         k.text("op", ""),        k.text("layer", ""),    k.count("calls", 0),
                                         k.number("total_s", 0.0)};
  });
  s.layers = each(r, "layers", [](const JsonReader& l) {
    return profile::TorchSummary::Layer{l.text("layer", ""), l.count("ops", 0), l.count("kernels", 0),
                                        l.number("cpu_s", 0.0), read_optional(l, "gpu_s")};
  });
  s.windows = each(r, "windows", [](const JsonReader& w) {
    return profile::TorchSummary::Step{w.text("name", ""), w.count("number", 0), w.number("duration_s", 0.0),
                                       w.number("cpu_op_s", 0.0), read_optional(w, "kernel_s")};
  });
  s.unmapped = each(r, "unmapped", [](const JsonReader& u) {
    return profile::TorchSummary::Unmapped{u.text("what", ""), u.text("name", ""), u.count("calls", 0),
                                           u.number("time_s", 0.0)};
  });
  return s;
}

ordered encode_trace(const profile::TorchImport& i) {
  const auto& t = i.trace;
  ordered steps = ordered::array(), windows = ordered::array();
  for (const auto& s : t.steps) steps.push_back(encode_step(s));
  for (const auto& w : t.passes.windows) windows.push_back(encode_step(w));
  const auto& m = i.mapping;
  ordered mapping{{"by_annotation", m.by_annotation},   {"by_node_name", m.by_node_name},
                  {"by_module_path", m.by_module_path}, {"by_op_order", m.by_op_order},
                  {"ambiguous", m.ambiguous},           {"fit", nullptr}};
  if (m.fit) {
    ordered families = ordered::array();
    for (const auto& f : m.fit->families)
      families.push_back({{"family", f.family}, {"ops", f.ops}, {"nodes", f.nodes}, {"nodes_max", f.nodes_max}});
    mapping["fit"] = {{"verdict", profile::verdict_name(m.fit->verdict)},
                      {"passes", m.fit->passes},
                      {"reason", m.fit->reason},
                      {"families", families}};
  }
  return {{"source", t.source},
          {"layout", t.layout},
          {"steps", steps},
          {"passes",
           {{"count", t.passes.count},
            {"from", profile::passes_from_name(t.passes.from)},
            {"sequence_repeats", t.passes.sequence_repeats},
            {"windows", windows}}},
          {"skipped_events", t.skipped_events},
          {"ops_read", i.ops_read},
          {"kernels_read", i.kernels_read},
          {"unlinked_kernels", i.unlinked_kernels},
          {"mapping", mapping},
          {"summary", encode_summary(i.summary)}};
}

profile::TorchImport decode_trace(const JsonReader& r) {
  profile::TorchImport i;
  auto& t = i.trace;
  t.source = r.text("source", "");
  t.layout = r.text("layout", "");
  t.steps = each(r, "steps", decode_step);
  if (r.has("passes")) {
    auto p = r.child("passes");
    t.passes.count = p.count("count", 1);
    t.passes.from = parse_from(p.text("from", "none"), p.where() + ".from");
    t.passes.sequence_repeats = p.count("sequence_repeats", 1);
    t.passes.windows = each(p, "windows", decode_step);
  }
  t.skipped_events = r.count("skipped_events", 0);
  i.ops_read = r.count("ops_read", 0);
  i.kernels_read = r.count("kernels_read", 0);
  i.unlinked_kernels = r.count("unlinked_kernels", 0);
  if (r.has("mapping")) {
    auto m = r.child("mapping");
    i.mapping.by_annotation = static_cast<int>(m.count("by_annotation", 0));
    i.mapping.by_node_name = static_cast<int>(m.count("by_node_name", 0));
    i.mapping.by_module_path = static_cast<int>(m.count("by_module_path", 0));
    i.mapping.by_op_order = static_cast<int>(m.count("by_op_order", 0));
    for (const auto& a : m.list("ambiguous"))
      if (a.is_string()) i.mapping.ambiguous.push_back(a.get<std::string>());
    if (m.has("fit")) {
      auto f = m.child("fit");
      profile::ModelFit fit;
      fit.verdict = parse_verdict(f.text("verdict", "unknown"), f.where() + ".verdict");
      fit.passes = f.count("passes", 0);
      fit.reason = f.text("reason", "");
      fit.families = each(f, "families", [](const JsonReader& x) {
        return profile::FamilyFit{x.text("family", ""), x.count("ops", 0), x.count("nodes", 0),
                                  x.count("nodes_max", 0)};
      });
      i.mapping.fit = std::move(fit);
    }
  }
  i.summary = decode_summary(r.child("summary"));
  return i;
}

}  // namespace

ordered encode_torch_imports(const profile::TorchImports& imports) {
  auto out = to_json(torch_trace_document(imports.imports, imports.model_path));
  ordered traces = ordered::array();
  for (const auto& i : imports.imports) traces.push_back(encode_trace(i));
  out["import"] = {{"model", imports.model_path}, {"traces", traces}};
  return out;
}

bool is_torch_import(const json& doc) {
  return doc.is_object() && doc.contains("traces") && doc.contains("import") && doc["import"].is_object() &&
         doc["import"].contains("traces");
}

profile::TorchImports decode_torch_imports(const json& doc, const std::string& where) {
  JsonReader top(doc, where);
  if (!is_torch_import(doc))
    throw Error(fmt::format("{} is no `ridge import torch -f json` output (it has no traces with the import)", where));
  auto r = top.child("import");
  profile::TorchImports out;
  out.model_path = r.text("model", "");
  out.imports = each(r, "traces", decode_trace);
  return out;
}

}  // namespace ridge::report
