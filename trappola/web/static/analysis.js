// Analysis: the files `trappola analyze declarations --json` and `trappola analyze pro --json` write, read
// by the server field by field (trappola/web/analysis.py). The declarations file is drawn as a forest plot of
// its paired comparisons (hover or focus a row: n, the interval, the command that wrote it); the Pro chart as
// its take-point map, with a p/q picker that says "declare" or "wait" for a Bulka of the person's choosing.
import { $, el, api, showError, readFile, fmt } from "./util.js";

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

const num = (x, d = 2) => (x === null || x === undefined ? "-" : Number(x).toFixed(d));
const ciText = (ci) => (ci ? `[${num(ci[0])}, ${num(ci[1])}]` : "no interval: n too small");

// ------------------------------------------------------------ the forest plot
let decl = null;   // the declarations file, as the server read it
const PLOT_W = 300;

function rowLabel(r) {
  return `${r.kind}${r.turn === null ? "" : `, turn ${r.turn}`}: ${r.contrast}`;
}

function drawForest() {
  const box = $("forest");
  box.hidden = !decl;
  if (!decl) return;
  const focused = box.contains(document.activeElement) ? document.activeElement.id : null;
  const metric = $("forest-metric") ? $("forest-metric").value : "tokens";
  const rows = decl.rows;
  const xs = [0];
  for (const r of rows) {
    if (r[metric] !== null) xs.push(r[metric]);
    if (r[`${metric}_ci`]) xs.push(...r[`${metric}_ci`]);
  }
  let lo = Math.min(...xs), hi = Math.max(...xs);
  if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
  const pad = (hi - lo) * 0.05;
  lo -= pad; hi += pad;
  const x = (v) => 6 + ((v - lo) / (hi - lo)) * (PLOT_W - 12);
  const deciders = rows.some((r) => r.decider);
  const picker = el("select", { id: "forest-metric", onchange: drawForest },
    Object.entries(decl.metrics).map(([k, label]) => el("option", { value: k, selected: k === metric }, label)));
  const axis = svg("svg", { width: PLOT_W, height: 22, "aria-hidden": "true", class: "forest-axis" },
    ...[lo + pad, 0, hi - pad].filter((v, k, a) => a.indexOf(v) === k).map((v) =>
      svg("text", { x: x(v), y: 15, "text-anchor": "middle" }, num(v, 1))));
  const body = rows.map((r, k) => {
    const v = r[metric], ci = r[`${metric}_ci`];
    const marks = [svg("line", { x1: x(0), x2: x(0), y1: 0, y2: 24, class: "zero" })];
    if (ci) marks.push(svg("line", { x1: x(ci[0]), x2: x(ci[1]), y1: 12, y2: 12, class: "ci" }));
    if (v !== null) marks.push(svg("circle", { cx: x(v), cy: 12, r: 4.5, class: ci ? "est" : "est open" }));
    const said = v === null ? "no estimate" : `${num(v)} ${ci ? `95% interval ${num(ci[0])} to ${num(ci[1])}` : "n too small for an interval"}`;
    const plot = svg("svg", { width: PLOT_W, height: 24, role: "img", "aria-label": said }, ...marks);
    return el("tr", { class: `forest-row${ci ? "" : " small-n"}`, tabindex: "0", "data-row": k,
      onmouseenter: (ev) => showTip(r, metric, ev.currentTarget), onfocus: (ev) => showTip(r, metric, ev.currentTarget),
      onmouseleave: hideTip, onblur: hideTip },
    el("th", { scope: "row" }, rowLabel(r)), el("td", {}, r.n), deciders ? el("td", {}, r.decider || "-") : null,
    el("td", { class: "estimate" }, v === null ? "-" : num(v), " ", el("small", {}, ci ? ciText(ci) : "n too small")),
    el("td", { class: "plot" }, plot));
  });
  box.replaceChildren(
    el("p", {}, `${decl.players.join(" vs ")} · ${decl.decision_points ?? "?"} decision points · `,
      el("label", {}, "compare by ", picker)),
    el("p", { class: "hint" }, "Each row: the mean paired difference between two timings of a declaration (e.g. " +
      "declare now minus never) over the decisions where both were rolled out, with its 95% interval; a row whose " +
      "interval crosses the line at 0 does not tell the two apart. Hover or focus a row for its details."),
    el("table", { class: "forest", id: "forest-table" },
      el("tr", {}, el("th", { scope: "col" }, "comparison"), el("th", { scope: "col" }, "n"),
        deciders ? el("th", { scope: "col" }, "decider") : null, el("th", { scope: "col" }, decl.metrics[metric]),
        el("th", { scope: "col" }, el("span", { class: "sr-only" }, "plot"), axis)),
      body),
    el("div", { id: "forest-tip", class: "tip", role: "status", hidden: true }));
  if (focused && $(focused)) $(focused).focus();
}

function showTip(r, metric, row) {
  const tip = $("forest-tip");
  const ci = r[`${metric}_ci`];
  tip.replaceChildren(
    el("b", {}, rowLabel(r)),
    el("div", {}, `n = ${r.n} decisions`, r.decider ? ` · decided by ${r.decider}` : ""),
    el("div", {}, `${decl.metrics[metric]}: ${num(r[metric])}, 95% interval ${ciText(ci)}`),
    el("div", {}, "command: ", el("code", { class: "command" }, r.command)));
  tip.hidden = false;
  const box = $("forest").getBoundingClientRect(), at = row.getBoundingClientRect();
  tip.style.top = `${at.bottom - box.top + 4}px`;
}

function hideTip() { $("forest-tip").hidden = true; }

// ------------------------------------------------------------ the Pro chart
let chart = null;  // the Pro chart file, as the server read it
const CELL = 18;

function verdict(threshold, bulka) {
  return threshold !== null && bulka >= threshold ? "declare" : "wait";
}

// A new file: the picker (p, q, the Bulka), then what it shows (``drawProBody``), redrawn as the picker changes.
function drawPro() {
  const box = $("pro-chart");
  box.hidden = !chart;
  if (!chart) return;
  const ps = chart.p, n = ps.length;
  const options = (id, value) => el("select", { id, onchange: drawProBody },
    ps.map((p) => el("option", { value: String(p), selected: p === value }, String(p))));
  box.replaceChildren(
    el("p", { class: "hint" }, `The dealer has won twice and may declare Pro${chart.parties ? ` a third into a ${chart.parties}-partie session` : ""}. ` +
      "p is its chance of winning against the challenger now, q against the next one. Each cell says whether declaring " +
      "pays at the Bulka you choose (in stakes; a stake is 10 tokens); click a cell, or choose below."),
    el("div", { class: "toolbar" },
      el("label", {}, "p ", options("pick-p", ps[Math.floor(n / 3)])), el("label", {}, "q ", options("pick-q", ps[Math.floor(2 * n / 3)])),
      el("label", {}, "Bulka (stakes) ", el("input", { id: "pick-bulka", type: "number", min: "0", max: "1000", step: "1",
        value: "4", oninput: drawProBody }))),
    el("div", { id: "pro-body" }),
    el("p", { class: "hint" }, "command: ", el("code", { class: "command" }, chart.command)));
  drawProBody();
}

function drawProBody() {
  const ps = chart.p;
  const n = ps.length;
  const pick = { p: Number($("pick-p").value), q: Number($("pick-q").value) };
  const bulka = Number($("pick-bulka").value) || 0;
  const j = ps.indexOf(pick.p), i = ps.indexOf(pick.q);
  const left = 40, top = 8, size = n * CELL;
  const step = ps.length > 1 ? ps[1] - ps[0] : 1;
  const px = (p) => left + ((p - ps[0]) / step + 0.5) * CELL;
  const py = (q) => top + size - ((q - ps[0]) / step + 0.5) * CELL;
  const cells = [];
  chart.threshold.forEach((row, qi) => row.forEach((t, pj) => {
    const what = verdict(t, bulka);
    cells.push(svg("rect", { x: left + pj * CELL, y: top + size - (qi + 1) * CELL, width: CELL - 1, height: CELL - 1,
      class: `cell ${what}${qi === i && pj === j ? " picked" : ""}`, "data-p": ps[pj], "data-q": ps[qi],
      onclick: () => { $("pick-p").value = String(ps[pj]); $("pick-q").value = String(ps[qi]); drawProBody(); } },
    svg("title", {}, `p ${ps[pj]}, q ${ps[qi]}: declare from ${t === null ? "never" : `${fmt(t)} stakes`}`)));
  }));
  const marks = chart.players.map((pl) => svg("g", { class: "lab-player" },
    svg("circle", { cx: px(pl.p), cy: py(pl.q), r: 5 }), svg("title", {}, `${pl.label}: p ${pl.p}, q ${pl.q}`)));
  const ticks = [0, Math.floor(n / 2), n - 1].map((k) => [
    svg("text", { x: px(ps[k]), y: top + size + 14, "text-anchor": "middle" }, ps[k]),
    svg("text", { x: left - 4, y: py(ps[k]) + 4, "text-anchor": "end" }, ps[k])]).flat();
  const map = svg("svg", { width: left + size + 8, height: top + size + 34, role: "img", id: "pro-map",
    "aria-label": `Take-point map: for each p and q, whether a Bulka of ${bulka} stakes is enough to declare Pro` },
  ...cells, ...marks, ...ticks,
  svg("text", { x: left + size / 2, y: top + size + 30, "text-anchor": "middle" }, "p: chance against the challenger now"));
  const t = i >= 0 && j >= 0 ? chart.threshold[i][j] : null;
  const what = verdict(t, bulka);
  $("pro-body").replaceChildren(
    el("p", { id: "pro-verdict", class: `verdict ${what}`, "aria-live": "polite" }, el("b", {}, what === "declare" ? "Declare" : "Wait"),
      `: at p ${pick.p}, q ${pick.q} declaring pays ` + (t === null ? "at no Bulka" : `once the Bulka holds ${fmt(t)} stakes or more`) +
      `; it holds ${fmt(bulka)}.`),
    el("div", { class: "pro-map-box" }, map,
      el("ul", { class: "legend-list" }, el("li", {}, el("span", { class: "swatch declare" }), " declare"),
        el("li", {}, el("span", { class: "swatch wait" }), " wait"), el("li", {}, el("span", { class: "swatch lab" }), " the lab's players"))),
    el("table", { class: "score", id: "lab-players" }, el("caption", {}, "Where the lab's players sit"),
      el("tr", {}, ["player", "p", "q", "declare from (stakes)", `at ${fmt(bulka)}`, "measured in"].map((h) => el("th", { scope: "col" }, h))),
      chart.players.map((pl) => el("tr", {}, el("td", {}, pl.label), el("td", {}, pl.p), el("td", {}, pl.q),
        el("td", {}, pl.threshold === null ? "never" : fmt(pl.threshold)), el("td", {}, verdict(pl.threshold, bulka)), el("td", {}, pl.source)))));
}

export function setupAnalysis() {
  const open = (input, path, set) => input.addEventListener("change", async () => {
    try {
      set(await api("POST", path, await readFile(input), "application/json"));
      showError("");
    } catch (e) { set(null); showError(e.message); }
  });
  open($("decl-file"), "/api/analysis/declarations", (d) => { decl = d; drawForest(); });
  open($("pro-file"), "/api/analysis/pro-chart", (c) => { chart = c; drawPro(); });
}
