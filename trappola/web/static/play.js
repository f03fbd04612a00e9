// Play: you against a computer player, one partie or a Bulka session (trappola/web/play.py).
// A session with advisers seats 3-4 players: while you wait, the partie of the
// other two is shown from the onlookers' side (no hand); when you defend a Pro
// partie, the waiting players' advice is listed beside your hand.
// The game's address is #play/<table id>, so a reload resumes it.
import { $, el, cardNode, api, showError, fmt, signed, cardLabel, declList, outcomeText, resultTable,
  detailsList, pointsText, ROLES } from "./util.js";

const TRICK_HOLD_MS = 1100;  // a completed trick stays on the felt this long

let table = null;       // the latest state from the server
let busy = false;       // a request of the person is in flight: input is disabled
let pollTimer = null;
let held = null;        // {trick, until}: the completed trick still shown
let heldTimer = null;
let hint = null;        // {version, values} for the current turn

export function currentTableId() { return table ? table.id : null; }

function running() { return table && table.phase !== "over"; }

function setAddress(id) {
  const want = id ? `#play/${id}` : "#play";
  if (location.hash !== want) history.replaceState(null, "", want);
}

// ------------------------------------------------------------- requests
async function request(method, path, body) {
  busy = true;
  if (table) drawTable(table, true);
  try {
    const state = await api(method, path, body);
    showError("");
    return state;
  } catch (e) {
    if (e.status === 410 || e.status === 404) gone(e.message);
    else showError(e.message);
    return null;
  } finally {
    busy = false;
  }
}

async function create() {
  const seed = $("seed").value.trim();
  const body = {
    opponent: $("opponent").value.trim(),
    parties: $("mode").value === "session" ? Number($("parties").value) : 1,
    seat: $("seat").value,
    seed: seed === "" ? null : Number(seed),
    advisers: $("mode").value === "session" ? $("advisers").value.split(",").map((s) => s.trim()).filter(Boolean) : [],
  };
  const state = await request("POST", "/api/tables", body);
  if (!state) { redraw(null); return; }
  $("gone").hidden = true;
  table = null;
  held = null;
  hint = null;
  setAddress(state.id);
  drawTable(state);
}

// After a request: the new state, or the table as it was (input enabled again) if it was refused.
function redraw(state) {
  if (state) drawTable(state, true);
  else if (table) drawTable(table, true);
}

async function discardAndCreate() {
  $("confirm-discard").hidden = true;
  if (table) {
    try { await api("DELETE", `/api/tables/${table.id}`); } catch (e) { /* already gone */ }
  }
  table = null;
  await create();
}

async function play(action) {
  if (busy || !table) return;
  const state = await request("POST", `/api/tables/${table.id}/action`, { action });
  redraw(state);
}

async function nextPartie() {
  if (busy || !table) return;
  const state = await request("POST", `/api/tables/${table.id}/next`, {});
  held = null;
  redraw(state);
}

// The address names a table: show it (a reload, a shared link, back/forward).
export async function resume(id) {
  if (table && table.id === id) return;
  try {
    const state = await api("GET", `/api/tables/${id}`);
    $("gone").hidden = true;
    table = null;
    drawTable(state);
  } catch (e) {
    if (e.status === 410 || e.status === 404) gone(e.message);
    else showError(e.message);
  }
}

function gone(message) {
  clearTimeout(pollTimer);
  table = null;
  $("table").hidden = true;
  $("partie-end").hidden = true;
  const box = $("gone");
  box.replaceChildren(el("b", {}, "This game is no longer on the server. "), message, " Start a new game above.");
  box.hidden = false;
  setAddress(null);
}

function schedulePoll(state) {
  clearTimeout(pollTimer);
  const waiting = state.phase !== "over" && !state.paused && !state.your_turn && !state.error;
  if (!waiting) return;
  pollTimer = setTimeout(async () => {
    if (!table || table.id !== state.id) return;
    try { drawTable(await api("GET", `/api/tables/${state.id}`)); }
    catch (e) {
      if (e.status === 410 || e.status === 404) gone(e.message);
      else { showError(e.message); schedulePoll(state); }
    }
  }, 250);
}

// --------------------------------------------------------------- drawing
function drawTable(state, force = false) {
  schedulePoll(state);
  const fresh = !table || table.id !== state.id || table.version !== state.version;
  if (!fresh && !force) return;
  const before = table && table.id === state.id ? table : null;
  table = state;
  if (fresh) noteCompletedTrick(before, state);
  $("table").hidden = false;
  $("table").dataset.version = `${state.id}/${state.version}`;
  $("table").classList.toggle("busy", busy);
  const p = state.partie;
  const watching = isWatching(state);
  const me = p ? seatShown(p) : null;
  $("opp-name").textContent = p ? p.names[1 - me] : state.opponent;
  $("my-name").textContent = watching ? `${p.names[0]} (you wait)` : "you";
  $("my-role").textContent = p ? `(${ROLES[me]})` : "";
  $("opp-role").textContent = p ? `(${ROLES[1 - me]})` : "";
  $("opp-backs").replaceChildren(...(p ? Array.from({ length: p.cards_left[1 - me] }, () => el("span", { class: "back" })) : []));
  declList($("opp-decls"), p ? p.declarations[1 - me] : []);
  declList($("my-decls"), p ? p.declarations[me] : []);
  drawTrick(state);
  drawHand(state);
  drawAdvice(state);
  drawStatus(state);
  drawPro(state);
  drawScore(state);
  drawLedger(state);
  drawTricks(state);
  $("log").replaceChildren(...state.log.map((line) => el("li", {}, line)));
  const logBox = $("log"); logBox.scrollTop = logBox.scrollHeight;
  drawPartieEnd(state);
  drawHint(state);
}

// While the person waits (p.me is null) the board shows the challenger at the bottom.
function isWatching(state) { return Boolean(state.partie && state.partie.me === null); }
function seatShown(p) { return p.me === null ? 0 : p.me; }
function seatName(state, seat) {
  const p = state.partie;
  if (!p) return state.opponent;
  return seat === p.me ? "you" : p.names[seat];
}
function otherName(state) { return state.partie && state.partie.me !== null ? state.partie.names[1 - state.partie.me] : state.opponent; }

// The advice of the waiting players for the person's decision (a Pro partie it defends).
function drawAdvice(state) {
  const box = $("advice");
  const advice = state.partie && !state.paused ? state.partie.advice || [] : [];
  box.hidden = advice.length === 0;
  box.replaceChildren(...(advice.length ? [el("b", { title: "what the waiting players suggest, from the public record only; you decide" }, "Advice: "),
    el("ul", { id: "advice-list" }, advice.map((a) => el("li", {}, el("b", {}, a.adviser), `: ${a.advice}`)))] : []));
}

function noteCompletedTrick(before, state) {
  const n = state.partie ? state.partie.tricks.length : 0;
  const m = before && before.partie ? before.partie.tricks.length : 0;
  if (n > m && state.partie) {
    held = { trick: state.partie.tricks[n - 1], until: Date.now() + TRICK_HOLD_MS };
    clearTimeout(heldTimer);
    heldTimer = setTimeout(() => { if (table) drawTrick(table); }, TRICK_HOLD_MS + 20);
  }
}

function drawTrick(state) {
  const p = state.partie;
  const who = (seat) => seatName(state, seat);
  const nodes = [];
  if (held && Date.now() < held.until) {  // the next lead shows once the completed trick has been seen
    const t = held.trick;
    nodes.push(el("div", { class: "played-card" }, el("div", { class: "role" }, `${who(t.leader)} led`), cardNode(t.lead)),
      el("div", { class: "played-card" }, el("div", { class: "role" }, who(1 - t.leader)), cardNode(t.follow)),
      el("div", { class: "trick-winner" }, `trick to ${who(t.winner)}`));
    $("trick").classList.add("completed");
  } else {
    $("trick").classList.remove("completed");
    if (p && p.lead) nodes.push(el("div", { class: "played-card" }, el("div", { class: "role" }, `${who(p.lead.seat)} led`), cardNode(p.lead.card)));
  }
  $("trick").replaceChildren(...nodes);
  const lt = p && p.last_trick;
  $("last-trick").replaceChildren(...(lt ? ["last trick:", cardNode(lt.lead), cardNode(lt.follow), `to ${who(lt.winner)}`] : []));
}

function drawHand(state) {
  const p = state.partie;
  const legal = new Set(state.legal ? state.legal.cards : []);
  const values = hint && hint.version === state.version ? new Map(hint.values.map((v) => [v.card.id, v])) : new Map();
  $("hand").replaceChildren(...(p ? p.hand.map((c) => {
    const ok = legal.has(c.id) && !busy;
    const node = cardNode(c, "button", {
      class: `card ${c.suit}${legal.has(c.id) ? " legal" : ""}`, disabled: !ok, onclick: () => play(c.id),
    });
    const v = values.get(c.id);
    if (v) node.append(el("span", { class: "value-badge", title: "pimc's mean outcome for this card" }, v.sign.toFixed(2)));
    return node;
  }) : []));
  const buttons = state.legal && state.phase !== "pro" ? state.legal.buttons : [];
  $("buttons").replaceChildren(...buttons.map((b) =>
    el("button", { "data-action": b.action, title: b.help, disabled: busy, onclick: () => play(b.action) }, b.name)));
}

function drawStatus(state) {
  const p = state.partie;
  let status = "";
  if (state.error) status = state.error;
  else if (state.phase === "over") status = "The game is over.";
  else if (state.paused) status = "Partie over.";
  else if (state.your_turn) status = state.phase === "pro" ? "Declare Pro?" : (p.phase === "alifer" ? `${otherName(state)} proposes Alifer` : "Your turn");
  else if (state.phase === "pro") status = `${state.pro.dealer} decides whether to declare Pro`;
  else if (state.phase === "advice") status = p.me === 0 ? "The waiting players advise you" : `The waiting players advise ${p.names[0]}`;
  else if (isWatching(state)) status = `You wait: ${p.names[p.to_act]} is thinking`;
  else status = `${otherName(state)} is thinking`;
  $("status").textContent = status;
  $("status").className = "status" + (state.thinking ? " thinking" : "");
}

// The Pro decision (yours: what it costs and wins) and a Pro partie in play (whose).
function drawPro(state) {
  const offer = $("pro-offer");
  const pro = state.pro;
  if (pro && state.your_turn) {
    const button = (action, text) => {
      const b = state.legal.buttons.find((x) => x.action === action);
      return el("button", { "data-action": action, class: action === 47 ? "primary" : "", title: b ? b.help : "",
        disabled: busy, onclick: () => play(action) }, text);
    };
    offer.replaceChildren(
      el("h4", {}, "Declare Pro?"),
      el("p", {}, `You have won ${pro.streak} parties in a row, so you may declare Pro before this partie against ${pro.opponent}.`),
      el("ul", {},
        el("li", {}, `The Bulka holds `, el("b", { id: "pro-bulka" }, fmt(pro.bulka)), " tokens."),
        el("li", {}, `Declaring costs an extra stake of `, el("b", { id: "pro-extra" }, fmt(pro.extra_stake)),
          ` tokens now, on top of the normal stake of ${fmt(pro.stake)}.`),
        el("li", {}, "Win this partie and you take the whole Bulka (your streak starts again from 0); lose it and the extra stake stays in the Bulka."),
        el("li", {}, "Or wait: a normal partie, and the offer comes again while your streak lasts.")),
      el("div", { class: "buttons" }, button(47, `Declare Pro (pay ${fmt(pro.extra_stake)})`), button(48, "Not now")));
    offer.hidden = false;
  } else {
    offer.hidden = true;
  }
  const banner = $("pro-banner");
  const p = state.partie;
  const declarer = p && p.pro_declarer;
  if (declarer && !state.paused) {
    const mine = declarer === "you";
    banner.textContent = mine
      ? `Pro partie: you declared Pro. Win it and you take the Bulka (${fmt(state.ledger.bulka)} tokens).`
      : isWatching(state)
        ? `Pro partie: ${declarer} declared Pro against ${p.names[0]}. If ${declarer} wins it takes the Bulka (${fmt(state.ledger.bulka)} tokens).`
        : `Pro partie: ${declarer} declared Pro. If ${declarer} wins it takes the Bulka (${fmt(state.ledger.bulka)} tokens); beat it and the Bulka stays.`;
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
}

function drawScore(state) {
  const p = state.partie;
  if (!p) { $("score").replaceChildren(); return; }
  const me = seatShown(p), op = 1 - me;
  $("score").replaceChildren(
    el("tr", {}, el("th", {}, ""), el("th", {}, seatName(state, me)), el("th", {}, p.names[op])),
    el("tr", { title: "points of the cards in the tricks each has won (Asso 6, Re 5, Cavall 4, Bube 3)" },
      el("td", {}, "card points"), el("td", {}, p.card_points[me]), el("td", {}, p.card_points[op])),
    el("tr", {}, el("td", {}, "tricks"), el("td", {}, p.tricks_won[me]), el("td", {}, p.tricks_won[op])),
    el("tr", {}, el("td", {}, "trick"), el("td", { colspan: 2 }, `${Math.min(p.trick, 9)} of 9`)),
    el("tr", { id: "stakes-row", title: "The Alifer multiplier m: every stake and payment of this partie is multiplied by it. " +
      "Each Alifer (a tie, or an agreed abandon) replays the partie with m doubled; a decided partie sets it back to 1." },
      el("td", {}, el("span", { class: "explained" }, "stakes x")), el("td", { colspan: 2 }, p.multiplier + (p.replay ? " (Alifer replay)" : ""))),
    el("tr", { title: "the face-up bottom card of the stock: nobody will play it" },
      el("td", {}, "stock bottom"), el("td", { colspan: 2 }, cardLabel(p.bottom))));
}

function historyLabel(r) {
  let label = `#${r.index + 1}`;
  if (r.multiplier > 1) label += ` x${r.multiplier}`;
  if (r.pro) label += ` Pro (${r.pro === "you" ? "yours" : r.pro}${r.pro_result ? `, ${r.pro_result}` : ""})`;
  return label;
}

function drawLedger(state) {
  const l = state.ledger;
  const rows = l.players.map((n) => el("tr", {}, el("td", {}, n), el("td", {}, fmt(l.balances[n] ?? 0)),
    el("td", {}, l.streaks[n] ?? 0)));
  const hist = l.history.slice(-10).map((r) => {
    const parts = [];
    if (r.pro === "you" && r.pro_stake) parts.push(`Pro stake -${fmt(r.pro_stake)}`);
    if (r.pro === "you" && r.bulka_won) parts.push(`Bulka +${fmt(r.bulka_won)}`);
    // A partie the person waited through moves none of its tokens.
    return el("tr", { class: "history-row", title: parts.length ? `partie ${signed(r.tokens.you ?? 0)}, ${parts.join(", ")}` : "" },
      el("td", {}, historyLabel(r)), el("td", {}, r.winner || r.outcome.replace("_", " ")),
      el("td", {}, "you" in r.change ? signed(r.change.you) : "waited"), el("td", {}, fmt(r.balance.you ?? 0)));
  });
  $("ledger").replaceChildren(
    el("div", {}, `Partie ${Math.min(l.parties_played + (state.paused ? 0 : 1), l.max_parties)} of ${l.max_parties} · `,
      el("span", { class: "explained", title: "the pot: every stake and trick-bonus payment goes in; a Pro winner takes it all; what is left is split at the end" }, "Bulka"),
      ` ${fmt(l.bulka)}`),
    el("table", {}, el("tr", {}, el("th", {}, "player"), el("th", {}, "balance"),
      el("th", { title: "parties won in a row; at 2 or more the player may declare Pro when dealing" }, "streak")), rows),
    hist.length ? el("table", { class: "history" }, el("tr", {}, el("th", {}, "partie"), el("th", {}, "won by"),
      el("th", { title: "your tokens from this partie, the Pro stake and the Bulka won included" }, "you"),
      el("th", {}, "balance")), hist) : "");
}

function drawTricks(state) {
  const p = state.partie;
  const who = (seat) => seatName(state, seat);
  $("tricks").replaceChildren(...(p ? p.tricks.map((t) => el("li", {},
    `${who(t.leader)} ${cardLabel(t.lead)}, ${who(1 - t.leader)} ${cardLabel(t.follow)}: `, el("b", {}, who(t.winner))))
    : []));
}

function endSummary(state, lp) {
  const lines = [];
  if (!lp.played) {
    lines.push(el("p", { id: "end-tokens" }, `You waited: ${lp.names[0]} and ${lp.names[1]} played this partie. Balance: ${fmt(state.ledger.balances.you)}.`));
    if (lp.pro) lines.push(el("p", { class: "pro-note" }, `${lp.pro} declared Pro and ` +
      (lp.pro_result === "won" ? `won the Bulka (${fmt(lp.bulka_won)} tokens).` : lp.pro_result === "lost" ? "lost; the Bulka stays." : "tied: the Pro partie is replayed.")));
    return lines;
  }
  const you = lp.change.you;
  const partieTokens = lp.result.tokens[lp.names.indexOf("you")];
  let text = `Your tokens from this partie: ${signed(you)}`;
  const extras = [];
  if (lp.pro === "you" && lp.pro_stake) extras.push(`the partie ${signed(partieTokens)}, your Pro stake -${fmt(lp.pro_stake)}`);
  if (lp.pro === "you" && lp.bulka_won) extras.push(`the Bulka +${fmt(lp.bulka_won)}`);
  if (extras.length) text += ` (${extras.join(", ")})`;
  lines.push(el("p", { id: "end-tokens" }, text + `. Balance: ${fmt(state.ledger.balances.you)}.`));
  if (lp.pro) {
    const who = lp.pro === "you" ? "You" : lp.pro;
    const res = lp.pro_result === "won" ? `won and took the Bulka (${fmt(lp.bulka_won)} tokens)`
      : lp.pro_result === "lost" ? "lost; the Bulka stays" : "was tied: the Pro partie is replayed";
    lines.push(el("p", { class: "pro-note" }, `${who} declared Pro and ${res}.`));
  }
  if (lp.next === "replay") lines.push(el("p", {}, `An Alifer: the same two play again with a fresh deal at stakes x${lp.multiplier * 2}.`));
  return lines;
}

function drawPartieEnd(state) {
  const box = $("partie-end");
  const lp = state.last_partie;
  const show = lp && (state.paused || state.phase === "over");
  box.hidden = !show;
  if (!show) return;
  const over = state.phase === "over";
  const button = over
    ? el("button", { id: "new-game", class: "primary", onclick: () => { box.hidden = true; $("start").click(); } }, "New game")
    : el("button", { id: "next-partie", class: "primary", disabled: busy, onclick: nextPartie }, lp.next === "replay" ? "Replay the partie" : "Next partie");
  const parts = [el("div", { class: "end-head" }, el("h2", {}, outcomeText(lp.result)), button,
    over ? el("button", { onclick: () => { box.hidden = true; } }, "See the table") : null)];
  parts.push(...endSummary(state, lp));
  parts.push(resultTable(lp.result, lp.names.map((n) => (n === "you" ? "you" : n))));
  const why = detailsList(lp.result, lp.names);
  if (why) parts.push(el("h3", {}, "Why"), why);
  lp.names.forEach((n, i) => parts.push(el("div", {}, el("b", {}, `${n} (${ROLES[i]}) held:`)),
    el("div", { class: "hand small" }, lp.dealt[i].map((c) => cardNode(c)))));
  if (over) {
    const l = state.ledger;
    parts.push(el("p", { id: "game-over" }, `Game over. Your balance: ${signed(l.balances.you)}` +
      (l.final_share ? ` (the Bulka was split: ${fmt(l.final_share)} each)` : "")));
  }
  box.replaceChildren(...parts);
}

// -------------------------------------------------------------- the hint
async function drawHint(state) {
  const box = $("hint");
  const wanted = $("hint-on").checked && state.your_turn && state.phase === "partie" && state.legal && state.legal.cards.length > 1;
  if (!wanted) { box.hidden = true; return; }
  box.hidden = false;
  if (hint && hint.version === state.version) {
    box.replaceChildren(el("div", { class: "hint-title" }, "what pimc thinks (from your seat; mean over the layouts it sampled)"),
      el("table", { class: "values" }, el("tr", {}, el("th", {}, "card"), el("th", { title: "win +1, loss -1" }, "outcome"), el("th", {}, "points")),
        hint.values.map((v, k) => el("tr", { class: k === 0 ? "chosen" : "" }, el("td", {}, cardLabel(v.card)),
          el("td", {}, v.sign.toFixed(2)), el("td", {}, pointsText(v.points))))));
    return;
  }
  if (hint && hint.pending === state.version) return;
  hint = { pending: state.version };
  box.replaceChildren(el("div", { class: "hint-title" }, "pimc is thinking about your cards..."));
  try {
    const data = await api("POST", `/api/tables/${state.id}/hint`, {});
    hint = { version: data.version, values: data.values };
    if (table && table.version === data.version) drawTable(table, true);
  } catch (e) {
    hint = null;
    box.replaceChildren(el("div", { class: "hint-title" }, e.message));
  }
}

// ----------------------------------------------------------------- set-up
export function setupPlay() {
  $("mode").addEventListener("change", () => {
    $("parties-label").hidden = $("advisers-label").hidden = $("mode").value !== "session";
  });
  $("setup").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (running()) { $("confirm-discard").hidden = false; return; }
    create();
  });
  $("discard-yes").addEventListener("click", discardAndCreate);
  $("discard-no").addEventListener("click", () => { $("confirm-discard").hidden = true; });
  $("hint-on").addEventListener("change", () => { if (table) drawTable(table, true); });
}
