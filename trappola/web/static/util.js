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

export function cardNode(card, tag = "div", attrs = {}) {
  return el(tag, { class: `card ${card.suit}`, title: `${card.rank} of ${SUITS[card.suit]}`, "data-card": card.name, ...attrs },
    el("span", { class: "rank" }, card.rank), el("span", { class: "suit" }, SUITS[card.suit]));
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

export function cardLabel(c) { return `${c.rank} ${SUITS[c.suit]}`; }
export function fmt(x) { return Number.isInteger(x) ? String(x) : Number(x).toFixed(2); }
export function signed(x) { return (x > 0 ? "+" : "") + fmt(x); }
// A mean point difference, to a tenth.
export function pointsText(x) { return (x > 0 ? "+" : "") + x.toFixed(1); }

export function declList(node, decls) {
  node.replaceChildren(...decls.map((d) => el("li", {}, d.text, d.manko ? el("span", { class: "manko" }, ` (${d.manko})`) : "")));
}

// "you win", "rule wins": the person is "you".
export function outcomeText(result) {
  if (result.winner) {
    const who = result.winner === "you" ? "You win" : `${result.winner} wins`;
    return who + (result.outcome === "forfeit" ? " (forfeit)" : "");
  }
  return result.outcome === "tie" ? "Alifer: a tie in points" : "Alifer agreed";
}

// The score table of a finished partie, then why each bonus point was scored.
export function resultTable(result, names) {
  const s = result.scores;
  const row = (label, f, title) => el("tr", { title }, el("td", {}, label), el("td", {}, f(0)), el("td", {}, f(1)));
  return el("table", { class: "score result" },
    el("tr", {}, el("th", {}, ""), el("th", {}, names[0]), el("th", {}, names[1])),
    row("card points", (i) => s[i].card_points, "points of the cards in the tricks won (section 2.4)"),
    row("declarations", (i) => s[i].declaration_points, "points of the declarations made (section 4)"),
    row("trick bonuses", (i) => s[i].bonus_points, "points for tricks won with a Two, Marc and the last trick (section 5)"),
    row("total", (i) => s[i].total, "the higher total wins the partie; equal totals are an Alifer"),
    row("tokens", (i) => signed(result.tokens[i]), "stake, declaration and bonus payments of this partie"));
}

export function detailsList(result, names) {
  if (!result.details.length) return null;
  return el("ul", { class: "details" }, result.details.map((d) => el("li", { class: d.kind }, d.text)));
}
