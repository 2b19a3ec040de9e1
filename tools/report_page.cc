#include "tools/report_page.h"

#include <algorithm>
#include <set>
#include <utility>

namespace umsim::cli {
namespace {

// Kernels kept per point for its timeline: enough to see a run's shape
// without making the page large for long traces.
constexpr std::size_t kMaxTimelineKernels = 2000;

nlohmann::ordered_json point_json(const SweepLine& l) {
  const auto& j = l.json;
  nlohmann::ordered_json p;
  p["index"] = j["index"];
  for (const char* key : {"trace", "vendor", "profile", "prefetch", "evict", "migrate", "thrashing"})
    p[key] = j.value(key, std::string());
  if (j.contains("seed")) p["seed"] = j["seed"];
  p["gpu_mem_spec"] = j.value("gpu_mem_spec", std::string());
  if (l.failed()) {
    p["error"] = j["error"];
    return p;
  }
  p["gpu_mem_bytes"] = j.value("gpu_mem_bytes", nlohmann::ordered_json());
  p["oversubscription_pct"] = j.value("oversubscription_pct", nlohmann::ordered_json());
  const auto& result = j["result"];
  p["total"] = result.value("total", nlohmann::ordered_json::object());
  nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
  if (result.contains("kernels"))
    for (const auto& k : result["kernels"]) {
      if (kernels.size() == kMaxTimelineKernels) {
        p["kernels_cut"] = result["kernels"].size();
        break;
      }
      const auto& c = k.value("counters", nlohmann::ordered_json::object());
      kernels.push_back({k.value("name", std::string()), k.value("gpu", 0), k.value("start_ns", 0),
                         c.value("time_ns", 0), c.value("stall_ns", 0)});
    }
  p["kernels"] = std::move(kernels);
  return p;
}

// JSON inside <script>: "<" escaped so that no "</script>" can end it early.
std::string script_safe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (const char c : json) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

constexpr const char* kHead = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>umsim report</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1em; margin: 1.2em 0 0.3em; }
.meta { color: #555; font-size: 0.9em; } .meta code { font-size: 0.95em; }
.legend { display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; font-size: 0.85em; margin: 0.5em 0; }
.legend span.swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.3em; vertical-align: -0.1em; }
.grid { display: flex; flex-wrap: wrap; gap: 1em; }
.figure { border: 1px solid #ddd; padding: 0.5em; border-radius: 4px; }
svg.plot { display: block; } svg.plot text { font-size: 11px; fill: #333; }
svg.plot .axis line { stroke: #888; } svg.plot .axis line.gridline { stroke: #e4e4e4; }
table { border-collapse: collapse; font-size: 0.85em; margin-top: 0.5em; }
th, td { border: 1px solid #ddd; padding: 0.2em 0.5em; text-align: right; white-space: nowrap; }
td.text, th.text { text-align: left; white-space: normal; max-width: 22em; overflow-wrap: anywhere; }
th { background: #f4f4f4; cursor: pointer; user-select: none; }
th[aria-sort="ascending"]::after { content: " \25B2"; } th[aria-sort="descending"]::after { content: " \25BC"; }
.controls { margin: 0.5em 0; } .error { color: #a00; }
</style>
</head>
<body>
<h1>umsim report</h1>
<div id="summary" class="meta"></div>
<div class="controls"><label>Metric: <select id="metric"></select></label></div>
<div id="legend" class="legend"></div>
<h2>Policy comparison per trace and GPU memory</h2>
<div id="comparison" class="grid"></div>
<h2>Oversubscription curves</h2>
<div id="curves" class="grid"></div>
<h2>Kernel timelines</h2>
<p class="meta">Kernels of one point per trace, one row per GPU; the darker part of a bar is the time the kernel stalled on faults.</p>
<div id="timelines"></div>
<h2>Every point</h2>
<p class="meta">Click a column to sort.</p>
<div id="table"></div>
<div id="failed"></div>
)HTML";

constexpr const char* kScript = R"JS(<script>
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("report-data").textContent);
  const SVG = "http://www.w3.org/2000/svg";
  const KEYS = ["vendor", "profile", "prefetch", "evict", "migrate", "thrashing"];
  const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
                  "#bcbd22", "#17becf"];
  const points = DATA.points;
  const ok = points.filter(p => p.error === undefined);
  const failed = points.filter(p => p.error !== undefined);

  function node(tag, attrs, parent, text) {
    const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function unique(values) { return [...new Set(values)]; }

  const varying = KEYS.filter(k => unique(ok.map(p => p[k])).length > 1);
  const seeded = ok.some(p => p.seed !== undefined);
  function label(p) {
    const parts = varying.map(k => p[k]);
    if (p.seed !== undefined) parts.push("seed " + p.seed);
    return parts.join(" / ") || "every point";
  }
  const labels = unique(ok.map(label));
  function color(l) { return COLORS[labels.indexOf(l) % COLORS.length]; }
  function dash(l) { const n = Math.floor(labels.indexOf(l) / COLORS.length); return n ? String(2 + 2 * n) + ",3" : ""; }
  const traces = unique(ok.map(p => p.trace));
  const metrics = ok.length ? Object.keys(ok[0].total) : [];
  let metric = metrics.includes("time_ns") ? "time_ns" : metrics[0];

  function unit(m) {
    if (m.endsWith("_ns")) return [1e6, "ms"];
    if (m.startsWith("bytes")) return [1048576, "MiB"];
    return [1, ""];
  }
  function fmt(v) {
    if (v === 0) return "0";
    const a = Math.abs(v);
    if (a >= 1e6 || a < 1e-3) return v.toExponential(2);
    return String(Number(v.toPrecision(4)));
  }
  function niceTicks(lo, hi, count) {
    if (!(hi > lo)) hi = lo + 1;
    const raw = (hi - lo) / count, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map(s => s * mag).find(s => s >= raw);
    const ticks = [];
    // From the step at or below lo to the step at or above hi: every value lies within the axis.
    const first = Math.floor(lo / step + 1e-9), last = Math.ceil(hi / step - 1e-9);
    for (let i = first; i <= Math.max(last, first + 1); ++i) ticks.push(Number((i * step).toPrecision(12)));
    return ticks;
  }
  function shortTrace(t) { return t.split("/").pop(); }
  function metricTitle(m) { const [, u] = unit(m); return m.replace(/_ns$/, "") + (u ? " (" + u + ")" : ""); }

  // Summary: sources, sweeps, builds.
  const summary = document.getElementById("summary");
  node("div", {}, summary, "Results: " + DATA.sources.join(", ") + " \u2014 " + ok.length + " finished points" +
       (failed.length ? ", " + failed.length + " failed" : "") + ", " + traces.length + " traces, " +
       labels.length + " policy sets.");
  for (const s of DATA.sweeps) {
    const d = node("div", {}, summary);
    node("span", {}, d, "umsim " + s.umsim.version + " (commit ");
    node("code", {}, d, s.umsim.commit);
    node("span", {}, d, "), experiment: ");
    node("code", {}, d, JSON.stringify(s.experiment));
  }
  const common = KEYS.filter(k => !varying.includes(k) && ok.length).map(k => k + " " + ok[0][k]);
  if (common.length) node("div", {}, summary, "In every point: " + common.join("; "));

  const select = document.getElementById("metric");
  for (const m of metrics) node("option", { value: m }, select, m).selected = m === metric;
  select.addEventListener("change", () => { metric = select.value; drawAll(); });

  const legend = document.getElementById("legend");
  node("strong", {}, legend, (varying.concat(seeded ? ["seed"] : [])).join(" / ") || "policy set");
  for (const l of labels) {
    const item = node("span", {}, legend);
    node("span", { class: "swatch", style: "background:" + color(l) }, item);
    item.appendChild(document.createTextNode(l));
  }

  function axisFrame(svg, w, h, m, xTicks, yTicks, x, y, xTitle, yTitle) {
    const g = node("svg:g", { class: "axis" }, svg);
    for (const t of yTicks) {
      node("svg:line", { class: "gridline", x1: m.l, x2: w - m.r, y1: y(t), y2: y(t) }, g);
      node("svg:text", { x: m.l - 4, y: y(t) + 4, "text-anchor": "end" }, g, fmt(t));
    }
    for (const t of xTicks) {
      node("svg:line", { x1: x(t), x2: x(t), y1: h - m.b, y2: h - m.b + 4 }, g);
      node("svg:text", { x: x(t), y: h - m.b + 16, "text-anchor": "middle" }, g, fmt(t));
    }
    node("svg:line", { x1: m.l, x2: w - m.r, y1: h - m.b, y2: h - m.b }, g);
    node("svg:line", { x1: m.l, x2: m.l, y1: m.t, y2: h - m.b }, g);
    node("svg:text", { x: (m.l + w - m.r) / 2, y: h - 4, "text-anchor": "middle" }, g, xTitle);
    node("svg:text", { x: 12, y: (m.t + h - m.b) / 2, "text-anchor": "middle",
                       transform: "rotate(-90 12 " + (m.t + h - m.b) / 2 + ")" }, g, yTitle);
  }

  function figure(parent, title) {
    const f = node("div", { class: "figure" }, parent);
    node("h3", {}, f, title);
    return f;
  }

  // Horizontal bars: one per policy set, for one trace at one GPU memory size.
  function comparison(parent, trace, mem, rows) {
    const f = figure(parent, shortTrace(trace) + ", GPU memory " + (mem || "of the profile") + " (footprint " +
                     fmt(rows[0].oversubscription_pct) + "% of it)");
    const [scale] = unit(metric);
    const w = 560, bar = 18, m = { l: 12, r: 70, t: 6, b: 34 }, h = m.t + m.b + rows.length * (bar + 6);
    const svg = node("svg:svg", { class: "plot", "data-plot": "comparison", width: w, height: h,
                                  viewBox: "0 0 " + w + " " + h }, f);
    const max = Math.max(...rows.map(p => p.total[metric] / scale), 0);
    const ticks = niceTicks(0, max || 1, 5);
    const x = v => m.l + (w - m.l - m.r) * v / ticks[ticks.length - 1];
    axisFrame(svg, w, h, m, ticks, [], x, () => 0, metricTitle(metric), "");
    rows.forEach((p, i) => {
      const v = p.total[metric] / scale, yy = m.t + i * (bar + 6);
      const r = node("svg:rect", { class: "mark", x: m.l, y: yy, width: Math.max(1, x(v) - m.l), height: bar,
                                   fill: color(label(p)) }, svg);
      node("svg:title", {}, r, label(p) + ": " + fmt(v));
      node("svg:text", { x: x(v) + 4, y: yy + bar - 5 }, svg, fmt(v));
    });
  }

  // The metric against oversubscription, one line per policy set.
  function curves(parent, trace, rows) {
    const f = figure(parent, shortTrace(trace));
    const [scale] = unit(metric);
    const w = 560, h = 320, m = { l: 64, r: 12, t: 10, b: 40 };
    const svg = node("svg:svg", { class: "plot", "data-plot": "curves", width: w, height: h,
                                  viewBox: "0 0 " + w + " " + h }, f);
    const xs = rows.map(p => p.oversubscription_pct), ys = rows.map(p => p.total[metric] / scale);
    const xt = niceTicks(Math.min(...xs), Math.max(...xs), 6), yt = niceTicks(0, Math.max(...ys, 0) || 1, 5);
    const x = v => m.l + (w - m.l - m.r) * (v - xt[0]) / ((xt[xt.length - 1] - xt[0]) || 1);
    const y = v => h - m.b - (h - m.t - m.b) * v / yt[yt.length - 1];
    axisFrame(svg, w, h, m, xt, yt, x, y, "footprint / GPU memory (%)", metricTitle(metric));
    for (const l of labels) {
      const line = rows.filter(p => label(p) === l).sort((a, b) => a.oversubscription_pct - b.oversubscription_pct);
      if (!line.length) continue;
      node("svg:polyline", { fill: "none", stroke: color(l), "stroke-width": 1.5, "stroke-dasharray": dash(l),
                             points: line.map(p => x(p.oversubscription_pct) + "," + y(p.total[metric] / scale)).join(" ") }, svg);
      for (const p of line) {
        const c = node("svg:circle", { class: "mark", cx: x(p.oversubscription_pct), cy: y(p.total[metric] / scale),
                                       r: 3.5, fill: color(l) }, svg);
        node("svg:title", {}, c, l + ": " + fmt(p.oversubscription_pct) + "%, " + fmt(p.total[metric] / scale));
      }
    }
  }

  // Kernels of one point on a time axis, one row per GPU.
  function timeline(holder, p) {
    holder.textContent = "";
    const ks = p.kernels;
    const gpus = unique(ks.map(k => k[1])).sort((a, b) => a - b);
    const w = 1100, row = 26, m = { l: 64, r: 12, t: 8, b: 40 }, h = m.t + m.b + Math.max(1, gpus.length) * row;
    const svg = node("svg:svg", { class: "plot", "data-plot": "timeline", width: w, height: h,
                                  viewBox: "0 0 " + w + " " + h }, holder);
    const end = Math.max(p.total.time_ns || 0, ...ks.map(k => k[2] + k[3])) / 1e6;
    const xt = niceTicks(0, end || 1, 10);
    const x = v => m.l + (w - m.l - m.r) * v / xt[xt.length - 1];
    axisFrame(svg, w, h, m, xt, [], x, () => 0, "time (ms)", "");
    gpus.forEach((g, i) => node("svg:text", { x: m.l - 6, y: m.t + i * row + row / 2 + 4, "text-anchor": "end" },
                                svg, "GPU " + g));
    for (const [name, g, start, time, stall] of ks) {
      const yy = m.t + gpus.indexOf(g) * row + 3, x0 = x(start / 1e6), x1 = x((start + time) / 1e6);
      const r = node("svg:rect", { class: "mark", x: x0, y: yy, width: Math.max(0.5, x1 - x0), height: row - 6,
                                   fill: color(label(p)), "fill-opacity": 0.45 }, svg);
      node("svg:title", {}, r, name + ": start " + fmt(start / 1e6) + " ms, " + fmt(time / 1e6) + " ms, stalled " +
           fmt(stall / 1e6) + " ms");
      if (stall > 0)
        node("svg:rect", { x: x0, y: yy, width: Math.max(0.5, x((start + stall) / 1e6) - x0), height: row - 6,
                           fill: color(label(p)) }, svg);
    }
    if (p.kernels_cut)
      node("p", { class: "meta" }, holder, "First " + ks.length + " of " + p.kernels_cut + " kernels shown.");
  }

  function drawAll() {
    const comp = document.getElementById("comparison"), curv = document.getElementById("curves");
    comp.textContent = "";
    curv.textContent = "";
    for (const t of traces) {
      const rows = ok.filter(p => p.trace === t);
      for (const mem of unique(rows.map(p => p.gpu_mem_spec))) comparison(comp, t, mem, rows.filter(p => p.gpu_mem_spec === mem));
      curves(curv, t, rows);
    }
  }

  function drawTimelines() {
    const box = document.getElementById("timelines");
    for (const t of traces) {
      const rows = ok.filter(p => p.trace === t);
      const f = figure(box, shortTrace(t));
      const pick = node("select", {}, node("label", {}, f, "Point: "));
      rows.forEach((p, i) => node("option", { value: i }, pick, "#" + p.index + " " + label(p) + " @ " +
                                  (p.gpu_mem_spec || "profile memory")));
      const holder = node("div", {}, f);
      pick.addEventListener("change", () => timeline(holder, rows[Number(pick.value)]));
      timeline(holder, rows[0]);
    }
  }

  function table() {
    const box = document.getElementById("table");
    const cols = [["index", "#", p => p.index], ["trace", "trace", p => shortTrace(p.trace)]]
      .concat(varying.map(k => [k, k, p => p[k]]))
      .concat(seeded ? [["seed", "seed", p => p.seed === undefined ? "" : p.seed]] : [])
      .concat([["gpu_mem", "GPU memory (MiB)", p => p.gpu_mem_bytes / 1048576],
               ["pct", "oversubscription %", p => Number(p.oversubscription_pct.toFixed(1))]])
      .concat(metrics.map(m => [m, metricTitle(m), p => Number((p.total[m] / unit(m)[0]).toPrecision(6))]));
    const t = node("table", { id: "points" }, box);
    const head = node("tr", {}, node("thead", {}, t));
    const body = node("tbody", {}, t);
    const rows = ok.map(p => cols.map(c => c[2](p)));
    const ths = cols.map((c, i) => {
      const th = node("th", { class: typeof rows[0][i] === "string" ? "text" : "", scope: "col" }, head, c[1]);
      th.addEventListener("click", () => sortBy(i, th));
      return th;
    });
    function fill() {
      body.textContent = "";
      for (const r of rows) {
        const tr = node("tr", {}, body);
        for (const v of r) node("td", { class: typeof v === "string" ? "text" : "" }, tr, typeof v === "number" ? fmt(v) : String(v));
      }
    }
    function sortBy(i, th) {
      const asc = th.getAttribute("aria-sort") !== "ascending";
      ths.forEach(h => h.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      rows.sort((a, b) => (a[i] < b[i] ? -1 : a[i] > b[i] ? 1 : 0) * (asc ? 1 : -1));
      fill();
    }
    fill();
    if (failed.length) {
      const box2 = document.getElementById("failed");
      node("h2", {}, box2, "Failed points");
      const ft = node("table", {}, box2);
      const fh = node("tr", {}, ft);
      for (const c of ["#", "trace", "prefetch", "evict", "GPU memory", "error"]) node("th", { class: "text" }, fh, c);
      for (const p of failed) {
        const tr = node("tr", {}, ft);
        for (const v of [p.index, shortTrace(p.trace), p.prefetch, p.evict, p.gpu_mem_spec])
          node("td", { class: "text" }, tr, String(v));
        node("td", { class: "text error" }, tr, p.error);
      }
    }
  }

  drawAll();
  drawTimelines();
  table();
  document.body.setAttribute("data-plots-drawn", String(document.querySelectorAll("svg.plot").length));
})();
</script>
</body>
</html>
)JS";

}  // namespace

std::size_t report_plot_count(const std::vector<SweepLine>& lines) {
  std::set<std::string> traces;
  std::set<std::pair<std::string, std::string>> comparisons;
  for (const auto& l : lines) {
    if (l.failed()) continue;
    traces.insert(l.json.value("trace", std::string()));
    comparisons.insert({l.json.value("trace", std::string()), l.json.value("gpu_mem_spec", std::string())});
  }
  return comparisons.size() + 2 * traces.size();
}

std::string report_page(const std::vector<SweepLine>& lines, const std::vector<std::string>& sources) {
  nlohmann::ordered_json data;
  data["sources"] = sources;
  nlohmann::ordered_json sweeps = nlohmann::ordered_json::array();
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const auto& l : lines) {
    nlohmann::ordered_json s = {{"experiment", l.json["sweep"]["experiment"]},
                                {"umsim", l.json["sweep"].value("umsim", nlohmann::ordered_json::object())}};
    if (std::find(sweeps.begin(), sweeps.end(), s) == sweeps.end()) sweeps.push_back(std::move(s));
    points.push_back(point_json(l));
  }
  data["sweeps"] = std::move(sweeps);
  data["points"] = std::move(points);
  std::string page = kHead;
  page += "<script type=\"application/json\" id=\"report-data\">" + script_safe(data.dump()) + "</script>\n";
  page.replace(page.find("<body>"), 6,
               "<body data-plots-expected=\"" + std::to_string(report_plot_count(lines)) + "\">");
  page += kScript;
  return page;
}

}  // namespace umsim::cli
