#include "report/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/stats.h"
#include "report/plots.h"
#include "report/report_text.h"
#include "report/tools.h"
#include "trees/tree_render.h"

namespace headway::report {

namespace {

constexpr const char* kStyle = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;
  color:#222;background:#f4f5f7}
header{background:#1f2d3d;color:#fff;padding:14px 24px}
header h1{margin:0 0 4px;font-size:22px}
header p{margin:0;font-size:13px;color:#c9d3dd}
main{padding:16px 24px}
section{background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12);
  padding:12px 18px;margin-bottom:18px}
h2{margin:4px 0 10px;font-size:19px}
h3{margin:14px 0 6px;font-size:15px}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin-bottom:10px}
.card{background:#f4f5f7;border-radius:6px;padding:8px 14px;min-width:130px}
.card b{display:block;font-size:22px}
.card span{font-size:12px;color:#555}
table{border-collapse:collapse;font-size:13px;margin:4px 0}
th,td{padding:3px 8px;border-bottom:1px solid #e3e6ea;text-align:right}
th:first-child,td:first-child,td.l,th.l{text-align:left}
td.l{max-width:380px;overflow-wrap:anywhere}
.figs{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
figure{margin:0}
figure.plot svg{width:100%;height:auto}
figure.plot{width:520px;max-width:100%}
figure.wealth{width:420px}
figure.tree{overflow:auto;max-height:900px;border:1px solid #e3e6ea;border-radius:6px;padding:4px}
figure.tree svg{max-width:100%;height:auto}
figcaption{font-size:12px;color:#555}
.status{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;border:1px solid #999}
details{margin:2px 0}
details.node>summary,details.test>summary{cursor:pointer;font-size:13px}
details.node,details.test{border-left:3px solid #ddd;padding-left:8px}
details.node[open],details.test[open]{border-left-color:#2980b9;background:#fafbfc}
pre{font-size:12px;background:#f7f7f9;padding:6px;overflow:auto;max-height:420px}
.add{color:#1e7e34}.del{color:#b52a2a}.hunk{color:#6f42c1}
.warn{color:#b52a2a;font-weight:bold}
.note{font-size:12px;color:#555}
footer{font-size:12px;color:#555;padding:0 24px 16px}
)css";

// The inline script: opens the details a link points at and says whether it ran, how many plots
// have a drawn SVG and what errors the page raised (the error handler is installed first).
constexpr const char* kErrorHook =
    "window.__reportErrors=[];window.onerror=function(m,s,l,c){window.__reportErrors.push("
    "String(m)+' (line '+l+':'+c+')');var x=document.getElementById('script-errors');"
    "if(x)x.textContent=window.__reportErrors.join('\\n');};";

constexpr const char* kScript = R"js(
(function(){
  function openTarget(){
    var id=decodeURIComponent(location.hash.slice(1));
    var e=id&&document.getElementById(id);
    for(var p=e;p;p=p.parentElement){if(p.tagName==='DETAILS')p.open=true;}
    if(e)e.scrollIntoView();
  }
  window.addEventListener('hashchange',openTarget);
  openTarget();
  var plots=document.querySelectorAll('figure.plot'),drawn=0;
  plots.forEach(function(f){var s=f.querySelector('svg');
    if(s){var r=s.getBoundingClientRect();if(r.width>0&&r.height>0)drawn++;}});
  var trees=0;
  document.querySelectorAll('figure.tree').forEach(function(f){
    var s=f.querySelector('svg');if(s&&s.querySelectorAll('g.node').length>0)trees++;});
  var st=document.getElementById('script-status');
  st.setAttribute('data-plots',plots.length);st.setAttribute('data-drawn',drawn);
  st.setAttribute('data-trees',trees);st.setAttribute('data-errors',window.__reportErrors.length);
  st.textContent='page script ran: '+drawn+' of '+plots.length+' plots drawn, '+trees+
    ' Design Trees, '+window.__reportErrors.length+' script errors';
})();
)js";

std::string status_chip(const std::string& status) {
  const auto parsed = trees::parse_node_status(status);
  const std::string color = parsed ? trees::status_color(*parsed) : "#dddddd";
  return fmt::format("<span class=\"status\" style=\"background:{}\">{}</span>", color,
                     html_escape(status));
}

std::string pre(const std::string& text, const std::string& cls = "") {
  return fmt::format("<pre{}>{}</pre>", cls.empty() ? "" : " class=\"" + cls + "\"",
                     html_escape(text));
}

std::string diff_html(const std::string& diff) {
  std::string out = "<pre class=\"diff\">";
  size_t i = 0;
  while (i < diff.size()) {
    size_t end = diff.find('\n', i);
    if (end == std::string::npos) end = diff.size();
    const std::string line = diff.substr(i, end - i);
    const char* cls = line.rfind("@@", 0) == 0                                 ? "hunk"
                      : line.rfind("+++", 0) == 0 || line.rfind("---", 0) == 0 ? ""
                      : !line.empty() && line[0] == '+'                        ? "add"
                      : !line.empty() && line[0] == '-'                        ? "del"
                                                                               : "";
    out += *cls ? fmt::format("<span class=\"{}\">{}</span>\n", cls, html_escape(line))
                : html_escape(line) + "\n";
    i = end + 1;
  }
  return out + "</pre>";
}

std::string figure(const Figures& f, const std::string& name, const std::string& cls,
                   const std::string& caption) {
  const auto it = f.plots.find(name);
  if (it == f.plots.end()) {
    return fmt::format("<p class=\"note\">{}: nothing to plot yet.</p>", html_escape(caption));
  }
  return fmt::format(
      "<figure class=\"plot {}\" data-plot=\"{}\">{}<figcaption>{}</figcaption></figure>", cls,
      html_escape(name), it->second, html_escape(caption));
}

std::string summary_section(const Report& r) {
  std::string out = "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">";
  const auto card = [&out](const std::string& value, const std::string& what) {
    out += fmt::format("<div class=\"card\"><b>{}</b><span>{}</span></div>", html_escape(value),
                       html_escape(what));
  };
  for (const auto& layer : r.decode_layers) {
    card(ms(layer.head_ms) + " ms",
         fmt::format("decode layer ({} attention), {} the sum of the floors", layer.attention,
                     times(layer.ratio_to_floor())));
  }
  if (r.decode_step) {
    card(ms(r.decode_step->head_ms) + " ms", fmt::format("decode step, {} the sum of the floors",
                                                         times(r.decode_step->ratio_to_floor())));
  }
  card(times(r.geomean_speedup), "geomean speedup over the baselines");
  card(fmt::format("{:.0f} s", r.device_seconds), "device time");
  card(fmt::format("{:.1f}", r.decision_rate.per_device_hour),
       fmt::format("decisions a device-hour ({} in all)", r.decision_rate.decisions));
  card(fmt::format("{:.0f}%", 100 * r.decision_rate.timed_share),
       "timed calls' share of the device time outside the screen");
  card(std::to_string(r.kernels.size()), "kernels");
  if (r.agents.calls > 0) {
    card(std::to_string(r.agents.calls), "agent calls");
    card(fmt::format("${:.2f}", r.agents.cost_usd), "agent cost");
  }
  out += "</div>";
  out +=
      "<table><tr><th class=\"l\">kernel</th><th>baseline ms</th><th>head ms</th>"
      "<th>speedup</th><th>floor ms</th><th>x floor</th><th>decode ms</th><th>x decode</th>"
      "<th>nodes</th><th>tests</th><th>device s</th><th class=\"l\">head</th></tr>";
  for (const auto& k : r.kernels) {
    const NodeReport* head = k.node(k.head_node);
    out += fmt::format(
        "<tr><td><a href=\"#kernel-{0}\">{0}</a>{1}</td><td>{2}</td><td>{3}</td><td>{4}</td>"
        "<td>{5}</td><td>{6}</td><td>{7}</td><td>{8}</td><td>{9}</td><td>{10}</td>"
        "<td>{11:.1f}</td><td class=\"l\">{12}</td></tr>",
        html_escape(k.name), k.remeasured ? "*" : "",
        html_escape(ms_interval(k.baseline_ms, k.baseline_interval, k.baseline_bimodal)),
        html_escape(ms_interval(k.head_ms, k.head_interval, k.head_bimodal)),
        html_escape(speedup_text(k)), ms(k.floor_ms), times(k.ratio_to_floor()), ms(k.decode_ms),
        times(k.ratio_to_decode()), k.nodes.size(), k.tests.size(), k.device_seconds,
        head ? html_escape(node_label(head->node)) : "");
  }
  out += "</table>";
  std::vector<DecodeStepSummary> steps = r.decode_layers;
  if (r.decode_step) steps.push_back(*r.decode_step);
  for (const auto& step : steps)
    out += fmt::format("<p class=\"step\"><b>{}</b>.</p>", html_escape(decode_step_line(step)));
  if (const std::string note = unsupported_note(r.kernels); !note.empty()) {
    out += fmt::format("<p class=\"note\">{}</p>", html_escape(note));
  }
  if (const std::string line = heads_by_model_line(heads_by_model(r.kernels)); !line.empty()) {
    out += fmt::format("<p class=\"note\">{}.</p>", html_escape(line));
  }
  if (std::any_of(r.kernels.begin(), r.kernels.end(), [](auto& k) { return k.remeasured; })) {
    out += fmt::format(
        "<p class=\"note\">* baseline and head re-measured side by side with the current "
        "toolchain ({}).</p>",
        html_escape(r.toolchain));
  }
  out += "<h3>Agents</h3><p>" + html_escape(agents_line(r.agents)) + "</p>";
  if (r.agents.calls > 0) {
    out +=
        "<table><tr><th class=\"l\">role</th><th>calls</th><th>input tokens</th>"
        "<th>output tokens</th><th>cost $</th><th>candidates</th><th>accepted</th></tr>";
    for (const auto& role : r.agents.roles) {
      out += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.2f}</td><td>{}</td><td>{}</td>"
          "</tr>",
          html_escape(role.role), role.calls, role.input_tokens, role.output_tokens, role.cost_usd,
          role.candidates, role.accepted);
    }
    out += "</table>";
  }
  out += "<h3>Knowledge</h3><p>" + html_escape(knowledge_line(r.knowledge)) + "</p>";
  out +=
      "<h3>Calibration of the acceptance test</h3><p>" + html_escape(calibration_line(r)) + "</p>";
  if (r.unsandboxed_runs > 0) {
    out += fmt::format(
        "<p class=\"warn\">{} run(s) built and ran candidate code without the sandbox.</p>",
        r.unsandboxed_runs);
  }
  return out + "</section>";
}

std::string node_details(const KernelReport& k, const NodeReport& n) {
  const trees::Node& node = n.node;
  std::string marks;
  if (n.head) marks += " <b>HEAD</b>";
  if (n.former_head) marks += " (former head)";
  std::string out = fmt::format("<details class=\"node\" id=\"{}\"><summary>{} {}{}</summary>",
                                node_anchor(k.name, node.id), html_escape(node_label(node)),
                                status_chip(std::string(trees::to_string(node.status))), marks);
  if (!node.reason.empty()) out += "<p>" + html_escape(node.reason) + "</p>";
  out += fmt::format("<p class=\"note\">{} by {}{}; created {}, updated {}</p>",
                     trees::to_string(node.kind),
                     html_escape(node.proposer.empty() ? std::string("-") : node.proposer),
                     n.agent.empty() ? "" : " (" + html_escape(n.agent) + ")",
                     html_escape(node.created_at), html_escape(node.updated_at));
  const std::vector<double> all = n.all_ms();
  if (!all.empty()) {
    out += fmt::format("<p>{} readings (races {}, tests {}), median {} ms.", all.size(),
                       n.race_ms.size(), n.test_ms.size(), ms(median(all)));
    if (!n.tests.empty()) {
      out += " Tests:";
      for (int64_t t : n.tests)
        out += fmt::format(" <a href=\"#{}\">#{}</a>", test_anchor(k.name, t), t);
    }
    out += "</p>";
  }
  out += "<details><summary>source</summary>" + pre(n.source) + "</details>";
  if (node.parent_id) {
    out += fmt::format(
        "<details><summary>diff against #{}</summary>{}</details>", *node.parent_id,
        n.diff.empty() ? std::string("<p class=\"note\">no change</p>") : diff_html(n.diff));
  }
  if (!node.evidence.is_null()) {
    out += "<details><summary>build and check record</summary>" +
           pre(evidence_text(node.evidence)) + "</details>";
  }
  if (!all.empty()) {
    std::string readings;
    for (double v : n.race_ms) readings += fmt::format("race {:.6g} ms\n", v);
    for (double v : n.test_ms) readings += fmt::format("test {:.6g} ms\n", v);
    out += "<details><summary>readings</summary>" + pre(readings) + "</details>";
  }
  return out + "</details>";
}

std::string test_details(const KernelReport& k, const TestReport& t, const Figures& f) {
  const auto& r = t.record;
  std::string out = fmt::format(
      "<div class=\"test-block\"><details class=\"test\" id=\"{}\"><summary>{}</summary>",
      test_anchor(k.name, r.id), html_escape(test_line(r)));
  out += fmt::format(
      "<p>candidate <a href=\"#{}\">#{}</a> against head <a href=\"#{}\">#{}</a>, rule {}; "
      "{}</p>",
      node_anchor(k.name, r.candidate_node), r.candidate_node, node_anchor(k.name, r.head_node),
      r.head_node, html_escape(r.rule), html_escape(rule_config_line(t)));
  out +=
      "<table><tr><th>pair</th><th>first</th><th>head ms</th><th>candidate ms</th><th>d</th>"
      "</tr>";
  std::map<int, std::array<double, 2>> pairs;
  std::map<int, bool> candidate_first;
  for (const auto& reading : t.readings) {
    auto& p = pairs.try_emplace(reading.pair_index, std::array<double, 2>{NAN, NAN}).first->second;
    const bool cand = reading.node_id == r.candidate_node;
    p[cand ? 1 : 0] = reading.seconds * 1e3;
    if (reading.position == 0) candidate_first[reading.pair_index] = cand;
  }
  for (const auto& [index, p] : pairs) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{:.6g}</td><td>{:.6g}</td><td>{:+.4f}</td></tr>", index + 1,
        candidate_first[index] ? "candidate" : "head", p[0], p[1], std::log(p[1] / p[0]));
  }
  out += "</table></details>";
  out += figure(f, wealth_name(k.name, r.id), "wealth",
                fmt::format("test #{}: wealth after each pair", r.id));
  return out + "</div>";
}

// Each run's device pool: its line, a row per worker and the plot of their use over the run.
std::string pools_section(const Report& r, const Figures& f) {
  if (r.pools.empty()) return "";
  std::string out = "<section id=\"pools\"><h2>Device pools</h2>";
  for (const auto& p : r.pools) {
    out += "<h3>" + html_escape(pool_use_line(p)) + "</h3>";
    out +=
        "<table><tr><th class=\"l\">worker</th><th class=\"l\">node</th><th>jobs</th>"
        "<th>held s</th><th>busy s</th><th>busy</th></tr>";
    for (const auto& w : p.workers) {
      const double held = w.held_seconds(p.elapsed_s);
      out += fmt::format(
          "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{:.1f}</td>"
          "<td>{:.1f}</td><td>{}</td></tr>",
          html_escape(w.name), html_escape(w.node), w.jobs, held, w.busy_seconds(),
          held > 0 ? fmt::format("{:.0f}%", 100 * w.busy_seconds() / held) : "-");
    }
    out += "</table>" + figure(f, pool_use_name(p.id), "pool", "each device's use over the run");
  }
  return out + "</section>";
}

std::string kernel_section(const KernelReport& k, const Figures& f) {
  std::string out =
      fmt::format("<section class=\"kernel\" id=\"kernel-{0}\"><h2>{0}</h2>", html_escape(k.name));
  out += fmt::format(
      "<p>baseline {} ms, head {} ms ({}), {} over the memory floor, {} over the decode "
      "ceiling; {:.1f} device seconds.</p>",
      ms(k.baseline_ms), ms(k.head_ms), times(k.speedup), times(k.ratio_to_floor()),
      times(k.ratio_to_decode()), k.device_seconds);
  out += "<div class=\"figs\">";
  out += figure(f, bars_name(k.name), "bars", "baseline, head, memory floor and decode ceiling");
  out += figure(f, head_time_name(k.name), "head-time",
                "the head's time; each red point is an accepted change");
  out += "</div>";
  out += "<h3>Design Tree</h3><p class=\"note\">";
  for (const auto& [status, count] : k.nodes_by_status)
    out += status_chip(status) + fmt::format(" {} &nbsp;", count);
  out +=
      "Click a node to open its source, diff, record and readings; the red path leads to "
      "the head.</p>";
  const auto tree = f.trees.find(k.name);
  out += tree == f.trees.end() ? std::string("<p class=\"note\">no tree drawn</p>")
                               : fmt::format("<figure class=\"tree\" data-tree=\"{}\">{}</figure>",
                                             html_escape(k.name), tree->second);
  out += "<h3>Nodes</h3>";
  for (const auto& n : k.nodes) out += node_details(k, n);
  out += fmt::format("<h3>Acceptance tests ({})</h3>", k.tests.size());
  if (k.tests.empty()) out += "<p class=\"note\">no acceptance test yet</p>";
  out += "<div class=\"figs\">";
  for (const auto& t : k.tests) out += test_details(k, t, f);
  return out + "</div></section>";
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
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
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

Figures render_figures(const Report& report) {
  Figures f;
  Gnuplot gnuplot;
  add_plots(report, gnuplot);
  f.plots = gnuplot.render();
  for (const auto& k : report.kernels) {
    f.trees[k.name] = scope_svg_ids(dot_to_svg(k.dot), "tree-" + k.name + "-", false);
  }
  return f;
}

std::string render_html(const Report& r, const Figures& f) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  out += fmt::format("<title>headway report: {}</title>", html_escape(r.workspace));
  out += std::string("<script>") + kErrorHook + "</script>";
  out += std::string("<style>") + kStyle + "</style></head><body>";
  out += fmt::format(
      "<header><h1>headway report</h1><p>workspace {} &middot; target {} &middot; toolchain {} "
      "&middot; generated {} by headway {}</p></header><main>",
      html_escape(r.workspace), html_escape(r.target), html_escape(r.toolchain),
      html_escape(r.generated_at), html_escape(r.headway));
  out += summary_section(r);
  if (r.kernels.empty()) {
    out += "<section><p>No kernels yet: run <code>headway optimize</code>.</p></section>";
  }
  out += pools_section(r, f);
  for (const auto& k : r.kernels) out += kernel_section(k, f);
  out +=
      "</main><footer><span id=\"script-status\">page script did not run</span>"
      "<pre id=\"script-errors\"></pre></footer>";
  out += std::string("<script>") + kScript + "</script></body></html>\n";
  return out;
}

}  // namespace headway::report
