// What every view uses: building nodes, drawing cards, calling the API, numbers.
export const $ = (id) => document.getElementById(id);
export const SUITS = { S: "Spade", C: "Coppe", D: "Denari", B: "Bastoni" };
export const ROLES = ["challenger", "dealer"];

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

// Ranks in words: B, C and R are also suit letters, so a card is never named by its code.
export const RANK_WORDS = { 2: "Two", 7: "7", 8: "8", 9: "9", 10: "10", B: "Bube", C: "Cavall", R: "Re", A: "Asso" };
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

// The four Italian suits drawn in SVG (24x24): a sword, a cup, a coin, a baton.
const PIPS = {
  S: () => [svg("path", { d: "M12 1.5 L14.2 14.5 L9.8 14.5 Z" }), svg("rect", { x: 5.5, y: 14.5, width: 13, height: 2.6, rx: 1.2 }),
    svg("rect", { x: 10.9, y: 17, width: 2.2, height: 4 }), svg("circle", { cx: 12, cy: 21.8, r: 1.7 })],
  C: () => [svg("path", { d: "M4.5 3.5 H19.5 C19.5 10 16.5 13 12 13 C7.5 13 4.5 10 4.5 3.5 Z" }),
    svg("rect", { x: 10.8, y: 12.5, width: 2.4, height: 6 }), svg("ellipse", { cx: 12, cy: 20, rx: 5.5, ry: 2 })],
  D: () => [svg("circle", { cx: 12, cy: 12, r: 9.5 }),
    svg("circle", { cx: 12, cy: 12, r: 5.5, fill: "none", stroke: "#fff", "stroke-width": 1.6 }),
    svg("circle", { cx: 12, cy: 12, r: 1.8, fill: "#fff" })],
  B: () => [svg("path", { d: "M6.5 21 L17.5 3", stroke: "currentColor", "stroke-width": 4.2, "stroke-linecap": "round", fill: "none" }),
    svg("circle", { cx: 9.3, cy: 16.4, r: 1.5, fill: "#fff" }), svg("circle", { cx: 12, cy: 12, r: 1.5, fill: "#fff" }),
    svg("circle", { cx: 14.7, cy: 7.6, r: 1.5, fill: "#fff" })],
};

export function suitIcon(suit, cls = "pip") {
  const icon = svg("svg", { viewBox: "0 0 24 24", class: cls, "aria-hidden": "true", focusable: "false" });
  icon.append(...PIPS[suit]());
  return icon;
}

// A card face: its rank and suit in the corner, the suit drawn large in the middle, the name for screen readers.
export function cardNode(card, tag = "div", attrs = {}) {
  const name = cardLabel(card);
  return el(tag, { class: `card ${card.suit}`, title: name, "aria-label": name, role: tag === "div" ? "img" : null,
    "data-card": card.name, ...attrs },
    el("span", { class: "corner", "aria-hidden": "true" }, el("span", { class: "rank" }, card.rank), suitIcon(card.suit, "corner-pip")),
    suitIcon(card.suit),
    el("span", { class: "suit", "aria-hidden": "true" }, SUITS[card.suit]));
}

// Computer players are named by their spec ("pimc:samples=16,declare=never"): shown by the player's
// name alone ("pimc"), the spec in full in a details line. Names that would look alike keep a number.
export function shortNames(names) {
  const out = new Map();
  const taken = new Set(names.filter((n) => !n.includes(":")));  // a plain name keeps itself
  for (const n of names) {
    if (out.has(n)) continue;
    if (!n.includes(":")) { out.set(n, n); continue; }
    let short = n.split(":")[0] + (n.match(/#\d+$/) || [""])[0];
    if (taken.has(short)) {
      let k = 2;
      while (taken.has(`${short} (${k})`)) k += 1;
      short = `${short} (${k})`;
    }
    taken.add(short);
    out.set(n, short);
  }
  return out;
}

// The details line: each shortened name with its full spec.
export function specsLine(node, names) {
  const shown = [...names.entries()].filter(([full, short]) => full !== short);
  node.hidden = shown.length === 0;
  node.replaceChildren(...shown.map(([full, short]) => el("span", { class: "spec" }, el("b", {}, short), " = ", el("code", {}, full))));
}

// The page's settings, kept in its storage across reloads.
const STORE = "trappola-settings";
export function loadSettings() {
  try { return JSON.parse(localStorage.getItem(STORE)) || {}; } catch (e) { return {}; }
}
export function saveSettings(patch) {
  try { localStorage.setItem(STORE, JSON.stringify({ ...loadSettings(), ...patch })); } catch (e) { /* storage off */ }
}

export function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

// An API call; a refusal throws an Error carrying the server's message and the status.
// ``body`` is sent as JSON, or as it is when ``fileType`` names the type of a file's text.
export async function api(method, path, body, fileType) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.body = fileType ? body : JSON.stringify(body);
    opts.headers["Content-Type"] = fileType || "application/json";
  }
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.detail) || `${res.status} ${res.statusText}`);
    err.status = res.status;
    throw err;
  }
  return data;
}

export function readFile(input) {
  return new Promise((resolve, reject) => {
    const f = input.files[0];
    if (!f) return reject(new Error("no file chosen"));
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(new Error(`cannot read ${f.name}`));
    reader.readAsText(f);
  });
}

export function cardLabel(c) { return `${RANK_WORDS[c.rank]} of ${SUITS[c.suit]}`; }
export function fmt(x) { return Number.isInteger(x) ? String(x) : Number(x).toFixed(2); }
export function signed(x) { return (x > 0 ? "+" : "") + fmt(x); }
// A mean point difference, to a tenth.
export function pointsText(x) { return (x > 0 ? "+" : "") + x.toFixed(1); }

export function declList(node, decls) {
  node.replaceChildren(...decls.map((d) => el("li", {}, d.text, d.manko ? el("span", { class: "manko" }, ` (${d.manko})`) : "")));
}

// "you win", "rule wins": the person is "you".
export function outcomeText(result, nm = (n) => n) {
  if (result.winner) {
    const who = result.winner === "you" ? "You win" : `${nm(result.winner)} wins`;
    return who + (result.outcome === "forfeit" ? " (forfeit)" : "");
  }
  return result.outcome === "tie" ? "Alifer: a tie in points" : "Alifer agreed";
}

// The score table of a finished partie, then why each bonus point was scored. ``order``: the seats
// left to right (the person's first, as on the side panel). ``tokens``: whether to end with the partie's
// own tokens row (stake, declarations, bonuses); the end box shows every part in its own table instead.
export function resultTable(result, names, order = [0, 1], tokens = true) {
  const s = result.scores;
  const row = (label, f, note) => el("tr", {}, el("th", { scope: "row" }, label, note ? el("small", { class: "note" }, note) : null),
    ...order.map((i) => el("td", {}, f(i))));
  return el("table", { class: "score result" },
    el("tr", {}, el("td", {}, ""), ...order.map((i) => el("th", { scope: "col" }, names[i]))),
    row("card points", (i) => s[i].card_points, null),
    row("declarations", (i) => s[i].declaration_points, null),
    row("trick bonuses", (i) => s[i].bonus_points, null),
    row("total", (i) => s[i].total, "the higher wins"),
    tokens ? row("tokens", (i) => signed(result.tokens[i]), "stake, declarations, bonuses") : null);
}

// Why points were scored, one line each, players by the names shown (``nm``: full name -> shown name).
export function detailsList(result, names, nm = (n) => n) {
  if (!result.details.length) return null;
  return el("ul", { class: "details" }, result.details.map((d) => {
    const who = nm(names[d.seat]), other = nm(names[1 - d.seat]);
    let text = `${who}: ${d.what}, ${d.points} points`;
    if (d.tokens) {
      const payer = other === "you" ? "you pay" : `${other} pays`;
      text += d.kind === "bonus" ? `; ${payer} ${d.tokens} tokens into the Bulka` : `; ${payer} ${who} ${d.tokens} tokens`;
    }
    return el("li", { class: d.kind }, text);
  }));
}
