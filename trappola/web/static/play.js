// Play: you against a computer player, one partie or a Bulka session (trappola/web/play.py).
// A session with advisers seats 3-4 players: while you wait, the partie of the
// other two is shown from the onlookers' side (no hand), paced by the speed
// setting; when you defend a Pro partie, the waiting players' advice is listed
// beside your hand. The game's address is #play/<table id>, so a reload resumes it.
// Input is taken only when the table is still: never while a request is out, a
// card moves into the trick or a finished trick is on show (a double click plays
// one card). On a phone a card is tapped, then confirmed.
import { $, el, cardNode, api, showError, fmt, signed, cardLabel, declList, resultTable, detailsList, pointsText,
  ROLES, shortNames, specsLine, loadSettings, saveSettings } from "./util.js";

// Per speed: how long a card takes into the trick, how long a finished trick stays, the seconds between
// the moves of the others while you wait.
const SPEEDS = {
  slow: { move: 450, hold: 1800, pace: 1.5 },
  normal: { move: 260, hold: 1100, pace: 0.8 },
  fast: { move: 100, hold: 400, pace: 0.25 },
};
const SETTLE_MS = 300;  // after your own move, input waits at least this long (the hand has just changed under the pointer)

let table = null;       // the latest state from the server
let busy = false;       // a request of the person is in flight: input is disabled
let pollTimer = null;
let held = null;        // {trick, until}: the completed trick still shown
let lockUntil = 0;      // no input before this time (a card moving, the hand just redrawn)
let lockTimer = null;
let handLocked = false; // the hand was drawn shut on the person's turn: a redraw opens it
let hint = null;        // {version, values} for the current turn
let selected = null;    // a card tapped once on a phone, waiting for its confirmation
let setupOpen = false;  // the set-up form shown while a game runs
let keyboard = false;   // the person plays with the keyboard: focus follows the turn
let names = new Map();  // full player names (specs) -> the short names shown
let dismissed = null;   // "<table>/<version>" of an end box the person closed to see the table
let aliferOpen = false; // the Alifer proposal's confirmation is shown
const arrived = new Set();  // cards already drawn in the trick (each moves in once)

export function currentTableId() { return table ? table.id : null; }

function running() { return table && table.phase !== "over"; }
function speed() { return SPEEDS[$("play-speed").value] || SPEEDS.normal; }
function nm(name) { return name === "you" ? "you" : names.get(name) || name; }
const tapToConfirm = () => window.matchMedia("(max-width: 800px), (pointer: coarse)").matches;

function setAddress(id) {
  const want = id ? `#play/${id}` : "#play";
  if (location.hash !== want) history.replaceState(null, "", want);
}

// ------------------------------------------------------------- settings
const FIELDS = ["opponent", "mode", "parties", "advisers", "seat", "seed", "play-speed"];

function formSettings() {
  const out = Object.fromEntries(FIELDS.map((f) => [f, $(f).value]));
  out.hint = $("hint-on").checked;
  return out;
}

function applySettings(s) {
  for (const f of FIELDS) if (s[f] !== undefined && s[f] !== null) $(f).value = String(s[f]);
  if (s.hint !== undefined) $("hint-on").checked = Boolean(s.hint);
  $("parties-label").hidden = $("advisers-label").hidden = $("mode").value !== "session";
  document.documentElement.style.setProperty("--move-ms", `${speed().move}ms`);
}

// The form shows the game on the table (after a reload too), and is kept for the next visit.
function fillFormFrom(setup) {
  applySettings({
    opponent: setup.opponent, mode: setup.parties > 1 ? "session" : "1", parties: setup.parties > 1 ? setup.parties : undefined,
    advisers: (setup.advisers || []).join(", "), seat: setup.seat, seed: setup.seed,
  });
  saveSettings(formSettings());
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

function formBody() {
  const seed = $("seed").value.trim();
  const session = $("mode").value === "session";
  return {
    opponent: $("opponent").value.trim(),
    parties: session ? Number($("parties").value) : 1,
    seat: $("seat").value,
    seed: seed === "" ? null : Number(seed),
    advisers: session ? $("advisers").value.split(",").map((s) => s.trim()).filter(Boolean) : [],
  };
}

async function create(body = formBody()) {
  const state = await request("POST", "/api/tables", { ...body, pace: speed().pace });
  if (!state) { redraw(null); return; }
  $("gone").hidden = true;
  table = null;
  held = null;
  hint = null;
  selected = null;
  setupOpen = false;
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

function inputOpen() {
  return table && !busy && Date.now() >= lockUntil && !(held && Date.now() < held.until);
}

async function play(action) {
  if (!inputOpen()) return;
  selected = null;
  aliferOpen = false;
  lockUntil = Infinity;  // until the answer is drawn
  const state = await request("POST", `/api/tables/${table.id}/action`, { action });
  lockUntil = Date.now() + Math.max(SETTLE_MS, speed().move + 60);
  redraw(state);
  scheduleUnlock();
}

// One redraw when the table is still again (the finished trick seen, the hand settled): input opens then.
// It is due whenever the hand was drawn shut on the person's turn, even if the lock ran out meanwhile (a
// slow redraw), and when a finished trick is to leave the felt.
function scheduleUnlock() {
  clearTimeout(lockTimer);
  if (busy) return;  // a request is out: its answer redraws
  const until = Math.max(handLocked ? lockUntil : 0, held ? held.until : 0);
  if (!Number.isFinite(until) || (!handLocked && until <= Date.now())) return;
  // Only what the lock changes is redrawn (the trick and the hand): the rest of the page stays as it is.
  lockTimer = setTimeout(() => {
    if (!table) return;
    const focusInTable = $("table").contains(document.activeElement);
    drawTrick(table);
    drawHand(table);
    drawStatus(table);
    followFocus(table, focusInTable);
    scheduleUnlock();
  }, Math.max(0, until - Date.now()) + 20);
}

async function nextPartie() {
  if (busy || !table) return;
  const state = await request("POST", `/api/tables/${table.id}/next`, {});
  held = null;
  redraw(state);
}

async function rematch() {
  if (!table) return;
  const setup = table.setup;
  $("partie-end").hidden = $("backdrop").hidden = true;
  table = null;
  await create({ opponent: setup.opponent, parties: setup.parties, seat: setup.seat, seed: null, advisers: setup.advisers });
}

// The games of this table as a games.jsonl file, which Replay opens.
async function download() {
  if (!table) return;
  try {
    const res = await fetch(`/api/tables/${table.id}/games`);
    if (!res.ok) throw new Error((await res.json()).detail);
    const text = await res.text();
    if (!text) { showError("No partie has ended yet: there is nothing to download."); return; }
    const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
    const a = el("a", { href: url, download: `trappola-${table.id}.jsonl`, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  } catch (e) { showError(e.message); }
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
  $("partie-end").hidden = $("backdrop").hidden = true;
  drawSetup();
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
// The end box shows a finished partie until the person goes on (or, at game over, closes it).
function endShown(state) {
  return Boolean(state && state.last_partie && (state.paused || state.phase === "over") && dismissed !== `${state.id}/${state.version}`);
}

function drawSetup() {
  const collapsed = Boolean(running() || endShown(table)) && !setupOpen;
  $("setup").hidden = collapsed;
  $("setup-summary").hidden = !collapsed;
  if (!collapsed || !table) return;
  const s = table.setup;
  const advisers = s.advisers.length ? `, advisers ${s.advisers.map(nm).join(", ")}` : "";
  $("setup-text").textContent = `Playing ${nm(s.opponent)}${advisers} · ` +
    (s.parties > 1 ? `a Bulka session of ${s.parties} parties` : "one partie") + ` · seed ${s.seed}`;
}

function drawTable(state, force = false) {
  schedulePoll(state);
  const fresh = !table || table.id !== state.id || table.version !== state.version;
  if (!fresh && !force) return;
  const before = table && table.id === state.id ? table : null;
  if (!before) { arrived.clear(); fillFormFrom(state.setup); }
  table = state;
  if (fresh) noteCompletedTrick(before, state);
  const p = state.partie;
  names = shortNames([...state.ledger.players, state.opponent, ...(p ? p.names : [])]);
  const focusInTable = $("table").contains(document.activeElement) || $("partie-end").contains(document.activeElement);
  drawPartieEnd(state);
  drawSetup();
  $("table").hidden = false;
  $("table").dataset.version = `${state.id}/${state.version}`;
  $("table").classList.toggle("busy", busy);
  specsLine($("specs"), names);
  const me = p ? seatShown(p) : null;
  $("opp-name").textContent = p ? nm(p.names[1 - me]) : nm(state.opponent);
  $("my-name").textContent = state.watching || isWatching(state) ? nm(p.names[0]) : "you";
  $("my-role").textContent = p ? `(${ROLES[me]})` : "";
  $("opp-role").textContent = p ? `(${ROLES[1 - me]})` : "";
  const toPlay = p && p.phase !== "done" && !state.paused && state.phase === "partie" ? p.to_act : null;
  $("my-turn").hidden = toPlay === null || toPlay !== me;
  $("opp-turn").hidden = toPlay === null || toPlay === me;
  $("my-panel").classList.toggle("to-play", !$("my-turn").hidden);
  $("opp-panel").classList.toggle("to-play", !$("opp-turn").hidden);
  $("opp-backs").replaceChildren(...(p ? Array.from({ length: p.cards_left[1 - me] }, () => el("span", { class: "back" })) : []));
  $("opp-backs").setAttribute("aria-label", p ? `${p.cards_left[1 - me]} cards in hand` : "");
  $("opp-backs").setAttribute("role", "img");
  // An onlooker sees neither hand: both players' card backs are drawn, alike.
  const watching = isWatching(state) && state.phase !== "over";
  $("my-backs").hidden = !watching;
  $("my-backs").replaceChildren(...(watching ? Array.from({ length: p.cards_left[me] }, () => el("span", { class: "back" })) : []));
  $("my-backs").setAttribute("aria-label", watching ? `${p.cards_left[me]} cards in hand` : "");
  $("my-backs").setAttribute("role", "img");
  $("download").disabled = !state.last_partie;
  declList($("opp-decls"), p ? p.declarations[1 - me] : []);
  declList($("my-decls"), p ? p.declarations[me] : []);
  drawWatch(state);
  drawTrick(state);
  drawHand(state);
  drawAdvice(state);
  drawStatus(state);
  drawPro(state);
  drawScore(state);
  drawLedger(state);
  drawTricks(state);
  $("log").replaceChildren(...state.log.map((line) => el("li", {}, logLine(line))));
  const logBox = $("log"); logBox.scrollTop = logBox.scrollHeight;
  drawHint(state);
  followFocus(state, focusInTable);
  scheduleUnlock();
}

// A move line "pimc:samples=16: play Re of Spade" with the short name.
function logLine(line) {
  for (const [full, short] of names) if (full !== short && line.startsWith(`${full}: `)) return short + line.slice(full.length);
  return line;
}

// Keyboard play: once the person uses the keyboard, the focus goes to what it may do next.
function followFocus(state, focusInTable) {
  if (!$("partie-end").hidden) {
    if (!$("partie-end").contains(document.activeElement)) {
      const first = $("partie-end").querySelector("button.primary");
      if (first) first.focus();
    }
    return;
  }
  if (!(keyboard || focusInTable) || !state.your_turn) return;
  if ($("table").contains(document.activeElement) && !document.activeElement.disabled
      && document.activeElement !== document.body && document.activeElement.matches("button")) return;
  const next = document.querySelector("#confirm-bar:not([hidden]) #confirm-play, #hand button.legal:not([disabled]), " +
    "#pro-offer:not([hidden]) button:not([disabled]), #buttons button:not([disabled])");
  if (next) next.focus();
}

// While the person waits (p.me is null) the board shows the challenger at the bottom.
function isWatching(state) { return Boolean(state.partie && state.partie.me === null); }
function seatShown(p) { return p.me === null ? 0 : p.me; }
function seatName(state, seat) {
  const p = state.partie;
  if (!p) return nm(state.opponent);
  return seat === p.me ? "you" : nm(p.names[seat]);
}
function otherName(state) { return nm(state.partie && state.partie.me !== null ? state.partie.names[1 - state.partie.me] : state.opponent); }

function drawWatch(state) {
  const box = $("watch-banner");
  const p = state.partie;
  box.hidden = !(isWatching(state) && !state.paused && state.phase !== "over");
  if (box.hidden) return;
  box.textContent = `You wait in the queue: ${nm(p.names[0])} and ${nm(p.names[1])} play this partie, and you watch ` +
    `it as an onlooker (no hand is shown), one move every ${fmt(state.pace)} s (the Speed setting).`;
}

// The advice of the waiting players for the person's decision (a Pro partie it defends).
function drawAdvice(state) {
  const box = $("advice");
  const advice = state.partie && !state.paused ? state.partie.advice || [] : [];
  box.hidden = advice.length === 0;
  box.replaceChildren(...(advice.length ? [el("b", {}, "Advice from the waiting players (public record only; you decide): "),
    el("ul", { id: "advice-list" }, advice.map((a) => el("li", {}, el("b", {}, nm(a.adviser)), `: ${a.advice}`)))] : []));
}

function noteCompletedTrick(before, state) {
  const n = state.partie ? state.partie.tricks.length : 0;
  const m = before && before.partie ? before.partie.tricks.length : 0;
  if (n > m && state.partie) {
    held = { trick: state.partie.tricks[n - 1], until: Date.now() + speed().hold };
  }
}

// A card in the trick: it moves in from its player's side the first time it is drawn.
function played(state, seat, card, label) {
  const key = `${state.ledger.parties_played}/${card.name}`;
  const me = state.partie ? seatShown(state.partie) : 0;
  const cls = arrived.has(key) ? "" : ` arrive ${seat === me ? "from-below" : "from-above"}`;
  arrived.add(key);
  return el("div", { class: `played-card${cls}` }, el("div", { class: "role" }, label), cardNode(card));
}

function drawTrick(state) {
  const p = state.partie;
  const who = (seat) => seatName(state, seat);
  const nodes = [];
  if (held && Date.now() < held.until) {  // the next lead shows once the completed trick has been seen
    const t = held.trick;
    nodes.push(played(state, t.leader, t.lead, `${who(t.leader)} led`), played(state, 1 - t.leader, t.follow, who(1 - t.leader)),
      el("div", { class: "trick-winner" }, `trick to ${who(t.winner)}`));
    $("trick").classList.add("completed");
  } else {
    $("trick").classList.remove("completed");
    if (p && p.lead) nodes.push(played(state, p.lead.seat, p.lead.card, `${who(p.lead.seat)} led`));
  }
  $("trick").replaceChildren(...nodes);
  const lt = p && !$("trick").classList.contains("completed") && p.last_trick;
  $("last-trick").replaceChildren(...(lt ? ["last trick:", cardNode(lt.lead), cardNode(lt.follow), `to ${who(lt.winner)}`] : []));
}

function drawHand(state) {
  const p = state.partie;
  const legal = new Set(state.legal ? state.legal.cards : []);
  const open = inputOpen() && state.your_turn;
  if (selected !== null && !legal.has(selected)) selected = null;
  const values = hint && hint.version === state.version ? new Map(hint.values.map((v) => [v.card.id, v])) : new Map();
  handLocked = Boolean(state.your_turn && !open);
  $("hand").classList.toggle("settling", handLocked);
  $("hand").replaceChildren(...(p ? p.hand.map((c) => {
    const ok = legal.has(c.id) && open;
    const node = cardNode(c, "button", {
      class: `card ${c.suit}${legal.has(c.id) ? " legal" : ""}${selected === c.id ? " selected" : ""}`, disabled: !ok,
      "aria-pressed": tapToConfirm() && ok ? String(selected === c.id) : null, onclick: () => choose(c),
    });
    const v = values.get(c.id);
    if (v) node.append(el("span", { class: "value-badge" }, v.sign.toFixed(2)));
    return node;
  }) : []));
  const bar = $("confirm-bar");
  const card = selected !== null && p ? p.hand.find((c) => c.id === selected) : null;
  bar.hidden = !card || !open;
  if (card) $("confirm-play").textContent = `Play ${cardLabel(card)}`;
  const all = state.legal && state.phase !== "pro" ? state.legal.buttons : [];
  const buttons = all.filter((b) => b.action !== 44);
  drawAlifer(state, all.find((b) => b.action === 44), open);
  $("buttons").replaceChildren(...buttons.map((b) =>
    el("button", { "data-action": b.action, class: b.action >= 44 ? "secondary" : "declare", title: b.help, disabled: !open,
      onclick: () => play(b.action) }, el("span", {}, b.name), b.worth ? el("small", {}, b.worth) : null)));
}

// Proposing Alifer ends the partie if accepted: a small control under the hand that asks first, saying what
// accepting would leave each side with.
function drawAlifer(state, button, open) {
  const row = $("alifer-row"), box = $("alifer-confirm");
  row.hidden = !button;
  if (!button) { aliferOpen = false; box.hidden = true; return; }
  $("alifer-open").disabled = !open;
  $("alifer-open").setAttribute("aria-expanded", String(aliferOpen));
  box.hidden = !aliferOpen;
  if (!aliferOpen) return;
  const sides = button.if_accepted || [];
  const other = sides.find((x) => x.name !== "you");
  box.replaceChildren(
    el("p", { id: "alifer-title" }, el("b", {}, "Propose Alifer?"),
      ` If ${other ? nm(other.name) : "the other player"} accepts, this partie is abandoned: no points count and nothing ` +
      "is paid beyond the stakes already in the Bulka; the same two play again with a fresh deal at double stakes."),
    el("ul", { id: "alifer-sides" }, sides.map((x) => el("li", {}, `${x.name === "you" ? "you" : nm(x.name)}: ${signed(x.tokens)} ` +
      `tokens from this partie (the stake)${x.forgone ? `; declaration payments not made: ${signed(x.forgone)}` : ""}` +
      `; the replay's stake: ${fmt(x.next_stake)}`))),
    el("div", { class: "confirm-bar" },
      el("button", { id: "alifer-yes", type: "button", disabled: !open, onclick: () => { aliferOpen = false; play(44); } }, "Propose Alifer"),
      el("button", { id: "alifer-no", type: "button", class: "primary", onclick: () => { aliferOpen = false; drawHand(table); $("alifer-open").focus(); } },
        "Keep playing")));
}

// A click on a card: on a phone the first tap only picks it; the confirm button (or a second tap) plays it.
function choose(card) {
  if (!inputOpen()) return;
  if (tapToConfirm() && selected !== card.id) {
    selected = card.id;
    drawHand(table);
    $("confirm-play").focus();
    return;
  }
  play(card.id);
}

function drawStatus(state) {
  const p = state.partie;
  let status = "";
  if (state.error) status = state.error;
  else if (state.phase === "over") status = "The game is over.";
  else if (state.paused) status = "Partie over.";
  else if (state.your_turn && held && Date.now() < held.until) status = `Trick to ${seatName(state, held.trick.winner)}`;
  else if (state.your_turn && !inputOpen()) status = "";
  else if (state.your_turn) {
    status = state.phase === "pro" ? "Declare Pro?"
      : (p.phase === "alifer" ? `${otherName(state)} proposes Alifer: accept to abandon this partie (it is dealt again ` +
        "at double stakes), or decline to play it to its end" : "Your turn");
  } else if (state.phase === "pro") status = `${nm(state.pro.dealer)} decides whether to declare Pro`;
  else if (state.phase === "advice") status = p.me === 0 ? "The waiting players advise you" : `The waiting players advise ${nm(p.names[0])}`;
  else if (isWatching(state)) status = `You wait: ${nm(p.names[p.to_act])} is thinking`;
  else status = `${otherName(state)} is thinking`;
  $("status").textContent = status;
  // "to play" shows only once the hand opens (not while the finished trick is on show).
  const mine = $("my-turn"), locked = state.your_turn && !inputOpen();
  if (locked) mine.hidden = true;
  else if (state.your_turn) mine.hidden = false;
  $("my-panel").classList.toggle("to-play", !mine.hidden);
  $("status").className = "status" + (state.thinking ? " thinking" : "");
}

// The Pro decision (yours: what it costs and wins) and a Pro partie in play (whose).
function drawPro(state) {
  const offer = $("pro-offer");
  const pro = state.pro;
  const wasHidden = offer.hidden;
  if (pro && state.your_turn) {
    const button = (action, text) => el("button", { "data-action": action, class: action === 47 ? "primary" : "",
      disabled: busy, onclick: () => play(action) }, text);
    offer.replaceChildren(
      el("h2", {}, "Declare Pro?"),
      el("p", {}, `You have won ${pro.streak} parties in a row, so you may declare Pro before this partie against ${nm(pro.opponent)}.`),
      el("div", { class: "buttons" }, button(47, `Declare Pro (pay ${fmt(pro.extra_stake)})`), button(48, "Not now")),
      el("ul", {},
        el("li", {}, "Win it and you take the whole Bulka: at least ", el("b", { id: "pro-prize" }, fmt(pro.prize)),
          " tokens (the ", el("b", { id: "pro-bulka" }, fmt(pro.bulka)), ` in it now, your extra stake and both stakes of ` +
          `${fmt(pro.stake)}, plus any trick bonuses paid in during the partie); your streak starts again from 0.`),
        el("li", {}, "Declaring costs an extra stake of ", el("b", { id: "pro-extra" }, fmt(pro.extra_stake)),
          ` tokens now, on top of the normal stake of ${fmt(pro.stake)}. Lose the partie and it stays in the Bulka.`),
        el("li", {}, "Or wait: a normal partie, and the offer comes again while your streak lasts.")));
    offer.hidden = false;
    if (wasHidden) offer.scrollIntoView({ block: "nearest" });
  } else {
    offer.hidden = true;
  }
  const banner = $("pro-banner");
  const p = state.partie;
  const declarer = p && p.pro_declarer;
  if (declarer && !state.paused && state.phase !== "over") {
    const mine = declarer === "you";
    const who = nm(declarer);
    banner.textContent = mine
      ? `Pro partie: you declared Pro. Win it and you take the Bulka (${fmt(state.ledger.bulka)} tokens now).`
      : isWatching(state)
        ? `Pro partie: ${who} declared Pro against ${nm(p.names[0])}. If ${who} wins it takes the Bulka (${fmt(state.ledger.bulka)} tokens now).`
        : `Pro partie: ${who} declared Pro. If ${who} wins it takes the Bulka (${fmt(state.ledger.bulka)} tokens now); beat it and the Bulka stays.`;
    banner.hidden = false;
  } else {
    banner.hidden = true;
  }
}

function drawScore(state) {
  const p = state.partie;
  if (!p) { $("score").replaceChildren(); return; }
  const me = seatShown(p), op = 1 - me;
  const row = (label, ...cells) => el("tr", {}, el("th", { scope: "row" }, label), ...cells);
  $("score").replaceChildren(
    el("tr", {}, el("td", {}, ""), el("th", { scope: "col" }, seatName(state, me)), el("th", { scope: "col" }, nm(p.names[op]))),
    row("card points", el("td", {}, p.card_points[me]), el("td", {}, p.card_points[op])),
    row("tricks", el("td", {}, p.tricks_won[me]), el("td", {}, p.tricks_won[op])),
    row("trick", el("td", { colspan: 2 }, `${Math.min(p.trick, 9)} of 9`)),
    el("tr", { id: "stakes-row", title: "The Alifer multiplier m: every stake and payment of this partie is multiplied by it. " +
      "Each Alifer (a tie, or an agreed abandon) replays the partie with m doubled; a decided partie sets it back to 1." },
      el("th", { scope: "row" }, "stakes x"), el("td", { colspan: 2 }, p.multiplier + (p.replay ? " (Alifer replay)" : ""),
        el("small", { class: "note" }, "each Alifer doubles them"))),
    row("stock bottom", el("td", { colspan: 2 }, cardLabel(p.bottom), el("small", { class: "note" }, "face up; nobody plays it"))));
}

function drawLedger(state) {
  const l = state.ledger;
  const players = l.players.map((n) => el("tr", {}, el("td", {}, nm(n)), el("td", {}, fmt(l.balances[n] ?? 0)),
    el("td", {}, l.streaks[n] ?? 0)));
  const rows = l.rows.map((r) => el("tr", { class: "history-row" },
    el("td", {}, r.partie === null ? "end" : `#${r.partie}`), el("td", { class: "what" }, r.label),
    el("td", {}, signed(r.change)), el("td", {}, fmt(r.balance))));
  $("ledger").replaceChildren(
    el("div", {}, `Partie ${Math.min(l.parties_played + (state.paused ? 0 : 1), l.max_parties)} of ${l.max_parties} · Bulka `,
      el("b", { id: "ledger-bulka" }, fmt(l.bulka))),
    el("p", { class: "note" }, "The Bulka is the pot: every stake and trick bonus goes in; a Pro winner takes it all; " +
      "what is left is split among the players at the end."),
    el("table", {}, el("tr", {}, el("th", { scope: "col" }, "player"), el("th", { scope: "col" }, "balance"),
      el("th", { scope: "col" }, "streak")), players),
    el("p", { class: "note" }, "Streak: parties won in a row; at 2, a player about to deal may declare Pro."),
    rows.length ? el("div", { class: "rows-box", tabindex: "0", role: "region", "aria-label": "your tokens, one row per change" },
      el("table", { class: "history" }, el("tr", {}, el("th", { scope: "col" }, "partie"), el("th", { scope: "col" }, "what"),
        el("th", { scope: "col" }, "you"), el("th", { scope: "col" }, "balance")), rows)) : "");
  const box = $("ledger").querySelector(".rows-box");
  if (box) box.scrollTop = box.scrollHeight;
}

function drawTricks(state) {
  const p = state.partie;
  const who = (seat) => seatName(state, seat);
  $("tricks").replaceChildren(...(p ? p.tricks.map((t) => el("li", {},
    `${who(t.leader)} ${cardLabel(t.lead)}, ${who(1 - t.leader)} ${cardLabel(t.follow)}: `, el("b", {}, who(t.winner))))
    : []));
}

function outcome(result) {
  if (result.winner) {
    const who = result.winner === "you" ? "You win" : `${nm(result.winner)} wins`;
    return who + (result.outcome === "forfeit" ? " (forfeit)" : "");
  }
  return result.outcome === "tie" ? "Alifer: a tie in points" : "Alifer agreed";
}

// Each player's token change from the partie as a sum of named parts (trappola/web/tokens.py): the person's
// column first. The parts add up to the "this partie" row, the ledger's change.
const PART_NOTES = { stake: "paid into the Bulka", declarations: "paid between the two", bonuses: "trick bonuses paid into the Bulka",
  Pro: "the extra Pro stake", Bulka: "taken by winning Pro" };
function partsTable(lp) {
  const order = lp.tokens[1].name === "you" ? [lp.tokens[1], lp.tokens[0]] : lp.tokens;
  const used = order[0].parts.map((x, k) => x.part === "stake" || order.some((t) => t.parts[k].tokens !== 0));
  return el("table", { class: "score parts", id: "end-parts" },
    el("caption", {}, "Tokens from this partie"),
    el("tr", {}, el("td", {}, ""), order.map((t) => el("th", { scope: "col" }, nm(t.name)))),
    order[0].parts.map((x, k) => used[k] ? el("tr", { "data-part": x.part }, el("th", { scope: "row" }, x.part,
      el("small", { class: "note" }, PART_NOTES[x.part])), order.map((t) => el("td", {}, signed(t.parts[k].tokens)))) : null),
    el("tr", { class: "parts-total" }, el("th", { scope: "row" }, "this partie"), order.map((t) => el("td", {}, el("b", {}, signed(t.total))))));
}

function endSummary(state, lp) {
  const lines = [];
  const balance = `Your balance: ${fmt(state.ledger.balances.you)}.`;
  if (!lp.played) {
    lines.push(el("p", { id: "end-tokens" }, `You waited: ${nm(lp.names[0])} and ${nm(lp.names[1])} played this partie. ${balance}`));
  } else {
    const mine = lp.tokens.find((t) => t.name === "you");
    const sum = mine.parts.filter((x) => x.part === "stake" || x.tokens).map((x) => `${x.part} ${signed(x.tokens)}`).join(", ");
    lines.push(el("p", { id: "end-tokens" }, `Your tokens from this partie: ${signed(mine.total)} (${sum}). ${balance}`));
  }
  lines.push(partsTable(lp));
  if (lp.played) {
    lines.push(el("p", { id: "end-stake", class: "note" }, `Each partie costs both players a stake of ${fmt(lp.result.stake)} ` +
      "into the Bulka; winning it pays no tokens by itself. It raises your streak: two wins in a row let you declare " +
      "Pro as dealer, and a won Pro partie takes the whole Bulka."));
  }
  if (lp.pro) {
    const who = lp.pro === "you" ? "You" : nm(lp.pro);
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
  const show = endShown(state);
  box.hidden = !show;
  $("backdrop").hidden = !show;
  if (!show) return;
  const close = () => { dismissed = `${state.id}/${state.version}`; box.hidden = true; $("backdrop").hidden = true; drawSetup(); };
  const over = state.phase === "over";
  const actions = over
    ? [el("button", { id: "rematch", class: "primary", onclick: rematch }, "Rematch"),
      el("button", { id: "new-game", onclick: () => { close(); $("opponent").focus(); } }, "New game"),
      el("button", { id: "end-download", onclick: download }, "Download this game"),
      el("button", { id: "see-table", onclick: close }, "See the table")]
    : [el("button", { id: "next-partie", class: "primary", disabled: busy, onclick: nextPartie }, lp.next === "replay" ? "Replay the partie" : "Next partie")];
  const parts = [el("div", { class: "end-head" }, el("h2", { id: "end-title" }, outcome(lp.result)), el("div", { class: "end-actions" }, actions))];
  parts.push(...endSummary(state, lp));
  const mine = lp.names.indexOf("you");
  parts.push(resultTable(lp.result, lp.names.map(nm), mine === 1 ? [1, 0] : [0, 1], false));
  const why = detailsList(lp.result, lp.names, nm);
  if (why) parts.push(el("h3", {}, "Why"), why);
  lp.names.forEach((n, i) => parts.push(el("div", {}, el("b", {}, `${nm(n)} (${ROLES[i]}) held:`)),
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
      el("table", { class: "values" }, el("tr", {}, el("th", {}, "card"), el("th", {}, "outcome (win +1, loss -1)"), el("th", {}, "points")),
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
  applySettings(loadSettings());
  $("mode").addEventListener("change", () => {
    $("parties-label").hidden = $("advisers-label").hidden = $("mode").value !== "session";
  });
  for (const box of ["setup", "play-options"]) {
    $(box).addEventListener("change", () => saveSettings(formSettings()));
    $(box).addEventListener("input", () => saveSettings(formSettings()));
  }
  $("play-speed").addEventListener("change", async () => {
    document.documentElement.style.setProperty("--move-ms", `${speed().move}ms`);
    if (running()) {
      try { table.pace = (await api("POST", `/api/tables/${table.id}/pace`, { pace: speed().pace })).pace; }
      catch (e) { showError(e.message); }
    }
  });
  $("setup").addEventListener("submit", (ev) => {
    ev.preventDefault();
    if (running()) { $("confirm-discard").hidden = false; return; }
    create();
  });
  $("change-setup").addEventListener("click", () => { setupOpen = true; drawSetup(); $("opponent").focus(); });
  $("discard-yes").addEventListener("click", discardAndCreate);
  $("discard-no").addEventListener("click", () => { $("confirm-discard").hidden = true; setupOpen = false; drawSetup(); });
  $("hint-on").addEventListener("change", () => { if (table) drawTable(table, true); });
  $("confirm-play").addEventListener("click", () => { if (selected !== null) play(selected); });
  $("alifer-open").addEventListener("click", () => {
    aliferOpen = !aliferOpen;
    if (table) drawHand(table);
    if (aliferOpen) $("alifer-no").focus();
  });
  $("cancel-play").addEventListener("click", () => { selected = null; if (table) drawHand(table); });
  $("download").addEventListener("click", download);
  document.addEventListener("keydown", (ev) => {
    if (["Tab", "Enter", " ", "ArrowLeft", "ArrowRight"].includes(ev.key)) keyboard = true;
    if (!["ArrowLeft", "ArrowRight"].includes(ev.key) || !$("hand").contains(document.activeElement)) return;
    const cards = [...$("hand").querySelectorAll("button:not([disabled])")];
    const k = cards.indexOf(document.activeElement);
    const next = cards[(k + (ev.key === "ArrowRight" ? 1 : -1) + cards.length) % cards.length];
    if (next) { ev.preventDefault(); next.focus(); }
  });
  document.addEventListener("pointerdown", () => { keyboard = false; });
}
