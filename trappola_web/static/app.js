// Trappola lab in the browser: three views over the JSON API (trappola_web/app.py).
"use strict";

const $ = (id) => document.getElementById(id);
const SUITS = { S: "Spade", C: "Coppe", D: "Denari", B: "Bastoni" };
const ROLES = ["challenger", "dealer"];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function cardNode(card, tag = "div", attrs = {}) {
  return el(tag, { class: `card ${card.suit}`, title: `${card.rank} of ${SUITS[card.suit]}`, "data-card": card.name, ...attrs },
    el("span", { class: "rank" }, card.rank), el("span", { class: "suit" }, SUITS[card.suit]));
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function api(method, path, body, raw = false) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.body = raw ? body : JSON.stringify(body);
    opts.headers["Content-Type"] = raw ? "text/plain" : "application/json";
  }
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) throw new Error((data && data.detail) || `${res.status} ${res.statusText}`);
  return data;
}

function cardLabel(c) { return `${c.rank} ${SUITS[c.suit]}`; }
function fmt(x) { return Number.isInteger(x) ? String(x) : Number(x).toFixed(2); }
function signed(x) { return (x > 0 ? "+" : "") + fmt(x); }

// ------------------------------------------------------------------ views
function route() {
  const view = (location.hash || "#play").slice(1);
  for (const name of ["play", "replay", "leaderboard"]) {
    $(`view-${name}`).hidden = name !== view;
    document.querySelector(`nav a[data-view=${name}]`).classList.toggle("active", name === view);
  }
}
window.addEventListener("hashchange", route);

// ------------------------------------------------------------------- play
let table = null;
let pollTimer = null;

$("mode").addEventListener("change", () => {
  $("parties-label").hidden = $("advisers-label").hidden = $("mode").value !== "session";
});

$("setup").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const seed = $("seed").value.trim();
  const body = {
    opponent: $("opponent").value.trim(),
    parties: $("mode").value === "session" ? Number($("parties").value) : 1,
    seat: $("seat").value,
    seed: seed === "" ? null : Number(seed),
    advisers: $("mode").value === "session" ? $("advisers").value.split(",").map((s) => s.trim()).filter(Boolean) : [],
  };
  try {
    const state = await api("POST", "/api/tables", body);
    showError("");
    table = null;
    drawTable(state);
  } catch (e) { showError(e.message); }
});

async function play(action) {
  try {
    drawTable(await api("POST", `/api/tables/${table.id}/action`, { action }));
    showError("");
  } catch (e) { showError(e.message); }
}

async function nextPartie() {
  try { drawTable(await api("POST", `/api/tables/${table.id}/next`)); showError(""); }
  catch (e) { showError(e.message); }
}

function schedulePoll(state) {
  clearTimeout(pollTimer);
  const waiting = state.phase !== "over" && !state.paused && !state.your_turn && !state.error;
  if (!waiting) return;
  pollTimer = setTimeout(async () => {
    try { drawTable(await api("GET", `/api/tables/${state.id}`)); }
    catch (e) { showError(e.message); }
  }, 250);
}

function declList(node, decls) {
  node.replaceChildren(...decls.map((d) => el("li", {}, d.text, d.manko ? el("span", { class: "manko" }, ` (${d.manko})`) : "")));
}

function drawTable(state) {
  schedulePoll(state);
  if (table && table.id === state.id && table.version === state.version) return;
  table = state;
  $("table").hidden = false;
  $("table").dataset.version = `${state.id}/${state.version}`;
  const p = state.partie;
  // Waiting (a session with advisers), the person watches from the challenger's side.
  const watching = p && p.me === null;
  const me = p ? (watching ? 0 : p.me) : null;
  $("opp-name").textContent = watching ? p.names[1] : (p ? p.names[1 - me] : state.opponent);
  $("my-name").textContent = watching ? `${p.names[0]} (you wait)` : "you";
  $("my-role").textContent = p ? `(${ROLES[me]})` : "";
  $("opp-role").textContent = p ? `(${ROLES[1 - me]})` : "";
  $("advice").replaceChildren(...(p && p.advice && p.advice.length ? [el("b", {}, "Advice: "),
    el("ul", { id: "advice-list" }, p.advice.map((a) => el("li", {}, `${a.adviser}: ${a.name}`)))] : []));
  $("opp-backs").replaceChildren(...(p ? Array.from({ length: p.cards_left[1 - me] }, () => el("span", { class: "back" })) : []));
  declList($("opp-decls"), p ? p.declarations[1 - me] : []);
  declList($("my-decls"), p ? p.declarations[me] : []);

  // The trick on the table and the last one taken.
  const trick = [];
  if (p && p.lead) trick.push(el("div", {}, el("div", { class: "role" }, p.lead.seat === me && !watching ? "you led" : `${p.names[p.lead.seat]} led`), cardNode(p.lead.card)));
  $("trick").replaceChildren(...trick);
  const lt = p && p.last_trick;
  $("last-trick").replaceChildren(...(lt ? ["last trick:", cardNode(lt.lead), cardNode(lt.follow),
    `to ${lt.winner === me && !watching ? "you" : p.names[lt.winner]}`] : []));

  // Your hand: legal cards are buttons that play.
  const legal = new Set(state.legal ? state.legal.cards : []);
  $("hand").replaceChildren(...(p ? p.hand.map((c) => cardNode(c, "button", {
    class: `card ${c.suit}${legal.has(c.id) ? " legal" : ""}`, disabled: !legal.has(c.id),
    onclick: () => play(c.id),
  })) : []));
  $("buttons").replaceChildren(...(state.legal ? state.legal.buttons.map((b) =>
    el("button", { "data-action": b.action, onclick: () => play(b.action) }, b.name)) : []));

  // Status line.
  let status = "";
  if (state.error) status = state.error;
  else if (state.phase === "over") status = "The game is over.";
  else if (state.paused) status = "Partie over.";
  else if (state.your_turn) status = state.phase === "pro" ? "Declare Pro?" : (state.phase === "advice" ? `Advise ${p.names[0]}` : (p.phase === "alifer" ? `${p.names[1 - me]} proposes Alifer` : "Your turn"));
  else status = state.ledger.players.length > 2 ? "The others are playing" : `${state.opponent} is thinking`;
  $("status").textContent = status;
  $("status").className = "status" + (state.thinking ? " thinking" : "");

  drawScore(state);
  drawLedger(state);
  $("log").replaceChildren(...state.log.map((line) => el("li", {}, line)));
  const logBox = $("log"); logBox.scrollTop = logBox.scrollHeight;
  drawPartieEnd(state);
}

function drawScore(state) {
  const p = state.partie;
  if (!p) { $("score").replaceChildren(); return; }
  const me = p.me ?? 0, op = 1 - me;
  $("score").replaceChildren(
    el("tr", {}, el("th", {}, ""), el("th", {}, p.me === null ? p.names[0] : "you"), el("th", {}, p.names[op])),
    el("tr", {}, el("td", {}, "card points"), el("td", {}, p.card_points[me]), el("td", {}, p.card_points[op])),
    el("tr", {}, el("td", {}, "tricks"), el("td", {}, p.tricks_won[me]), el("td", {}, p.tricks_won[op])),
    el("tr", {}, el("td", {}, "trick"), el("td", { colspan: 2 }, `${p.trick} of 9`)),
    el("tr", {}, el("td", {}, "stakes x"), el("td", { colspan: 2 }, p.multiplier)),
    el("tr", {}, el("td", {}, "stock bottom"), el("td", { colspan: 2 }, cardLabel(p.bottom))));
}

function drawLedger(state) {
  const l = state.ledger;
  const rows = l.players.map((n) => el("tr", {}, el("td", {}, n), el("td", {}, fmt(l.balances[n] ?? 0)),
    el("td", {}, l.streaks[n] ?? 0)));
  const hist = l.history.slice(-8).map((r) => el("tr", {}, el("td", {}, `#${r.index + 1}${r.multiplier > 1 ? ` x${r.multiplier}` : ""}${r.pro ? " Pro" : ""}`),
    el("td", {}, r.winner || r.outcome.replace("_", " ")), el("td", {}, signed(r.tokens.you ?? 0))));
  $("ledger").replaceChildren(
    el("div", {}, `Partie ${Math.min(l.parties_played + 1, l.max_parties)} of ${l.max_parties} · Bulka ${fmt(l.bulka)}`),
    el("table", {}, el("tr", {}, el("th", {}, "player"), el("th", {}, "balance"), el("th", {}, "streak")), rows),
    hist.length ? el("table", {}, el("tr", {}, el("th", {}, "partie"), el("th", {}, "won by"), el("th", {}, "your tokens")), hist) : "");
}

function resultTable(result, names) {
  const s = result.scores;
  const row = (label, f) => el("tr", {}, el("td", {}, label), el("td", {}, f(0)), el("td", {}, f(1)));
  return el("table", { class: "score" },
    el("tr", {}, el("th", {}, ""), el("th", {}, names[0]), el("th", {}, names[1])),
    row("card points", (i) => s[i].card_points), row("declarations", (i) => s[i].declaration_points),
    row("trick bonuses", (i) => s[i].bonus_points), row("total", (i) => s[i].total),
    row("tokens", (i) => signed(result.tokens[i])));
}

function outcomeText(result) {
  if (result.winner) return `${result.winner} wins` + (result.outcome === "forfeit" ? " (forfeit)" : "");
  // In a session an Alifer is replayed at double stakes; the ledger shows it.
  return result.outcome === "tie" ? "Alifer: a tie in points" : "Alifer agreed";
}

function drawPartieEnd(state) {
  const box = $("partie-end");
  const lp = state.last_partie;
  const show = lp && (state.paused || state.phase === "over");
  box.hidden = !show;
  if (!show) return;
  const parts = [el("h2", {}, outcomeText(lp.result)), resultTable(lp.result, lp.names)];
  lp.names.forEach((n, i) => parts.push(el("div", {}, el("b", {}, `${n} (${ROLES[i]}) held:`)),
    el("div", { class: "hand" }, lp.dealt[i].map((c) => cardNode(c)))));
  if (state.phase === "over") {
    const l = state.ledger;
    parts.push(el("p", {}, `Game over. Your balance: ${signed(l.balances.you)}` +
      (l.final_share ? ` (the Bulka was split: ${fmt(l.final_share)} each)` : "")));
    parts.push(el("button", { id: "new-game", class: "primary", onclick: () => $("start").click() }, "New game"));
  } else {
    parts.push(el("button", { id: "next-partie", class: "primary", onclick: nextPartie }, "Next partie"));
  }
  box.replaceChildren(...parts);
}

// ----------------------------------------------------------------- replay
let replay = null;  // {fileId, games, frames, step}

function readFile(input) {
  return new Promise((resolve, reject) => {
    const f = input.files[0];
    if (!f) return reject(new Error("no file chosen"));
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(new Error(`cannot read ${f.name}`));
    reader.readAsText(f);
  });
}

$("replay-file").addEventListener("change", async () => {
  try {
    const data = await api("POST", "/api/replays", await readFile($("replay-file")), true);
    replay = { fileId: data.id, games: data.games };
    const sel = $("game-select");
    sel.replaceChildren(...data.games.map((g) => el("option", { value: g.index },
      (g.session ? `session ${g.session.session ?? "?"}, partie ${g.session.partie_index + 1}${g.session.pro_declarer ? " (Pro)" : ""}`
        : `deal ${g.deal_index ?? "?"}${g.game ? " (seats swapped)" : ""}`) + `: ${g.players[0]} vs ${g.players[1]}, ` +
      `${g.winner ? g.winner + " won" : g.outcome.replace("_", " ")} ${g.points[0]}-${g.points[1]}`)));
    sel.hidden = false;
    showError("");
    await loadGame(0);
  } catch (e) { showError(e.message); }
});

$("game-select").addEventListener("change", () => loadGame(Number($("game-select").value)));

async function loadGame(k) {
  try {
    const data = await api("GET", `/api/replays/${replay.fileId}/${k}`);
    replay.frames = data.frames;
    replay.summary = data.summary;
    $("replay").hidden = false;
    showStep(0);
  } catch (e) { showError(e.message); }
}

function showStep(k) {
  const frames = replay.frames;
  replay.step = Math.max(0, Math.min(frames.length - 1, k));
  const f = frames[replay.step];
  $("step-label").textContent = `step ${replay.step} of ${frames.length - 1}`;
  $("step-action").textContent = f.action ? `${f.names[f.action.seat]}: ${f.action.name}` : "the deal";
  for (const s of [0, 1]) {
    $(`r-name-${s}`).textContent = `${f.names[s]} (${ROLES[s]})${f.to_act === s && f.phase !== "done" ? " to play" : ""}`;
    $(`r-hand-${s}`).replaceChildren(...f.hands[s].map((c) => cardNode(c)));
    declList($(`r-decls-${s}`), f.declarations[s]);
  }
  $("r-stock").replaceChildren(...f.stock.map((c, i) => cardNode(c, "div",
    i === f.stock.length - 1 ? { class: `card ${c.suit} bottom`, title: "face-up bottom card" } : {})));
  $("r-trick").replaceChildren(...(f.lead ? [el("div", {}, el("div", { class: "role" }, `${f.names[f.lead.seat]} led`), cardNode(f.lead.card))] : []));
  const lt = f.last_trick;
  $("r-last-trick").replaceChildren(...(lt ? ["last trick:", cardNode(lt.lead), cardNode(lt.follow), `to ${f.names[lt.winner]}`] : []));
  $("r-score").replaceChildren(
    el("tr", {}, el("th", {}, ""), el("th", {}, f.names[0]), el("th", {}, f.names[1])),
    el("tr", {}, el("td", {}, "card points"), el("td", {}, f.card_points[0]), el("td", {}, f.card_points[1])),
    el("tr", {}, el("td", {}, "tricks"), el("td", {}, f.tricks_won[0]), el("td", {}, f.tricks_won[1])),
    el("tr", {}, el("td", {}, "trick"), el("td", { colspan: 2 }, `${f.trick} of 9`)));
  $("r-values").replaceChildren(...(f.values ? [
    el("h3", {}, `${f.names[f.action.seat]} considered`),
    el("table", { class: "values" }, el("tr", {}, el("th", {}, "card"), el("th", {}, "value"), el("th", {}, "win-loss"), el("th", {}, "points")),
      f.values.map((v) => el("tr", { class: v.chosen ? "chosen" : "" }, el("td", {}, cardLabel(v.card)),
        el("td", {}, v.objective.toFixed(3)), el("td", {}, v.sign.toFixed(2)), el("td", {}, signed(Number(v.points.toFixed(1))))))),
  ] : []));
  drawReplaySession(replay.summary.session, f);
  $("r-result").replaceChildren(...(f.result ? [el("h3", {}, "Result"), el("p", { id: "r-outcome" }, outcomeText(f.result)),
    resultTable(f.result, f.names), el("ul", {}, f.result.details.map((d) => el("li", {}, `${f.names[d.seat]}: ${d.what} ${d.points} pts, ${d.tokens} tokens`)))] : []));
  $("first").disabled = $("prev").disabled = replay.step === 0;
  $("next").disabled = $("last").disabled = replay.step === frames.length - 1;
}

// A partie of a saved Bulka session: its session around it, and the advice
// given for the decision about to be taken.
function drawReplaySession(s, f) {
  if (!s) { $("r-session").replaceChildren(); $("r-advice").replaceChildren(); return; }
  const offer = s.pro_offer ? `${s.pro_offer.player} (streak ${s.pro_offer.streak}) ${s.pro_offer.declared ? "declared" : "did not declare"} Pro` : "";
  const rows = Object.entries(s.balances).map(([n, b]) => el("tr", {}, el("td", {}, n), el("td", {}, signed(b))));
  $("r-session").replaceChildren(el("h3", {}, `Session ${s.session ?? ""}, partie ${s.partie_index + 1}`),
    el("p", { id: "r-session-line" }, [offer, s.pro_declarer ? `Pro partie of ${s.pro_declarer}` : "",
      s.replay ? `Alifer replay, stakes x${s.multiplier}` : "", `waiting: ${s.queue.join(", ") || "nobody"}`,
      `Bulka after it: ${fmt(s.bulka)}${s.bulka_won ? ` (${fmt(s.bulka_won)} taken by the Pro winner)` : ""}`]
      .filter(Boolean).join(" · ")),
    el("table", { class: "score" }, el("tr", {}, el("th", {}, "balance after it"), el("th", {}, "")), rows),
    s.final_share !== null && s.final_share !== undefined ? el("p", {}, `The session ends: the Bulka is split, ${fmt(s.final_share)} each.`) : "");
  $("r-advice").replaceChildren(...(f.advice && f.advice.length ? [el("h3", {}, "Advice"),
    el("ul", { id: "r-advice-list" }, f.advice.map((a) => el("li", {}, `${a.adviser}: ${a.name}`)))] : []));
}

$("first").addEventListener("click", () => showStep(0));
$("prev").addEventListener("click", () => showStep(replay.step - 1));
$("next").addEventListener("click", () => showStep(replay.step + 1));
$("last").addEventListener("click", () => showStep(replay.frames.length - 1));
document.addEventListener("keydown", (ev) => {
  if ($("view-replay").hidden || !replay || !replay.frames || ev.target.tagName === "INPUT") return;
  const moves = { ArrowLeft: -1, ArrowRight: 1 };
  if (ev.key in moves) showStep(replay.step + moves[ev.key]);
  else if (ev.key === "Home") showStep(0);
  else if (ev.key === "End") showStep(replay.frames.length - 1);
});

// ------------------------------------------------------------ leaderboard
$("board-file").addEventListener("change", async () => {
  try {
    const data = await api("POST", "/api/leaderboard", await readFile($("board-file")), true);
    $("board").replaceChildren(...data.tables.map((t) => el("table", { class: "leader-table" },
      el("caption", {}, t.caption), el("tr", {}, t.columns.map((c) => el("th", {}, c))),
      t.rows.map((r) => el("tr", {}, r.map((c) => el("td", {}, c)))))));
    showError("");
  } catch (e) { $("board").replaceChildren(); showError(e.message); }
});

// ------------------------------------------------------------------ start
(async () => {
  route();
  try {
    const players = await api("GET", "/api/players");
    $("player-list").replaceChildren(...players.map((p) => el("option", { value: p.name }, p.about)));
  } catch (e) { showError(e.message); }
})();
