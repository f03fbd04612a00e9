// Replay: a saved-games file stepped through with every hand open (trappola/web/replay.py).
// The address #replay/<file id>/<game>/<step> names the open file, the game and the step.
import { $, el, cardNode, api, showError, readFile, cardLabel, declList, outcomeText, resultTable,
  detailsList, pointsText, ROLES, fmt, signed, shortNames, specsLine } from "./util.js";

let replay = null;  // {fileId, name, games, k, frames, summary, step, pair}
let autoTimer = null;

export function openReplayFile() { return replay; }

function setAddress() {
  if (!replay) return;
  const want = replay.frames ? `#replay/${replay.fileId}/${replay.k}/${replay.step}` : `#replay/${replay.fileId}`;
  if (location.hash !== want) history.replaceState(null, "", want);
}

function gameLabel(g) {
  const where = g.session ? `session ${g.session.session ?? "?"}, partie ${g.session.partie_index + 1}${g.session.pro_declarer ? " (Pro)" : ""}`
    : `deal ${g.deal_index ?? "?"}${g.game ? " (seats swapped)" : ""}`;
  return `${where}: ${g.players[0]} vs ${g.players[1]}, ` +
    `${g.winner ? g.winner + " won" : g.outcome.replace("_", " ")} ${g.points[0]}-${g.points[1]}`;
}

function samePair(g, pair) {
  const p = g.pair || g.players;
  return (p[0] === pair[0] && p[1] === pair[1]) || (p[0] === pair[1] && p[1] === pair[0]);
}

function drawGameList() {
  const run = replay.run;
  const games = replay.pair ? replay.games.filter((g) => samePair(g, replay.pair)
    && (!run || (g.evaluation === run.evaluation && g.deal_index !== null && g.deal_index < run.deals))) : replay.games;
  const sel = $("game-select");
  sel.replaceChildren(...games.map((g) => el("option", { value: g.index, selected: g.index === replay.k }, gameLabel(g))));
  sel.hidden = false;
  const n = replay.games.length;
  $("replay-name").textContent = replay.name ? `${replay.name} (${n} game${n === 1 ? "" : "s"})` : "";
  const filter = $("pair-filter");
  if (replay.pair) {
    filter.replaceChildren(`games of ${replay.pair[0]} vs ${replay.pair[1]} (${games.length}) `,
      el("button", { onclick: () => { replay.pair = null; replay.run = null; drawGameList(); } }, "show all"));
    filter.hidden = false;
  } else {
    filter.hidden = true;
  }
  return games;
}

function listed(data) {
  replay = { fileId: data.id, name: data.name, games: data.games, k: null, frames: null, step: 0, pair: null, run: null };
}

// Show the games of one pair of players (a link from the leaderboard).
export async function showPair(pair, run = null) {
  if (!replay) return;
  replay.pair = pair;
  replay.run = run;
  const games = drawGameList();
  if (games.length) await loadGame(games[0].index, 0);
}

export async function resumeReplay(fileId, k, step) {
  try {
    if (!replay || replay.fileId !== fileId) listed(await api("GET", `/api/replays/${fileId}`));
    drawGameList();
    if (k === null || Number.isNaN(k)) k = 0;
    if (replay.k !== k || !replay.frames) await loadGame(k, step || 0);
    else showStep(step || 0);
  } catch (e) { showError(`${e.message}`); }
}

async function loadGame(k, step = 0) {
  try {
    const data = await api("GET", `/api/replays/${replay.fileId}/${k}`);
    stopAuto();
    replay.k = k;
    replay.frames = data.frames;
    replay.summary = data.summary;
    $("game-select").value = String(k);
    $("replay").hidden = false;
    $("step-slider").max = String(data.frames.length - 1);
    showStep(step);
  } catch (e) { showError(e.message); }
}

// A hand as dealt, the cards already played greyed out.
function handWithPlayed(dealt, now) {
  const held = new Set(now.map((c) => c.id));
  return dealt.map((c) => cardNode(c, "div", held.has(c.id) ? {} : { class: `card ${c.suit} played`, title: `${cardLabel(c)}, played`, "aria-label": `${cardLabel(c)}, played` }));
}

// A partie of a saved Bulka session: its session around it, and the advice
// given for the decision about to be taken.
function drawSession(s, f) {
  if (!s) { $("r-session").replaceChildren(); $("r-advice").replaceChildren(); return; }
  const offer = s.pro_offer ? `${s.pro_offer.player} (streak ${s.pro_offer.streak}) ${s.pro_offer.declared ? "declared" : "did not declare"} Pro` : "";
  const rows = Object.entries(s.balances).map(([n, b]) => el("tr", {}, el("td", {}, n), el("td", {}, signed(b))));
  $("r-session").replaceChildren(el("h2", {}, `Session ${s.session ?? ""}, partie ${s.partie_index + 1}`),
    el("p", { id: "r-session-line" }, [offer, s.pro_declarer ? `Pro partie of ${s.pro_declarer}` : "",
      s.replay ? `Alifer replay, stakes x${s.multiplier}` : "", `waiting: ${s.queue.join(", ") || "nobody"}`,
      `Bulka after it: ${fmt(s.bulka)}${s.bulka_won ? ` (${fmt(s.bulka_won)} taken by the Pro winner)` : ""}`]
      .filter(Boolean).join(" · ")),
    el("table", { class: "score" }, el("tr", {}, el("th", {}, "balance after it"), el("th", {}, "")), rows),
    s.final_share !== null && s.final_share !== undefined ? el("p", {}, `The session ends: the Bulka is split, ${fmt(s.final_share)} each.`) : "");
  $("r-advice").replaceChildren(...(f.advice && f.advice.length ? [el("h2", {}, "Advice"),
    el("ul", { id: "r-advice-list" }, f.advice.map((a) => el("li", {}, `${a.adviser}: ${a.name}`)))] : []));
}

function showStep(k) {
  const frames = replay.frames;
  replay.step = Math.max(0, Math.min(frames.length - 1, k));
  const f = frames[replay.step];
  $("step-label").textContent = `step ${replay.step} of ${frames.length - 1}`;
  $("step-slider").value = String(replay.step);
  // Players by name ("pimc"), their specs in a details line.
  const short = shortNames(f.names);
  specsLine($("r-specs"), short);
  const names = f.names.map((n) => short.get(n));
  $("step-action").textContent = f.action ? `${names[f.action.seat]}: ${f.action.name}` : "the deal";
  for (const s of [0, 1]) {
    $(`r-name-${s}`).textContent = `${names[s]} (${ROLES[s]})${f.to_act === s && f.phase !== "done" ? " to play" : ""}`;
    $(`r-hand-${s}`).replaceChildren(...handWithPlayed(frames[0].hands[s], f.hands[s]));
    declList($(`r-decls-${s}`), f.declarations[s]);
  }
  $("r-stock").replaceChildren(...f.stock.map((c, i) => cardNode(c, "div",
    i === f.stock.length - 1 ? { class: `card ${c.suit} bottom`, title: "face-up bottom card" } : {})));
  $("r-trick").replaceChildren(...(f.lead ? [el("div", {}, el("div", { class: "role" }, `${names[f.lead.seat]} led`), cardNode(f.lead.card))] : []));
  const lt = f.last_trick;
  $("r-last-trick").replaceChildren(...(lt ? ["last trick:", cardNode(lt.lead), cardNode(lt.follow), `to ${names[lt.winner]}`] : []));
  $("r-score").replaceChildren(
    el("tr", {}, el("td", {}, ""), el("th", { scope: "col" }, names[0]), el("th", { scope: "col" }, names[1])),
    el("tr", {}, el("td", {}, "card points"), el("td", {}, f.card_points[0]), el("td", {}, f.card_points[1])),
    el("tr", {}, el("td", {}, "tricks"), el("td", {}, f.tricks_won[0]), el("td", {}, f.tricks_won[1])),
    el("tr", {}, el("td", {}, "trick"), el("td", { colspan: 2 }, `${f.trick} of 9`)));
  $("r-values").replaceChildren(...(f.values ? [
    el("h2", {}, `${names[f.action.seat]} considered`),
    el("div", { class: "values-box" }, el("table", { class: "values" }, el("tr", {}, el("th", {}, "card"), el("th", {}, "value"), el("th", {}, "win-loss"), el("th", {}, "points")),
      f.values.map((v) => el("tr", { class: v.chosen ? "chosen" : "" }, el("td", {}, cardLabel(v.card)),
        el("td", {}, v.objective.toFixed(3)), el("td", {}, v.sign.toFixed(2)), el("td", {}, pointsText(v.points)))))),
  ] : []));
  drawSession(replay.summary.session, f);
  $("r-result").replaceChildren(...(f.result ? [el("h2", {}, "Result"), el("p", { id: "r-outcome" }, outcomeText(f.result, (n) => short.get(n) || n)),
    resultTable(f.result, names), detailsList(f.result, f.names, (n) => short.get(n) || n)].filter(Boolean) : []));
  $("first").disabled = $("prev").disabled = replay.step === 0;
  $("next").disabled = $("last").disabled = replay.step === frames.length - 1;
  if (replay.step === frames.length - 1) stopAuto();
  setAddress();
}

function stopAuto() {
  clearInterval(autoTimer);
  autoTimer = null;
  $("autoplay").textContent = "\u25B6 play";
  $("autoplay").classList.remove("on");
}

function toggleAuto() {
  if (autoTimer) { stopAuto(); return; }
  if (replay.step === replay.frames.length - 1) showStep(0);
  const every = 1000 / Number($("speed").value);
  autoTimer = setInterval(() => showStep(replay.step + 1), every);
  $("autoplay").textContent = "\u23F8 pause";
  $("autoplay").classList.add("on");
}

export function setupReplay() {
  $("replay-file").addEventListener("change", async () => {
    try {
      const file = $("replay-file").files[0];
      const data = await api("POST", `/api/replays?name=${encodeURIComponent(file ? file.name : "")}`,
        await readFile($("replay-file")), "application/x-ndjson");
      listed(data);
      drawGameList();
      showError("");
      await loadGame(0);
    } catch (e) { showError(e.message); }
  });
  $("game-select").addEventListener("change", () => loadGame(Number($("game-select").value)));
  $("first").addEventListener("click", () => showStep(0));
  $("prev").addEventListener("click", () => showStep(replay.step - 1));
  $("next").addEventListener("click", () => showStep(replay.step + 1));
  $("last").addEventListener("click", () => showStep(replay.frames.length - 1));
  $("autoplay").addEventListener("click", toggleAuto);
  $("speed").addEventListener("change", () => { if (autoTimer) { stopAuto(); toggleAuto(); } });
  $("step-slider").addEventListener("input", () => { stopAuto(); showStep(Number($("step-slider").value)); });
  document.addEventListener("keydown", (ev) => {
    if ($("view-replay").hidden || !replay || !replay.frames || ["INPUT", "SELECT"].includes(ev.target.tagName)) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1 };
    if (ev.key in moves) { stopAuto(); showStep(replay.step + moves[ev.key]); }
    else if (ev.key === "Home") showStep(0);
    else if (ev.key === "End") showStep(replay.frames.length - 1);
    else if (ev.key === " ") { ev.preventDefault(); toggleAuto(); }
  });
}
